/**
 * The scrape endpoints: `POST /web/scrape` (decisions §2) and the single-format `GET /web/scrape/markdown`, `/html` and
 * `/bytes` (decisions §3). The GET queries are mapped onto the POST body, so validation, the pipeline and the cache
 * are one code path; error fields are renamed back to the query's names.
 *
 * @since 0.1.0
 */
import { type Cache, Errors, type Fetcher, Pipeline, ScrapeRequest } from "@sift/core"
import type * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import type { BlobStore } from "@sift/store"
import { Clock, Effect } from "effect"
import { ApiFailure } from "../ErrorMapping.js"
import * as Images from "../Images/Http.js"
import { andThen } from "../internal/steps.js"
import * as ScrapeCache from "../Screenshot/ScrapeCache.js"
import { stringify } from "../internal/json.js"
import * as QueryParams from "../QueryParams.js"
import type { Caller, Handler, Plan } from "../RequestPipeline.js"

/** A GET scrape query, decoded: the request and what the pipeline is told beside it. */
interface QueryRequest {
  readonly request: ScrapeRequest.ScrapeRequest
  readonly options: Pipeline.RunOptions
}

type ScrapeHandler<A = ScrapeRequest.ScrapeRequest> = Handler<
  A,
  Errors.InvalidRequest | ApiFailure,
  never,
  Errors.ScrapeError,
  Fetcher.Fetcher | Cache.Cache
>

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
const chargeOf = (base: number, document: Pipeline.DocumentInfo): number => base + document.ocrPages

export const planFor = <A>(request: ScrapeRequest.ScrapeRequest, credits: number, input: A): Plan<A> => ({
  input,
  credits: credits + ocrHold(request),
  zdr: request.zdr === "enabled",
  tags: request.tags ?? [],
  holdMs: request.timeoutMs + HOLD_SLACK_MS
})

/** Renames POST paths in a validation error back to the GET query member that produced them. */
const renameField = (renames: ReadonlyArray<readonly [string, string]>) => (error: Errors.InvalidRequest) => {
  const field = error.field
  if (field === undefined) return error
  for (const [from, to] of renames) {
    if (field === from || field.startsWith(`${from}[`) || field.startsWith(`${from}.`)) {
      return new Errors.InvalidRequest({ reason: error.reason, field: to + field.slice(from.length), detail: error.detail })
    }
  }
  return error
}

const commonRenames: ReadonlyArray<readonly [string, string]> = [
  ["sharedParams.includeSelectors", "includeSelectors"],
  ["sharedParams.excludeSelectors", "excludeSelectors"],
  ["sharedParams.mainContentOnly", "useMainContentOnly"],
  ["sharedParams.includeFrames", "includeFrames"],
  ["sharedParams.waitFor", "waitForMs"],
  ["sharedParams.settleAnimations", "settleAnimations"],
  ["sharedParams.actions", "actions"],
  ["sharedParams.headers", "headers"],
  ["sharedParams.country", "country"],
  ["sharedParams.parsers.pdf.startPage", "pdf[start]"],
  ["sharedParams.parsers.pdf.endPage", "pdf[end]"],
  ["markdownParams.includeLinks", "includeLinks"],
  ["markdownParams.includeImages", "includeImages"],
  ["timeoutOpts.milliseconds", "timeoutMS"],
  ["timeoutOpts", "timeoutOpts"]
]

/** GET actions use `do` (decisions §4); the POST form uses `type`. */
const actionFromQuery = (action: unknown, index: number): unknown => {
  if (typeof action !== "object" || action === null) {
    throw new Errors.InvalidRequest({ reason: "Invalid", field: `actions[${index}]`, detail: "must be an object" })
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
      throw new Errors.InvalidRequest({ reason: "Invalid", field: `actions[${index}].do`, detail: "must be wait, perform or scroll" })
  }
}

export const defined = <T extends Record<string, unknown>>(record: T): Partial<T> =>
  Object.fromEntries(Object.entries(record).filter(([, value]) => value !== undefined)) as Partial<T>

/** The shared query members of the GET scrape endpoints, as POST members. */
export const sharedFromQuery = (query: QueryParams.Query) => {
  const pdf = QueryParams.asObject(query, "pdf")
  const pdfNumber = (name: string) => {
    const value = pdf?.[name]
    if (value === undefined) return undefined
    if (typeof value === "number") return value
    if (typeof value === "string" && /^\d+$/.test(value)) return Number(value)
    throw new Errors.InvalidRequest({ reason: "Invalid", field: `pdf[${name}]`, detail: "must be a positive integer" })
  }
  const ocr = pdf?.ocr === undefined ? undefined : String(pdf.ocr) === "true" || String(pdf.ocr) === "1"
  const actions = QueryParams.asJsonArray(query, "actions")?.map(actionFromQuery)
  const headers = QueryParams.asObject(query, "headers")
  return defined({
    mainContentOnly: QueryParams.asBoolean(query, "useMainContentOnly"),
    includeSelectors: QueryParams.asList(query, "includeSelectors", { commaSeparated: false }),
    excludeSelectors: QueryParams.asList(query, "excludeSelectors", { commaSeparated: false }),
    includeFrames: QueryParams.asBoolean(query, "includeFrames"),
    waitFor: QueryParams.asInteger(query, "waitForMs"),
    settleAnimations: QueryParams.asBoolean(query, "settleAnimations"),
    actions: actions === undefined || actions.length === 0 ? undefined : actions,
    headers,
    country: QueryParams.asString(query, "country"),
    parsers: pdf === undefined ? undefined : { pdf: defined({ startPage: pdfNumber("start"), endPage: pdfNumber("end"), ocr: ocr === undefined ? undefined : ocr ? "auto" : "off" }) }
  })
}

export const timeoutFromQuery = (query: QueryParams.Query) => {
  const timeoutMs = QueryParams.asInteger(query, "timeoutMS")
  if (timeoutMs !== undefined) return { milliseconds: timeoutMs }
  const opts = QueryParams.asObject(query, "timeoutOpts")
  if (opts === undefined) return undefined
  return { ...opts, milliseconds: typeof opts.milliseconds === "string" && /^\d+$/.test(opts.milliseconds) ? Number(opts.milliseconds) : opts.milliseconds }
}

/** Decodes a POST-shaped input built from a query, with errors named after the query. */
export const decodeFromQuery = (build: () => unknown): Effect.Effect<ScrapeRequest.ScrapeRequest, Errors.InvalidRequest> =>
  Effect.try({
    try: build,
    catch: (error) => error instanceof Errors.InvalidRequest ? error : new Errors.InvalidRequest({ reason: "Invalid", detail: String(error) })
  }).pipe(Effect.flatMap(ScrapeRequest.decode), Effect.mapError(renameField(commonRenames)))

export const baseQuery = (query: QueryParams.Query) =>
  defined({
    url: QueryParams.asString(query, "url"),
    maxAgeMs: QueryParams.asInteger(query, "maxAgeMs"),
    timeoutOpts: timeoutFromQuery(query),
    zdr: QueryParams.asString(query, "zdr"),
    tags: QueryParams.asList(query, "tags", { commaSeparated: true })
  })

/** `POST /web/scrape`: 1 credit for any mix of formats, cache hits included; plus 1 per PDF page OCR recovered. */
export const scrape: Handler<
  ScrapeRequest.ScrapeRequest,
  Errors.InvalidRequest | ApiFailure,
  never,
  Errors.ScrapeError,
  Fetcher.Fetcher | Cache.Cache | BlobStore.BlobStore | HttpServerRequest.HttpServerRequest
> = {
  validate: (caller) =>
    Effect.map(ScrapeRequest.decode(caller.body), (request) => planFor(request, 1, request)).pipe(
      Effect.tap((plan) => refuseFreeActions(caller, plan.input))
    ),
  run: (_caller, request) =>
    Effect.gen(function*() {
      const startedAt = yield* Clock.currentTimeMillis
      // Image dedupe and enrichment (`imageParams`) download the images within what is left of the deadline.
      // The screenshot output goes through the screenshot cache; everything else as Pipeline.runMemoized.
      const outcome = yield* ScrapeCache.run(request)
      const { result } = yield* Images.enrichResult(request, outcome.result, startedAt)
      return { body: { ...result }, credits: chargeOf(1, outcome.document) }
    })
}

/** `pdf[shouldParse]=false` (default true): a PDF target is then refused with `PDF_SKIPPED`. */
const runOptions = (query: QueryParams.Query): Pipeline.RunOptions => {
  const value = QueryParams.asObject(query, "pdf")?.shouldParse
  return value === undefined ? {} : { pdfShouldParse: !(String(value) === "false" || String(value) === "0") }
}

// Decoding a query is a pure function of its text and costs more than the rest of a cache hit together, so the
// last thousand successfully decoded queries are remembered per endpoint (failures are cheap and not kept).
const MAX_DECODED = 1_000
const decodedQueries = new Map<string, QueryRequest>()

/** Decodes the caller's query (built into a POST-shaped input by `build`), remembering the outcome. */
const decodeQuery = (endpoint: string, caller: Caller, build: (query: QueryParams.Query) => unknown) => {
  const key = `${endpoint}${caller.search}`
  const known = decodedQueries.get(key)
  if (known !== undefined) return Effect.succeed(known)
  return Effect.map(decodeFromQuery(() => build(caller.query)), (request): QueryRequest => {
    const decoded = { request, options: runOptions(caller.query) }
    if (decodedQueries.size >= MAX_DECODED) decodedQueries.delete(decodedQueries.keys().next().value!)
    decodedQueries.set(key, decoded)
    return decoded
  })
}

export const hasActions = (request: ScrapeRequest.ScrapeRequest) => (request.sharedParams?.actions?.length ?? 0) > 0

/** Browser actions need a paid plan (decisions §3): refused before any work, so nothing is charged. */
const refuseFreeActions = (caller: Caller, request: ScrapeRequest.ScrapeRequest) =>
  hasActions(request) && caller.auth.org.plan === "free"
    ? Effect.fail(new ApiFailure({ code: "PAID_PLAN_REQUIRED", detail: "actions: browser actions need a paid plan" }))
    : Effect.void

/** `actionsApplied` and `actionsHtmlStale` of a result that ran actions (absent otherwise). */
const actionsOf = (info: Pipeline.RenderInfo) => {
  return info.actionsApplied === undefined ? {} : { actionsApplied: info.actionsApplied, actionsHtmlStale: info.actionsHtmlStale ?? false }
}

/** `GET /web/scrape/markdown`: 1 credit; 2 with actions; plus 1 per PDF page OCR recovered. */
export const markdown: ScrapeHandler<QueryRequest> = {
  validate: (caller: Caller) =>
    andThen(
      decodeQuery("markdown", caller, (query) => {
        const includeHtml = QueryParams.asBoolean(query, "includeHTML") ?? false
        const shorten = QueryParams.asBoolean(query, "shortenBase64Images")
        return {
          ...baseQuery(query),
          formats: { markdown: true, ...(includeHtml ? { html: true } : {}) },
          sharedParams: sharedFromQuery(query),
          markdownParams: defined({
            includeLinks: QueryParams.asBoolean(query, "includeLinks"),
            includeImages: QueryParams.asBoolean(query, "includeImages"),
            inlineImages: shorten === false ? "preserve" as const : undefined
          })
        }
      }),
      // A query decoded before is answered at once, so a repeated request is validated without a step of its own.
      (decoded) => {
        const request = decoded.request
        if (hasActions(request) && caller.auth.org.plan === "free") {
          return Effect.fail(new ApiFailure({ code: "PAID_PLAN_REQUIRED", detail: "actions: browser actions need a paid plan" }))
        }
        return Effect.succeed(planFor(request, hasActions(request) ? 2 : 1, decoded))
      }
    ),
  run: (_caller, { options, request }) =>
    Effect.map(Pipeline.runMemoized(request, options), ({ derived, document, render, result }) => ({
      // The members a memoized result always answers with are serialized once per memo.
      serialized: derived.get("markdown", () => {
        const markdownText = result.markdown.data ?? ""
        return stringify({
          success: true,
          markdown: markdownText,
          contentLength: Buffer.byteLength(markdownText, "utf8"),
          url: result.url,
          metadata: result.metadata,
          ...(result.html.requested ? { html: result.html.data ?? "" } : {}),
          ...actionsOf(render)
        }).slice(1, -1)
      }),
      body: {
        cache_metadata: result.cache_metadata,
        ...(result.isPartial ? { finalDOMState: "still-loading" } : {})
      },
      credits: chargeOf(hasActions(request) ? 2 : 1, document)
    }))
}

/** `GET /web/scrape/html`: 1 credit, plus 1 per PDF page OCR recovered; `type` is the detected document type. */
export const html: ScrapeHandler<QueryRequest> = {
  validate: (caller) =>
    Effect.map(
      decodeQuery("html", caller, (query) => ({ ...baseQuery(query), formats: { html: true }, sharedParams: sharedFromQuery(query) })),
      (decoded) => planFor(decoded.request, 1, decoded)
    ).pipe(Effect.tap((plan) => refuseFreeActions(caller, plan.input.request))),
  run: (_caller, { options, request }) =>
    Effect.map(Pipeline.runMemoized(request, options), ({ document, render, result }) => ({
      body: {
        success: true,
        html: result.html.data ?? "",
        url: result.url,
        type: document.type ?? "html",
        finalDOMState: result.isPartial ? "still-loading" : "complete",
        metadata: result.metadata,
        cache_metadata: result.cache_metadata,
        ...actionsOf(render)
      },
      credits: chargeOf(1, document)
    }))
}

/** `GET /web/scrape/bytes`: 1 credit; the original body, untouched. */
export const bytes: ScrapeHandler<QueryRequest> = {
  validate: (caller) =>
    Effect.map(
      decodeQuery("bytes", caller, (query) => {
        return {
          ...defined({
            url: QueryParams.asString(query, "url"),
            timeoutOpts: timeoutFromQuery(query),
            zdr: QueryParams.asString(query, "zdr"),
            tags: QueryParams.asList(query, "tags", { commaSeparated: true })
          }),
          formats: { bytes: true },
          sharedParams: defined({ headers: QueryParams.asObject(query, "headers"), country: QueryParams.asString(query, "country") }),
          maxAgeMs: 0
        }
      }),
      (decoded) => planFor(decoded.request, 1, decoded)
    ),
  run: (_caller, { request }) =>
    Effect.map(Pipeline.runMemoized(request), ({ result }) => {
      const data = result.bytes.data!
      return {
        body: {
          success: true,
          url: request.url,
          finalUrl: result.url,
          statusCode: result.metadata.statusCode ?? 200,
          contentType: data.contentType,
          contentLength: Buffer.from(data.base64, "base64").byteLength,
          encoding: "base64",
          bytes: data.base64
        },
        credits: 1
      }
    })
}
