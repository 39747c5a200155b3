/**
 * `POST /web/crawl` (wave2 §2): a synchronous crawl from a start URL, each page to Markdown, through the core crawler.
 * Credits (wave2 §21.1): `maxPages` reserved up front, 1 charged per page read successfully plus 1 per PDF page OCR
 * recovered, the rest released in the same request. `stopAfterMs` is a soft budget (no page starts after it; the
 * answer holds what was read); `timeoutOpts` is the hard deadline (`fail`: 408, nothing charged; `return-partial`:
 * what was read, `partial: true`, or 408 when nothing was).
 *
 * @since 0.1.0
 */
import { type Cache, Crawler, Errors, type Fetcher, ScrapeRequest } from "@sift/core"
import { Duration, Effect, Option, ParseResult, Schema } from "effect"
import type { Handler } from "../RequestPipeline.js"
import * as Indexing from "../Search/Indexing.js"

/** Pages one crawl reads at most (wave2 §2), and its defaults (§21.5). */
export const limits = {
  maxPages: { min: 1, max: 500, default: 50 },
  maxDepth: { default: 3 },
  stopAfterMs: { min: 10_000, max: 110_000, default: 80_000 }
} as const

const HttpUrl = Schema.String.pipe(Schema.filter((url) => /^https?:\/\//i.test(url) || "must include http:// or https://"))

/** The body of `POST /web/crawl`. */
export const Body = Schema.Struct({
  url: HttpUrl.annotations({ description: "Where the crawl starts (always read)" }),
  country: Schema.optional(Schema.String.pipe(Schema.pattern(/^[A-Za-z]{2}$/, { message: () => "must be a two-letter country code" }))),
  excludeSelectors: Schema.optional(ScrapeRequest.SelectorList),
  includeSelectors: Schema.optional(ScrapeRequest.SelectorList),
  followSubdomains: Schema.optional(Schema.Boolean).annotations({ description: "Follow links to subdomains (www and apex are always one site)" }),
  includeFrames: Schema.optional(Schema.Boolean),
  includeImages: Schema.optional(Schema.Boolean),
  includeLinks: Schema.optional(Schema.Boolean),
  maxAgeMs: Schema.optional(ScrapeRequest.MaxAgeMs),
  maxDepth: Schema.optional(Schema.Int.pipe(Schema.greaterThanOrEqualTo(0))).annotations({ description: "0: only the start page (default 3)" }),
  maxPages: Schema.optional(Schema.Int.pipe(Schema.between(limits.maxPages.min, limits.maxPages.max))).annotations({ description: "Pages read at most, 1 to 500 (default 50)" }),
  pdf: Schema.optional(Schema.Struct({
    start: Schema.optional(Schema.Int.pipe(Schema.greaterThanOrEqualTo(1))),
    end: Schema.optional(Schema.Int.pipe(Schema.greaterThanOrEqualTo(1))),
    ocr: Schema.optional(Schema.Boolean),
    shouldParse: Schema.optional(Schema.Boolean)
  })),
  settleAnimations: Schema.optional(Schema.Boolean),
  shortenBase64Images: Schema.optional(Schema.Boolean),
  stopAfterMs: Schema.optional(Schema.Int.pipe(Schema.between(limits.stopAfterMs.min, limits.stopAfterMs.max)))
    .annotations({ description: "Soft budget in ms, 10000 to 110000 (default 80000): pages read by then are returned" }),
  tags: Schema.optional(ScrapeRequest.Tags),
  timeoutOpts: Schema.optional(ScrapeRequest.TimeoutOpts),
  urlRegex: Schema.optional(Schema.String.pipe(Schema.maxLength(256))).annotations({ description: "RE2 pattern of URLs to crawl (the start URL is always read)" }),
  useMainContentOnly: Schema.optional(Schema.Boolean),
  waitForMs: Schema.optional(Schema.Int.pipe(Schema.between(0, 30_000))).annotations({ description: "Wait this long on each page (renders it in the browser)" }),
  zdr: Schema.optional(ScrapeRequest.Zdr)
}).annotations({ description: "Crawl a site from a URL to Markdown (1 credit per page read)" })
/** @category models */
export type Body = typeof Body.Type

const decodeBody = Schema.decodeUnknown(Body, { onExcessProperty: "error", errors: "first" })

interface Planned {
  readonly body: Body
  readonly options: Crawler.CrawlOptions
  readonly timeoutMs: number
  readonly behavior: "fail" | "return-partial"
}

const resultOf = (page: Crawler.CrawledPage) => {
  const outcome = page.outcome
  if (outcome._tag === "Scraped") {
    const { contentType: _contentType, statusCode, ...metadata } = outcome.result.metadata
    return {
      markdown: outcome.result.markdown.data ?? "",
      metadata: {
        ...metadata,
        crawlDepth: page.depth,
        finalUrl: outcome.result.url,
        sourceUrl: page.url,
        statusCode: statusCode ?? 200,
        success: true,
        title: metadata.title ?? "",
        url: page.url
      }
    }
  }
  const status = outcome._tag === "Failed" && outcome.error._tag === "WebsiteError" ? outcome.error.status : undefined
  return {
    markdown: "",
    metadata: { crawlDepth: page.depth, finalUrl: page.url, sourceUrl: page.url, statusCode: status ?? 0, success: false, title: "", url: page.url }
  }
}

/** The cache outcome of a crawl: `hit` only when every page read came from the cache, aged by the oldest. */
const cacheOf = (pages: ReadonlyArray<Crawler.CrawledPage>, zdr: boolean) => {
  if (zdr) return { age_ms: 0, status: "zdr" as const }
  const read = pages.flatMap((p) => p.outcome._tag === "Scraped" ? [p.outcome.result.cache_metadata] : [])
  const hit = read.length > 0 && read.every((c) => c.status === "hit")
  return { age_ms: hit ? Math.max(...read.map((c) => c.age_ms)) : 0, status: hit ? "hit" as const : "miss" as const }
}

/** `POST /web/crawl`. */
export const crawl: Handler<Planned, Errors.InvalidRequest, never, Errors.ScrapeError, Fetcher.Fetcher | Cache.Cache> = {
  validate: (caller) =>
    Effect.gen(function*() {
      const body = yield* Effect.mapError(decodeBody(caller.body), (error: ParseResult.ParseError) => ScrapeRequest.fromParseError(error))
      const maxPages = body.maxPages ?? limits.maxPages.default
      const timeoutMs = body.timeoutOpts?.milliseconds ?? ScrapeRequest.MAX_TIMEOUT_MS
      const options: Crawler.CrawlOptions = {
        url: body.url,
        followSubdomains: body.followSubdomains ?? false,
        maxDepth: body.maxDepth ?? limits.maxDepth.default,
        maxPages,
        urlRegex: body.urlRegex,
        urlRegexField: "urlRegex",
        page: Crawler.pageRequest("markdown", body),
        pdfShouldParse: body.pdf?.shouldParse,
        stopAfterMs: Math.min(body.stopAfterMs ?? limits.stopAfterMs.default, timeoutMs)
      }
      // The start URL, the pattern and the page request are checked now, before anything is held or fetched.
      yield* Crawler.scope({ start: body.url, followSubdomains: false, maxDepth: undefined, pattern: body.urlRegex, patternField: "urlRegex" })
      yield* ScrapeRequest.decode({ ...options.page, url: body.url })
      // OCR may add a credit per recovered page: held for the requested range (or 50 pages) on each page read.
      const ocrPages = body.pdf?.ocr === true ? (body.pdf.end !== undefined ? body.pdf.end - (body.pdf.start ?? 1) + 1 : 50) : 0
      return {
        input: { body, options, timeoutMs, behavior: body.timeoutOpts?.behavior ?? "fail" },
        credits: maxPages * (1 + ocrPages),
        zdr: body.zdr === "enabled",
        tags: body.tags ?? [],
        holdMs: timeoutMs + 60_000
      }
    }),
  run: (caller, planned) =>
    Effect.gen(function*() {
      const pages: Array<Crawler.CrawledPage> = []
      const crawled = Effect.gen(function*() {
        const finished = yield* Effect.timeoutOption(Crawler.collect(planned.options, pages), Duration.millis(planned.timeoutMs))
        const read = pages.filter((p) => p.outcome._tag !== "Skipped")
        if (Option.isNone(finished) && (planned.behavior === "fail" || read.length === 0)) {
          return yield* new Errors.RequestTimeout({
            milliseconds: planned.timeoutMs,
            detail: planned.behavior === "fail" ? "the crawl had not finished" : "no page had been read to return"
          })
        }
        // A start page that cannot be read is the request's failure (uncharged), as a scrape of it would be.
        const start = pages.find((p) => p.depth === 0)
        if (start?.outcome._tag === "Failed" && read.length === 1) return yield* Effect.fail(start.outcome.error)
        return { finished, read, succeeded: read.filter((p) => p.outcome._tag === "Scraped") }
      })
      // Sift's own page index keeps what was read (never with ZDR), each page with its cache entry.
      const { finished, read, succeeded } = yield* Indexing.storing(caller.auth.org.id, planned.body.zdr === "enabled", crawled, (done) =>
        done.succeeded.flatMap((p) => p.outcome._tag === "Scraped" ? [{ url: p.url, result: p.outcome.result }] : []))
      const ocr = succeeded.reduce((sum, p) => sum + (p.outcome._tag === "Scraped" ? p.outcome.ocrPages : 0), 0)
      const summary = Option.isSome(finished) ? finished.value.summary : undefined
      return {
        body: {
          cache_metadata: cacheOf(read, planned.body.zdr === "enabled"),
          metadata: {
            maxCrawlDepth: Math.max(0, ...read.map((p) => p.depth)),
            numFailed: read.length - succeeded.length,
            numSkipped: summary?.numSkipped ?? pages.length - read.length,
            numSucceeded: succeeded.length,
            numUrls: read.length
          },
          results: read.map(resultOf),
          ...(Option.isNone(finished) ? { partial: true } : {})
        },
        credits: succeeded.length + ocr
      }
    })
}
