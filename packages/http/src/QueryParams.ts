/**
 * Query strings as the official SDK and other clients write them (decisions §1, §11): deep objects in brackets
 * (`timeoutOpts[milliseconds]=5000`, `headers[X-A]=b`), arrays comma-joined, repeated, indexed (`key[0]=`) or as JSON,
 * objects also as JSON, booleans `true/false/1/0`. `parse` builds a plain nested object of strings; the `as*` readers
 * coerce one member, failing with an `InvalidRequest` that names it.
 *
 * @since 0.1.0
 */
import { Errors } from "@sift/core"
import * as Json from "./internal/json.js"

/** A parsed query value: a string, a list of values, or an object of values. */
export type QueryValue = string | ReadonlyArray<QueryValue> | { readonly [key: string]: QueryValue }
/** A parsed query. */
export type Query = { readonly [key: string]: QueryValue }

const invalid = (field: string, detail: string) => new Errors.InvalidRequest({ reason: "Invalid", field, detail })

/** Splits `a[b][0]` into `["a", "b", "0"]`. */
const pathOf = (key: string): Array<string> => {
  const open = key.indexOf("[")
  if (open <= 0 || !key.endsWith("]")) return [key]
  return [key.slice(0, open), ...key.slice(open + 1, -1).split("][")]
}

const assign = (target: Record<string, unknown>, path: ReadonlyArray<string>, value: string): void => {
  const [head, ...rest] = path
  if (head === undefined) return
  if (rest.length === 0) {
    const existing = target[head]
    target[head] = existing === undefined ? value : Array.isArray(existing) ? [...existing, value] : [existing, value]
    return
  }
  const child = target[head]
  const next = typeof child === "object" && child !== null && !Array.isArray(child) ? child as Record<string, unknown> : {}
  target[head] = next
  assign(next, rest, value)
}

/** Objects whose keys are all `0..n-1` (from `key[0]=`) become arrays. */
const normalise = (value: unknown): QueryValue => {
  if (typeof value === "string") return value
  if (Array.isArray(value)) return value.map(normalise)
  const entries = Object.entries(value as Record<string, unknown>)
  if (entries.length > 0 && entries.every(([key], index) => key === String(index))) return entries.map(([, v]) => normalise(v))
  return Object.fromEntries(entries.map(([key, v]) => [key, normalise(v)]))
}

/** Parses a query string (or `URLSearchParams`) into a nested object. `__proto__` and friends are ignored. */
export const parse = (search: string | URLSearchParams): Query => {
  const params = typeof search === "string" ? new URLSearchParams(search) : search
  const out: Record<string, unknown> = Object.create(null)
  for (const [key, value] of params) {
    const path = pathOf(key)
    // Bracket paths are cut at the JSON depth limit, so no walk over the parsed query can overflow; no member nests
    // anywhere near it, so a cut one still fails its member's validation.
    if (path.length > Json.MAX_DEPTH) path.length = Json.MAX_DEPTH
    if (path.some((part) => part === "__proto__" || part === "constructor" || part === "prototype")) continue
    assign(out, path, value)
  }
  return normalise(out) as Query
}

const single = (field: string, value: QueryValue): string => {
  if (typeof value === "string") return value
  if (Array.isArray(value) && value.length > 0 && typeof value[value.length - 1] === "string") return value[value.length - 1] as string
  throw invalid(field, "must be a single value")
}

/** Reads a boolean (`true`, `false`, `1`, `0`). */
export const asBoolean = (query: Query, field: string): boolean | undefined => {
  const value = query[field]
  if (value === undefined) return undefined
  const text = single(field, value).toLowerCase()
  if (text === "true" || text === "1") return true
  if (text === "false" || text === "0") return false
  throw invalid(field, `must be true or false, got "${text}"`)
}

/** Reads an integer; `null` (the word) counts as absent, as the contract allows nullable members. */
export const asInteger = (query: Query, field: string): number | undefined => {
  const value = query[field]
  if (value === undefined) return undefined
  const text = single(field, value)
  if (text === "null" || text === "") return undefined
  if (!/^-?\d+$/.test(text)) throw invalid(field, `must be an integer, got "${text}"`)
  return Number(text)
}

/** Reads a string. */
export const asString = (query: Query, field: string): string | undefined => {
  const value = query[field]
  return value === undefined ? undefined : single(field, value)
}

const fromJson = (field: string, text: string): unknown => {
  if (Json.textNestsDeeper(text)) throw invalid(field, Json.TOO_DEEP)
  try {
    return JSON.parse(text)
  } catch {
    throw invalid(field, "is not valid JSON")
  }
}

/**
 * Reads a list. `commaSeparated` splits comma-joined values (tags); without it a comma-joined value stays one item
 * (a CSS selector list keeps its meaning). JSON arrays (`["a","b"]`) are accepted either way.
 */
export const asList = (query: Query, field: string, options: { readonly commaSeparated: boolean }): Array<string> | undefined => {
  const value = query[field]
  if (value === undefined) return undefined
  const items = typeof value === "string" ? [value] : Array.isArray(value) ? value : undefined
  if (items === undefined) throw invalid(field, "must be a list")
  if (items.length === 1 && typeof items[0] === "string" && items[0].trimStart().startsWith("[")) {
    const parsed = fromJson(field, items[0])
    if (!Array.isArray(parsed) || !parsed.every((item) => typeof item === "string")) throw invalid(field, "must be a JSON array of strings")
    return parsed
  }
  const strings = items.map((item, index) => {
    if (typeof item !== "string") throw invalid(`${field}[${index}]`, "must be a string")
    return item
  })
  if (strings.length === 1 && strings[0] === "null") return undefined
  return options.commaSeparated
    ? strings.flatMap((item) => item.split(",")).map((item) => item.trim()).filter((item) => item !== "")
    : strings
}

/** Reads an object, from brackets (`a[b]=1`) or JSON (`a={"b":1}`); values stay strings unless JSON gave others. */
export const asObject = (query: Query, field: string): Record<string, unknown> | undefined => {
  const value = query[field]
  if (value === undefined) return undefined
  if (typeof value === "string") {
    if (value === "null") return undefined
    const parsed = fromJson(field, value)
    if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) throw invalid(field, "must be an object")
    return parsed as Record<string, unknown>
  }
  if (Array.isArray(value)) throw invalid(field, "must be an object")
  return value as Record<string, unknown>
}

/** Reads a JSON array of objects (the documented form of `actions`). */
export const asJsonArray = (query: Query, field: string): Array<unknown> | undefined => {
  const value = query[field]
  if (value === undefined) return undefined
  if (Array.isArray(value) && value.every((item) => typeof item === "object")) return value as Array<unknown>
  const parsed = fromJson(field, single(field, value))
  if (parsed === null) return undefined
  if (!Array.isArray(parsed)) throw invalid(field, "must be a JSON array")
  return parsed
}
