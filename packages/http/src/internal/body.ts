/**
 * Reading a request body with a cap. The platform's readers (`request.text`, `request.arrayBuffer`) buffer the whole body
 * unless a maximum is set, and stop past one by destroying the request, which destroys its socket too, so no answer can
 * be sent. Here a declared `content-length` over the cap is refused before a byte is read; a streamed (chunked) body is
 * read until the cap is crossed and no further (nothing more is kept); in both cases the answer says
 * `connection: close`. The connection then lingers, as nginx's does: the answer is written and the sending side
 * closed, while what the client still sends is read and dropped until it closes its side (or `LINGER_MS` passes).
 * Closing at once would answer the client's next bytes with a reset, which can reach it before it has read the answer.
 */
import type * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import { Effect, Stream } from "effect"
import * as http from "node:http"
import type * as net from "node:net"

/** The most bytes a JSON request body may have (2 MiB); `POST /parse` uploads have their own limit. */
export const MAX_JSON_BODY_BYTES = 2 * 1024 * 1024

/** Why a body was not read. */
export type Unread = "TooLarge" | "Unreadable"

/** The Node request and response under a platform request, when it has them (the API front's and the platform's). */
const nodeParts = (
  request: HttpServerRequest.HttpServerRequest
): { readonly source: http.IncomingMessage; readonly response: http.ServerResponse | undefined } | undefined => {
  const candidate = request as unknown as { readonly source?: unknown; readonly response?: unknown }
  if (!(candidate.source instanceof http.IncomingMessage)) return undefined
  const response = typeof candidate.response === "function" ? (candidate.response as () => unknown)() : candidate.response
  return { source: candidate.source, response: response instanceof http.ServerResponse ? response : undefined }
}

/** How long a connection refused for its body stays open after the answer, reading and dropping what still comes. */
export const LINGER_MS = 5_000
/** The most bytes dropped while lingering; past them the connection is closed at once. */
export const LINGER_BYTES = 64 * 1024 * 1024

/**
 * Answers with `connection: close`, drops the rest of the body as it comes, and closes lingering: Node ends such a
 * connection with `destroySoon` (its sending side closed, then the socket destroyed once the answer is written);
 * for this socket it keeps reading until the client closes its side, `LINGER_MS` passes or `LINGER_BYTES` came.
 */
const refuseRest = (source: http.IncomingMessage, response: http.ServerResponse | undefined): void => {
  if (response !== undefined && !response.headersSent) response.setHeader("connection", "close")
  const socket = source.socket as net.Socket | null
  let dropped = 0
  source.on("data", (chunk: Buffer) => {
    dropped += chunk.length
    if (dropped > LINGER_BYTES) socket?.destroy()
  })
  // The client may go away while the rest is dropped: nothing to report.
  source.on("error", () => {})
  source.resume()
  if (socket === null || socket.destroyed) return
  socket.destroySoon = function(this: net.Socket) {
    this.end()
    const timer = setTimeout(() => this.destroy(), LINGER_MS)
    this.once("close", () => clearTimeout(timer))
  }
}

// One array of its own (never a view into Node's buffer pool: converters may hand its buffer on).
const joined = (chunks: ReadonlyArray<Uint8Array>, total: number): Uint8Array<ArrayBuffer> => {
  const bytes = new Uint8Array(total)
  let offset = 0
  for (const chunk of chunks) {
    bytes.set(chunk, offset)
    offset += chunk.length
  }
  return bytes
}

const readNode = (source: http.IncomingMessage, response: http.ServerResponse | undefined, limit: number) =>
  Effect.async<Uint8Array<ArrayBuffer>, Unread>((resume) => {
    if (source.readableEnded) {
      resume(Effect.succeed(new Uint8Array(0)))
      return
    }
    const chunks: Array<Buffer> = []
    let total = 0
    const cleanup = () => {
      source.off("data", onData)
      source.off("end", onEnd)
      source.off("error", onError)
      source.off("close", onClose)
    }
    const onData = (chunk: Buffer) => {
      total += chunk.length
      if (total <= limit) {
        chunks.push(chunk)
        return
      }
      // Past the cap: what was read is dropped, and so is the rest; the connection closes after the answer.
      cleanup()
      chunks.length = 0
      refuseRest(source, response)
      resume(Effect.fail("TooLarge"))
    }
    const onEnd = () => {
      cleanup()
      resume(Effect.succeed(joined(chunks, total)))
    }
    const onError = () => {
      cleanup()
      resume(Effect.fail("Unreadable"))
    }
    // The client went away before the body ended.
    const onClose = () => {
      if (source.complete) return
      cleanup()
      resume(Effect.fail("Unreadable"))
    }
    source.on("data", onData)
    source.on("end", onEnd)
    source.on("error", onError)
    source.on("close", onClose)
    return Effect.sync(cleanup)
  })

// Requests without a Node request under them (MCP tool calls are internal web requests): their stream, up to the cap.
const readStream = (request: HttpServerRequest.HttpServerRequest, limit: number) =>
  Effect.suspend(() => {
    // A web request without a body (a tool call that posts none) has no stream to read: its body is empty.
    const source = (request as unknown as { readonly source?: unknown }).source
    if (source instanceof Request && source.body === null) return Effect.succeed(new Uint8Array(0))
    const chunks: Array<Uint8Array> = []
    let total = 0
    return request.stream.pipe(
      Stream.takeWhile((chunk) => {
        total += chunk.length
        if (total > limit) return false
        chunks.push(chunk)
        return true
      }),
      Stream.runDrain,
      Effect.mapError((): Unread => "Unreadable"),
      Effect.flatMap(() => total > limit ? Effect.fail<Unread>("TooLarge") : Effect.succeed(joined(chunks, total)))
    )
  })

/** The UTF-8 text of body bytes (no copy). */
export const text = (bytes: Uint8Array): string => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("utf8")

/**
 * The body's bytes, at most `limit` of them: fails with `TooLarge` at once when `content-length` declares more, or as
 * soon as a streamed body crosses the cap (the connection then closes after the answer); `Unreadable` when the client
 * goes away or the body cannot be read.
 */
export const read = (request: HttpServerRequest.HttpServerRequest, limit: number): Effect.Effect<Uint8Array<ArrayBuffer>, Unread> => {
  const node = nodeParts(request)
  const declared = Number(request.headers["content-length"] ?? "0")
  if (declared > limit) {
    if (node !== undefined) refuseRest(node.source, node.response)
    return Effect.fail("TooLarge")
  }
  return node === undefined ? readStream(request, limit) : readNode(node.source, node.response, limit)
}
