/**
 * `GET /web/scrape/screenshot` (`url`) and `GET /web/screenshot` (`domain` or `directUrl`, optional `page`), decisions
 * §3. Both map their query onto a POST scrape with only the screenshot format, so validation, the browser and the
 * deadline are the scrape's; `scrollOffset` cuts a viewport-sized slice out of a full-page capture.
 *
 * @since 0.1.0
 */
import { type Cache, Errors, type Fetcher, Html, Pipeline, type ScrapeRequest, Screenshot } from "@sift/core"
import { Clock, Effect, Schema } from "effect"
import type { Element, Root, RootContent } from "hast"
import type * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import type { BlobStore } from "@sift/store"
import { ApiFailure } from "../ErrorMapping.js"
import * as HostedFiles from "../Images/HostedFiles.js"
import * as QueryParams from "../QueryParams.js"
import type { Caller, Handler } from "../RequestPipeline.js"
import * as ScrapeQuery from "../Scrape/ScrapeQuery.js"

/** The page types `GET /web/screenshot?page=` finds from the site's links, by link path or text (several languages). */
const PAGE_PATTERNS: Record<string, RegExp> = {
  login: /\b(log[\s_-]?in|sign[\s_-]?in|anmelden|connexion|iniciar-sesion|accedi|inloggen)\b/i,
  signup: /\b(sign[\s_-]?up|register|registrieren|inscription|registro|registrati|get[\s_-]started|create[\s_-]account)\b/i,
  blog: /\b(blog|news|articles|journal|magazin)\b/i,
  careers: /\b(careers?|jobs|karriere|emplois?|empleo|lavora-con-noi|vacatures)\b/i,
  pricing: /\b(pricing|prices|plans|preise|tarifs|precios|prezzi)\b/i,
  terms: /\b(terms|tos|conditions|agb|nutzungsbedingungen|cgu|terminos)\b/i,
  privacy: /\b(privacy|datenschutz|confidentialite|privacidad)\b/i,
  contact: /\b(contact|kontakt|contacto|contatti)\b/i
}

interface ScreenshotInput {
  readonly request: ScrapeRequest.ScrapeRequest
  /** Set for `GET /web/screenshot?page=`: the page is found from the home page's links at run time. */
  readonly page: string | undefined
  readonly scrollOffset: number | undefined
  readonly domain: string | undefined
}

const invalid = (field: string, detail: string) => new Errors.InvalidRequest({ reason: "Invalid", field, detail })
const { optional } = QueryParams

const size = (value: unknown, field: string) => {
  if (value === undefined) return undefined
  if (typeof value === "number" || (typeof value === "string" && /^\d+$/.test(value))) return Number(value)
  throw invalid(field, "must be a positive integer")
}

/** `viewport[width]`, `viewport[height]`. */
const viewport = QueryParams.reading(Schema.Struct({ width: Schema.optional(Schema.Number), height: Schema.optional(Schema.Number) }), (value, field) => {
  const object = QueryParams.readObject(value, field)
  return object === undefined ? undefined : ScrapeQuery.defined({ width: size(object.width, `${field}[width]`), height: size(object.height, `${field}[height]`) })
}).pipe(ScrapeQuery.lands("sharedParams.viewport")).annotations({ description: "viewport[width] (100 to 7680), viewport[height] (100 to 10000); default 1920x1080" })

const scrollOffset = QueryParams.reading(Schema.Int.pipe(Schema.between(0, 100_000)), (value, field) => {
  const offset = QueryParams.readInteger(value, field)
  if (offset !== undefined && (offset < 0 || offset > 100_000)) throw invalid(field, "must be from 0 to 100000")
  return offset
}).annotations({ description: "0 to 100000: the viewport-high slice of the full page starting here" })

/** The members both screenshot GETs read besides their target. */
const fields = {
  scrollOffset: optional(scrollOffset),
  colorScheme: optional(QueryParams.string.pipe(ScrapeQuery.lands("sharedParams.theme")).annotations({ description: "light or dark" })),
  clearPopups: optional(QueryParams.boolean.annotations({ description: "Dismiss popups and consent banners before capture" })),
  handleCookiePopup: optional(QueryParams.boolean.annotations({ description: "Dismiss the consent banner before capture" })),
  maxAgeMs: optional(ScrapeQuery.maxAgeMs.annotations({
    description: "0 to 2592000000; default 86400000: the oldest cached screenshot accepted; 0 renders fresh and replaces it"
  })),
  timeoutOpts: optional(ScrapeQuery.timeoutOpts),
  timeoutMS: optional(ScrapeQuery.timeoutMS),
  zdr: optional(ScrapeQuery.zdr),
  tags: optional(ScrapeQuery.tags),
  viewport: optional(viewport),
  waitForMs: optional(ScrapeQuery.waitForMs),
  country: optional(ScrapeQuery.country),
  fullScreenshot: optional(QueryParams.boolean.annotations({ description: "Capture the full page (alias fullPage)" })),
  fullPage: optional(QueryParams.boolean.annotations({ description: "Alias of fullScreenshot" }))
}

type Fields = Schema.Struct.Type<typeof fields>

/** The POST body of a screenshot query; `url` is the page to capture. */
const requestFromQuery = <A extends Fields>(schema: Schema.Schema<A, any>, query: A, url: string | undefined) =>
  ScrapeQuery.toPost(schema, query, {
    ...(url === undefined ? {} : { url }),
    formats: { screenshot: true },
    sharedParams: ScrapeQuery.defined({
      // Clearing popups clears consent banners too, as the official client documents.
      dismissCookies: query.handleCookiePopup === true || query.clearPopups === true ? true : undefined,
      dismissPopups: query.clearPopups === true ? true : undefined
    }),
    screenshotParams: { area: (query.fullScreenshot ?? query.fullPage ?? false) || query.scrollOffset !== undefined ? "fullPage" : "viewport" }
  })

/** A bare host name (`example.com`), from `domain` given with or without a scheme or path. */
const normalizeDomain = (domain: string): string => {
  const host = domain.trim().replace(/^[a-z]+:\/\//i, "").split(/[/?#]/)[0]!.toLowerCase()
  if (!/^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z0-9-]{2,63}(?::\d{1,5})?$/.test(host)) {
    throw invalid("domain", "must be a domain name such as example.com")
  }
  return host
}

/** The query of `GET /web/scrape/screenshot`. */
export const ScrapeScreenshotQuery = ScrapeQuery.struct(fields).annotations({ description: "Screenshot one URL in Chromium (1 credit)" })

/** The query of `GET /web/screenshot`. */
export const ScreenshotQuery = Schema.Struct({
  domain: optional(QueryParams.string.annotations({ description: "The site (exactly one of domain and directUrl)" })),
  directUrl: optional(QueryParams.string.annotations({ description: "The exact URL to capture" })),
  page: optional(QueryParams.string.annotations({
    description: `With domain: ${Object.keys(PAGE_PATTERNS).join(", ")}`,
    jsonSchema: { type: "string", enum: Object.keys(PAGE_PATTERNS) }
  })),
  ...fields
}).annotations({ description: "Screenshot a site's home page, one of its pages, or a direct URL (1 credit)" })

const decodeScrapeScreenshot = ScrapeQuery.decoder("scrape-screenshot", ScrapeScreenshotQuery, (query) => requestFromQuery(ScrapeScreenshotQuery, query, query.url))

/** The target of `GET /web/screenshot`: exactly one of `domain` and `directUrl`; `page` with `domain` only. */
const targetOf = (query: typeof ScreenshotQuery.Type): { url: string; page?: string; domain?: string } => {
  const { directUrl, domain, page } = query
  if ((domain === undefined) === (directUrl === undefined)) throw invalid("domain", "give exactly one of domain or directUrl")
  if (page !== undefined && PAGE_PATTERNS[page] === undefined) throw invalid("page", `must be one of ${Object.keys(PAGE_PATTERNS).join(", ")}`)
  if (page !== undefined && directUrl !== undefined) throw invalid("page", "applies to domain only, not directUrl")
  if (directUrl !== undefined) return { url: directUrl }
  const host = normalizeDomain(domain!)
  return { url: `https://${host}/`, domain: host, ...(page === undefined ? {} : { page }) }
}

const decodeScreenshot = ScrapeQuery.decoder("screenshot", ScreenshotQuery, (query) => requestFromQuery(ScreenshotQuery, query, targetOf(query).url))

const planOf = (request: ScrapeRequest.ScrapeRequest, query: Fields, target: { readonly page?: string; readonly domain?: string }) =>
  ScrapeQuery.planFor(request, 1, { request, page: target.page, scrollOffset: query.scrollOffset, domain: target.domain } satisfies ScreenshotInput)

/** The link of the home page that leads to a page type, by path first, then by link text. */
export const findPage = (tree: Root, baseUrl: string, page: string): string | undefined => {
  const pattern = PAGE_PATTERNS[page]!
  const links: Array<{ href: string; text: string }> = []
  const walk = (nodes: ReadonlyArray<RootContent>) => {
    for (const node of nodes) {
      if (node.type !== "element") continue
      if (node.tagName === "a" && typeof node.properties.href === "string") links.push({ href: node.properties.href, text: textOf(node) })
      walk(node.children)
    }
  }
  walk(tree.children)
  const resolved = (href: string) => {
    try {
      const url = new URL(href, baseUrl)
      return /^https?:$/.test(url.protocol) ? url.href : undefined
    } catch {
      return undefined
    }
  }
  const byPath = links.find((link) => pattern.test(decodeURIComponent(resolved(link.href)?.replace(/^https?:\/\/[^/]+/, "") ?? "")))
  const byText = links.find((link) => resolved(link.href) !== undefined && pattern.test(link.text))
  const chosen = byPath ?? byText
  return chosen === undefined ? undefined : resolved(chosen.href)
}

const textOf = (element: Element): string =>
  element.children.map((child) => (child.type === "text" ? child.value : child.type === "element" ? textOf(child) : "")).join(" ")

/** The page to capture for `page=`: the home page's link to it, or 404 `NOT_FOUND` when the site has none. */
const resolvePage = (input: ScreenshotInput) =>
  Effect.gen(function*() {
    if (input.page === undefined) return input.request
    const { result: home } = yield* Pipeline.runMemoized(Object.assign(Object.create(Object.getPrototypeOf(input.request)), input.request, {
      formats: { html: true },
      screenshotParams: undefined,
      sharedParams: undefined
    }) as ScrapeRequest.ScrapeRequest)
    const found = findPage(Html.parse(home.html.data ?? ""), home.url, input.page)
    if (found === undefined) {
      return yield* new ApiFailure({ code: "NOT_FOUND", detail: `page: no ${input.page} page is linked from ${home.url}` })
    }
    return Object.assign(Object.create(Object.getPrototypeOf(input.request)), input.request, { url: found }) as ScrapeRequest.ScrapeRequest
  })

/** Renders the screenshot of a request (finding the page first for `page=`): the capture, before any `scrollOffset`. */
const capture = (input: ScreenshotInput) =>
  Effect.gen(function*() {
    const request = yield* resolvePage(input)
    const { render, result } = yield* Pipeline.runMemoized(request)
    const shot = Screenshot.fromDataUrl(result.screenshot.data ?? "")
    if (shot === undefined) {
      return yield* new Errors.ContentError({ reason: "CapabilityMissing", detail: "the browser returned no screenshot" })
    }
    const size = yield* Screenshot.measure(shot.bytes)
    const complete = render.finalDOMState !== "still-loading" && result.isPartial !== true
    const capturedAt = yield* Clock.currentTimeMillis
    return { screenshot: { ...shot, ...size, url: result.url, capturedAt, metadata: result.metadata }, complete }
  })

const run = (_caller: Caller, input: ScreenshotInput) =>
  Effect.gen(function*() {
    const request = input.request
    // Keyed by the request as asked (for `page=`, the domain and page type), so a hit needs no fetch at all; the
    // capture is cached before `scrollOffset` cuts it, so every offset of one page shares the entry.
    const outcome = yield* Screenshot.cached(request, capture(input), input.page === undefined ? {} : { page: input.page })
    let shot: { readonly contentType: string; readonly bytes: Uint8Array } = outcome.screenshot
    let size = { width: outcome.screenshot.width, height: outcome.screenshot.height }
    if (input.scrollOffset !== undefined) {
      const viewportHeight = request.sharedParams?.viewport?.height ?? (request.sharedParams?.viewport === undefined ? 1080 : 900)
      const slice = yield* Screenshot.slice(shot.bytes, input.scrollOffset, viewportHeight).pipe(Effect.mapError((error) =>
        new Errors.InvalidRequest({ reason: "Invalid", field: "scrollOffset", detail: error.detail })))
      shot = { contentType: "image/png", bytes: slice.bytes }
      size = { width: slice.width, height: slice.height }
    }
    // The SDK: "Public image URL for standard requests, or an in-memory data URL when ZDR is enabled" (wave2 §5).
    const screenshot = request.zdr === "enabled" ? Screenshot.toDataUrl(shot) : yield* HostedFiles.hostContent(yield* HostedFiles.publicOrigin)(shot)
    return {
      body: {
        success: true,
        status: "ok",
        // The SDK's `code` (wave2 §5): the outcome as an HTTP status.
        code: 200,
        screenshot,
        width: size.width,
        height: size.height,
        url: outcome.screenshot.url,
        ...(input.domain === undefined ? {} : { domain: input.domain }),
        screenshotType: request.screenshotParams?.area === "fullPage" && input.scrollOffset === undefined ? "fullPage" : "viewport",
        finalDOMState: outcome.complete ? "loaded" : "still-loading",
        cache_metadata: outcome.cache
      },
      credits: 1
    }
  })

type ScreenshotHandler = Handler<
  ScreenshotInput,
  Errors.InvalidRequest,
  never,
  Errors.ScrapeError | ApiFailure,
  Fetcher.Fetcher | Cache.Cache | BlobStore.BlobStore | HttpServerRequest.HttpServerRequest
>

/** `GET /web/scrape/screenshot?url=`: 1 credit. */
export const scrapeScreenshot: ScreenshotHandler = {
  validate: (caller: Caller) => Effect.map(decodeScrapeScreenshot(caller), ({ query, request }) => planOf(request, query, {})),
  run
}

/** `GET /web/screenshot?domain=|directUrl=[&page=]`: 1 credit. */
export const screenshot: ScreenshotHandler = {
  validate: (caller: Caller) => Effect.map(decodeScreenshot(caller), ({ query, request }) => planOf(request, query, targetOf(query))),
  run
}
