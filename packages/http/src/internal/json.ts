/**
 * V8's own `JSON.stringify`, whatever the global one has become. pdfjs-dist's legacy build (loaded by core's PDF
 * converter) installs core-js's `JSON.stringify` for `JSON.rawJSON` support: a replacer call per value and a second
 * pass over every character in JavaScript, several times slower on every response body. A fresh V8 context still
 * has the built-in; its errors are re-thrown as this realm's `TypeError` so callers see the usual class.
 */
import { runInNewContext } from "node:vm"

// Always the fresh context's: core-js also disguises its functions' source text as "[native code]".
const builtIn = runInNewContext("JSON.stringify") as (value: unknown) => string | undefined

/** Serializes a JSON value with the built-in serializer. */
export const stringify = (value: unknown): string => {
  try {
    return builtIn(value) as string
  } catch (error) {
    throw new TypeError(error instanceof Error || (typeof error === "object" && error !== null && "message" in error)
      ? String((error as { message: unknown }).message)
      : String(error))
  }
}

/**
 * The deepest nesting of arrays and objects a request's JSON may have (bodies, JSON query values, MCP tool arguments).
 * Deeper values would overflow the stack of the recursive walks over them (validation messages, redaction, the log's
 * serializer): V8's own `JSON.stringify` gives up at about 4,000 levels. Sift's own requests nest 5 levels at most.
 */
export const MAX_DEPTH = 64

/** Why a value nesting deeper than `MAX_DEPTH` is refused. */
export const TOO_DEEP = `nested deeper than ${MAX_DEPTH} levels`

/** The message of that refusal for a field (`body`, a query member). */
export const tooDeep = (field: string): string => `${field}: ${TOO_DEEP}`

/**
 * Whether JSON text nests arrays and objects deeper than `max`, by one pass over its brackets outside strings (cheaper
 * than parsing, so a hostile body is refused before `JSON.parse` builds it). Malformed text is left to `JSON.parse`.
 */
export const textNestsDeeper = (text: string, max: number = MAX_DEPTH): boolean => {
  // Fewer characters than levels cannot nest that deep: most bodies end here.
  if (text.length <= max) return false
  let depth = 0
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c === 0x22) {
      // A string: jump to its closing quote, one not escaped by an odd run of backslashes.
      for (;;) {
        i = text.indexOf("\"", i + 1)
        if (i === -1) return false
        let slashes = 0
        while (text.charCodeAt(i - 1 - slashes) === 0x5c) slashes++
        if (slashes % 2 === 0) break
      }
    } else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return true
    } else if (c === 0x5d || c === 0x7d) {
      depth--
    }
  }
  return false
}

/** Whether a parsed value nests arrays and objects deeper than `max`; walks iteratively, so any depth is safe. */
export const valueNestsDeeper = (value: unknown, max: number = MAX_DEPTH): boolean => {
  const pending: Array<readonly [unknown, number]> = [[value, 1]]
  while (pending.length > 0) {
    const [current, depth] = pending.pop()!
    if (typeof current !== "object" || current === null) continue
    if (depth > max) return true
    for (const member of Array.isArray(current) ? current : Object.values(current)) {
      if (typeof member === "object" && member !== null) pending.push([member, depth + 1])
    }
  }
  return false
}

/**
 * A copy of `value` whose arrays and objects more than `levels` levels down are emptied: a value deeper than `levels`
 * stays one level deeper (`levels + 1`), so a receiver with the limit `levels` refuses it as it would the original,
 * yet the copy is safe to serialize.
 */
export const cutBelow = (value: unknown, levels: number): unknown => {
  if (typeof value !== "object" || value === null) return value
  if (levels <= 0) return Array.isArray(value) ? [] : {}
  if (Array.isArray(value)) return value.map((item) => cutBelow(item, levels - 1))
  return Object.fromEntries(Object.entries(value).map(([key, member]) => [key, cutBelow(member, levels - 1)]))
}
