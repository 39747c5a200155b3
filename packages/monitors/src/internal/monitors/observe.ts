/**
 * What a run observes of its target, through `@sift/core`: a page's main-content text, a sitemap's URL set, or the
 * pages of an extract target. Transient trouble (an error page, a bot wall, an empty page, a sitemap that could not be
 * read) is an `ObservationFailed`, which makes the run failed, never a change.
 */
import { Cache, Errors, Fetcher, Pipeline, ScrapeRequest } from "@sift/core"
import * as UrlDiscovery from "@sift/core/UrlDiscovery"
import { Effect, Schema } from "effect"
import * as ChangeDetection from "../../ChangeDetection.js"
import { EXTRACT_DEFAULTS, type Target } from "../../MonitorSpec.js"

/** A run could not observe its target; `code` is the contract's error code recorded in the run's `error`. */
export class ObservationFailed extends Schema.TaggedError<ObservationFailed>()("ObservationFailed", {
  code: Errors.ErrorCode,
  detail: Schema.String
}) {
  override get message(): string {
    return this.detail
  }
}

// A page run gets a minute (with a browser if the page needs one); a sitemap two.
const PAGE_TIMEOUT_MS = 60_000
const SITEMAP_TIMEOUT_MS = 120_000

const fromScrapeError = (error: Errors.ScrapeError): ObservationFailed =>
  new ObservationFailed({ code: error.errorCode, detail: error.message })

type PageTarget = Extract<Target, { type: "page" }>
type SitemapTarget = Extract<Target, { type: "sitemap" }>
type ExtractTarget = Extract<Target, { type: "extract" }>

/** Scrapes one page's Markdown (main content unless selectors are given) and, when asked, its links. */
const scrapePage = (
  url: string,
  options: { readonly include?: ReadonlyArray<string> | undefined; readonly exclude?: ReadonlyArray<string> | undefined; readonly links?: boolean }
) =>
  Effect.gen(function*() {
    const include = options.include ?? []
    const request = yield* ScrapeRequest.decode({
      url,
      formats: { markdown: true, ...(options.links === true ? { parse: true } : {}) },
      sharedParams: {
        mainContentOnly: include.length === 0,
        ...(include.length > 0 ? { includeSelectors: include } : {}),
        ...((options.exclude ?? []).length > 0 ? { excludeSelectors: options.exclude } : {})
      },
      ...(options.links === true ? { parseParams: { rules: { links: { selector: "a[href]", type: "list", output: "href" } } } } : {}),
      // Always fresh: a monitor compares what the site says now.
      maxAgeMs: 0,
      timeoutOpts: { milliseconds: PAGE_TIMEOUT_MS }
    })
    const result = yield* Pipeline.run(request)
    const status = result.metadata.statusCode
    if (typeof status === "number" && status >= 400) {
      return yield* new ObservationFailed({
        code: "WEBSITE_ACCESS_ERROR",
        detail: `${url} answered HTTP ${status}; the baseline is kept and the next run tries again`
      })
    }
    const links = ((result.parsed.data?.links ?? []) as ReadonlyArray<unknown>).filter((v): v is string => typeof v === "string")
    return { url: result.url, title: String(result.metadata.title ?? ""), markdown: result.markdown.data ?? "", links }
  }).pipe(Effect.catchIf((e): e is Errors.ScrapeError => !(e instanceof ObservationFailed), fromScrapeError))

/** A page target's normalised text. */
export const observePage = (target: PageTarget): Effect.Effect<string, ObservationFailed, Fetcher.Fetcher | Cache.Cache> =>
  Effect.gen(function*() {
    const page = yield* scrapePage(target.url, { include: target.include_selectors, exclude: target.exclude_selectors })
    const text = ChangeDetection.normalizeText(page.markdown, { normalizeWhitespace: target.normalize_whitespace ?? true })
    if (text.trim() === "") {
      return yield* new ObservationFailed({
        code: "WEBSITE_ACCESS_ERROR",
        detail: `${target.url} had no text${(target.include_selectors ?? []).length > 0 ? " in the included selectors" : ""}; the baseline is kept`
      })
    }
    return text
  })

const siteOf = (host: string) => host.toLowerCase().replace(/^www\./, "")

/** Normalises a sitemap URL: lower-case host, no fragment, no trailing slash (but the root's). */
export const normalizeUrl = (raw: string): string | undefined => {
  try {
    const url = new URL(raw)
    url.hash = ""
    url.hostname = url.hostname.toLowerCase()
    let text = url.toString()
    if (url.pathname !== "/" && text.endsWith("/") && url.search === "") text = text.slice(0, -1)
    return text
  } catch {
    return undefined
  }
}

/** A sitemap target's URL set (sorted, normalised, on the site and its subdomains, per include/exclude/max_urls). */
export const observeSitemap = (target: SitemapTarget): Effect.Effect<ReadonlyArray<string>, ObservationFailed, Fetcher.Fetcher> =>
  Effect.gen(function*() {
    const found = yield* UrlDiscovery.discover({
      domain: target.url,
      sitemapUrl: target.url,
      includeSubdomains: true,
      maxLinks: 100_000,
      crawl: "never",
      useIndex: false,
      timeout: { milliseconds: SITEMAP_TIMEOUT_MS }
    }).pipe(Effect.mapError((error) => new ObservationFailed({ code: error.errorCode, detail: error.message })))
    if (found.meta.sitemapsFetched === 0) {
      return yield* new ObservationFailed({ code: "WEBSITE_ACCESS_ERROR", detail: `the sitemap ${target.url} could not be read; the baseline is kept` })
    }
    const site = siteOf(new URL(target.url).hostname)
    const urls = found.urls.flatMap((u) => {
      const normal = normalizeUrl(u.url)
      if (normal === undefined) return []
      const host = siteOf(new URL(normal).hostname)
      return host === site || host.endsWith(`.${site}`) ? [normal] : []
    })
    return ChangeDetection.selectSitemapUrls(urls, { include: target.include, exclude: target.exclude, max_urls: target.max_urls })
  })

/** The pages of an extract target: breadth-first from its URL, same site, at most `max_pages` within `max_depth` links. */
export const observeExtract = (
  target: ExtractTarget
): Effect.Effect<ReadonlyArray<ChangeDetection.AnalysedPage>, ObservationFailed, Fetcher.Fetcher | Cache.Cache> =>
  Effect.gen(function*() {
    const maxPages = target.max_pages ?? EXTRACT_DEFAULTS.maxPages
    const maxDepth = target.max_depth ?? EXTRACT_DEFAULTS.maxDepth
    const root = new URL(target.url)
    const site = siteOf(root.hostname)
    const onSite = (url: URL) => {
      const host = siteOf(url.hostname)
      return host === site || (target.follow_subdomains === true && host.endsWith(`.${site}`))
    }
    const pages: Array<ChangeDetection.AnalysedPage> = []
    const seen = new Set([normalizeUrl(target.url)])
    let frontier = [target.url]
    for (let depth = 0; depth <= maxDepth && frontier.length > 0 && pages.length < maxPages; depth++) {
      const next: Array<string> = []
      for (const url of frontier) {
        if (pages.length >= maxPages) break
        const page = yield* scrapePage(url, { links: depth < maxDepth }).pipe(
          // The root must load; a linked page that fails is left out of this run's analysis.
          Effect.map((p) => p as typeof p | undefined),
          Effect.catchAll((error) => depth === 0 ? Effect.fail(error) : Effect.succeed(undefined))
        )
        if (page === undefined) continue
        pages.push({ url: page.url, title: page.title, text: ChangeDetection.normalizeText(page.markdown, { normalizeWhitespace: true }) })
        for (const href of page.links) {
          let link: URL
          try {
            link = new URL(href, page.url)
          } catch {
            continue
          }
          if ((link.protocol !== "http:" && link.protocol !== "https:") || !onSite(link)) continue
          const normal = normalizeUrl(link.toString())
          if (normal === undefined || seen.has(normal)) continue
          seen.add(normal)
          next.push(normal)
        }
      }
      frontier = next
    }
    if (pages.every((p) => p.text.trim() === "")) {
      return yield* new ObservationFailed({ code: "WEBSITE_ACCESS_ERROR", detail: `${target.url} had no text; the baseline is kept` })
    }
    return pages
  })
