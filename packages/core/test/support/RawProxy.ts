/** Raw exchanges with a forward proxy, for the guard proxy's tests. */
import * as net from "node:net"

/** A raw HTTP/1.1 exchange with a proxy: what it answered until it closed or `until` matched. */
export const exchange = (proxy: string, request: string, until?: RegExp): Promise<string> =>
  new Promise((resolve) => {
    const url = new URL(proxy)
    const socket = net.connect({ host: url.hostname, port: Number(url.port) })
    let answer = ""
    socket.on("data", (chunk) => {
      answer += chunk.toString("latin1")
      if (until?.test(answer)) socket.destroy()
    })
    socket.on("close", () => resolve(answer))
    socket.on("error", () => undefined)
    socket.write(request)
  })
