/**
 * The scrape pipeline: load (cache or fetch) → convert → filter → format, under one `Deadline`. Each stage's output is
 * the next one's input, so the order is fixed by types.
 *
 * @since 0.1.0
 */
import { Clock, Effect, Option, type Scope } from "effect"
import type { Root } from "hast"
import { createHash } from "node:crypto"
import type * as Actions from "./Actions.js"
import { Cache } from "./Cache.js"
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
import { decodePage, encodePage, type LoadedPage } from "./internal/pipeline/page.js"
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
}

/** The request members that only a browser can honour (see `RenderPlan.requestNeeds`). */
export const browserNeeds = RenderPlan.requestNeeds

/** The cache key of a page load: what changes the fetched bytes (URL and exit country). */
export const cacheKey = (request: ScrapeRequest.ScrapeRequest): string =>
  "page:v1:" + createHash("sha256")
    .update(JSON.stringify([request.url, request.sharedParams?.country?.toLowerCase() ?? null]))
    .digest("hex")

/** Caching is off for zero-data-retention requests and for requests with forwarded headers. */
const cacheable = (request: ScrapeRequest.ScrapeRequest): boolean =>
  request.zdr !== "enabled" && Object.keys(request.sharedParams?.headers ?? {}).length === 0

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

/** Loads the page from the cache when allowed and fresh enough, else from the network (and stores it). */
const load = (request: ScrapeRequest.ScrapeRequest): Effect.Effect<Load, WebsiteError | InvalidRequest, Fetcher | Cache> =>
  Effect.gen(function*() {
    if (!cacheable(request)) {
      const page = yield* fetchPage(request)
      return { page, cache: { status: request.zdr === "enabled" ? "zdr" : "miss", age_ms: 0 }, complete: true } as const
    }
    const cache = yield* Cache
    const key = cacheKey(request)
    const maxAge = request.maxAgeMs ?? ScrapeRequest.DEFAULT_MAX_AGE_MS
    if (maxAge > 0) {
      const hit = (yield* cache.get(key, maxAge)).pipe(Option.flatMapNullable((entry) => decodePage(entry.value)))
      if (Option.isSome(hit)) {
        const now = yield* Clock.currentTimeMillis
        return { page: hit.value, cache: { status: "hit", age_ms: Math.max(0, now - hit.value.fetchedAt) }, complete: true } as const
      }
    }
    const page = yield* fetchPage(request)
    yield* cache.set(key, encodePage(page))
    return { page, cache: { status: "miss", age_ms: 0 }, complete: true } as const
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
}

/** The document options of a request: its PDF page range and OCR, and whether PDFs may be parsed. */
const documentOptions = (request: ScrapeRequest.ScrapeRequest, options: RunOptions): DocumentOptions => ({
  pdf: { ...request.sharedParams?.parsers?.pdf, shouldParse: options.pdfShouldParse }
})

/** What a result was made from, beside its JSON: the detected document type and the PDF pages OCR recovered. */
export interface DocumentInfo {
  /** Undefined when only the bytes were asked for (nothing was converted). */
  readonly type: Convert.DocumentType | undefined
  readonly ocrPages: number
}

// A symbol-keyed member: JSON bodies never show it, object spreads of a result keep it.
const documentInfoKey = Symbol.for("@sift/core/Pipeline/DocumentInfo")

/** The document type and OCR pages behind a result (for billing OCR and the HTML endpoint's `type`). */
export const documentInfo = (result: ScrapeResult): DocumentInfo =>
  (result as { [documentInfoKey]?: DocumentInfo })[documentInfoKey] ?? { type: undefined, ocrPages: 0 }

/** Builds every requested output from a loaded page: converting documents (PDF, office, OCR) may spawn tools and
 * is interruptible; the rest is CPU work. The caller bounds it with the deadline. */
export const format = (
  request: ScrapeRequest.ScrapeRequest,
  load: Load,
  options: RunOptions = {}
): Effect.Effect<ScrapeResult, ContentError | InvalidRequest> =>
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
    const info: DocumentInfo = { type: document?.type, ocrPages: document?.ocrPages ?? 0 }
    return Object.assign(result, { [documentInfoKey]: info, [renderInfoKey]: renderInfoOf(load) })
  })

/** What the browser did for a result; `rendered` false for a static load. */
export interface RenderInfo {
  readonly rendered: boolean
  readonly finalDOMState: Renderer.DomState
  readonly actionsApplied?: ReadonlyArray<Actions.ActionOutcome> | undefined
  readonly actionsHtmlStale?: boolean | undefined
}

const renderInfoKey = Symbol.for("@sift/core/Pipeline/RenderInfo")

const renderInfoOf = (load: Load): RenderInfo => ({
  rendered: load.session !== undefined,
  finalDOMState: load.complete ? "complete" : "still-loading",
  ...(load.rendered?.actionsApplied === undefined
    ? {}
    : { actionsApplied: load.rendered.actionsApplied, actionsHtmlStale: load.rendered.actionsHtmlStale ?? false })
})

/** Whether a result was rendered, its DOM state and the outcome of its actions (for the endpoints that report them). */
export const renderInfo = (result: ScrapeResult): RenderInfo =>
  (result as { [renderInfoKey]?: RenderInfo })[renderInfoKey] ?? { rendered: false, finalDOMState: result.isPartial ? "still-loading" : "complete" }

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

/** Runs a validated request through the pipeline under its deadline. */
export const run = (
  request: ScrapeRequest.ScrapeRequest,
  options: RunOptions = {}
): Effect.Effect<ScrapeResult, ScrapeError, Fetcher | Cache> =>
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
      : Effect.flatMap(load(request), (loaded) => {
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
    // A rendered page's images learn what only the browser knows (decoded sizes, style-sheet backgrounds), within
    // what is left before the reserve; a partial capture keeps what the markup said.
    if (request.wants("images") && checked.session !== undefined && checked.complete && formatted.images.data !== null) {
      const withinMs = (yield* Deadline.remaining(deadline)) - deadline.reserveMs
      Object.assign(formatted, { images: { requested: true, data: yield* Images.fromSession(request, formatted.images.data, checked.session, withinMs) } })
    }
    // The screenshot is taken from the page still open in this scope, after the other outputs.
    if (!request.wants("screenshot") || checked.session === undefined) return formatted
    const shot = yield* Deadline.finish(deadline, Screenshot.capture(request, checked.session))
    return Object.assign(formatted, { screenshot: { requested: true, data: Screenshot.toDataUrl(shot) } })
  }))

/** Validates untrusted input and runs it. */
export const scrape = (input: unknown, options: RunOptions = {}): Effect.Effect<ScrapeResult, ScrapeError, Fetcher | Cache> =>
  Effect.flatMap(ScrapeRequest.decode(input), (request) => run(request, options))

