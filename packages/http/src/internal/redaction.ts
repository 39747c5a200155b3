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
