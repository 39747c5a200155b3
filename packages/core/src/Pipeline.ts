/**
 * The scrape pipeline: load (cache or fetch) → convert → filter → format, under one `Deadline`. Each stage's output is
 * the next one's input, so the order is fixed by types.
 *
 * @since 0.1.0
 */
import { Clock, Context, Effect, Exit, Option, type Scope } from "effect"
import type { Root } from "hast"
import { createHash } from "node:crypto"
import type * as Actions from "./Actions.js"
import { Cache, type CacheEntry, usesCache } from "./Cache.js"
import type * as Convert from "./Convert.js"
import * as ContentFilter from "./ContentFilter.js"
import * as Deadline from "./Deadline.js"
import { ContentError, type InvalidRequest, type ScrapeError, type WebsiteError } from "./Errors.js"
import { Fetcher } from "./Fetcher.js"
import * as HtmlFormat from "./HtmlFormat.js"
import * as Images from "./Images.js"
import * as MainContent from "./MainContent.js"
import * as Markdown from "./Markdown.js"
import * as BlockDetection from "./BlockDetection.js"
import * as Metadata from "./Metadata.js"
import * as ParseRules from "./ParseRules.js"
import * as RenderPlan from "./RenderPlan.js"
import * as Renderer from "./Renderer.js"
import * as ScrapeRequest from "./ScrapeRequest.js"
import * as Screenshot from "./Screenshot.js"
import type { CacheMetadata, ScrapeResult } from "./ScrapeResult.js"
import { type DocumentOptions, textAsMarkdown, toDocument } from "./internal/pipeline/document.js"
import { type Derived, deriveAfresh, deriveOnce, memosOf } from "./internal/pipeline/memo.js"
import { decodePage, encodePage, type LoadedPage } from "./internal/pipeline/page.js"
import { absoluteLinks } from "./internal/discovery/pageFacts.js"
import { isYouTubeUrl, loadYouTube } from "./internal/convert/youtube/load.js"

/** A loaded page and where it came from. */
export interface Load {
  readonly page: LoadedPage
  readonly cache: CacheMetadata
  /** False when the page is what a deadline captured before loading finished. */
  readonly complete: boolean
  /** The browser page behind a rendered load, open until the request ends (screenshots and images read it). */
  readonly session?: Renderer.RenderSession | undefined
  /** What the browser did: the outcome of each action, and whether the DOM after them could be read. */
  readonly rendered?: Pick<Renderer.RenderedPage, "finalDOMState" | "actionsApplied" | "actionsHtmlStale"> | undefined
  /** The main document's original bytes when `page.body` is the rendered DOM (for the `bytes` output). */
  readonly originalBody?: Uint8Array | undefined
  /** The page cache's entry this load read or wrote (its very bytes: formatted results are remembered against it). */
  readonly cacheEntry?: Uint8Array | undefined
}

/** The request members that only a browser can honour (see `RenderPlan.requestNeeds`). */
export const browserNeeds = RenderPlan.requestNeeds

/** The cache key of a page load: what changes the fetched bytes (URL and exit country). */
export const cacheKey = (request: ScrapeRequest.ScrapeRequest): string =>
  "page:v1:" + createHash("sha256")
    .update(JSON.stringify([request.url, request.sharedParams?.country?.toLowerCase() ?? null]))
    .digest("hex")


const fetchPage = (request: ScrapeRequest.ScrapeRequest): Effect.Effect<LoadedPage, WebsiteError | InvalidRequest, Fetcher> =>
  Effect.gen(function*() {
    // A YouTube video or channel takes several fetches and becomes a structured document (transcript, video list).
    if (isYouTubeUrl(request.url)) {
      return yield* loadYouTube({ url: request.url, headers: request.sharedParams?.headers, country: request.sharedParams?.country?.toLowerCase() })
    }
    const fetcher = yield* Fetcher
    const response = yield* fetcher.fetch({
      url: request.url,
      headers: request.sharedParams?.headers,
      country: request.sharedParams?.country?.toLowerCase()
    })
    const fetchedAt = yield* Clock.currentTimeMillis
    return {
      requestedUrl: response.requestedUrl,
      url: response.url,
      status: response.status,
      headers: response.headers,
      contentType: response.contentType,
      body: response.body,
      fetchedAt
    }
  })

/**
 * Loads the page from the cache when allowed and fresh enough, else from the network (and stores it). `read` is the
 * cache's answer when the caller has already asked it (same key, same `maxAgeMs`).
 */
const load = (
  request: ScrapeRequest.ScrapeRequest,
  read?: Option.Option<CacheEntry>
): Effect.Effect<Load, WebsiteError | InvalidRequest, Fetcher | Cache> =>
  Effect.gen(function*() {
    if (!usesCache(request)) {
      const page = yield* fetchPage(request)
      return { page, cache: { status: request.zdr === "enabled" ? "zdr" : "miss", age_ms: 0 }, complete: true } as const
    }
    const cache = yield* Cache
    const key = cacheKey(request)
    const maxAge = request.maxAgeMs ?? ScrapeRequest.DEFAULT_MAX_AGE_MS
    if (maxAge > 0) {
      const found = read ?? (yield* cache.get(key, maxAge))
      const page = Option.isSome(found) ? decodePage(found.value.value) : undefined
      if (page !== undefined) {
        const now = yield* Clock.currentTimeMillis
        const age = Math.max(0, now - page.fetchedAt)
        return { page, cache: { status: "hit", age_ms: age }, complete: true, cacheEntry: Option.getOrThrow(found).value } as const
      }
    }
    const page = yield* fetchPage(request)
    const entry = encodePage(page)
    yield* cache.set(key, entry)
    return { page, cache: { status: "miss", age_ms: 0 }, complete: true, cacheEntry: entry } as const
  })

/** The content filters: include selectors, then exclude selectors (exclusion wins), then main-content extraction. */
const filter = (request: ScrapeRequest.ScrapeRequest, tree: Root, url: string) => {
  const shared = request.sharedParams
  const selected = (shared?.includeSelectors?.length ?? 0) + (shared?.excludeSelectors?.length ?? 0) > 0
    ? ContentFilter.select(tree, { includeSelectors: shared?.includeSelectors, excludeSelectors: shared?.excludeSelectors })
    : tree
  if (shared?.mainContentOnly !== true) return { tree: selected, fallback: undefined }
  const extraction = MainContent.extract(selected, { url })
  return { tree: extraction.tree, fallback: extraction.fallback ? (extraction.reason ?? "no main content found") : undefined }
}

/** What a caller adds to a request that its schema does not carry: the Markdown endpoints' `pdf[shouldParse]`. */
export interface RunOptions {
  /** False: a PDF target fails with `PDF_SKIPPED` instead of being converted (default true). */
  readonly pdfShouldParse?: boolean | undefined
  /** True: the outcome also lists the page's links (absolute, from the whole page before any filter), for crawls. */
  readonly links?: boolean | undefined
}

/** The document options of a request: its PDF page range and OCR, and whether PDFs may be parsed. */
const documentOptions = (request: ScrapeRequest.ScrapeRequest, options: RunOptions): DocumentOptions => ({
  pdf: { ...request.sharedParams?.parsers?.pdf, shouldParse: options.pdfShouldParse }
})

/** What a result was made from, beside its JSON: the detected document type and the PDF pages OCR recovered. */
export interface DocumentInfo {
  /** Undefined when only the bytes were asked for (nothing was converted). */
  readonly type: Convert.DocumentType | undefined
  /** PDF pages whose text OCR recovered: the cost basis of OCR (one credit each on the service). */
  readonly ocrPages: number
}

/** What the browser did for a result; `rendered` false for a static load. */
export interface RenderInfo {
  readonly rendered: boolean
  readonly finalDOMState: Renderer.DomState
  readonly actionsApplied?: ReadonlyArray<Actions.ActionOutcome> | undefined
  readonly actionsHtmlStale?: boolean | undefined
}

export type { Derived } from "./internal/pipeline/memo.js"

/** A result and the facts behind it that its JSON does not carry (what was converted, what the browser did). */
export interface Outcome {
  readonly result: ScrapeResult
  readonly document: DocumentInfo
  readonly render: RenderInfo
  /** Values derived from `result`, computed once while a remembered result is reused (afresh otherwise). */
  readonly derived: Derived
  /** The page's `<a>`/`<area>` links, absolute, when `RunOptions.links` asked for them (else empty). */
  readonly links: ReadonlyArray<string>
}

/** The outcome of a result made without the pipeline (a cached screenshot, say): nothing converted or rendered. */
export const outcomeOf = (result: ScrapeResult): Outcome => ({
  result,
  document: { type: undefined, ocrPages: 0 },
  render: { rendered: false, finalDOMState: result.isPartial ? "still-loading" : "complete" },
  derived: deriveAfresh,
  links: []
})

/** Builds every requested output from a loaded page: converting documents (PDF, office, OCR) may spawn tools and
 * is interruptible; the rest is CPU work. The caller bounds it with the deadline. */
export const format = (
  request: ScrapeRequest.ScrapeRequest,
  load: Load,
  options: RunOptions = {}
): Effect.Effect<Outcome, ContentError | InvalidRequest> =>
  Effect.gen(function*() {
    const { page } = load
    const onlyBytes = ScrapeRequest.formatNames.every((name) => name === "bytes" || !request.wants(name))
    const document = onlyBytes ? undefined : yield* toDocument(page, documentOptions(request, options))
    const fullTree: Root = document?.tree ?? { type: "root", children: [] }
    const metadata = Metadata.extract(fullTree, {
      url: page.url,
      statusCode: page.status,
      contentType: page.headers["content-type"]
    })
    const filtered = filter(request, fullTree, page.url)
    const tree = filtered.tree
    const baseUrl = page.url
    const output = <A>(name: ScrapeRequest.FormatName, make: () => A) =>
      request.wants(name) ? { requested: true, data: make() } : { requested: false, data: null }
    const result: ScrapeResult = {
      url: page.url,
      html: output("html", () => HtmlFormat.toHtml(tree, { baseUrl })),
      markdown: output("markdown", () =>
        document?.kind === "text" ? textAsMarkdown(document.text) : Markdown.fromHast(tree, {
          baseUrl,
          includeLinks: request.markdownParams?.includeLinks ?? true,
          includeImages: request.markdownParams?.includeImages ?? false,
          inlineImages: request.markdownParams?.inlineImages ?? "placeholder"
        })),
      screenshot: { requested: request.wants("screenshot"), data: null },
      images: output("images", () => Images.collect(tree, { baseUrl, metaTree: fullTree })),
      bytes: output("bytes", () => ({
        base64: Buffer.from(load.originalBody ?? page.body).toString("base64"),
        contentType: page.headers["content-type"] ?? page.contentType ?? "application/octet-stream"
      })),
      parsed: output("parse", () => ParseRules.apply(tree, request.parseParams!, { baseUrl })),
      metadata: filtered.fallback === undefined ? metadata : { ...metadata, mainContentFallback: filtered.fallback },
      cache_metadata: load.cache,
      ...(load.complete ? {} : { isPartial: true as const })
    }
    return {
      result,
      document: { type: document?.type, ocrPages: document?.ocrPages ?? 0 },
      render: renderInfoOf(load),
      derived: deriveAfresh,
      links: options.links === true && document?.kind === "html" ? absoluteLinks(fullTree, page.url) : []
    }
  })

const renderInfoOf = (load: Load): RenderInfo => ({
  rendered: load.session !== undefined,
  finalDOMState: load.complete ? "complete" : "still-loading",
  ...(load.rendered?.actionsApplied === undefined
    ? {}
    : { actionsApplied: load.rendered.actionsApplied, actionsHtmlStale: load.rendered.actionsHtmlStale ?? false })
})

const textEncoder = new TextEncoder()

/** A rendered page as a loaded page: the DOM as a UTF-8 HTML body; the original bytes kept beside it. */
const fromRendered = (rendered: Renderer.RenderedPage, session: Renderer.RenderSession, fetchedAt: number, cache: CacheMetadata): Load => ({
  page: {
    requestedUrl: rendered.requestedUrl,
    url: rendered.url,
    status: rendered.status === 0 ? 200 : rendered.status,
    headers: { ...rendered.headers, "content-type": "text/html; charset=utf-8" },
    contentType: "text/html",
    body: textEncoder.encode(rendered.html),
    fetchedAt
  },
  cache,
  complete: rendered.finalDOMState === "complete",
  session,
  rendered,
  originalBody: rendered.body
})

const isHtml = (page: LoadedPage) =>
  page.contentType === undefined || page.contentType === "text/html" || page.contentType === "application/xhtml+xml"

const textDecoder = new TextDecoder()

/** Fails a page that is a bot wall, CAPTCHA, challenge, login wall or soft 404 (never a successful, charged scrape). */
const refuseWalls = (load: Load): Effect.Effect<Load, WebsiteError> => {
  if (!isHtml(load.page)) return Effect.succeed(load)
  const verdict = BlockDetection.inspect({ url: load.page.url, status: load.page.status, html: textDecoder.decode(load.page.body.subarray(0, 400_000)) })
  return verdict === undefined ? Effect.succeed(load) : Effect.fail(BlockDetection.toError(load.page.url, verdict))
}

/** The cache entry a static load read or wrote, and when its page was fetched. */
interface EntryUsed {
  readonly bytes: Uint8Array
  readonly fetchedAt: number
}

/**
 * The pipeline under the request's deadline: the outcome, and the page cache's entry it was made from when it was made
 * from one (a static load; a page rendered because of its own signals counts the entry that showed them).
 */
const execute = (
  request: ScrapeRequest.ScrapeRequest,
  options: RunOptions,
  read?: Option.Option<CacheEntry>
): Effect.Effect<{ readonly outcome: Outcome; readonly entry: EntryUsed | undefined }, ScrapeError, Fetcher | Cache> =>
  Effect.scoped(Effect.gen(function*() {
    const renderer = yield* Effect.serviceOption(Renderer.Renderer)
    const plan = RenderPlan.beforeFetch(request)
    if (plan.render && Option.isNone(renderer)) {
      return yield* new ContentError({
        reason: "CapabilityMissing",
        detail: `This request needs a browser (${plan.reasons.join(", ")}), and no renderer is configured`
      })
    }
    const deadline = yield* Deadline.make(request.timeoutMs, request.timeoutBehavior)
    // The open browser page, once there is one: a deadline turns its current DOM into a partial result.
    let session: Renderer.RenderSession | undefined
    let entry: EntryUsed | undefined
    const cacheOff: CacheMetadata = { status: request.zdr === "enabled" ? "zdr" : "miss", age_ms: 0 }
    const render = (renderer: Renderer.Renderer["Type"]) =>
      Effect.gen(function*() {
        const opened = yield* renderer.open(Renderer.optionsOf(request))
        session = opened
        const rendered = yield* opened.load
        return fromRendered(rendered, opened, yield* Clock.currentTimeMillis, cacheOff)
      })
    const loadAny: Effect.Effect<Load, WebsiteError | InvalidRequest, Fetcher | Cache | Scope.Scope> = Option.isSome(renderer) && plan.render
      ? render(renderer.value)
      : Effect.flatMap(load(request, read), (loaded) => {
        if (loaded.cacheEntry !== undefined) entry = { bytes: loaded.cacheEntry, fetchedAt: loaded.page.fetchedAt }
        if (Option.isNone(renderer) || !isHtml(loaded.page)) return Effect.succeed(loaded)
        const signals = RenderPlan.afterFetch({ contentType: loaded.page.contentType, html: textDecoder.decode(loaded.page.body.subarray(0, 400_000)) })
        return signals.render ? render(renderer.value) : Effect.succeed(loaded)
      })
    const loaded = yield* Deadline.gather(deadline, loadAny)
    const partial: Effect.Effect<Load, ScrapeError> = session === undefined
      ? Effect.fail(Deadline.expired(deadline, deadline.behavior === "return-partial"
        ? "nothing had loaded yet to return as a partial result"
        : "while loading the page"))
      : deadline.behavior === "return-partial"
      ? Effect.flatMap(
        // The snapshot must fit in what is left: a page that cannot even be read is a timeout, not a hang.
        Effect.flatMap(Deadline.remaining(deadline), (left) =>
          session!.snapshot.pipe(
            Effect.timeoutFail({ duration: Math.max(1, left), onTimeout: () => Deadline.expired(deadline, "the page could not be read in time") }),
            Effect.orElseFail(() => Deadline.expired(deadline, "the page could not be read when time ran out"))
          )),
        (page) => Effect.map(Clock.currentTimeMillis, (now) => ({ ...fromRendered(page, session!, now, cacheOff), complete: false }))
      )
      : Effect.fail(Deadline.expired(deadline, "while rendering the page"))
    const result = Option.isSome(loaded) ? loaded.value : yield* partial
    const checked = result.complete ? yield* refuseWalls(result) : result
    const formatted = yield* Deadline.finish(deadline, format(request, checked, options))
    let outputs = formatted.result
    // A rendered page's images learn what only the browser knows (decoded sizes, style-sheet backgrounds), within
    // what is left before the reserve; a partial capture keeps what the markup said.
    if (request.wants("images") && checked.session !== undefined && checked.complete && outputs.images.data !== null) {
      const withinMs = (yield* Deadline.remaining(deadline)) - deadline.reserveMs
      outputs = { ...outputs, images: { requested: true, data: yield* Images.fromSession(request, outputs.images.data, checked.session, withinMs) } }
    }
    // The screenshot is taken from the page still open in this scope, after the other outputs.
    if (request.wants("screenshot") && checked.session !== undefined) {
      const shot = yield* Deadline.finish(deadline, Screenshot.capture(request, checked.session))
      outputs = { ...outputs, screenshot: { requested: true, data: Screenshot.toDataUrl(shot) } }
    }
    return { outcome: outputs === formatted.result ? formatted : { ...formatted, result: outputs }, entry }
  }))

/** Runs a validated request through the pipeline under its deadline: the result and the facts behind it. */
export const runOutcome = (
  request: ScrapeRequest.ScrapeRequest,
  options: RunOptions = {}
): Effect.Effect<Outcome, ScrapeError, Fetcher | Cache> => Effect.map(execute(request, options), ({ outcome }) => outcome)

/** Runs a validated request through the pipeline under its deadline. */
export const run = (
  request: ScrapeRequest.ScrapeRequest,
  options: RunOptions = {}
): Effect.Effect<ScrapeResult, ScrapeError, Fetcher | Cache> => Effect.map(execute(request, options), ({ outcome }) => outcome.result)

/** What is known about a request for remembering its results, computed once per request object. */
interface MemoKeys {
  readonly options: RunOptions
  /** Undefined when the request's result is not a pure function of a cached page and its output options. */
  readonly memo: { readonly key: string; readonly pageKey: string; readonly maxAgeMs: number } | undefined
}

// Callers that reuse decoded request objects (the service's GET queries) have their keys (a hash, a serialization)
// computed once.
const memoKeysByRequest = new WeakMap<ScrapeRequest.ScrapeRequest, MemoKeys>()

/** Requests whose result is a pure function of the cached page and the request's output options. */
const memoizable = (request: ScrapeRequest.ScrapeRequest): boolean =>
  usesCache(request) && (request.maxAgeMs ?? ScrapeRequest.DEFAULT_MAX_AGE_MS) > 0 && !RenderPlan.beforeFetch(request).render

// Options are compared by their members: callers build a fresh options object per request (bench/http: the sha-256 of
// the page key and the serialized memo key were recomputed on every cache hit, 3% of its main thread).
const sameOptions = (a: RunOptions, b: RunOptions): boolean =>
  a === b || (a.pdfShouldParse === b.pdfShouldParse && a.links === b.links)

const memoKeysOf = (request: ScrapeRequest.ScrapeRequest, options: RunOptions): MemoKeys => {
  const known = memoKeysByRequest.get(request)
  if (known !== undefined && sameOptions(known.options, options)) return known
  const pageKey = memoizable(request) ? cacheKey(request) : undefined
  const keys: MemoKeys = {
    options,
    memo: pageKey === undefined ? undefined : {
      pageKey,
      maxAgeMs: request.maxAgeMs ?? ScrapeRequest.DEFAULT_MAX_AGE_MS,
      // Everything that shapes the output beside the page itself (not freshness, deadline, ZDR or tags).
      key: JSON.stringify([
        pageKey,
        request.formats,
        request.sharedParams ?? null,
        request.markdownParams ?? null,
        request.imageParams ?? null,
        request.parseParams ?? null,
        options.pdfShouldParse ?? null,
        options.links ?? null
      ])
    }
  }
  memoKeysByRequest.set(request, keys)
  return keys
}

/** Bytes a remembered outcome holds, estimated from its strings. */
const sizeOf = (result: ScrapeResult): number =>
  2 * ((result.markdown.data?.length ?? 0) + (result.html.data?.length ?? 0) + (result.bytes.data?.base64.length ?? 0)) +
  4096

/**
 * `runOutcome`, reusing the outcome when the same request meets the same cache entry again: the entry the cache answers
 * with is still the very one the outcome was made from, so freshness against `maxAgeMs` is the cache's as ever, and
 * requests that bypass the cache (ZDR, forwarded headers, `maxAgeMs` 0) or need a browser are always run. Reused
 * outcomes are shared between callers: never mutate them.
 */
export const runMemoized = (
  request: ScrapeRequest.ScrapeRequest,
  options: RunOptions = {}
): Effect.Effect<Outcome, ScrapeError, Fetcher | Cache> =>
  Effect.suspend(() => {
    const memo = memoKeysOf(request, options).memo
    if (memo === undefined) return runOutcome(request, options)
    // A memo hit is a handful of steps: the cache and the clock are read in one step, and a cache that answers
    // from memory is continued at once.
    return Effect.withFiberRuntime<Outcome, ScrapeError, Fetcher | Cache>((fiber) => {
      const cache = Context.get(fiber.currentContext as Context.Context<Cache>, Cache)
      const memos = memosOf<Outcome>(cache)
      const known = memos.get(memo.key)
      if (known === undefined) return executeNoting(request, options, memos, memo.key, undefined)
      const clock = Context.get(fiber.currentDefaultServices, Clock.Clock)
      const answer = (read: Option.Option<CacheEntry>): Effect.Effect<Outcome, ScrapeError, Fetcher | Cache> => {
        if (Option.isSome(read) && read.value.value === known.page) {
          const age = Math.max(0, clock.unsafeCurrentTimeMillis() - known.fetchedAt)
          return Effect.succeed({ ...known.outcome, result: { ...known.outcome.result, cache_metadata: { status: "hit", age_ms: age } } })
        }
        memos.delete(memo.key)
        return executeNoting(request, options, memos, memo.key, read)
      }
      const read = cache.get(memo.pageKey, memo.maxAgeMs)
      if (!Exit.isExit(read)) return Effect.flatMap(read, answer)
      const exit = read as Exit.Exit<Option.Option<CacheEntry>>
      return Exit.isSuccess(exit) ? answer(exit.value) : exit as Exit.Exit<never>
    })
  })

/** The pipeline's run, remembering its outcome when it was made from (or stored) a cache entry and is complete. */
const executeNoting = (
  request: ScrapeRequest.ScrapeRequest,
  options: RunOptions,
  memos: ReturnType<typeof memosOf<Outcome>>,
  key: string,
  read: Option.Option<CacheEntry> | undefined
): Effect.Effect<Outcome, ScrapeError, Fetcher | Cache> =>
  Effect.map(execute(request, options, read), ({ entry, outcome }) => {
    const status = outcome.result.cache_metadata.status
    if (entry === undefined || outcome.result.isPartial === true || (status !== "hit" && status !== "miss")) return outcome
    const remembered: Outcome = { ...outcome, derived: deriveOnce() }
    memos.set(key, { page: entry.bytes, fetchedAt: entry.fetchedAt, outcome: remembered, size: sizeOf(outcome.result) })
    return remembered
  })

/** Validates untrusted input and runs it. */
export const scrape = (input: unknown, options: RunOptions = {}): Effect.Effect<ScrapeResult, ScrapeError, Fetcher | Cache> =>
  Effect.flatMap(ScrapeRequest.decode(input), (request) => run(request, options))

