/**
 * Query strings as the official SDK and other clients write them (decisions §1, §11): deep objects in brackets
 * (`timeoutOpts[milliseconds]=5000`, `headers[X-A]=b`), arrays comma-joined, repeated, indexed (`key[0]=`) or as JSON,
 * objects also as JSON, booleans `true/false/1/0`. `parse` builds a plain nested object of strings. An endpoint declares
 * its query as one `Schema.Struct` of members (`boolean`, `integer`, `list`, ... or any Schema over them): `decode`
 * reads a query with it, failing with an `InvalidRequest` that names the member, and `OpenApi` documents the same
 * Struct. The `as*` readers coerce one member of a parsed query.
 *
 * @since 0.1.0
 */
import { Errors, ScrapeRequest } from "@sift/core"
import { Either, ParseResult, Schema } from "effect"
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
export const readBoolean = (value: QueryValue, field: string): boolean => {
  const text = single(field, value).toLowerCase()
  if (text === "true" || text === "1") return true
  if (text === "false" || text === "0") return false
  throw invalid(field, `must be true or false, got "${text}"`)
}

/** Reads an integer; `null` (the word) and an empty value count as absent, as the contract allows nullable members. */
export const readInteger = (value: QueryValue, field: string): number | undefined => {
  const text = single(field, value)
  if (text === "null" || text === "") return undefined
  if (!/^-?\d+$/.test(text)) throw invalid(field, `must be an integer, got "${text}"`)
  return Number(text)
}

/** Reads a string (the last of repeated values). */
export const readString = (value: QueryValue, field: string): string => single(field, value)

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
export const readList = (value: QueryValue, field: string, options: { readonly commaSeparated: boolean }): Array<string> | undefined => {
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
export const readObject = (value: QueryValue, field: string): Record<string, unknown> | undefined => {
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
export const readJsonArray = (value: QueryValue, field: string): Array<unknown> | undefined => {
  if (Array.isArray(value) && value.every((item) => typeof item === "object")) return value as Array<unknown>
  const parsed = fromJson(field, single(field, value))
  if (parsed === null) return undefined
  if (!Array.isArray(parsed)) throw invalid(field, "must be a JSON array")
  return parsed
}

/** `timeoutOpts` (`timeoutOpts[milliseconds]=5000` or JSON), its digits made a number; what it holds is the caller's Schema's to check. */
export const readTimeoutOpts = (value: QueryValue, field: string): Record<string, unknown> | undefined => {
  const opts = readObject(value, field)
  if (opts === undefined) return undefined
  const raw = opts.milliseconds
  return { ...opts, milliseconds: typeof raw === "string" && /^-?\d+$/.test(raw) ? Number(raw) : raw }
}

const member = <Q>(query: Query, field: string, read: (value: QueryValue, field: string) => Q): Q | undefined => {
  const value = query[field]
  return value === undefined ? undefined : read(value, field)
}

/** Reads a boolean member (`true`, `false`, `1`, `0`). */
export const asBoolean = (query: Query, field: string): boolean | undefined => member(query, field, readBoolean)
/** Reads an integer member; `null` (the word) counts as absent. */
export const asInteger = (query: Query, field: string): number | undefined => member(query, field, readInteger)
/** Reads a string member. */
export const asString = (query: Query, field: string): string | undefined => member(query, field, readString)
/** Reads a list member (see `readList`). */
export const asList = (query: Query, field: string, options: { readonly commaSeparated: boolean }): Array<string> | undefined =>
  member(query, field, (value) => readList(value, field, options))
/** Reads an object member, from brackets or JSON. */
export const asObject = (query: Query, field: string): Record<string, unknown> | undefined => member(query, field, readObject)
/** Reads a JSON array member. */
export const asJsonArray = (query: Query, field: string): Array<unknown> | undefined => member(query, field, readJsonArray)

// ---- members of a query Schema ----

/**
 * A query member read by `read` into `type` (absent members never reach it; `undefined` means "given as null"). The
 * reader names what it rejects relative to the member (`""`, `[0]`, `[start]`), so one reader serves every name.
 */
export const reading = <A, I>(type: Schema.Schema<A, I>, read: (value: QueryValue, field: string) => unknown) =>
  Schema.transformOrFail(Schema.Unknown, Schema.UndefinedOr(type), {
    strict: false,
    decode: (value, _, ast) => {
      try {
        return ParseResult.succeed(read(value as QueryValue, ""))
      } catch (error) {
        if (!(error instanceof Errors.InvalidRequest)) throw error
        const issue = new ParseResult.Type(ast, value, error.detail)
        return ParseResult.fail(error.field === undefined || error.field === "" ? issue : new ParseResult.Pointer(error.field, value, issue))
      }
    },
    encode: (value, _, ast) => ParseResult.fail(new ParseResult.Forbidden(ast, value, "query members are only decoded"))
  })

/** The annotation of a member whose reader passes its value on unchecked: the Schema that checks it later, for OpenAPI. */
export const DocumentedAs = Symbol.for("@sift/http/QueryParams/DocumentedAs")

/** An optional member of a query Struct (absent stays absent). */
export const optional = <S extends Schema.Schema.All>(member: S) => Schema.optionalWith(member, { exact: true })

/** `true`, `false`, `1` or `0`. */
export const boolean = reading(Schema.Boolean, readBoolean)
/** A whole number; `null` or empty is absent. */
export const integer = reading(Schema.Int, readInteger)
/** Text (the last of repeated values). */
export const string = reading(Schema.String, readString)
/** One of `values`, failing with "must be one of ...". */
export const oneOf = <const L extends ReadonlyArray<string>>(...values: L) =>
  reading(Schema.Literal(...values), (value, field) => {
    const text = readString(value, field)
    if (!values.includes(text)) throw invalid(field, `must be one of ${values.join(", ")}`)
    return text as L[number]
  })
/** A list: comma-joined (`commaSeparated`), repeated, indexed or a JSON array. */
export const list = (options: { readonly commaSeparated: boolean }) => reading(Schema.Array(Schema.String), (value, field) => readList(value, field, options))
/** An object from brackets (`a[b]=1`) or JSON; its values as given. */
export const object = reading(Schema.Record({ key: Schema.String, value: Schema.Unknown }), readObject)
/** A JSON array (the documented form of `actions`). */
export const jsonArray = reading(Schema.Array(Schema.Unknown), readJsonArray)

/** `timeoutOpts`: `{ milliseconds, behavior: fail | return-partial }`, brackets or JSON, checked by `ScrapeRequest.TimeoutOpts`. */
export const timeoutOpts = reading(ScrapeRequest.TimeoutOpts.annotations({ parseOptions: { onExcessProperty: "error" } }), readTimeoutOpts)

/** A check of a member's value (skipped when absent): `message` names what is wrong. */
export const check = <A>(predicate: (value: A) => boolean, message: string) => <I, R>(self: Schema.Schema<A | undefined, I, R>) =>
  self.pipe(Schema.filter((value: A | undefined) => value === undefined || predicate(value) || message))

/** Text of 1 to `max` characters. */
export const text = (max: number) => string.pipe(check((value: string) => value.length >= 1 && value.length <= max, `must be 1 to ${max} characters`))

/** An ISO 8601 date-time (`2026-01-01` or later forms). */
export const dateTime = reading(Schema.DateFromSelf.annotations({ jsonSchema: { type: "string", format: "date-time" } }), (value, field) => {
  const text = readString(value, field)
  const date = new Date(text)
  if (!/^\d{4}-\d{2}-\d{2}/.test(text) || Number.isNaN(date.getTime())) throw invalid(field, `must be an ISO 8601 date-time, got "${text}"`)
  return date
})

/** `zdr`: enabled or disabled. */
export const zdr = reading(Schema.Literal("enabled", "disabled"), (value, field) => {
  const text = readString(value, field)
  if (text !== "enabled" && text !== "disabled") throw invalid(field, "must be enabled or disabled")
  return text
}).annotations({ description: "enabled or disabled (default disabled)" })

const isTags = Schema.is(ScrapeRequest.Tags)

/** `tags`: comma-separated, at most 20 of 1 to 50 characters. */
export const tags = list({ commaSeparated: true }).pipe(check((tags: ReadonlyArray<string>) => isTags(tags), "at most 20 tags of 1 to 50 characters")).annotations({ description: "Comma-separated, up to 20 of 1 to 50 characters" })

/** A query's path to a problem: the member, then `[i]` for list items and `.name` for JSON members (`actions[0].do`). */
const fieldOf = (path: ReadonlyArray<PropertyKey>): string =>
  path.reduce<string>((acc, key) =>
    typeof key === "number"
      ? `${acc}[${key}]`
      : acc === ""
      ? String(key)
      : String(key).startsWith("[")
      ? `${acc}${String(key)}`
      : `${acc}.${String(key)}`, "")

/** The first problem of a query Schema's parse error, as the `InvalidRequest` naming its member. */
export const fromParseError = (error: ParseResult.ParseError): Errors.InvalidRequest => {
  const [issue] = ParseResult.ArrayFormatter.formatErrorSync(error)
  const field = fieldOf(issue?.path ?? [])
  const detail = issue === undefined
    ? "invalid value"
    : issue._tag === "Unexpected"
    ? "is not a known member"
    : issue._tag === "Missing"
    ? "is required"
    : issue.message
  return new Errors.InvalidRequest({ reason: "Invalid", field: field === "" ? "query" : field, detail })
}

/** Reads a parsed query with an endpoint's query Schema (members it does not name are ignored). */
export const decode = <A, I>(schema: Schema.Schema<A, I>) => {
  const decodeEither = Schema.decodeUnknownEither(schema, { errors: "first" })
  return (query: Query): Either.Either<A, Errors.InvalidRequest> => Either.mapLeft(decodeEither(query), fromParseError)
}
