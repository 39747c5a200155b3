/**
 * Requests Node's HTTP parser refuses before any handler sees them (a request line and headers over `maxHeaderSize`,
 * malformed HTTP, a request that took too long to arrive) are answered with the contract's error body instead of
 * Node's bare status line, then the connection is closed. There is no request to authenticate yet, so no key metadata
 * and no request-log row; the body still has its `request_id` and `X-Request-Id`.
 *
 * Headers too large (a 100 KB URL, say) are 400 `INPUT_VALIDATION_ERROR`, the contract's code and status for invalid
 * input (it has no 414 or 431), with a message naming the limit.
 */
import { randomUUID } from "node:crypto"
import * as http from "node:http"
import type { Duplex } from "node:stream"

/** What a parser error becomes: its status, the contract's code and a message. */
export const describe = (
  error: NodeJS.ErrnoException,
  maxHeaderSize: number
): { readonly status: number; readonly errorCode: string; readonly message: string } => {
  switch (error.code) {
    case "HPE_HEADER_OVERFLOW":
      return {
        status: 400,
        errorCode: "INPUT_VALIDATION_ERROR",
        message: `request: the request line and headers exceed ${maxHeaderSize} bytes; send long values in a POST body`
      }
    case "ERR_HTTP_REQUEST_TIMEOUT":
      return { status: 408, errorCode: "REQUEST_TIMEOUT", message: "request: the request did not arrive in time" }
    default:
      return { status: 400, errorCode: "INPUT_VALIDATION_ERROR", message: "request: not a valid HTTP/1.1 request" }
  }
}

/** A server's `clientError` listener: a JSON error response on the socket, then the connection closed. */
export const handler = (error: NodeJS.ErrnoException, socket: Duplex): void => {
  // Nothing can be written to a connection already gone, nor into a response already being written on it (as Node's
  // own handler does, which reads the socket's in-flight response the same way).
  const inFlight = (socket as { readonly _httpMessage?: { readonly headersSent?: boolean } })._httpMessage
  if (error.code === "ECONNRESET" || !socket.writable || inFlight?.headersSent === true) {
    socket.destroy()
    return
  }
  const { status, errorCode, message } = describe(error, http.maxHeaderSize)
  const requestId = randomUUID()
  const body = JSON.stringify({ request_id: requestId, error_code: errorCode, message })
  socket.end(
    `HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\n` +
      "content-type: application/json\r\n" +
      `content-length: ${Buffer.byteLength(body)}\r\n` +
      `x-request-id: ${requestId}\r\n` +
      "connection: close\r\n\r\n" +
      body
  )
}
