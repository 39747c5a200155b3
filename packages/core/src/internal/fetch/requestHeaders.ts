/**
 * The request headers of a fetch: browser-like defaults for an HTML page, overridden by the caller's forwarded headers,
 * except the hop-by-hop and framing headers that belong to the connection, not to the caller.
 */

/** Headers a caller can never set: undici owns framing and connection management, and `Host` comes from the URL. */
const reserved = new Set([
  "host",
  "content-length",
  "connection",
  "transfer-encoding",
  "keep-alive",
  "upgrade",
  "expect",
  "te",
  "trailer",
  "proxy-connection"
])

const defaults: Record<string, string> = {
  accept: "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8",
  "accept-language": "en-US,en;q=0.9",
  "accept-encoding": "gzip, deflate, br"
}

/** Default headers with `userAgent`, then `forwarded` on top (names compared case-insensitively). */
export const buildHeaders = (
  userAgent: string,
  forwarded: Readonly<Record<string, string>> | undefined
): Record<string, string> => {
  const headers: Record<string, string> = { "user-agent": userAgent, ...defaults }
  for (const [name, value] of Object.entries(forwarded ?? {})) {
    const key = name.toLowerCase()
    if (!reserved.has(key)) headers[key] = value
  }
  return headers
}
