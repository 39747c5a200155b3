/**
 * One HTTP exchange of the Fetcher: a GET through an undici dispatcher, answered either by a redirect to follow or by a
 * final response whose body has been read (decoded, capped). Everything happens under one AbortSignal, so interrupting
 * the Effect that runs it tears the socket down at once.
 */
import type { Readable } from "node:stream"
import type { Dispatcher } from "undici"
import { WebsiteError } from "../../Errors.js"
import { readBody } from "./body.js"

/** What one exchange produced. */
export type HopResult =
  | { readonly _tag: "Redirect"; readonly status: number; readonly location: string }
  | {
    readonly _tag: "Final"
    readonly status: number
    readonly headers: Record<string, string>
    readonly body: Uint8Array
  }

const redirectStatuses = new Set([301, 302, 303, 307, 308])

// Bytes of a redirect or error body read to keep the connection reusable; past that the socket is dropped instead.
const DRAIN_LIMIT = 64 * 1024

/** Response headers with lower-cased names, repeated headers joined as `fetch` joins them. */
export const flattenHeaders = (raw: Record<string, string | Array<string> | undefined>): Record<string, string> => {
  const out: Record<string, string> = {}
  for (const [name, value] of Object.entries(raw)) {
    if (value !== undefined) out[name.toLowerCase()] = Array.isArray(value) ? value.join(", ") : value
  }
  return out
}

const drain = async (body: Readable & { dump?: (opts: { limit: number }) => Promise<void> }): Promise<void> => {
  try {
    if (body.dump !== undefined) await body.dump({ limit: DRAIN_LIMIT })
    else body.destroy()
  } catch {
    body.destroy()
  }
}

/** Performs one GET of `url` and reads the outcome; 4xx/5xx fail with `WebsiteError` `HttpStatus`. */
export const hop = async (options: {
  readonly dispatcher: Dispatcher
  readonly url: URL
  readonly headers: Record<string, string>
  readonly maxBytes: number
  readonly signal: AbortSignal
}): Promise<HopResult> => {
  const { url, signal } = options
  const response = await options.dispatcher.request({
    origin: url.origin,
    path: `${url.pathname}${url.search}`,
    method: "GET",
    headers: options.headers,
    signal
  })
  const body = response.body as unknown as Readable
  // Destroying an unread undici body emits an AbortError; we destroy on purpose, so that error is expected.
  body.on("error", () => {})
  // undici aborts the body on abort too, but only while the request is in flight; make sure reading stops.
  const onAbort = () => body.destroy(signal.reason instanceof Error ? signal.reason : new Error("aborted"))
  signal.addEventListener("abort", onAbort, { once: true })
  try {
    const headers = flattenHeaders(response.headers)
    const location = headers["location"]
    if (redirectStatuses.has(response.statusCode) && location !== undefined) {
      await drain(body)
      return { _tag: "Redirect", status: response.statusCode, location }
    }
    if (response.statusCode >= 400) {
      await drain(body)
      const retryAfterMs = response.statusCode === 429 || response.statusCode === 503 ? retryAfter(headers["retry-after"]) : undefined
      throw new WebsiteError({ reason: "HttpStatus", url: url.href, status: response.statusCode, ...(retryAfterMs === undefined ? {} : { retryAfterMs }) })
    }
    const length = headers["content-length"] === undefined ? undefined : Number(headers["content-length"])
    const bytes = await readBody(body, headers["content-encoding"], Number.isFinite(length) ? length : undefined, options.maxBytes)
    return { _tag: "Final", status: response.statusCode, headers, body: bytes }
  } finally {
    signal.removeEventListener("abort", onAbort)
  }
}

/** `Retry-After` as milliseconds from now: delta seconds or an HTTP date; `undefined` when absent or unreadable. */
export const retryAfter = (value: string | undefined, now = Date.now()): number | undefined => {
  if (value === undefined) return undefined
  const text = value.trim()
  if (/^\d+$/.test(text)) return Number(text) * 1000
  const at = Date.parse(text)
  return Number.isNaN(at) ? undefined : Math.max(0, at - now)
}
