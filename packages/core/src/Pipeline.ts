/**
 * The scrape pipeline: load (cache or fetch) → convert → filter → format, under one `Deadline`. Each stage's output is
 * the next one's input, so the order is fixed by types.
 *
 * @since 0.1.0
 */
import { Clock, Effect, Option, Ref } from "effect"
import type { Root } from "hast"
import { createHash } from "node:crypto"
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
import * as Metadata from "./Metadata.js"
import * as ParseRules from "./ParseRules.js"
import * as ScrapeRequest from "./ScrapeRequest.js"
import type { CacheMetadata, ScrapeResult } from "./ScrapeResult.js"
import { type DocumentOptions, textAsMarkdown, toDocument } from "./internal/pipeline/document.js"
import { decodePage, encodePage, type LoadedPage } from "./internal/pipeline/page.js"
import { isYouTubeUrl, loadYouTube } from "./internal/convert/youtube/load.js"

/** A loaded page and where it came from. */
interface Load {
  readonly page: LoadedPage
  readonly cache: CacheMetadata
  /** False when the page is what a deadline captured before loading finished. */
  readonly complete: boolean
}

/**
 * The request members that only a browser can honour. Until a `Renderer` is provided (rendering lands separately),
 * a request that needs one fails clearly instead of silently ignoring what it asked for.
 */
export const browserNeeds = (request: ScrapeRequest.ScrapeRequest): ReadonlyArray<string> => {
  const shared = request.sharedParams
  const needs: Array<string> = []
  if (request.wants("screenshot")) needs.push("formats.screenshot")
  if ((shared?.actions?.length ?? 0) > 0) needs.push("sharedParams.actions")
  if (typeof shared?.waitFor === "string") needs.push("sharedParams.waitFor (a selector)")
  if (shared?.includeFrames === true) needs.push("sharedParams.includeFrames")
  if (shared?.theme !== undefined) needs.push("sharedParams.theme")
  if (shared?.viewport !== undefined) needs.push("sharedParams.viewport")
  if (shared?.dismissCookies === true) needs.push("sharedParams.dismissCookies")
  if (shared?.dismissPopups === true) needs.push("sharedParams.dismissPopups")
  return needs
}

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
        base64: Buffer.from(page.body).toString("base64"),
        contentType: page.headers["content-type"] ?? page.contentType ?? "application/octet-stream"
      })),
      parsed: output("parse", () => ParseRules.apply(tree, request.parseParams!, { baseUrl })),
      metadata: filtered.fallback === undefined ? metadata : { ...metadata, mainContentFallback: filtered.fallback },
      cache_metadata: load.cache,
      ...(load.complete ? {} : { isPartial: true as const })
    }
    const info: DocumentInfo = { type: document?.type, ocrPages: document?.ocrPages ?? 0 }
    return Object.assign(result, { [documentInfoKey]: info })
  })

/** Runs a validated request through the pipeline under its deadline. */
export const run = (
  request: ScrapeRequest.ScrapeRequest,
  options: RunOptions = {}
): Effect.Effect<ScrapeResult, ScrapeError, Fetcher | Cache> =>
  Effect.gen(function*() {
    const needs = browserNeeds(request)
    if (needs.length > 0) {
      return yield* new ContentError({
        reason: "CapabilityMissing",
        detail: `This request needs a browser (${needs.join(", ")}), and no renderer is configured`
      })
    }
    const deadline = yield* Deadline.make(request.timeoutMs, request.timeoutBehavior)
    // What a deadline can still turn into a partial result; a browser load records its latest DOM here.
    const partial = yield* Ref.make(Option.none<LoadedPage>())
    const loaded = yield* Deadline.gather(deadline, load(request))
    const result = Option.isSome(loaded) ? loaded.value : yield* Effect.flatMap(Ref.get(partial), Option.match({
      onNone: () => Effect.fail(Deadline.expired(deadline, deadline.behavior === "return-partial"
        ? "nothing had loaded yet to return as a partial result"
        : "while loading the page")),
      onSome: (page) => Effect.succeed<Load>({ page, cache: { status: "miss", age_ms: 0 }, complete: false })
    }))
    return yield* Deadline.finish(deadline, format(request, result, options))
  })

/** Validates untrusted input and runs it. */
export const scrape = (input: unknown, options: RunOptions = {}): Effect.Effect<ScrapeResult, ScrapeError, Fetcher | Cache> =>
  Effect.flatMap(ScrapeRequest.decode(input), (request) => run(request, options))

