/**
 * `POST /web/search` (wave2 §6): web search, optionally each result read to Markdown through the scrape pipeline.
 * Results come from the configured engine (`SearchProvider`, SearXNG at `SIFT_SEARXNG_URL`) or from Sift's own page
 * index of what this organization has read (`PageIndex`): the index answers when the query is scoped (`site:` or
 * `includeDomains`) to sites it covers, and, with no engine configured, any query of an organization that has
 * indexed pages; the response header `X-Sift-Search-Source` says which (`index` or `searxng`). No engine and nothing
 * indexed: 503 `SEARCH_UNAVAILABLE` naming `SIFT_SEARXNG_URL`; an engine that fails: 502 `EXTERNAL_PROVIDER_ERROR`.
 * Relevance tiers are computed here (BM25 of the query against each result's title and snippet, in tertiles).
 * `queryFanout` searches the query's variants (model-written when `SIFT_LLM_URL` is set, else deterministic) and merges
 * them by URL. Credits (§21.1): 1 per request plus 1 per result scraped to Markdown; `1 + numResults` held when
 * Markdown is asked for.
 *
 * @since 0.1.0
 */
import { Cache, Errors, type Fetcher, Pipeline, ScrapeRequest } from "@sift/core"
import * as LanguageModel from "@sift/core/LanguageModel"
import * as SearchProvider from "@sift/core/SearchProvider"
import { stem } from "@sift/core/Stem"
import { PageIndex } from "@sift/store/PageIndex"
import { Clock, Duration, Effect, Option, ParseResult, Schema } from "effect"
import * as CommonQuery from "../internal/commonQuery.js"
import type { Caller, Handler } from "../RequestPipeline.js"
import * as Indexing from "./Indexing.js"

/** Limits of the body (SDK: `numResults` 10–100, default 10). */
export const limits = {
  numResults: { min: 10, max: 100, default: 10 },
  queryLength: 2_000,
  domains: 100,
  defaultTimeoutMs: 60_000,
  /** Markdown reads at once. */
  concurrency: 5
} as const

/** The response header naming the source that answered. */
export const SOURCE_HEADER = "x-sift-search-source"

const Domains = Schema.Array(Schema.String.pipe(Schema.minLength(1), Schema.maxLength(253))).pipe(Schema.maxItems(limits.domains))

/** `markdownOptions` (SDK `WebSearchParams.MarkdownOptions`). */
export const MarkdownOptions = Schema.Struct({
  enabled: Schema.optional(Schema.Boolean).annotations({ description: "Read each result to Markdown (off by default; 1 credit per result read)" }),
  includeFrames: Schema.optional(Schema.Boolean),
  includeImages: Schema.optional(Schema.Boolean),
  includeLinks: Schema.optional(Schema.Boolean),
  maxAgeMs: Schema.optional(ScrapeRequest.MaxAgeMs),
  pdf: Schema.optional(Schema.Struct({
    start: Schema.optional(Schema.Int.pipe(Schema.greaterThanOrEqualTo(1))),
    end: Schema.optional(Schema.Int.pipe(Schema.greaterThanOrEqualTo(1))),
    shouldParse: Schema.optional(Schema.Boolean)
  })),
  shortenBase64Images: Schema.optional(Schema.Boolean),
  timeoutOpts: Schema.optional(ScrapeRequest.TimeoutOpts),
  useMainContentOnly: Schema.optional(Schema.Boolean),
  waitForMs: Schema.optional(Schema.Int.pipe(Schema.between(0, 30_000)))
})

/** The body of `POST /web/search`. */
export const Body = Schema.Struct({
  query: Schema.String.pipe(
    Schema.filter((q) => q.trim() !== "" || "must not be empty"),
    Schema.maxLength(limits.queryLength)
  ).annotations({ description: "Words, quoted phrases, site:/-site:, OR" }),
  country: Schema.optional(Schema.String.pipe(Schema.pattern(/^[A-Za-z]{2}$/, { message: () => "must be a two-letter country code" }))),
  excludeDomains: Schema.optional(Domains).annotations({ description: "Drop results from these domains" }),
  freshness: Schema.optional(Schema.Literal("last_24_hours", "last_week", "last_month", "last_year")),
  includeDomains: Schema.optional(Domains).annotations({ description: "Only results from these domains" }),
  markdownOptions: Schema.optional(MarkdownOptions),
  numResults: Schema.optional(Schema.Int.pipe(Schema.between(limits.numResults.min, limits.numResults.max)))
    .annotations({ description: "Results to return, 10 to 100 (default 10)" }),
  queryFanout: Schema.optional(Schema.Boolean).annotations({ description: "Also search variants of the query and merge them" }),
  tags: Schema.optional(ScrapeRequest.Tags),
  timeoutOpts: Schema.optional(ScrapeRequest.TimeoutOpts),
  zdr: Schema.optional(ScrapeRequest.Zdr)
}).annotations({ description: "Search the web or Sift's own index, optionally reading each result to Markdown" })
/** @category models */
export type Body = typeof Body.Type

const decodeBody = Schema.decodeUnknown(Body, { onExcessProperty: "error", errors: "first" })

const freshnessMs: Record<SearchProvider.Freshness, number> = {
  last_24_hours: 86_400_000,
  last_week: 7 * 86_400_000,
  last_month: 31 * 86_400_000,
  last_year: 366 * 86_400_000
}

/** A result as answered. */
interface Result {
  readonly description: string
  readonly markdown: { readonly code: MarkdownCode; readonly markdown: string | null; readonly finalDOMState?: "loaded" | "still-loading" }
  readonly relevance: "high" | "medium" | "low"
  readonly title: string
  readonly url: string
}
type MarkdownCode = "SUCCESS" | "NOT_REQUESTED" | "TIMEOUT" | "CONTENT_TOO_LARGE" | "WEBSITE_ACCESS_ERROR" | "ERROR"

const words = (text: string): Array<string> =>
  (text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).filter((w) => w.length > 1 || /\d/.test(w)).map(stem)

/**
 * Relevance tiers: BM25 of the query's words against each result's title (counted twice) and snippet, the results
 * being the collection; the top third `high`, the next `medium`, the rest (and any result sharing no word) `low`.
 */
export const relevanceTiers = (query: string, hits: ReadonlyArray<{ readonly title: string; readonly description: string }>): Array<"high" | "medium" | "low"> => {
  const terms = [...new Set(words(SearchProvider.scopeOf(query).text.replace(/(^|\s)-\S+/g, " ")))]
  const docs = hits.map((hit) => words(`${hit.title} ${hit.title} ${hit.description}`))
  const n = docs.length
  const avg = docs.reduce((sum, d) => sum + d.length, 0) / Math.max(1, n)
  const df = new Map(terms.map((t) => [t, docs.filter((d) => d.includes(t)).length]))
  const scores = docs.map((doc) =>
    terms.reduce((sum, term) => {
      const tf = doc.filter((w) => w === term).length
      if (tf === 0) return sum
      const idf = Math.log(1 + (n - df.get(term)! + 0.5) / (df.get(term)! + 0.5))
      return sum + idf * (tf * 2.2) / (tf + 1.2 * (0.25 + 0.75 * doc.length / Math.max(1, avg)))
    }, 0))
  const order = scores.map((score, i) => ({ score, i })).sort((a, b) => b.score - a.score || a.i - b.i)
  const tiers = new Array<"high" | "medium" | "low">(n).fill("low")
  order.forEach(({ i, score }, rank) => {
    if (score > 0) tiers[i] = rank < Math.ceil(n / 3) ? "high" : rank < Math.ceil((2 * n) / 3) ? "medium" : "low"
  })
  return tiers
}

const stopWords = new Set(
  "a an and are as at be by for from how in is it of on or that the this to was what when where which who why with about into vs".split(" ")
)

/** Deterministic variants of a query: the words as a phrase, and the words without stop words (operators kept). */
export const deterministicVariants = (query: string): Array<string> => {
  const scope = SearchProvider.scopeOf(query)
  const operators = [...scope.sites.map((s) => `site:${s}`), ...scope.excludedSites.map((s) => `-site:${s}`)].join(" ")
  const plain = scope.text
  const variants: Array<string> = []
  const bare = plain.replace(/"/g, "").trim()
  if (bare.split(/\s+/).length > 1 && !plain.includes("\"")) variants.push(`"${bare}"`)
  const content = bare.split(/\s+/).filter((w) => !stopWords.has(w.toLowerCase()))
  if (content.length > 0 && content.join(" ") !== bare) variants.push(content.join(" "))
  return variants.map((v) => `${v} ${operators}`.trim()).filter((v) => v !== query.trim())
}

const VariantsSchema = {
  type: "object",
  properties: { queries: { type: "array", items: { type: "string", minLength: 1, maxLength: 300 }, minItems: 1, maxItems: 4 } },
  required: ["queries"],
  additionalProperties: false
}

/** Up to three variants written by the configured model; the deterministic ones when there is none or it fails. */
const variantsOf = (query: string, timeoutMs: number): Effect.Effect<Array<string>, never, LanguageModel.LanguageModel> =>
  Effect.gen(function*() {
    const model = yield* LanguageModel.LanguageModel
    if (Option.isNone(model.endpoint)) return deterministicVariants(query)
    const written = yield* LanguageModel.completeStructured(model.endpoint.value, [
      { role: "system", content: "You rewrite web search queries. Answer JSON {\"queries\": [...]} with up to 3 alternative queries for the same need: different words, no explanations. Keep site: operators." },
      { role: "user", content: query }
    ], VariantsSchema, { timeoutMs: Math.min(timeoutMs, 10_000), maxTokens: 400 }, { name: "query_variants" }).pipe(
      Effect.map((value) => (value as { queries: Array<string> }).queries.map((q) => q.trim()).filter((q) => q !== "" && q !== query.trim()).slice(0, 3)),
      Effect.catchAll((error) => Effect.as(Effect.logWarning(`search: query fan-out fell back to deterministic variants (${error.detail})`), deterministicVariants(query)))
    )
    return written.length > 0 ? written : deterministicVariants(query)
  })

/** Lists merged by URL, taking each list's next result in turn (the original query's first). */
const interleave = (lists: ReadonlyArray<ReadonlyArray<SearchProvider.SearchHit>>, limit: number): Array<SearchProvider.SearchHit> => {
  const seen = new Set<string>()
  const out: Array<SearchProvider.SearchHit> = []
  for (let i = 0; out.length < limit && lists.some((list) => i < list.length); i++) {
    for (const list of lists) {
      const hit = list[i]
      if (hit === undefined || seen.has(hit.url)) continue
      seen.add(hit.url)
      out.push(hit)
      if (out.length >= limit) break
    }
  }
  return out
}

interface Planned {
  readonly body: Body
  readonly numResults: number
  readonly markdown: boolean
  readonly timeoutMs: number
  readonly behavior: "fail" | "return-partial"
}

const indexDomainsOf = (body: Body): Array<string> => [
  ...(body.includeDomains ?? []).map(SearchProvider.normalizeDomain),
  ...SearchProvider.scopeOf(body.query).sites
].filter((d) => d !== "")

/** Searches one query in the chosen source. */
/**
 * The engine's search language for a country (wave2 §6: `country` to the engine's language or region, best effort): the
 * country's main language as a SearXNG locale (`de-DE`); a country this table lacks leaves the engine's default.
 */
export const languageOfCountry = (country: string | undefined): string | undefined => {
  if (country === undefined) return undefined
  const code = country.toLowerCase()
  const language = mainLanguage[code]
  return language === undefined ? undefined : `${language}-${code.toUpperCase()}`
}

const mainLanguage: Readonly<Record<string, string>> = {
  ar: "es", at: "de", au: "en", be: "nl", bg: "bg", br: "pt", ca: "en", ch: "de", cl: "es", cn: "zh", co: "es", cz: "cs",
  de: "de", dk: "da", ee: "et", eg: "ar", es: "es", fi: "fi", fr: "fr", gb: "en", gr: "el", hk: "zh", hr: "hr", hu: "hu",
  id: "id", ie: "en", il: "he", in: "en", it: "it", jp: "ja", kr: "ko", lt: "lt", lv: "lv", mx: "es", my: "ms", nl: "nl",
  no: "nb", nz: "en", pe: "es", ph: "en", pl: "pl", pt: "pt", ro: "ro", rs: "sr", ru: "ru", sa: "ar", se: "sv", sg: "en",
  si: "sl", sk: "sk", th: "th", tr: "tr", tw: "zh", ua: "uk", uk: "en", us: "en", vn: "vi", za: "en"
}

const searchOne = (
  caller: Caller,
  source: "index" | "searxng",
  planned: Planned,
  query: string,
  timeoutMs: number
): Effect.Effect<ReadonlyArray<SearchProvider.SearchHit>, SearchProvider.ProviderError, SearchProvider.SearchProvider> =>
  Effect.gen(function*() {
    const body = planned.body
    if (source === "searxng") {
      const engine = yield* SearchProvider.SearchProvider
      return yield* engine.search({
        query,
        numResults: planned.numResults,
        freshness: body.freshness,
        language: languageOfCountry(body.country),
        includeDomains: body.includeDomains,
        excludeDomains: body.excludeDomains,
        timeoutMs
      })
    }
    const index = yield* Effect.serviceOption(PageIndex)
    if (Option.isNone(index)) return []
    const scope = SearchProvider.scopeOf(query)
    const hits = yield* index.value.search({
      orgId: caller.auth.org.id,
      text: scope.text,
      limit: planned.numResults,
      includeDomains: [...(body.includeDomains ?? []).map(SearchProvider.normalizeDomain), ...scope.sites],
      excludeDomains: [...(body.excludeDomains ?? []).map(SearchProvider.normalizeDomain), ...scope.excludedSites],
      maxAgeMs: body.freshness === undefined ? undefined : freshnessMs[body.freshness]
    })
    return hits.map((hit) => ({ url: hit.url, title: hit.title, description: hit.snippet }))
  })

/** The scrape request of one result's Markdown. */
const markdownRequest = (url: string, body: Body, timeoutMs: number) => {
  const options = body.markdownOptions ?? {}
  return {
    url,
    formats: { markdown: true },
    sharedParams: {
      ...(body.country === undefined ? {} : { country: body.country }),
      ...(options.useMainContentOnly === undefined ? {} : { mainContentOnly: options.useMainContentOnly }),
      ...(options.includeFrames === undefined ? {} : { includeFrames: options.includeFrames }),
      ...(options.waitForMs === undefined || options.waitForMs === 0 ? {} : { waitFor: options.waitForMs }),
      ...(options.pdf?.start === undefined && options.pdf?.end === undefined ? {} : {
        parsers: { pdf: { startPage: options.pdf?.start, endPage: options.pdf?.end } }
      })
    },
    markdownParams: {
      includeLinks: options.includeLinks ?? true,
      includeImages: options.includeImages ?? false,
      inlineImages: options.shortenBase64Images === false ? "preserve" : "placeholder"
    },
    ...(options.maxAgeMs === undefined ? {} : { maxAgeMs: options.maxAgeMs }),
    timeoutOpts: { milliseconds: Math.max(1, Math.min(timeoutMs, options.timeoutOpts?.milliseconds ?? timeoutMs)), behavior: options.timeoutOpts?.behavior ?? "fail" },
    ...(body.zdr === undefined ? {} : { zdr: body.zdr })
  }
}

const codeOf = (error: Errors.ScrapeError): MarkdownCode => {
  switch (error.errorCode) {
    case "REQUEST_TIMEOUT":
      return "TIMEOUT"
    case "CONTENT_TOO_LARGE":
      return "CONTENT_TOO_LARGE"
    case "WEBSITE_ACCESS_ERROR":
    case "WEBSITE_NOT_FOUND":
    case "WEBSITE_BLOCKED":
    case "PDF_SKIPPED":
    case "PDF_IMAGES_ONLY":
    case "UNSUPPORTED_CONTENT":
      return "WEBSITE_ACCESS_ERROR"
    default:
      return "ERROR"
  }
}

/** One result read to Markdown within `timeoutMs`; its code says how it went. */
const readMarkdown = (caller: Caller, url: string, body: Body, timeoutMs: number) =>
  Effect.gen(function*() {
    if (timeoutMs <= 0) return { code: "TIMEOUT" as MarkdownCode, markdown: null }
    const request = yield* Effect.either(ScrapeRequest.decode(markdownRequest(url, body, timeoutMs)))
    if (request._tag === "Left") return { code: "ERROR" as MarkdownCode, markdown: null }
    // pdf.shouldParse false: a PDF result is skipped (PDF_SKIPPED, answered as WEBSITE_ACCESS_ERROR).
    const pdfShouldParse = body.markdownOptions?.pdf?.shouldParse
    // Sift's own page index keeps the result with its cache entry.
    const outcome = yield* Indexing.storing(caller.auth.org.id, !Cache.usesCache(request.right), Effect.either(Effect.timeoutFail(Pipeline.runMemoized(request.right, pdfShouldParse === undefined ? {} : { pdfShouldParse }), {
      duration: Duration.millis(timeoutMs),
      onTimeout: () => new Errors.RequestTimeout({ milliseconds: timeoutMs, detail: "the result was not read in time" })
    })), (read) => read._tag === "Right" ? [{ url, result: read.right.result }] : [])
    if (outcome._tag === "Left") return { code: codeOf(outcome.left), markdown: null }
    const result = outcome.right.result
    return {
      code: "SUCCESS" as MarkdownCode,
      markdown: result.markdown.data ?? "",
      finalDOMState: outcome.right.render.finalDOMState === "still-loading" ? "still-loading" as const : "loaded" as const
    }
  })

/** `POST /web/search`. */
export const search: Handler<
  Planned,
  Errors.InvalidRequest,
  never,
  Errors.RequestTimeout | SearchProvider.ProviderError,
  Fetcher.Fetcher | Cache.Cache | SearchProvider.SearchProvider | LanguageModel.LanguageModel
> = {
  validate: (caller) =>
    Effect.gen(function*() {
      const body = yield* Effect.mapError(decodeBody(caller.body), (error: ParseResult.ParseError) => ScrapeRequest.fromParseError(error))
      yield* CommonQuery.deadline(body.timeoutOpts)
      const numResults = body.numResults ?? limits.numResults.default
      const markdown = body.markdownOptions?.enabled === true
      const timeoutMs = body.timeoutOpts?.milliseconds ?? limits.defaultTimeoutMs
      return {
        input: { body, numResults, markdown, timeoutMs, behavior: body.timeoutOpts?.behavior ?? "fail" },
        credits: 1 + (markdown ? numResults : 0),
        zdr: body.zdr === "enabled",
        tags: body.tags ?? [],
        holdMs: timeoutMs + 60_000
      }
    }),
  run: (caller, planned) =>
    Effect.gen(function*() {
      const started = yield* Clock.currentTimeMillis
      const left = () => Effect.map(Clock.currentTimeMillis, (now) => planned.timeoutMs - (now - started))
      const body = planned.body
      const engine = yield* SearchProvider.SearchProvider
      const index = yield* Effect.serviceOption(PageIndex)
      // The index answers a scope it covers whole, and anything when there is no engine (if it holds this org's pages).
      // Each domain once: the same one in site: and includeDomains is one scope.
      const scoped = [...new Set(indexDomainsOf(body))]
      const covered = scoped.length > 0 && Option.isSome(index)
        ? (yield* index.value.covered(caller.auth.org.id, scoped)).length === scoped.length
        : false
      let source: "index" | "searxng" = covered || !engine.configured ? "index" : "searxng"
      const variants = body.queryFanout === true ? yield* variantsOf(body.query, yield* left()) : []
      const queries = [body.query, ...variants]
      const run = (from: "index" | "searxng") =>
        Effect.flatMap(left(), (ms) =>
          Effect.forEach(queries, (query) => searchOne(caller, from, planned, query, ms), { concurrency: 4 }))
      let lists = yield* run(source)
      // Nothing in the index for a scoped query: the engine, when there is one.
      if (source === "index" && lists.every((list) => list.length === 0) && engine.configured) {
        source = "searxng"
        lists = yield* run(source)
      }
      // No engine, and the index neither covers the query's scope nor finds anything: nothing could answer.
      if (source === "index" && !engine.configured && !covered && lists.every((list) => list.length === 0)) {
        return yield* new SearchProvider.ProviderError({ reason: "Unavailable", detail: `${SearchProvider.UNAVAILABLE_DETAIL}; Sift's own index has no matching page of this organization` })
      }
      const hits = interleave(lists, planned.numResults)
      const tiers = relevanceTiers(body.query, hits)
      const notRequested = { code: "NOT_REQUESTED" as MarkdownCode, markdown: null }
      // Each result's Markdown lands here as it is read, so a deadline keeps what was read (the rest: TIMEOUT).
      const read: Array<Result["markdown"]> = hits.map(() => planned.markdown ? { code: "TIMEOUT" as MarkdownCode, markdown: null } : notRequested)
      const finished = planned.markdown
        ? yield* Effect.flatMap(left(), (ms) =>
          Effect.timeoutOption(
            Effect.forEach(hits, (hit, i) =>
              Effect.flatMap(left(), (rest) => readMarkdown(caller, hit.url, body, rest)).pipe(Effect.tap((markdown) => Effect.sync(() => void (read[i] = markdown)))), { concurrency: limits.concurrency, discard: true }),
            Duration.millis(Math.max(0, ms))
          ))
        : Option.some(undefined)
      // A read's own deadline is at most the request's: once that has come, a read that ended TIMEOUT was cut by it,
      // whichever timer fired first.
      const cut = Option.isNone(finished) || ((yield* left()) <= 0 && read.some((markdown) => markdown.code === "TIMEOUT"))
      if (cut && planned.behavior === "fail") {
        return yield* new Errors.RequestTimeout({ milliseconds: planned.timeoutMs, detail: "the results were not read in time" })
      }
      const results: Array<Result> = hits.map((hit, i) => ({
        description: hit.description,
        markdown: read[i]!,
        relevance: tiers[i]!,
        title: hit.title,
        url: hit.url
      }))
      const scraped = results.filter((r) => r.markdown.code === "SUCCESS").length
      return {
        body: {
          cache_metadata: body.zdr === "enabled" ? { age_ms: 0, status: "zdr" } : { age_ms: 0, status: "miss" },
          query: body.query,
          results,
          ...(cut ? { partial: true } : {})
        },
        credits: 1 + scraped,
        headers: { [SOURCE_HEADER]: source }
      }
    }).pipe(Effect.interruptible)
}
