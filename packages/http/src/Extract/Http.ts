/**
 * `POST /web/extract` (wave2 §8): a site crawled from `url`, best link first, and the caller's JSON Schema filled
 * from the pages read. Links are ranked by the words of the schema (property names, titles, descriptions) and the
 * instructions found in their path and anchor text; the start page is always read, then the best unread link in scope
 * (depth, subdomains, robots) until `maxPages` (default 5, at most 50) or `stopAfterMs`. With a model configured
 * (`SIFT_LLM_URL`) it fills the schema from the pages' Markdown (validated, one repair); without one, or when it
 * fails, the fields that map to the pages' structured data (JSON-LD, OpenGraph, meta) are filled and the rest null:
 * never a failure for want of a model. `factCheck` nulls values the pages do not state. `actions` run on the start
 * page and need a paid plan. 10 credits (§21.1), uncharged on failure.
 *
 * @since 0.1.0
 */
import { type Cache, Crawler, Errors, type Fetcher, ScrapeRequest, type ScrapeResult } from "@sift/core"
import * as LanguageModel from "@sift/core/LanguageModel"
import { Clock, Duration, Effect, Option, ParseResult, Schema } from "effect"
import * as CommonQuery from "../internal/commonQuery.js"
import type { Handler } from "../RequestPipeline.js"
import * as Indexing from "../Search/Indexing.js"
import * as Fill from "./Fill.js"

/** Limits of the body (SDK: `maxPages` default 5, hard cap 50; `stopAfterMs` 10 s to 110 s, default 80 s). */
export const limits = {
  maxPages: { default: 5, max: 50 },
  stopAfterMs: { min: 10_000, max: 110_000, default: 80_000, withActions: 110_000 },
  defaultTimeoutMs: 120_000,
  defaultMaxAgeMs: 7 * 24 * 3_600_000,
  instructionsLength: 4_000,
  /** Pages read at once. */
  concurrency: 3,
  /** Markdown of each page given to the model. */
  pageChars: 12_000
} as const

const Action = Schema.Union(
  Schema.Struct({ do: Schema.Literal("wait"), timeMs: Schema.Int.pipe(Schema.between(0, 30_000)) }),
  Schema.Struct({ do: Schema.Literal("perform"), action: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(1_000)) }),
  Schema.Struct({
    do: Schema.Literal("scroll"),
    amount: Schema.optional(Schema.Union(Schema.Int.pipe(Schema.between(1, 1_000_000)), Schema.Literal("viewport", "max"))),
    container: Schema.optional(Schema.String.pipe(Schema.minLength(1), Schema.maxLength(2_048))),
    direction: Schema.optional(Schema.Literal("up", "down", "left", "right")),
    maxScrolls: Schema.optional(Schema.Int.pipe(Schema.between(1, 100)))
  })
)

/** The body of `POST /web/extract`. */
export const Body = Schema.Struct({
  schema: Schema.Record({ key: Schema.String, value: Schema.Unknown }).annotations({ description: "The JSON Schema of the data to return" }),
  url: Schema.String.pipe(Schema.pattern(/^https?:\/\/\S+$/i, { message: () => "must be an http:// or https:// URL" })).annotations({ description: "Where the crawl starts" }),
  actions: Schema.optional(Schema.Array(Action).pipe(Schema.maxItems(5))).annotations({ description: "Browser actions on the start page (paid plans)" }),
  factCheck: Schema.optional(Schema.Boolean).annotations({ description: "Null every value the pages read do not state" }),
  followSubdomains: Schema.optional(Schema.Boolean),
  includeFrames: Schema.optional(Schema.Boolean),
  instructions: Schema.optional(Schema.String.pipe(Schema.maxLength(limits.instructionsLength))),
  maxAgeMs: Schema.optional(ScrapeRequest.MaxAgeMs),
  maxDepth: Schema.optional(Schema.Int.pipe(Schema.between(0, 100))),
  maxPages: Schema.optional(Schema.Int.pipe(Schema.between(1, limits.maxPages.max))).annotations({ description: "Pages to read, 1 to 50 (default 5)" }),
  pdf: Schema.optional(Schema.Struct({
    start: Schema.optional(Schema.Int.pipe(Schema.greaterThanOrEqualTo(1))),
    end: Schema.optional(Schema.Int.pipe(Schema.greaterThanOrEqualTo(1))),
    shouldParse: Schema.optional(Schema.Boolean)
  })),
  settleAnimations: Schema.optional(Schema.Boolean),
  stopAfterMs: Schema.optional(Schema.Int.pipe(Schema.between(limits.stopAfterMs.min, limits.stopAfterMs.max))),
  tags: Schema.optional(ScrapeRequest.Tags),
  timeoutOpts: Schema.optional(ScrapeRequest.TimeoutOpts),
  waitForMs: Schema.optional(Schema.Int.pipe(Schema.between(0, 30_000))),
  zdr: Schema.optional(ScrapeRequest.Zdr)
}).annotations({ description: "Crawl a site, best links for the schema first, and fill the JSON Schema from the pages" })
/** @category models */
export type Body = typeof Body.Type

const decodeBody = Schema.decodeUnknown(Body, { onExcessProperty: "error", errors: "first" })

interface Planned {
  readonly body: Body
  readonly maxPages: number
  readonly stopAfterMs: number
  readonly timeoutMs: number
  readonly behavior: "fail" | "return-partial"
}

const actionOf = (action: typeof Action.Type): ScrapeRequest.Action => {
  switch (action.do) {
    case "wait":
      return { type: "wait", milliseconds: action.timeMs }
    case "perform":
      return { type: "perform", action: action.action }
    case "scroll":
      return {
        type: "scroll",
        ...(action.amount === undefined ? {} : { amount: action.amount }),
        ...(action.direction === undefined ? {} : { direction: action.direction }),
        ...(action.maxScrolls === undefined ? {} : { maxScrolls: action.maxScrolls }),
        ...(action.container === undefined ? {} : { selector: action.container })
      }
  }
}

/** The scrape request of a page (the start page with the actions). */
const pageRequest = (body: Body, url: string, withActions: boolean) => {
  const base = Crawler.pageRequest("markdown", {
    includeFrames: body.includeFrames,
    settleAnimations: body.settleAnimations,
    waitForMs: body.waitForMs,
    pdf: body.pdf === undefined ? undefined : { start: body.pdf.start, end: body.pdf.end },
    includeLinks: true,
    includeHTML: true,
    maxAgeMs: body.maxAgeMs ?? limits.defaultMaxAgeMs,
    zdr: body.zdr
  })
  return ScrapeRequest.decode({
    ...base,
    url,
    sharedParams: { ...base.sharedParams, ...(withActions && (body.actions ?? []).length > 0 ? { actions: (body.actions ?? []).map(actionOf) } : {}) }
  })
}

/** A page read. */
interface Read {
  readonly url: string
  readonly depth: number
  readonly result: ScrapeResult.ScrapeResult
}


/** `POST /web/extract`: 10 credits. */
export const extract: Handler<
  Planned,
  Errors.InvalidRequest,
  never,
  Errors.ScrapeError,
  Fetcher.Fetcher | Cache.Cache | LanguageModel.LanguageModel
> = {
  validate: (caller) =>
    Effect.gen(function*() {
      const body = yield* Effect.mapError(decodeBody(caller.body), (error: ParseResult.ParseError) => ScrapeRequest.fromParseError(error))
      yield* CommonQuery.deadline(body.timeoutOpts)
      const usable = LanguageModel.validatorFor(body.schema)
      if (typeof usable === "string") return yield* new Errors.InvalidRequest({ reason: "Invalid", field: "schema", detail: usable })
      const hasActions = (body.actions ?? []).length > 0
      const timeoutMs = body.timeoutOpts?.milliseconds ?? limits.defaultTimeoutMs
      return {
        input: {
          body,
          maxPages: body.maxPages ?? limits.maxPages.default,
          stopAfterMs: body.stopAfterMs ?? (hasActions ? limits.stopAfterMs.withActions : limits.stopAfterMs.default),
          timeoutMs,
          behavior: body.timeoutOpts?.behavior ?? "fail"
        },
        credits: 10,
        zdr: body.zdr === "enabled",
        tags: body.tags ?? [],
        holdMs: timeoutMs + 60_000,
        ...(hasActions ? { paidPlanFor: "actions: browser actions need a paid plan" } : {})
      }
    }),
  run: (caller, planned) =>
    Effect.gen(function*() {
      const body = planned.body
      const started = yield* Clock.currentTimeMillis
      const left = Effect.map(Clock.currentTimeMillis, (now) => planned.timeoutMs - (now - started))
      const elapsed = Effect.map(Clock.currentTimeMillis, (now) => now - started)
      let scope = yield* Crawler.scope({ start: body.url, followSubdomains: body.followSubdomains ?? false, maxDepth: body.maxDepth, pattern: undefined })
      const gate = yield* Crawler.gate()
      const topic = Fill.topicWords(body.schema, body.instructions)
      // Candidates by URL: depth, score, first-seen order; read ones leave.
      const frontier = new Map<string, { depth: number; score: number; order: number }>()
      const seen = new Set<string>([scope.start])
      const pages: Array<Read> = []
      const counts = { failed: 0, skipped: 0, blocked: 0, deepest: 0 }
      let order = 0
      let startError: Errors.ScrapeError | undefined
      const readOne = (url: string, depth: number) =>
        Effect.gen(function*() {
          const request = yield* pageRequest(body, url, depth === 0)
          const outcome = yield* Crawler.visit(gate, url, request, { pdfShouldParse: body.pdf?.shouldParse })
          if (outcome._tag === "Skipped") return void counts.skipped++
          if (outcome._tag === "Failed") {
            counts.failed++
            if (depth === 0) startError = outcome.error
            if (outcome.error.errorCode === "WEBSITE_BLOCKED") counts.blocked++
            return
          }
          if (depth === 0 && outcome.result.url !== "") scope = scope.rebase(outcome.result.url)
          pages.push({ url, depth, result: outcome.result })
          counts.deepest = Math.max(counts.deepest, depth)
          const anchors = Fill.anchorsOf(outcome.result.markdown.data ?? "", outcome.result.url || url)
          for (const link of outcome.links) {
            if (seen.has(link) || scope.refusal(link, depth + 1) !== undefined) continue
            seen.add(link)
            frontier.set(link, { depth: depth + 1, score: Fill.linkScore(link, anchors.get(link) ?? "", topic), order: order++ })
          }
        })
      const crawl = Effect.gen(function*() {
        yield* readOne(scope.start, 0)
        while (pages.length < planned.maxPages && frontier.size > 0 && (yield* elapsed) < planned.stopAfterMs) {
          // The best links first: most topic words, then shallower, then first seen.
          const best = [...frontier.entries()]
            .sort(([, a], [, b]) => b.score - a.score || a.depth - b.depth || a.order - b.order)
            .slice(0, Math.min(limits.concurrency, planned.maxPages - pages.length))
          for (const [url] of best) frontier.delete(url)
          yield* Effect.forEach(best, ([url, { depth }]) => readOne(url, depth), { concurrency: limits.concurrency, discard: true })
        }
      })
      // The crawl may use the deadline but what the filling needs (a model gets a share, at least 5 s when it can).
      const model = yield* LanguageModel.LanguageModel
      const fillReserveMs = Option.isSome(model.endpoint) ? Math.max(5_000, Math.floor(planned.timeoutMs * 0.3)) : 500
      const crawled = Effect.gen(function*() {
        const finished = yield* Effect.timeoutOption(crawl, Duration.millis(Math.max(1, (yield* left) - fillReserveMs)))
        if (pages.length === 0) {
          if (Option.isNone(finished)) return yield* new Errors.RequestTimeout({ milliseconds: planned.timeoutMs, detail: "no page was read in time" })
          if (startError !== undefined) return yield* Effect.fail(startError)
          return yield* new Errors.RequestTimeout({ milliseconds: planned.timeoutMs, detail: "no page of the site could be read" })
        }
        if (Option.isNone(finished) && planned.behavior === "fail" && pages.length < planned.maxPages && frontier.size > 0) {
          return yield* new Errors.RequestTimeout({ milliseconds: planned.timeoutMs, detail: "the pages were not read in time" })
        }
        return finished
      })
      const isPrivate = body.zdr === "enabled"
      // Sift's own page index keeps the pages read (never with ZDR), each with its cache entry.
      const finished = yield* Indexing.storing(caller.auth.org.id, isPrivate, crawled, () => pages.map(({ url, result }) => ({ url, result })))
      const results = pages.map((p) => p.result)
      let data: unknown = Fill.fromStructuredData(body.schema, results)
      // Image fields make the pages' image references available to the model.
      const images = Fill.wantsImages(body.schema)
      const imagesOfPage = (p: Read): string => {
        if (!images) return ""
        const found = Fill.imagesOf(p.result.html?.data ?? "", p.result.url || p.url)
        return found.length === 0 ? "" : `\nImages on this page:\n${found.join("\n")}`
      }
      if (Option.isSome(model.endpoint)) {
        const budget = (yield* left) - 1_000
        const messages: Array<LanguageModel.Message> = [
          {
            role: "system",
            content: `You extract data from web pages. Answer with only a JSON value valid against the JSON Schema given. ${body.factCheck === true ? "Every value must be stated on the pages; use null or empty where they do not say." : "Keep names, quotes, URLs, dates and numbers exactly as the pages state them; use null where the pages give nothing."}`
          },
          {
            role: "user",
            content: [
              `JSON Schema: ${JSON.stringify(body.schema)}`,
              ...(body.instructions === undefined ? [] : [`Instructions: ${body.instructions}`]),
              `Structured data found on the pages (may help): ${JSON.stringify(data).slice(0, 4_000)}`,
              "",
              ...pages.map((p) => `--- ${p.result.metadata.title ?? ""} <${p.result.url || p.url}>\n${(p.result.markdown.data ?? "").slice(0, limits.pageChars)}${imagesOfPage(p)}`)
            ].join("\n")
          }
        ]
        if (budget > 0) {
          const answered = yield* Effect.either(LanguageModel.completeStructured(model.endpoint.value, messages, body.schema, { timeoutMs: budget, maxTokens: 32_000 }, { name: "extraction" }))
          if (answered._tag === "Right") data = answered.right
          else yield* Effect.logWarning(`extract: the language model failed; answering from structured data (${answered.left.detail})`)
        }
      }
      if (body.factCheck === true) {
        const text = results.map((r) => `${r.metadata.title ?? ""}\n${r.metadata.description ?? ""}\n${r.markdown.data ?? ""}\n${r.html?.data ?? ""}`).join("\n")
        data = Fill.factCheck(data, text)
      }
      return {
        body: {
          cache_metadata: isPrivate ? { age_ms: 0, status: "zdr" } : { age_ms: 0, status: results.every((r) => r.cache_metadata.status === "hit") ? "hit" : "miss" },
          data: typeof data === "object" && data !== null && !Array.isArray(data) ? data : { value: data },
          metadata: {
            maxCrawlDepth: counts.deepest,
            numBlocked: counts.blocked,
            numFailed: counts.failed,
            numSkipped: counts.skipped,
            numSucceeded: pages.length,
            numUrls: pages.length + counts.failed
          },
          status: "completed",
          url: body.url,
          urls_analyzed: pages.map((p) => p.result.url || p.url),
          ...(Option.isNone(finished) ? { partial: true } : {})
        },
        credits: 10
      }
    }).pipe(Effect.interruptible)
}
