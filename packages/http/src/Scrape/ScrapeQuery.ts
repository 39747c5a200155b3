/**
 * The query of the scrape GETs (`/web/scrape/markdown`, `/html`, `/bytes`, `/images`, the screenshots; decisions §3).
 * Each endpoint declares its query as one `Schema.Struct` of the members below plus its own; each member says how it
 * reads (`QueryParams`), what OpenAPI says of it, and where it lands in the `POST /web/scrape` body (`lands`). A GET is
 * then decoded, validated and cached as the POST it stands for, and a validation error of that body names the query
 * member it came from (`sharedParams.waitFor` → `waitForMs`).
 *
 * @since 0.1.0
 */
import { Errors, type Pipeline, ScrapeRequest } from "@sift/core"
import { Effect, Either, Schema, SchemaAST } from "effect"
import * as QueryParams from "../QueryParams.js"
import type { Caller, Plan } from "../RequestPipeline.js"

const LandsId = Symbol.for("@sift/http/ScrapeQuery/Lands")

/** Where a member lands in the POST body: `path`, as `to` makes it; errors under `renames`' paths name the member. */
interface Landing {
  readonly path: string
  readonly to?: ((value: any) => unknown) | undefined
  /** POST paths whose errors name the query field given (default: `path`'s name the member). */
  readonly renames?: Readonly<Record<string, string>> | undefined
}

/** Annotates a member with where it lands in the POST body (`path`, e.g. `sharedParams.waitFor`). */
export const lands = (path: string, options: Omit<Landing, "path"> = {}) => <S extends Schema.Schema.Any>(member: S): S =>
  member.annotations({ [LandsId]: { path, ...options } satisfies Landing }) as S

const landingOf = (ast: SchemaAST.AST): Landing | undefined => ast.annotations[LandsId] as Landing | undefined

/** The query members of every scrape GET. */
export const url = QueryParams.string.pipe(lands("url")).annotations({ description: "The page to scrape (http or https)" })
export const timeoutOpts = QueryParams.reading(Schema.Unknown, QueryParams.readTimeoutOpts).pipe(lands("timeoutOpts")).annotations({
  description: "{ milliseconds, behavior: fail | return-partial }",
  // Checked with the POST body, whose errors then name it.
  [QueryParams.DocumentedAs]: ScrapeRequest.TimeoutOpts
})
export const timeoutMS = QueryParams.integer.pipe(
  lands("timeoutOpts", { to: (milliseconds: number) => ({ milliseconds }), renames: { "timeoutOpts.milliseconds": "timeoutMS" } })
).annotations({ description: "1 to 300000; must be at least waitForMs + 10000 (wins over timeoutOpts)" })
export const zdr = QueryParams.string.pipe(lands("zdr")).annotations({ description: "enabled or disabled" })
export const tags = QueryParams.list({ commaSeparated: true }).pipe(lands("tags")).annotations({
  description: "Comma-separated, up to 20 of 1 to 50 characters"
})
export const headers = QueryParams.object.pipe(lands("sharedParams.headers")).annotations({
  description: "Headers forwarded to the target, headers[Name]=value; bypasses the cache"
})
export const country = QueryParams.string.pipe(lands("sharedParams.country")).annotations({ description: "ISO 3166-1 alpha-2 code of the exit country" })
export const maxAgeMs = QueryParams.integer.pipe(lands("maxAgeMs")).annotations({ description: "0 to 2592000000; default 86400000; 0 scrapes fresh" })
export const waitForMs = QueryParams.integer.pipe(lands("sharedParams.waitFor")).annotations({ description: "0 to 30000" })

/** GET actions use `do` (decisions §4); the POST form uses `type`. */
const actionFromQuery = (action: unknown, index: number): unknown => {
  if (typeof action !== "object" || action === null) {
    throw new Errors.InvalidRequest({ reason: "Invalid", field: `[${index}]`, detail: "must be an object" })
  }
  const { do: kind, ...rest } = action as Record<string, unknown>
  switch (kind) {
    case "wait":
      return { type: "wait", milliseconds: rest.timeMs }
    case "perform":
      return { type: "perform", action: rest.action }
    case "scroll":
      return {
        type: "scroll",
        ...(rest.direction === undefined ? {} : { direction: rest.direction }),
        ...(rest.amount === undefined ? {} : { amount: rest.amount }),
        ...(rest.maxScrolls === undefined ? {} : { maxScrolls: rest.maxScrolls }),
        ...(rest.container === undefined ? {} : { selector: rest.container })
      }
    default:
      throw new Errors.InvalidRequest({ reason: "Invalid", field: `[${index}].do`, detail: "must be wait, perform or scroll" })
  }
}

const actions = QueryParams.reading(Schema.Array(Schema.Unknown), (value, field) => QueryParams.readJsonArray(value, field)?.map(actionFromQuery)).pipe(
  lands("sharedParams.actions", { to: (list: ReadonlyArray<unknown>) => list.length === 0 ? undefined : list })
).annotations({
  description: "JSON array of browser actions (paid plans): {do: wait, timeMs}, {do: perform, action}, {do: scroll, direction, amount, maxScrolls, container}"
})

/** `pdf[start]`, `pdf[end]` (1-based page range), `pdf[ocr]` and `pdf[shouldParse]` (default true). */
const Pdf = Schema.Struct({
  start: Schema.optional(Schema.Number.annotations({ jsonSchema: { type: "integer", minimum: 1 } })),
  end: Schema.optional(Schema.Number.annotations({ jsonSchema: { type: "integer", minimum: 1 } })),
  ocr: Schema.optional(Schema.Boolean),
  shouldParse: Schema.optional(Schema.Boolean)
})

const pdf = QueryParams.reading(Pdf, (value, field) => {
  const object = QueryParams.readObject(value, field)
  if (object === undefined) return undefined
  const page = (name: string) => {
    const raw = object[name]
    if (raw === undefined) return undefined
    if (typeof raw === "number") return raw
    if (typeof raw === "string" && /^\d+$/.test(raw)) return Number(raw)
    throw new Errors.InvalidRequest({ reason: "Invalid", field: `${field}[${name}]`, detail: "must be a positive integer" })
  }
  const flag = (name: string, truth: (text: string) => boolean) => object[name] === undefined ? undefined : truth(String(object[name]))
  return defined({
    start: page("start"),
    end: page("end"),
    ocr: flag("ocr", (text) => text === "true" || text === "1"),
    shouldParse: flag("shouldParse", (text) => !(text === "false" || text === "0"))
  })
}).pipe(
  lands("sharedParams.parsers.pdf", {
    to: (pdf: typeof Pdf.Type) => defined({ startPage: pdf.start, endPage: pdf.end, ocr: pdf.ocr === undefined ? undefined : pdf.ocr ? "auto" : "off" }),
    renames: { "sharedParams.parsers.pdf.startPage": "pdf[start]", "sharedParams.parsers.pdf.endPage": "pdf[end]" }
  })
).annotations({ description: "pdf[start], pdf[end]: pages to convert; pdf[ocr]: OCR scanned pages; pdf[shouldParse]=false refuses a PDF (PDF_SKIPPED)" })

const { optional } = QueryParams

/** Members shared by the markdown, HTML and images GETs (in the order they are checked). */
export const fields = {
  maxAgeMs: optional(maxAgeMs),
  timeoutOpts: optional(timeoutOpts),
  timeoutMS: optional(timeoutMS),
  zdr: optional(zdr),
  tags: optional(tags),
  pdf: optional(pdf),
  actions: optional(actions),
  headers: optional(headers),
  useMainContentOnly: optional(QueryParams.boolean.pipe(lands("sharedParams.mainContentOnly")).annotations({ description: "Keep only the main content" })),
  includeSelectors: optional(QueryParams.list({ commaSeparated: false }).pipe(lands("sharedParams.includeSelectors")).annotations({
    description: "CSS selectors to keep (repeated, indexed or a JSON array; a comma-joined value is one selector list)"
  })),
  excludeSelectors: optional(QueryParams.list({ commaSeparated: false }).pipe(lands("sharedParams.excludeSelectors")).annotations({
    description: "CSS selectors to drop; exclusion wins"
  })),
  includeFrames: optional(QueryParams.boolean.pipe(lands("sharedParams.includeFrames")).annotations({ description: "Also read same-site iframes" })),
  waitForMs: optional(waitForMs),
  settleAnimations: optional(QueryParams.boolean.pipe(lands("sharedParams.settleAnimations")).annotations({ description: "Wait for animations to settle" })),
  country: optional(country)
}

/**
 * A scrape GET's query: its members, then `url`, which every one needs. A missing `url` is reported after the
 * members' own problems, as the POST body it stands for would report it (OpenAPI lists required members first).
 */
export const struct = <Fields extends Schema.Struct.Fields>(members: Fields) => Schema.Struct({ ...members, url })

/** `actionsApplied` and `actionsHtmlStale` of a result that ran actions (absent otherwise). */
export const actionsOf = (info: Pipeline.RenderInfo) =>
  info.actionsApplied === undefined ? {} : { actionsApplied: info.actionsApplied, actionsHtmlStale: info.actionsHtmlStale ?? false }

/** Removes the members whose value is `undefined`. */
export const defined = <T extends Record<string, unknown>>(record: T): Partial<T> =>
  Object.fromEntries(Object.entries(record).filter(([, value]) => value !== undefined)) as Partial<T>

/** Sets `value` at `path` of `body`, merging into an object already there. */
const place = (body: Record<string, unknown>, path: ReadonlyArray<string>, value: unknown) => {
  let target = body
  for (const key of path.slice(0, -1)) {
    const next = target[key]
    target = target[key] = typeof next === "object" && next !== null ? next as Record<string, unknown> : {}
  }
  const last = path[path.length - 1]!
  const existing = target[last]
  target[last] = typeof existing === "object" && existing !== null && typeof value === "object" && value !== null && !Array.isArray(value)
    ? { ...existing, ...value }
    : value
}

/** The POST body of a decoded query: `body` (the endpoint's fixed members) with every landed member placed in it. */
export const toPost = <A>(schema: Schema.Schema<A, any>, query: A, body: Record<string, unknown>): Record<string, unknown> => {
  for (const member of SchemaAST.getPropertySignatures(schema.ast)) {
    const landing = landingOf(member.type)
    const value = (query as Record<PropertyKey, unknown>)[member.name]
    if (landing === undefined || value === undefined) continue
    const landed = landing.to === undefined ? value : landing.to(value)
    if (landed !== undefined) place(body, landing.path.split("."), landed)
  }
  return body
}

/** POST paths and the query member their errors name, most specific first. */
const renamesOf = (schema: Schema.Schema.Any): ReadonlyArray<readonly [string, string]> =>
  SchemaAST.getPropertySignatures(schema.ast).flatMap((member) => {
    const landing = landingOf(member.type)
    if (landing === undefined) return []
    return Object.entries(landing.renames ?? { [landing.path]: String(member.name) })
  }).sort(([a], [b]) => b.length - a.length)

/** An error of the POST body, named after the query member it came from. */
const renamed = (renames: ReadonlyArray<readonly [string, string]>) => (error: Errors.InvalidRequest) => {
  const field = error.field
  if (field === undefined) return error
  for (const [from, to] of renames) {
    if (field === from || field.startsWith(`${from}[`) || field.startsWith(`${from}.`)) {
      return new Errors.InvalidRequest({ reason: error.reason, field: to + field.slice(from.length), detail: error.detail })
    }
  }
  return error
}

/** A GET scrape query, decoded: the request it stands for and the query itself. */
export interface Decoded<A> {
  readonly request: ScrapeRequest.ScrapeRequest
  readonly query: A
}

// Decoding a query is a pure function of its text and costs more than the rest of a cache hit together, so the
// last thousand successfully decoded queries are remembered per endpoint (failures are cheap and not kept).
const MAX_DECODED = 1_000
const decodedQueries = new Map<string, Decoded<unknown>>()

/**
 * The decoder of an endpoint's query: the Schema reads it, `post` makes the POST body it stands for (and may refuse
 * it, naming a member), `ScrapeRequest.decode` validates that. Outcomes are remembered by query text.
 */
export const decoder = <A>(endpoint: string, schema: Schema.Schema<A, any>, post: (query: A) => Record<string, unknown>) => {
  const read = QueryParams.decode(schema)
  const rename = renamed(renamesOf(schema))
  return (caller: Caller): Effect.Effect<Decoded<A>, Errors.InvalidRequest> => {
    const key = `${endpoint}${caller.search}`
    const known = decodedQueries.get(key)
    if (known !== undefined) return Effect.succeed(known as Decoded<A>)
    const query = read(caller.query)
    if (Either.isLeft(query)) return Effect.fail(query.left)
    return Effect.try({
      try: () => post(query.right),
      catch: (error) => error instanceof Errors.InvalidRequest ? error : new Errors.InvalidRequest({ reason: "Invalid", detail: String(error) })
    }).pipe(
      Effect.flatMap((body) => Effect.mapError(ScrapeRequest.decode(body), rename)),
      Effect.map((request) => {
        const decoded: Decoded<A> = { request, query: query.right }
        if (decodedQueries.size >= MAX_DECODED) decodedQueries.delete(decodedQueries.keys().next().value!)
        decodedQueries.set(key, decoded)
        return decoded
      })
    )
  }
}

/** `pdf[shouldParse]=false` (default true): a PDF target is then refused with `PDF_SKIPPED`. */
export const runOptions = (query: { readonly pdf?: typeof Pdf.Type | undefined }): Pipeline.RunOptions =>
  query.pdf?.shouldParse === undefined ? {} : { pdfShouldParse: query.pdf.shouldParse }

// A reservation outlives the request's own deadline by this much, then lapses (a crashed process never charges).
const HOLD_SLACK_MS = 60_000

/** PDF pages held for OCR when a request allows it and names no page range (a longer scan is charged at most this). */
const OCR_HOLD_PAGES = 50

/** Credits held for OCR beside the base cost: one per page of the requested range when `parsers.pdf.ocr` is `auto`. */
const ocrHold = (request: ScrapeRequest.ScrapeRequest): number => {
  const pdf = request.sharedParams?.parsers?.pdf
  if (pdf?.ocr !== "auto") return 0
  return pdf.endPage !== undefined ? pdf.endPage - (pdf.startPage ?? 1) + 1 : OCR_HOLD_PAGES
}

/** The charge of a delivered result: the endpoint's base cost plus one credit per PDF page OCR recovered. */
export const chargeOf = (base: number, document: Pipeline.DocumentInfo): number => base + document.ocrPages

/** Whether a request runs browser actions. */
export const hasActions = (request: ScrapeRequest.ScrapeRequest) => (request.sharedParams?.actions?.length ?? 0) > 0

/** The plan of a scrape: its credits (plus the OCR hold), ZDR, tags, hold time; browser actions need a paid plan (decisions §3). */
export const planFor = <A>(request: ScrapeRequest.ScrapeRequest, credits: number, input: A): Plan<A> => ({
  input,
  credits: credits + ocrHold(request),
  zdr: request.zdr === "enabled",
  tags: request.tags ?? [],
  holdMs: request.timeoutMs + HOLD_SLACK_MS,
  ...(hasActions(request) ? { paidPlanFor: "actions: browser actions need a paid plan" } : {})
})
