/**
 * The crawler core, embeddable: `crawl` follows a site's links from a start URL and `batch` scrapes a list of URLs,
 * each page through the scrape pipeline (static first, the browser only when the page needs it; the address guard on
 * every connection), as an Effect stream of pages. Both are polite per host (`internal/crawl/hostGate.ts`: slots per
 * host, `Crawl-delay`, pauses after 429/503 with their `Retry-After`, robots.txt `Disallow` for link-following
 * crawls) and a crawl stays in its scope (`internal/crawl/scope.ts`) and bounded (`internal/crawl/frontier.ts`).
 *
 * The service's durable batches keep their frontier and records in the database; they use the same scope, gate and
 * page step (`visit`), so a page is judged and read the same way in a Node app, `POST /web/crawl` and a batch.
 *
 * @since 0.2.0
 */
import { Clock, Deferred, Effect, Either, Stream } from "effect"
import type { Cache } from "./Cache.js"
import { type InvalidRequest, type ScrapeError, WebsiteError } from "./Errors.js"
import type { Fetcher } from "./Fetcher.js"
import { Frontier } from "./internal/crawl/frontier.js"
import * as HostGate from "./internal/crawl/hostGate.js"
import * as CrawlScope from "./internal/crawl/scope.js"
import * as Pipeline from "./Pipeline.js"
import * as ScrapeRequest from "./ScrapeRequest.js"
import type { ScrapeResult } from "./ScrapeResult.js"

export type { Refusal } from "./internal/crawl/scope.js"

/** What a crawl's scope is made from: start URL, subdomains, depth, RE2 pattern (and its field, for errors). */
export type ScopeOptions = CrawlScope.ScopeOptions
/** A compiled scope: why a URL at a depth is not crawled, or `undefined` when it is. */
export type Scope = CrawlScope.Scope
/** Compiles a scope; fails when the start URL or the pattern is unusable. */
export const scope: (options: ScopeOptions) => Either.Either<Scope, InvalidRequest> = CrawlScope.make

/** Politeness per host: slots, `Crawl-delay`, pauses after 429/503, robots.txt for link-following crawls. */
export type Gate = HostGate.HostGate
/** How polite a gate is. */
export type GateOptions = HostGate.HostGateOptions
/** Makes a gate; its state lives as long as the crawl or batch using it. */
export const gate: (options?: GateOptions) => Effect.Effect<Gate> = HostGate.make

/** Defaults of a crawl (wave2 §21: `/web/crawl` reads 50 pages, 3 links deep). */
export const defaults = { maxPages: 50, maxDepth: 3, concurrency: 4, perHost: 2, retries: 2, maxRetryAfterMs: 30_000 } as const

/** What every page of a crawl or batch is scraped with: a scrape request without its `url` (default: Markdown). */
export type PageRequest = Omit<ScrapeRequest.ScrapeRequestInput, "url">

/** Page options as `POST /web/crawl` and batch submissions spell them (wave2 §1.1, §2); every member optional. */
export interface PageOptions {
  readonly country?: string | undefined
  readonly includeSelectors?: ReadonlyArray<string> | null | undefined
  readonly excludeSelectors?: ReadonlyArray<string> | null | undefined
  readonly useMainContentOnly?: boolean | undefined
  readonly includeFrames?: boolean | undefined
  readonly settleAnimations?: boolean | undefined
  /** `0` is the default wait (no extra wait). */
  readonly waitForMs?: number | undefined
  readonly pdf?: { readonly start?: number | undefined; readonly end?: number | undefined; readonly ocr?: boolean | undefined } | undefined
  /** Markdown pages only: keep hyperlinks (default true), images (default false), base64 images whole (default shortened). */
  readonly includeLinks?: boolean | undefined
  readonly includeImages?: boolean | undefined
  readonly shortenBase64Images?: boolean | undefined
  /** Markdown pages only: also return each page's HTML. */
  readonly includeHTML?: boolean | undefined
  /** Accept a cached copy at most this old; omitted or `null`: the scrape default (one day). */
  readonly maxAgeMs?: number | null | undefined
  readonly zdr?: "enabled" | "disabled" | undefined
}

/**
 * The scrape request every page of a crawl or batch is read with (its `url` set per page), from the page options of
 * a crawl or batch body: one mapping for `POST /web/crawl`, batches and embedders.
 */
export const pageRequest = (format: "markdown" | "html", options: PageOptions | undefined): PageRequest => {
  const o = options ?? {}
  const markdown = format === "markdown"
  return {
    formats: { markdown, html: !markdown || o.includeHTML === true },
    sharedParams: {
      ...(o.country === undefined ? {} : { country: o.country }),
      ...(o.includeSelectors == null ? {} : { includeSelectors: o.includeSelectors }),
      ...(o.excludeSelectors == null ? {} : { excludeSelectors: o.excludeSelectors }),
      ...(o.useMainContentOnly === undefined ? {} : { mainContentOnly: o.useMainContentOnly }),
      ...(o.includeFrames === undefined ? {} : { includeFrames: o.includeFrames }),
      ...(o.settleAnimations === undefined ? {} : { settleAnimations: o.settleAnimations }),
      ...(o.waitForMs === undefined || o.waitForMs === 0 ? {} : { waitFor: o.waitForMs }),
      ...(o.pdf?.start === undefined && o.pdf?.end === undefined && o.pdf?.ocr === undefined ? {} : {
        parsers: { pdf: { startPage: o.pdf?.start, endPage: o.pdf?.end, ocr: o.pdf?.ocr === true ? "auto" as const : "off" as const } }
      })
    },
    ...(markdown ? {
      markdownParams: {
        includeLinks: o.includeLinks ?? true,
        includeImages: o.includeImages ?? false,
        inlineImages: o.shortenBase64Images === false ? "preserve" as const : "placeholder" as const
      }
    } : {}),
    ...(o.maxAgeMs == null ? {} : { maxAgeMs: o.maxAgeMs }),
    ...(o.zdr === undefined ? {} : { zdr: o.zdr })
  }
}

/** Politeness and throughput, shared by crawls and batches. */
export interface Politeness {
  /** Pages read at once (default 4). */
  readonly concurrency?: number | undefined
  /** Pages of one host read at once (default 2). */
  readonly perHost?: number | undefined
  /** Retries of a page the host answered 429 or 503 (default 2), each after its `Retry-After` (at most 30 s). */
  readonly retries?: number | undefined
}

/** What a crawl is asked. */
export interface CrawlOptions extends Politeness {
  /** The start URL (depth 0), always crawled. */
  readonly url: string
  /** Follow links to subdomains of the start URL's site (www and apex are always one site). */
  readonly followSubdomains?: boolean | undefined
  /** Links followed from the start page (0: the start page alone); `null` for no limit. Default 3. */
  readonly maxDepth?: number | null | undefined
  /** Pages read at most (default 50). */
  readonly maxPages?: number | undefined
  /** RE2 pattern of URLs to crawl (the start URL is always crawled). */
  readonly urlRegex?: string | undefined
  /** The request field the pattern came from, for errors (default `urlRegex`). */
  readonly urlRegexField?: string | undefined
  /** How each page is scraped. */
  readonly page?: PageRequest | undefined
  /** False: PDF pages are skipped (not read, not failures). */
  readonly pdfShouldParse?: boolean | undefined
  /** Honour robots.txt (default true). */
  readonly robots?: boolean | undefined
  /** Soft budget: no page but the start page starts after this many ms (pages in flight finish). */
  readonly stopAfterMs?: number | undefined
  /** Called after each page with the counts so far (for a progress display). */
  readonly onProgress?: ((progress: CrawlProgress) => void) | undefined
}

/** A crawl's counts while it runs. */
export interface CrawlProgress {
  readonly succeeded: number
  readonly failed: number
  readonly skipped: number
  /** Pages accepted and not yet read (waiting or in flight). */
  readonly pending: number
}

/** A page of a crawl or batch as it came out. */
export interface CrawledPage {
  /** The URL fetched (normalized), as the crawl found it or the batch was given it. */
  readonly url: string
  /** Links followed from the start page (0 in a batch). */
  readonly depth: number
  readonly outcome: PageOutcome
}

/** What reading a page gave: its result (and the links it holds), a failure, or a skip (not counted as either). */
export type PageOutcome =
  | {
    readonly _tag: "Scraped"
    readonly result: ScrapeResult
    /** PDF pages OCR recovered (one credit each on the service). */
    readonly ocrPages: number
    readonly links: ReadonlyArray<string>
  }
  | { readonly _tag: "Failed"; readonly error: ScrapeError }
  | { readonly _tag: "Skipped"; readonly reason: "robots" | "pdf" }

/** Counts of a finished crawl (the `metadata` of `POST /web/crawl`). */
export interface CrawlSummary {
  /** Pages read (succeeded + failed). */
  readonly numUrls: number
  readonly numSucceeded: number
  readonly numFailed: number
  /** PDFs skipped, pages robots.txt disallows, and distinct URLs not matching the pattern. */
  readonly numSkipped: number
  /** The deepest depth read. */
  readonly maxCrawlDepth: number
  /** Pages in scope that were never read: the soft budget ran out first. */
  readonly unread: number
}

const toRequest = (page: PageRequest | undefined, url: string): Effect.Effect<ScrapeRequest.ScrapeRequest, InvalidRequest> =>
  ScrapeRequest.decode({ formats: { markdown: true }, ...page, url })

const retryAfterOf = (error: ScrapeError): number | undefined =>
  error instanceof WebsiteError && error.reason === "HttpStatus" && (error.status === 429 || error.status === 503)
    ? error.retryAfterMs ?? 1_000
    : undefined

/**
 * Reads one page under the gate: robots (when honoured), the host's slot and spacing, the pipeline, and retries after
 * 429/503 (pausing the whole host for its `Retry-After`). Never fails: a failure is the page's outcome.
 */
export const visit = (
  gate: HostGate.HostGate,
  url: string,
  request: ScrapeRequest.ScrapeRequest,
  options: {
    readonly pdfShouldParse?: boolean | undefined
    readonly retries?: number | undefined
    /** False: the outcome's `links` stay empty (a list of URLs follows none; reading them is a share of a page's work). */
    readonly links?: boolean | undefined
  }
): Effect.Effect<PageOutcome, never, Fetcher | Cache> =>
  Effect.gen(function*() {
    if (!(yield* gate.allows(url))) return { _tag: "Skipped", reason: "robots" } as const
    const retries = options.retries ?? defaults.retries
    for (let attempt = 0;; attempt++) {
      const read = yield* Effect.either(gate.withSlot(url, Pipeline.runOutcome(request, { pdfShouldParse: options.pdfShouldParse, links: options.links ?? true })))
      if (Either.isRight(read)) {
        const { document, links, result } = read.right
        return { _tag: "Scraped", result, ocrPages: document.ocrPages, links } as const
      }
      const error = read.left
      if (error._tag === "ContentError" && error.reason === "PdfSkipped") return { _tag: "Skipped", reason: "pdf" } as const
      const wait = retryAfterOf(error)
      if (wait === undefined || attempt >= retries) return { _tag: "Failed", error } as const
      yield* gate.pause(url, Math.min(wait * (attempt + 1), defaults.maxRetryAfterMs))
    }
  })

interface Tally {
  succeeded: number
  failed: number
  skipped: number
  deepest: number
}

/**
 * Crawls from `options.url`, emitting each page as it is read. Fails only when the options are unusable (the start
 * URL, the pattern, the page request); a page that fails is an outcome. `summary` is set once the stream ends.
 */
const run = (
  options: CrawlOptions,
  emit: (page: CrawledPage) => Effect.Effect<void>
): Effect.Effect<CrawlSummary, InvalidRequest, Fetcher | Cache> =>
  Effect.gen(function*() {
    const maxDepth = options.maxDepth === null ? undefined : options.maxDepth ?? defaults.maxDepth
    const scope = yield* CrawlScope.make({
      start: options.url,
      followSubdomains: options.followSubdomains ?? false,
      maxDepth,
      pattern: options.urlRegex,
      patternField: options.urlRegexField ?? "urlRegex"
    })
    // Checked once with the start URL, so a bad page request fails the crawl instead of every page.
    yield* toRequest(options.page, scope.start)
    const frontier = new Frontier(scope, options.maxPages ?? defaults.maxPages)
    frontier.offer(scope.start, 0)
    const gate = yield* HostGate.make({ ...HostGate.defaults, perHost: options.perHost ?? defaults.perHost, robots: options.robots ?? true })
    const startedAt = yield* Clock.currentTimeMillis
    const tally: Tally = { succeeded: 0, failed: 0, skipped: 0, deepest: 0 }
    let active = 0
    let started = 0
    let changed = yield* Deferred.make<void>()
    // Wakes every idle worker: the frontier may have grown, or the crawl ended.
    const signal = Effect.suspend(() => {
      const woken = changed
      return Effect.flatMap(Deferred.make<void>(), (next) => {
        changed = next
        return Deferred.succeed(woken, undefined)
      })
    })
    const overBudget = Effect.map(Clock.currentTimeMillis, (now) =>
      options.stopAfterMs !== undefined && now - startedAt >= options.stopAfterMs)

    const handle = (entry: { readonly url: string; readonly depth: number }) =>
      Effect.gen(function*() {
        // A link the request schema refuses (an overlong URL, say) is that page's failure, never the crawl's.
        const request = yield* Effect.either(toRequest(options.page, entry.url))
        const outcome: PageOutcome = Either.isLeft(request)
          ? { _tag: "Failed", error: request.left }
          : yield* visit(gate, entry.url, request.right, options)
        if (outcome._tag === "Scraped") {
          tally.succeeded++
          tally.deepest = Math.max(tally.deepest, entry.depth)
          // The start page's redirect (to www, to https, to a language path) moves the crawl's site with it.
          if (entry.depth === 0) frontier.rebase(outcome.result.url)
          if (maxDepth === undefined || entry.depth < maxDepth) {
            for (const link of outcome.links) frontier.offer(link, entry.depth + 1)
          }
        } else if (outcome._tag === "Failed") {
          tally.failed++
          tally.deepest = Math.max(tally.deepest, entry.depth)
        } else {
          tally.skipped++
        }
        options.onProgress?.({
          succeeded: tally.succeeded,
          failed: tally.failed,
          skipped: tally.skipped,
          // This page is still counted active until its worker is released.
          pending: frontier.waiting + active - 1
        })
        yield* emit({ url: entry.url, depth: entry.depth, outcome })
      })

    const worker: Effect.Effect<void, never, Fetcher | Cache> = Effect.gen(function*() {
      while (true) {
        // The soft budget stops new pages, never the start page: a crawl always reads at least that.
        if (started > 0 && (yield* overBudget)) return yield* signal
        const entry = frontier.take()
        if (entry === undefined) {
          if (active === 0) return yield* signal
          yield* Deferred.await(changed)
          continue
        }
        active++
        started++
        yield* Effect.ensuring(handle(entry), Effect.suspend(() => {
          active--
          return signal
        }))
      }
    })
    yield* Effect.all(Array.from({ length: Math.max(1, options.concurrency ?? defaults.concurrency) }, () => worker), {
      concurrency: "unbounded",
      discard: true
    })
    const refused = frontier.refusals
    return {
      numUrls: tally.succeeded + tally.failed,
      numSucceeded: tally.succeeded,
      numFailed: tally.failed,
      numSkipped: tally.skipped + refused["not-matching"],
      maxCrawlDepth: tally.deepest,
      unread: frontier.waiting
    }
  })

/** Crawls a site from `options.url`: a stream of its pages, in the order they were read. */
export const crawl = (options: CrawlOptions): Stream.Stream<CrawledPage, InvalidRequest, Fetcher | Cache> =>
  Stream.asyncPush<CrawledPage, InvalidRequest, Fetcher | Cache>((emit) =>
    Effect.forkScoped(Effect.matchCause(run(options, (page) => Effect.sync(() => emit.single(page))), {
      onFailure: (cause) => emit.halt(cause),
      onSuccess: () => emit.end()
    })), { bufferSize: "unbounded" })

/**
 * Crawls and collects: every page, and the counts (what `POST /web/crawl` answers). Pages are pushed into `into` as
 * they are read, so a caller whose deadline interrupts the crawl still has what was read by then.
 */
export const collect = (
  options: CrawlOptions,
  into: Array<CrawledPage> = []
): Effect.Effect<{ readonly pages: ReadonlyArray<CrawledPage>; readonly summary: CrawlSummary }, InvalidRequest, Fetcher | Cache> =>
  Effect.map(run(options, (page) => Effect.sync(() => into.push(page))), (summary) => ({ pages: into, summary }))

/** A URL of a batch: the URL, and what the caller wants back with its result. */
export interface BatchUrl {
  readonly url: string
  readonly itemId?: string | undefined
  readonly meta?: unknown
}

/** A page of a batch as it came out, with what was given with its URL. */
export interface BatchPage extends CrawledPage {
  readonly itemId?: string | undefined
  readonly meta?: unknown
}

/** What a batch is asked, beside its URLs. */
export interface BatchOptions extends Politeness {
  readonly page?: PageRequest | undefined
  readonly pdfShouldParse?: boolean | undefined
}

/**
 * Scrapes a list of URLs politely: a stream of pages as they are read. URLs named in the list are fetched whatever
 * robots.txt says (the caller asked for them by name); the address guard still applies to every connection.
 */
export const batch = (
  urls: Iterable<BatchUrl>,
  options: BatchOptions = {}
): Stream.Stream<BatchPage, never, Fetcher | Cache> =>
  Stream.unwrap(Effect.map(HostGate.make({ ...HostGate.defaults, perHost: options.perHost ?? defaults.perHost, robots: false }), (gate) =>
    Stream.fromIterable(urls).pipe(
      Stream.mapEffect((item) =>
        Effect.map(
          Effect.either(toRequest(options.page, item.url)).pipe(Effect.flatMap(Either.match({
            onLeft: (error): Effect.Effect<PageOutcome> => Effect.succeed({ _tag: "Failed", error }),
            onRight: (request) => visit(gate, request.url, request, options)
          }))),
          (outcome): BatchPage => ({ url: item.url, depth: 0, itemId: item.itemId, meta: item.meta, outcome })
        ), { concurrency: Math.max(1, options.concurrency ?? defaults.concurrency), unordered: true })
    )))
