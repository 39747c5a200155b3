/**
 * `POST /web/answers` (wave2 §7): a sourced answer in the caller's `json_format` shape. The task is searched
 * (`SearchProvider`), a domain the task names is read first, the top results are read to Markdown (main content)
 * through the scrape pipeline, and the configured model (`LanguageModel`) answers from that evidence with JSON valid
 * against the schema made from `json_format` (one repair; an answer that still breaks it is 502). `sources` lists the
 * URLs that supplied results or readable pages in first-seen order, pages that could not be read left out. `fast`
 * reads fewer pages within 30 s for 10 credits, `ultra` (the default) more within 50 s for 100 (§21.1);
 * `timeoutOpts.milliseconds` can shorten either. No model: 502 `EXTERNAL_PROVIDER_ERROR` naming `SIFT_LLM_URL`; no
 * engine: 503 `SEARCH_UNAVAILABLE`; both uncharged, as every failure. A deadline that ends the reading leaves the
 * model the evidence read so far (`partial: true`); a model still not done at the deadline is 408, uncharged.
 *
 * @since 0.1.0
 */
import { Cache, CompanyResolver, Errors, type Fetcher, Pipeline, ScrapeRequest } from "@sift/core"
import * as LanguageModel from "@sift/core/LanguageModel"
import * as SearchProvider from "@sift/core/SearchProvider"
import { Clock, Duration, Effect, Option, ParseResult, Schema } from "effect"
import * as CommonQuery from "../internal/commonQuery.js"
import type { Caller, Handler } from "../RequestPipeline.js"
import * as Indexing from "../Search/Indexing.js"
import * as Shape from "./Shape.js"

/** Research budgets per mode (SDK: fast 30 s, ultra 50 s; 10 and 100 credits). */
export const modes = {
  fast: { credits: 10, deadlineMs: 30_000, results: 8, read: 3, pageChars: 6_000, maxTokens: 8_000 },
  ultra: { credits: 100, deadlineMs: 50_000, results: 10, read: 6, pageChars: 12_000, maxTokens: 32_000 }
} as const

/** Other limits of the body. */
export const limits = { taskLength: 4_000, concurrency: 4 } as const

/** The body of `POST /web/answers`. */
export const Body = Schema.Struct({
  task: Schema.String.pipe(
    Schema.filter((t) => t.trim() !== "" || "must not be empty"),
    Schema.maxLength(limits.taskLength)
  ).annotations({ description: "What to research and answer; a domain named in it is read first" }),
  json_format: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.Unknown })).annotations({
    description: "An example object with placeholder values: the answer keeps its keys and value types (null when unknown). At most 8 levels, 500 values, 16000 characters. Default {\"result\": \"\"}"
  }),
  mode: Schema.optional(Schema.Literal("fast", "ultra")).annotations({ description: "fast: 30 s, 10 credits; ultra (default): 50 s, 100 credits" }),
  tags: Schema.optional(ScrapeRequest.Tags),
  timeoutOpts: Schema.optional(ScrapeRequest.TimeoutOpts),
  zdr: Schema.optional(ScrapeRequest.Zdr)
}).annotations({ description: "Research the web and answer in the requested JSON shape, with sources" })
/** @category models */
export type Body = typeof Body.Type

const decodeBody = Schema.decodeUnknown(Body, { onExcessProperty: "error", errors: "first" })

interface Planned {
  readonly body: Body
  readonly mode: "fast" | "ultra"
  readonly format: Record<string, unknown>
  readonly timeoutMs: number
}

/** A page read for the answer. */
interface Evidence {
  readonly url: string
  readonly title: string
  readonly text: string
}

/** The first domain the task names (`pricing on example.com`), if any. */
export const domainInTask = (task: string): string | undefined => {
  const match = task.match(/\b(?:https?:\/\/)?((?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z][a-z0-9-]{1,62})\b/i)
  if (match === null) return undefined
  return CompanyResolver.domainOf(match[1]!)
}

/** One page read to Markdown (main content) within `timeoutMs`, or `undefined` when it cannot be read. */
export const readPage = (
  caller: Caller,
  url: string,
  options: { readonly timeoutMs: number; readonly zdr: boolean; readonly maxAgeMs?: number | undefined; readonly waitForMs?: number | undefined; readonly includeFrames?: boolean | undefined }
): Effect.Effect<Option.Option<{ readonly url: string; readonly title: string; readonly markdown: string; readonly html?: string | undefined }>, never, Fetcher.Fetcher | Cache.Cache> =>
  Effect.gen(function*() {
    if (options.timeoutMs <= 0) return Option.none()
    const request = yield* Effect.either(ScrapeRequest.decode({
      url,
      formats: { markdown: true, html: true },
      sharedParams: {
        mainContentOnly: true,
        ...(options.includeFrames === undefined ? {} : { includeFrames: options.includeFrames }),
        ...(options.waitForMs === undefined || options.waitForMs === 0 ? {} : { waitFor: options.waitForMs })
      },
      markdownParams: { includeLinks: true, includeImages: false, inlineImages: "placeholder" },
      ...(options.maxAgeMs === undefined ? {} : { maxAgeMs: options.maxAgeMs }),
      timeoutOpts: { milliseconds: Math.max(1, Math.min(ScrapeRequest.MAX_TIMEOUT_MS, options.timeoutMs)), behavior: "fail" },
      ...(options.zdr ? { zdr: "enabled" } : {})
    }))
    if (request._tag === "Left") return Option.none()
    // Sift's own page index keeps the page with its cache entry.
    const outcome = yield* Indexing.storing(caller.auth.org.id, options.zdr || !Cache.usesCache(request.right), Effect.either(Effect.timeoutFail(Pipeline.runMemoized(request.right), {
      duration: Duration.millis(options.timeoutMs),
      onTimeout: () => new Errors.RequestTimeout({ milliseconds: options.timeoutMs })
    })), (read) => read._tag === "Right" ? [{ url, result: read.right.result }] : [])
    if (outcome._tag === "Left") return Option.none()
    const result = outcome.right.result
    const markdown = result.markdown.data ?? ""
    if (markdown.trim() === "") return Option.none()
    return Option.some({ url: result.url || url, title: result.metadata.title ?? "", markdown, html: result.html?.data ?? undefined })
  })

/** The prompt: the task, the shape, and the evidence (each page cut to the mode's share). */
const messagesOf = (task: string, format: Record<string, unknown>, snippets: ReadonlyArray<SearchProvider.SearchHit>, pages: ReadonlyArray<Evidence>, pageChars: number): Array<LanguageModel.Message> => [
  {
    role: "system",
    content: "You research questions from the evidence given (web search results and pages read). Answer with only a JSON object in exactly the shape of the example: the same keys, the same value types; use null for what the evidence does not tell. Do not invent facts."
  },
  {
    role: "user",
    content: [
      `Task: ${task}`,
      `Answer shape (example with placeholder values): ${JSON.stringify(format)}`,
      "",
      "Search results:",
      ...snippets.map((hit, i) => `[${i + 1}] ${hit.title} <${hit.url}>\n${hit.description}`),
      "",
      "Pages read:",
      ...pages.map((page) => `--- ${page.title} <${page.url}>\n${page.text.slice(0, pageChars)}`)
    ].join("\n")
  }
]

/** The model's failure as the API's: a spent time budget is the request's deadline (408), anything else 502. */
const modelFailure = (error: LanguageModel.LanguageModelError, timeoutMs: number): Errors.RequestTimeout | SearchProvider.ProviderError =>
  error.reason === "Budget" && error.detail.includes("did not answer within")
    ? new Errors.RequestTimeout({ milliseconds: timeoutMs, detail: "the language model did not answer within the request's deadline" })
    : new SearchProvider.ProviderError({ reason: "Failed", detail: `The language model (SIFT_LLM_URL) failed: ${error.detail}` })

/** `POST /web/answers`: 10 credits `fast`, 100 `ultra`. */
export const answers: Handler<
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
      const format = body.json_format ?? Shape.defaultFormat
      const problem = Shape.problemOf(format)
      if (problem !== undefined) return yield* new Errors.InvalidRequest({ reason: "Invalid", field: "json_format", detail: problem })
      const mode = body.mode ?? "ultra"
      const timeoutMs = Math.min(modes[mode].deadlineMs, body.timeoutOpts?.milliseconds ?? modes[mode].deadlineMs)
      return {
        input: { body, mode, format, timeoutMs },
        credits: modes[mode].credits,
        zdr: body.zdr === "enabled",
        tags: body.tags ?? [],
        holdMs: timeoutMs + 60_000
      }
    }),
  run: (caller, planned) =>
    Effect.gen(function*() {
      const model = yield* LanguageModel.LanguageModel
      if (Option.isNone(model.endpoint)) return yield* new SearchProvider.ProviderError({ reason: "Failed", detail: LanguageModel.UNCONFIGURED_DETAIL })
      const engine = yield* SearchProvider.SearchProvider
      if (!engine.configured) return yield* new SearchProvider.ProviderError({ reason: "Unavailable", detail: SearchProvider.UNAVAILABLE_DETAIL })
      const budget = modes[planned.mode]
      const started = yield* Clock.currentTimeMillis
      const left = Effect.map(Clock.currentTimeMillis, (now) => planned.timeoutMs - (now - started))
      const zdr = planned.body.zdr === "enabled"
      // Research may take up to 60% of the deadline; the model answers in the rest.
      const researchMs = Math.floor(planned.timeoutMs * 0.6)
      const domain = domainInTask(planned.body.task)
      const hits = yield* engine.search({ query: planned.body.task, numResults: budget.results, timeoutMs: Math.max(1, researchMs) })
      const domainPage = domain === undefined ? undefined : `https://${domain}/`
      const candidates = [...new Set([...(domainPage === undefined ? [] : [domainPage]), ...hits.slice(0, budget.read).map((hit) => hit.url)])]
      const readingOf = (url: string) => Effect.flatMap(left, (rest) => readPage(caller, url, { timeoutMs: Math.min(rest, researchMs) - 500, zdr }))
      // Pages land here as they are read, so a deadline keeps what was read.
      const read = new Map<string, Evidence>()
      const failed = new Set<string>()
      let cut = false
      const finished = yield* Effect.flatMap(left, (ms) =>
        Effect.timeoutOption(
          Effect.forEach(candidates, (url) =>
            readingOf(url).pipe(
              // The named domain's site over plain HTTP when it has no HTTPS.
              Effect.flatMap((page) => Option.isNone(page) && url === domainPage ? readingOf(`http://${domain}/`) : Effect.succeed(page)),
              Effect.tap((page) =>
                Effect.map(Clock.currentTimeMillis, (now) => {
                  if (Option.isSome(page)) return void read.set(url, { url: page.value.url, title: page.value.title, text: page.value.markdown })
                  failed.add(url)
                  // A read given up at the end of the research budget: the deadline ended research.
                  if (now - started >= researchMs - 1_000) cut = true
                }))
            ), { concurrency: limits.concurrency, discard: true }),
          Duration.millis(Math.max(0, Math.min(ms, researchMs)))
        ))
      const pages = candidates.flatMap((url) => read.get(url) ?? [])
      const messages = messagesOf(planned.body.task, planned.format, hits, pages, budget.pageChars)
      const timeLeft = (yield* left) - 250
      if (timeLeft <= 0) return yield* new Errors.RequestTimeout({ milliseconds: planned.timeoutMs, detail: "no time was left for the language model" })
      const answer = yield* Effect.mapError(
        LanguageModel.completeStructured(model.endpoint.value, messages, Shape.rootSchemaOf(planned.format), { timeoutMs: timeLeft, maxTokens: budget.maxTokens }, { name: "answer" }),
        (error) => modelFailure(error, planned.timeoutMs)
      )
      // First-seen order: the named domain's page, then the results; pages that could not be read are left out.
      const supplied = [...candidates, ...hits.map((hit) => hit.url)].flatMap((url) =>
        read.has(url) ? [read.get(url)!.url] : !failed.has(url) && hits.some((hit) => hit.url === url) ? [url] : [])
      const sources = [...new Set(supplied)]
      return {
        body: {
          json_content: answer as Record<string, unknown>,
          sources,
          ...(Option.isNone(finished) || cut ? { partial: true } : {})
        },
        credits: budget.credits
      }
    }).pipe(Effect.interruptible)
}
