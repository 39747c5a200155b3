/**
 * Maps a site: every URL it has, from everywhere it says so. The core of GET /web/urls and GET /web/scrape/sitemap.
 *
 * 1. Host variants (apex and `www.`, https and http) are probed through their robots.txt; redirects between them fold
 *    into the origins that really serve the site.
 * 2. Sitemaps: robots.txt `Sitemap:` lines and common locations (`/sitemap.xml`, `/sitemap_index.xml`, ...) on every
 *    live origin, or only the given `sitemapUrl`; indexes to any depth with a loop guard; gzip, text sitemaps, RSS and
 *    Atom feeds; up to the protocol's 50 MB per file (larger ones are skipped with a warning, the rest still used).
 * 3. When sitemaps are missing or thin, a bounded same-site link crawl that respects robots.txt (which never removes
 *    a URL a sitemap lists).
 * 4. Normalisation and dedupe ({@link UrlNormal}), scope (`includeSubdomains`), `urlRegex` (RE2), then `search`
 *    ranking ({@link UrlSearch}) and `maxLinks` (up to 100,000; no hidden cap).
 *
 * With a {@link UrlIndex} in context, found URLs are recorded there and come back with the metadata it holds.
 *
 * @since 0.1.0
 */
import { Cause, Duration, Effect, Exit, Fiber, Layer, Option } from "effect"
import * as Deadline from "./Deadline.js"
import { type InvalidRequest, type RequestTimeout, WebsiteError } from "./Errors.js"
import * as Fetcher from "./Fetcher.js"
import { Collector, type Meta, type Progress } from "./internal/discovery/collector.js"
import { crawl } from "./internal/discovery/linkCrawl.js"
import { probe, rulesOf } from "./internal/discovery/origins.js"
import { readPage } from "./internal/discovery/pageFacts.js"
import { check, limits } from "./internal/discovery/request.js"
import { commonLocations, makeWalker, type Source, walk } from "./internal/discovery/sitemapWalk.js"
import { UrlIndex, type UrlFacts } from "./UrlIndex.js"
import { normalize } from "./UrlNormal.js"
import * as UrlSearch from "./UrlSearch.js"

export type { Progress } from "./internal/discovery/collector.js"

/** The ranges of the contract: `maxLinks` 1 to 100,000 (default 10,000), `urlRegex` ≤ 256, `search` 2 to 200. */
export { limits }

/** A map request. @category models */
export interface DiscoverOptions {
  /** `example.com`, `www.example.com` or a URL on the site; a port given (`localhost:3000`) is the one fetched from. */
  readonly domain: string
  /** Also keep URLs on subdomains (default false; the `www.` twin is always kept). */
  readonly includeSubdomains?: boolean | undefined
  /** 1 to 100,000; default 10,000. */
  readonly maxLinks?: number | undefined
  /** RE2 pattern, at most 256 characters; only URLs it matches (anywhere) are kept and counted. */
  readonly urlRegex?: string | undefined
  /** 2 to 200 characters: keep URLs about the phrase, most relevant first. */
  readonly search?: string | undefined
  /** Read this sitemap (and what it leads to) instead of discovering. */
  readonly sitemapUrl?: string | undefined
  /** Headers forwarded to the site. */
  readonly headers?: Readonly<Record<string, string>> | undefined
  /** The request's budget (default 60,000 ms, `fail`); `return-partial` returns what was found when it runs out. */
  readonly timeout?: { readonly milliseconds: number; readonly behavior?: Deadline.Behavior } | undefined
  /** Link crawl: `"auto"` (default) when sitemaps gave fewer than 100 URLs, `"always"`, or `"never"`. */
  readonly crawl?: "auto" | "always" | "never" | undefined
  /** Pages the link crawl fetches at most (default 100). */
  readonly maxCrawlPages?: number | undefined
  /** Only what sitemaps list (a batch's sitemap source): the home page is neither listed nor read for the feeds it announces. */
  readonly sitemapsOnly?: boolean | undefined
  /** Read and record the {@link UrlIndex} when one is provided (default true; false for zero data retention). */
  readonly useIndex?: boolean | undefined
  /** Called as the map grows (about every 200 ms while busy, and once at the end). */
  readonly onProgress?: ((progress: Progress) => void) | undefined
}

/** One URL of the map, with what is known about its page. @category models */
export interface MappedUrl extends UrlFacts {}

/** The `meta` of GET /web/scrape/sitemap, plus how many pages the crawl fetched and sitemap entries repeated. @category models */
export type DiscoveryMeta = Readonly<Meta>

/** A finished map. @category models */
export interface Discovery {
  /** The site's host, with the port the request named. */
  readonly domain: string
  readonly urls: ReadonlyArray<MappedUrl>
  readonly meta: DiscoveryMeta
  /** True when the deadline cut the map short (`return-partial`). */
  readonly partial: boolean
}

/** The errors a map can end with. @category errors */
export type DiscoveryError = InvalidRequest | WebsiteError | RequestTimeout

// Fewer sitemap URLs than this (or than maxLinks) counts as thin: the link crawl then looks for more.
const THIN = 100
const DEFAULT_CRAWL_PAGES = 100
// The longest a map waits for the index to record it and return stored metadata.
const INDEX_WAIT_MS = 10_000

/** Fetches the home page of `origin`: lists it (with its metadata) and returns the feeds it announces. */
const homePage = (origin: string, headers: Readonly<Record<string, string>> | undefined, collector: Collector) =>
  Effect.flatMap(Fetcher.Fetcher, (fetcher) => fetcher.fetch({ url: `${origin}/`, headers })).pipe(
    Effect.map((response) => {
      const page = readPage(response)
      if (page === undefined) return []
      const { url, ...facts } = page.facts
      collector.add(url, undefined, facts)
      return page.feeds
    }),
    Effect.orElseSucceed((): ReadonlyArray<string> => [])
  )

/**
 * Gathers into the collector: sitemaps (discovered or given), then the crawl when they were thin. `site` is the host
 * (with its port, when the request named one) whose variants are probed.
 */
const gather = (options: DiscoverOptions, site: string, sitemapUrl: string | undefined, collector: Collector) =>
  Effect.gen(function*() {
    const headers = options.headers
    if (sitemapUrl !== undefined) {
      // A given sitemap that cannot be fetched is the map's failure, as a site none of whose hosts answers is: an
      // empty, charged answer would hide it.
      const given = normalize(sitemapUrl)
      let failure: WebsiteError | InvalidRequest | undefined
      const onFetchFailure = (url: string, error: WebsiteError | InvalidRequest) => {
        if (url === given) failure = error
      }
      yield* walk([{ url: sitemapUrl, declared: true }], { collector, headers, onFetchFailure })
      if (failure !== undefined) return yield* Effect.fail(failure)
      return
    }
    const found = yield* probe(site, headers)
    if (found.live.length === 0) {
      return yield* Effect.fail(
        found.failure ?? new WebsiteError({ reason: "Unreachable", url: `https://${site}/`, detail: "no host variant answered" })
      )
    }
    const sources: Array<Source> = []
    for (const origin of found.live) for (const url of origin.robots.sitemaps) sources.push({ url, declared: true })
    for (const origin of found.live) for (const path of commonLocations) sources.push({ url: origin.origin + path, declared: false })
    const walker = yield* makeWalker({ collector, headers })
    // The home page, read meanwhile, announces feeds at places no common location covers (`/blog/feed/`).
    const announced = options.sitemapsOnly === true ? Effect.void : homePage(found.live[0]!.origin, headers, collector).pipe(
      Effect.flatMap((feeds) => walker.walk(feeds.map((url) => ({ url, declared: true }))))
    )
    yield* Effect.all([walker.walk(sources), announced], { concurrency: "unbounded", discard: true })
    const mode = options.crawl ?? "auto"
    const thin = collector.size < Math.min(THIN, collector.options.limit ?? THIN)
    if (mode === "always" || (mode === "auto" && thin && !collector.full)) {
      yield* crawl({ collector, origins: found.live, maxPages: options.maxCrawlPages ?? DEFAULT_CRAWL_PAGES, headers })
    }
  })

/** Joins the index (when there is one and it may be used), ranks for `search`, and applies `maxLinks`. */
const finish = (
  options: DiscoverOptions,
  domain: string,
  search: string | undefined,
  maxLinks: number,
  collector: Collector,
  deadline: Deadline.Deadline
) =>
  Effect.gen(function*() {
    let urls: Array<MappedUrl> = [...collector.urls.values()]
    const index = options.useIndex === false ? Option.none() : yield* Effect.serviceOption(UrlIndex)
    if (Option.isSome(index)) {
      const store = index.value
      const all = urls
      const recorded = store.recordAndLookup !== undefined
        ? store.recordAndLookup(domain, all)
        : Effect.zipRight(store.record(domain, all), store.lookup(domain, all.map((u) => u.url)))
      // The index is memory, not the answer: when recording a large map takes longer than the request can wait, the
      // URLs go back without stored metadata and the recording finishes in the background.
      const left = yield* Deadline.remaining(deadline)
      const wait = Math.min(INDEX_WAIT_MS, Math.max(0, left - Math.min(1_000, Math.floor(left / 4))))
      const fiber = yield* Effect.forkDaemon(recorded)
      const stored = yield* Effect.timeoutOption(Fiber.join(fiber), Duration.millis(wait))
      if (Option.isSome(stored)) {
        urls = urls.map((u) => {
          const known = stored.value.get(u.url)
          return known === undefined ? u : { ...strip(known), ...u, ...pick(known) }
        })
      }
    }
    if (search !== undefined) urls = UrlSearch.search(urls, search)
    return urls.length > maxLinks ? urls.slice(0, maxLinks) : urls
  })

// The index's bookkeeping fields are not part of a mapped URL.
const strip = ({ seenAt: _s, enrichedAt: _e, ...facts }: UrlFacts & { seenAt?: number; enrichedAt?: number }): UrlFacts => facts
const pick = (known: UrlFacts): Partial<UrlFacts> => {
  const out: Record<string, unknown> = {}
  for (const key of ["title", "description", "keywords", "language"] as const) if (known[key] !== undefined) out[key] = known[key]
  return out
}

/**
 * Checks a map request's query (domain, maxLinks, urlRegex, search, sitemapUrl, timeout) without running it: the
 * edge's validation, before any credits are held. `discover` runs the same check.
 */
export const validate = (options: DiscoverOptions): Effect.Effect<{ readonly domain: string }, InvalidRequest> =>
  Effect.map(check({
    domain: options.domain,
    maxLinks: options.maxLinks,
    urlRegex: options.urlRegex,
    search: options.search,
    sitemapUrl: options.sitemapUrl,
    timeoutMs: options.timeout?.milliseconds
  }), (checked) => ({ domain: checked.domain }))

/** Maps a site (see the module documentation). */
export const discover = (options: DiscoverOptions): Effect.Effect<Discovery, DiscoveryError, Fetcher.Fetcher> =>
  Effect.gen(function*() {
    const checked = yield* check({
      domain: options.domain,
      maxLinks: options.maxLinks,
      urlRegex: options.urlRegex,
      search: options.search,
      sitemapUrl: options.sitemapUrl,
      timeoutMs: options.timeout?.milliseconds
    })
    const { domain, site, maxLinks, search } = checked
    const collector = new Collector({
      domain,
      includeSubdomains: options.includeSubdomains ?? false,
      accepts: checked.accepts,
      // Ranking needs every candidate; without it, gathering stops at maxLinks.
      limit: search === undefined ? maxLinks : undefined,
      onProgress: options.onProgress
    })
    const deadline = yield* Deadline.make(checked.timeoutMs, options.timeout?.behavior ?? "fail")
    const gathered = yield* Deadline.gather(deadline, gather(options, site, checked.sitemapUrl, collector))
    const partial = Option.isNone(gathered)
    if (partial && (deadline.behavior === "fail" || collector.size === 0)) {
      return yield* Effect.fail(
        Deadline.expired(deadline, collector.size === 0 ? "no URLs were found in time" : `mapping ${site}`)
      )
    }
    const urls = yield* Deadline.finish(deadline, finish(options, domain, search, maxLinks, collector, deadline))
    collector.report(true)
    return { domain: site, urls, meta: { ...collector.meta, errors: [...collector.meta.errors] }, partial }
  })

/**
 * Background enrichment: fetches these pages of `domain`, reads each one's title, description, keywords and language,
 * and stores them in the {@link UrlIndex} (pages that fail or are not HTML are marked enriched with nothing, so they
 * do not come back every run). Returns what was read, in the order given.
 */
export const enrich = (
  domain: string,
  urls: ReadonlyArray<string>,
  options: {
    readonly concurrency?: number
    readonly headers?: Readonly<Record<string, string>>
    /** Skip (mark enriched with nothing) URLs this says may not be fetched: robots.txt rules of background work. */
    readonly allows?: ((url: string) => boolean) | undefined
  } = {}
): Effect.Effect<ReadonlyArray<UrlFacts>, never, Fetcher.Fetcher | UrlIndex> =>
  Effect.gen(function*() {
    const fetcher = yield* Fetcher.Fetcher
    const index = yield* UrlIndex
    const read = yield* Effect.forEach(urls, (url) =>
      options.allows !== undefined && !options.allows(url) ? Effect.succeed<UrlFacts>({ url }) :
      fetcher.fetch({ url, headers: options.headers }).pipe(
        // Stored under the URL asked for: a redirect does not make the index forget which entry this was.
        Effect.map((response): UrlFacts => ({ ...readPage(response)?.facts, url })),
        Effect.orElseSucceed((): UrlFacts => ({ url }))
      ), { concurrency: options.concurrency ?? 4 })
    yield* index.enrich(domain, read)
    return read
  })

/** How background work may read the origin of `url`: its robots.txt rules (`allows`) and `Crawl-delay` in ms. */
export const politeness = (
  url: string
): Effect.Effect<{ readonly allows: (url: string) => boolean; readonly crawlDelayMs: number }, never, Fetcher.Fetcher> =>
  Effect.map(rulesOf(url), (robots) => ({
    allows: robots.allows,
    crawlDelayMs: robots.crawlDelay === undefined || !(robots.crawlDelay > 0) ? 0 : Math.round(robots.crawlDelay * 1000)
  }))

/** Maps a site with a Fetcher configured from the environment (`SIFT_*`) or the given layer; rejects with the tagged error. */
export const mapUrls = async (
  options: DiscoverOptions,
  layer: Layer.Layer<Fetcher.Fetcher, unknown> = Fetcher.layerConfig
): Promise<Discovery> => {
  const exit = await Effect.runPromiseExit(Effect.provide(discover(options), layer))
  if (Exit.isSuccess(exit)) return exit.value
  throw Cause.squash(exit.cause)
}
