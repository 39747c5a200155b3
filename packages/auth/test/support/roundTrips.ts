/**
 * Counts round trips to PostgreSQL: a TCP relay between the client and the server that reads the client's side of the
 * wire protocol and counts each message that asks the server to answer (`Sync` ends an extended-protocol exchange,
 * `Query` is a simple one). node-postgres sends one of them per statement and waits for its answer, so the count is the
 * number of round trips.
 */
import * as net from "node:net"

/** A relay to PostgreSQL and its count of round trips. */
export interface RoundTripCounter {
  /** `url` with the relay's host and port. */
  readonly url: string
  /** Round trips relayed so far, over every connection. */
  readonly count: () => number
  readonly close: () => Promise<void>
}

/** Starts a counting relay in front of the server of `url`. */
export const countRoundTrips = async (url: string): Promise<RoundTripCounter> => {
  const target = new URL(url)
  let count = 0
  const sockets = new Set<net.Socket>()
  const server = net.createServer((client) => {
    const upstream = net.connect(Number(target.port || 5432), target.hostname)
    sockets.add(client)
    sockets.add(upstream)
    // The first message (startup) has no type byte; every later one is a type byte and a 32-bit length (itself included).
    let started = false
    let pending: Buffer = Buffer.alloc(0)
    client.on("data", (chunk: Buffer) => {
      pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk])
      for (;;) {
        if (!started) {
          if (pending.length < 4) break
          const length = pending.readInt32BE(0)
          if (pending.length < length) break
          started = true
          pending = pending.subarray(length)
          continue
        }
        if (pending.length < 5) break
        const length = pending.readInt32BE(1)
        if (pending.length < length + 1) break
        const type = pending[0]
        if (type === 0x53 /* S */ || type === 0x51 /* Q */) count++
        pending = pending.subarray(length + 1)
      }
      upstream.write(chunk)
    })
    upstream.on("data", (chunk: Buffer) => client.write(chunk))
    const end = () => {
      client.destroy()
      upstream.destroy()
      sockets.delete(client)
      sockets.delete(upstream)
    }
    client.on("close", end)
    upstream.on("close", end)
    client.on("error", end)
    upstream.on("error", end)
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const relayed = new URL(url)
  relayed.hostname = "127.0.0.1"
  relayed.port = String((server.address() as net.AddressInfo).port)
  return {
    url: relayed.toString(),
    count: () => count,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy()
        server.close(() => resolve())
      })
  }
}
