/**
 * What a submission becomes before anything is stored: the pages a scrape reserves (each URL checked and normalized,
 * repeats of one page with one itemId dropped, unusable ones listed with why), or where a crawl starts and what it
 * may reserve (a sitemap read now, so its pages are known; a start URL checked now, so a crawl that can read nothing
 * is refused before it costs anything).
 */
import { Crawler, Errors, Fetcher, UrlDiscovery, UrlNormal } from "@sift/core"
import { Effect } from "effect"
import { BatchRefused } from "../BatchErrors.js"
import { DEFAULT_CRAWL_MAX_URLS, type Input } from "../BatchSpec.js"
import type { Intake } from "./views.js"

/** A page to store with the batch. */
export interface PlannedPage {
  readonly url: string
  readonly urlKey: string
  readonly itemId: string | null
  readonly meta: unknown
  readonly depth: number
}

/** Invalid URLs listed in the answer at most (all are counted). */
export const INVALID_LISTED = 100

/** A submission's plan: its pages now, its intake counts, and for a crawl its controls in wire shape. */
export interface Plan {
  readonly pages: ReadonlyArray<PlannedPage>
  readonly intake: Intake
  readonly invalidUrls: ReadonlyArray<{ readonly url: string; readonly reason: string }>
  /** `crawl` of the API (wave2 §1.2 `CrawlControls`), null for a scrape. */
  readonly crawl: Record<string, unknown> | null
  /** What the runner needs to follow links (start_url crawls only). */
  readonly follow: { readonly start: string; readonly followSubdomains: boolean; readonly maxDepth: number | null; readonly regex: string | undefined; readonly maxPages: number } | null
}

/** A URL as a batch reads it: `https://` when no scheme is given; `undefined` with why when unusable. */
const readUrl = (raw: string): { readonly url: string } | { readonly reason: string } => {
  const text = raw.trim()
  if (text === "") return { reason: "empty URL" }
  const withScheme = /^[a-z][a-z0-9+.-]*:/i.test(text) ? text : `https://${text}`
  const url = UrlNormal.normalize(withScheme)
  if (url === undefined) return { reason: /^[a-z][a-z0-9+.-]*:/i.test(text) && !/^https?:/i.test(text) ? "only http and https URLs can be scraped" : "not a valid URL" }
  return { url }
}

const scrapePlan = (urls: ReadonlyArray<{ readonly url: string; readonly itemId?: string | undefined; readonly meta?: unknown }>): Plan => {
  const seen = new Set<string>()
  const pages: Array<PlannedPage> = []
  const invalidUrls: Array<{ url: string; reason: string }> = []
  let invalid = 0
  let duplicates = 0
  for (const entry of urls) {
    const read = readUrl(entry.url)
    if ("reason" in read) {
      invalid++
      if (invalidUrls.length < INVALID_LISTED) invalidUrls.push({ url: entry.url, reason: read.reason })
      continue
    }
    const urlKey = UrlNormal.dedupeKey(read.url)
    const itemId = entry.itemId ?? null
    // The same page with the same itemId is one page; the same URL may come back under several ids.
    const key = `${urlKey}\u0000${itemId ?? ""}`
    if (seen.has(key)) {
      duplicates++
      continue
    }
    seen.add(key)
    pages.push({ url: read.url, urlKey, itemId, meta: entry.meta ?? null, depth: 0 })
  }
  return {
    pages,
    intake: { duplicates, invalid, reserved: pages.length, reserved_is_ceiling: false, submitted: urls.length },
    invalidUrls,
    crawl: null,
    follow: null
  }
}

const noPages = (detail: string) => new BatchRefused({ reason: "NothingToCrawl", detail })

/** Plans a submission; reading a sitemap or checking a start URL uses the Fetcher (under its address guard). */
export const plan = (input: Input): Effect.Effect<Plan, BatchRefused | Errors.InvalidRequest | Errors.WebsiteError | Errors.RequestTimeout, Fetcher.Fetcher> =>
  Effect.gen(function*() {
    if (input.mode === "scrape") {
      const planned = scrapePlan(input.data.urls)
      if (planned.pages.length === 0) {
        return yield* noPages(`None of the ${input.data.urls.length} URLs can be scraped (${planned.invalidUrls[0]?.url}: ${planned.invalidUrls[0]?.reason})`)
      }
      return planned
    }
    const source = input.data.source
    if (source.type === "sitemap") {
      const maxUrls = source.controls?.maxUrls ?? DEFAULT_CRAWL_MAX_URLS
      const map = yield* UrlDiscovery.discover({
        domain: source.domain,
        maxLinks: maxUrls,
        urlRegex: source.controls?.regex,
        crawl: "never",
        // Only the pages the sitemaps list are a sitemap source's (the home page too only when listed).
        sitemapsOnly: true,
        useIndex: false
      }).pipe(Effect.mapError((error) => error._tag === "InvalidRequest" && error.field === "urlRegex"
        ? new Errors.InvalidRequest({ reason: "Invalid", field: "input.data.source.controls.regex", detail: error.detail })
        : error))
      const planned = scrapePlan(map.urls.map((u) => ({ url: u.url })))
      if (planned.pages.length === 0) {
        return yield* noPages(`The sitemaps of ${map.domain} list no page${source.controls?.regex === undefined ? "" : " matching the regex"}`)
      }
      return {
        ...planned,
        // Repeats among the sitemaps' entries were dropped while they were read; the plan drops none of what is left.
        intake: { duplicates: map.meta.duplicates + planned.intake.duplicates, invalid: null, reserved: planned.pages.length, reserved_is_ceiling: false, submitted: null },
        invalidUrls: [],
        crawl: { follow_subdomains: false, max_depth: 0, max_pages: maxUrls, source: { type: "sitemap", domain: map.domain }, url_pattern: source.controls?.regex ?? null },
        follow: null
      }
    }
    const read = readUrl(source.url)
    if ("reason" in read) return yield* noPages(`The start URL ${source.url} cannot be crawled: ${read.reason}`)
    const controls = source.controls ?? {}
    // The scope is compiled now, so a pattern that is not RE2 is refused at submission, never in the drive.
    yield* Crawler.scope({
      start: read.url,
      followSubdomains: controls.followSubdomains ?? false,
      maxDepth: controls.maxDepth,
      pattern: controls.regex,
      patternField: "input.data.source.controls.regex"
    })
    // The start page must answer: a crawl that can read nothing is refused now, uncharged (its error says why).
    const fetcher = yield* Fetcher.Fetcher
    yield* fetcher.fetch({ url: read.url })
    const maxPages = controls.maxUrls ?? DEFAULT_CRAWL_MAX_URLS
    return {
      pages: [{ url: read.url, urlKey: UrlNormal.dedupeKey(read.url), itemId: null, meta: null, depth: 0 }],
      intake: { duplicates: 0, invalid: null, reserved: maxPages, reserved_is_ceiling: true, submitted: null },
      invalidUrls: [],
      crawl: {
        follow_subdomains: controls.followSubdomains ?? false,
        max_depth: controls.maxDepth ?? null,
        max_pages: maxPages,
        source: { type: "start_url", url: read.url },
        url_pattern: controls.regex ?? null
      },
      follow: { start: read.url, followSubdomains: controls.followSubdomains ?? false, maxDepth: controls.maxDepth ?? null, regex: controls.regex, maxPages }
    }
  })
