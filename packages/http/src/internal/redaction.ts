import { stringify } from "./json.js"

/** Secrets never reach the request log: API keys anywhere, forwarded header values, and oversized responses. */
const API_KEY = /sift_sk_[A-Za-z0-9]{40}/g
const MAX_STRING = 65_536

// PostgreSQL text and jsonb cannot hold U+0000 or unpaired surrogates: either in a query or body would make its log
// row unwritable, so NULs become U+FFFD (and `toWellFormed` replaces unpaired surrogates).
const NUL = /\u0000/g
const wellFormed = (text: string): string => (text as unknown as { toWellFormed(): string }).toWellFormed()

/** Returns a copy of `value` with credentials replaced by `[redacted]`, NULs by U+FFFD and very long strings shortened. */
export const redact = (value: unknown, key?: string): unknown => {
  if (typeof value === "string") {
    if (key !== undefined && /^headers(\[|$)/i.test(key)) return "[redacted]"
    const cleaned = wellFormed(value.replace(API_KEY, "[redacted]").replace(NUL, "\uFFFD"))
    return cleaned.length > MAX_STRING ? `${cleaned.slice(0, MAX_STRING)}… [${cleaned.length - MAX_STRING} more characters]` : cleaned
  }
  if (Array.isArray(value)) return value.map((item) => redact(item))
  if (typeof value === "object" && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) =>
      k.toLowerCase() === "headers" && typeof v === "object" && v !== null
        ? [k, Object.fromEntries(Object.keys(v).map((name) => [name, "[redacted]"]))]
        : [wellFormed(k.replace(NUL, "\uFFFD")), redact(v, k)]
    ))
  }
  return value
}

/** Response bodies longer than this are logged shortened, member by member. */
const MAX_LOGGED_TEXT = 262_144

/**
 * The logged form of a JSON response text: API keys replaced (a key never needs escaping in JSON, so the text can be
 * scanned as is); a very long body is shortened member by member so it stays valid JSON.
 */
export const redactJsonText = (text: string): string =>
  text.length <= MAX_LOGGED_TEXT ? text.replace(API_KEY, "[redacted]") : stringify(redact(JSON.parse(text)))

// Pre-serialized members repeat across requests (a memoized result's), so their redaction is remembered.
const MAX_REMEMBERED = 256
const redactedMembers = new Map<string, string>()

/**
 * The logged form of a response sent as `{` + `serialized` + `,` + the members of `rest` (a JSON object's text), as
 * `redactJsonText` makes it of the whole; the redaction of `serialized` is remembered. A key cannot span the two parts:
 * they meet at a comma.
 */
export const redactJsonParts = (serialized: string, rest: string): string => {
  if (serialized.length + rest.length > MAX_LOGGED_TEXT) return redactJsonText(`{${serialized},${rest.slice(1)}`)
  let redacted = redactedMembers.get(serialized)
  if (redacted === undefined) {
    redacted = serialized.replace(API_KEY, "[redacted]")
    if (redactedMembers.size >= MAX_REMEMBERED) redactedMembers.delete(redactedMembers.keys().next().value!)
    redactedMembers.set(serialized, redacted)
  }
  return `{${redacted},${rest.replace(API_KEY, "[redacted]").slice(1)}`
}

// Queries repeat too (a client polling the same URL): their redacted form is remembered by their text.
const redactedQueries = new Map<string, unknown>()

/** `redact` of a query string's parameters (as an object), remembered by the query's text. */
export const redactQuery = (search: string, params: () => URLSearchParams): unknown => {
  let redacted = redactedQueries.get(search)
  if (redacted === undefined) {
    redacted = redact(Object.fromEntries(params()))
    if (redactedQueries.size >= MAX_REMEMBERED) redactedQueries.delete(redactedQueries.keys().next().value!)
    redactedQueries.set(search, redacted)
  }
  return redacted
}
