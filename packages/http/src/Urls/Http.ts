/**
 * The map endpoints: `GET /web/urls` (interface.md; issue 7) and the sitemap crawl `GET /web/scrape/sitemap`
 * (decisions §3). Both run core's `UrlDiscovery.discover`; they differ in what they read and return.
 *
 * - `/web/urls` reads and records the store's URL index: URLs come back with the metadata already known, and the sites
 *   of those without it are queued for background enrichment (`Enrichment`). With `zdr=enabled` or forwarded `headers`
 *   the index is neither read nor written (URLs only). `Cache-Control: no-store`.
 * - `/web/scrape/sitemap` reads sitemaps only (no link crawl, no index) and returns bare URLs with the crawl's `meta`.
 *
 * Cost: 1 credit, 2 with `search`; nothing when nothing was delivered (errors, partial without URLs).
 *
 * @since 0.1.0
 */
import type { Errors, Fetcher } from "@sift/core"
import * as UrlDiscovery from "@sift/core/UrlDiscovery"
import type { UrlIndex } from "@sift/core/UrlIndex"
import { siteHost } from "@sift/core/UrlNormal"
import { Effect, Either, Schema } from "effect"
import * as CommonQuery from "../internal/commonQuery.js"
import * as QueryParams from "../QueryParams.js"
import type { Handler, Plan } from "../RequestPipeline.js"
import { UrlEnrichment } from "./Enrichment.js"

/** A decoded map query. */
export interface MapRequest {
  readonly options: UrlDiscovery.DiscoverOptions
  readonly zdr: boolean
}

type MapHandler = Handler<MapRequest, Errors.InvalidRequest, never, UrlDiscovery.DiscoveryError, Fetcher.Fetcher | UrlIndex | UrlEnrichment>

// A reservation outlives the request's own deadline by this much, then lapses.
const HOLD_SLACK_MS = 60_000
const DEFAULT_TIMEOUT_MS = 60_000
const { optional } = QueryParams

/** The query of both map endpoints (`UrlDiscovery.validate` checks the values). */
export const Query = Schema.Struct({
  domain: QueryParams.string.annotations({ description: "The site (min 3 characters)" }),
  headers: optional(CommonQuery.headers.annotations({ description: "Headers forwarded to the site, headers[Name]=value; bypasses the index" })),
  zdr: optional(QueryParams.zdr.annotations({ description: "enabled or disabled; URLs only, nothing stored" })),
  tags: optional(QueryParams.tags),
  includeSubdomains: optional(QueryParams.boolean.annotations({ description: "Also URLs on subdomains (default false)" })),
  maxLinks: optional(QueryParams.integer.annotations({ description: "1 to 100000, default 10000" })),
  urlRegex: optional(QueryParams.string.annotations({ description: "RE2 pattern (max 256); only matching URLs are returned and counted" })),
  search: optional(QueryParams.string.annotations({ description: "2 to 200 characters: pages about the phrase, most relevant first" })),
  sitemapUrl: optional(QueryParams.string.annotations({ description: "Read this sitemap instead of discovering" })),
  timeoutOpts: optional(QueryParams.timeoutOpts)
})

const decode = QueryParams.decode(Query)

const validate = (query: QueryParams.Query, extra: Partial<UrlDiscovery.DiscoverOptions>) =>
  Effect.gen(function*() {
    const read = yield* decode(query)
    const timeout = yield* CommonQuery.deadline(read.timeoutOpts)
    const zdr = read.zdr === "enabled"
    const options: UrlDiscovery.DiscoverOptions = {
      domain: read.domain!,
      includeSubdomains: read.includeSubdomains,
      maxLinks: read.maxLinks,
      urlRegex: read.urlRegex,
      search: read.search,
      sitemapUrl: read.sitemapUrl,
      headers: read.headers,
      timeout,
      // The index is the organization's shared memory of the site: ZDR and caller-specific headers stay out of it.
      useIndex: !zdr && read.headers === undefined,
      ...extra
    }
    yield* UrlDiscovery.validate(options)
    const plan: Plan<MapRequest> = {
      input: { options, zdr },
      credits: options.search === undefined ? 1 : 2,
      zdr,
      tags: read.tags ?? [],
      holdMs: (options.timeout?.milliseconds ?? DEFAULT_TIMEOUT_MS) + HOLD_SLACK_MS
    }
    return plan
  })

/** The members of a mapped URL the contract names (no lastmod or index bookkeeping). */
const mappedUrl = (url: UrlDiscovery.MappedUrl) => {
  const out: Record<string, unknown> = { url: url.url }
  if (url.title !== undefined) out.title = url.title
  if (url.description !== undefined) out.description = url.description
  if (url.keywords !== undefined && url.keywords.length > 0) out.keywords = url.keywords
  if (url.language !== undefined) out.language = url.language
  return out
}

const siteOf = (url: string): string | undefined => {
  try {
    return siteHost(new URL(url).hostname)
  } catch {
    return undefined
  }
}

/**
 * `UrlDiscovery.discover`, interruptible: the platform runs every HTTP handler uninterruptibly (`HttpApp.toHandled`),
 * and fibers forked there inherit that, so the deadline's timeout could not stop a hanging fetch without this.
 */
const discover = (options: UrlDiscovery.DiscoverOptions) => Effect.interruptible(UrlDiscovery.discover(options))

/** `GET /web/urls`: 1 credit, 2 with `search`. */
export const urls: MapHandler = {
  validate: (caller) => validate(caller.query, {}),
  run: (_caller, request) =>
    Effect.gen(function*() {
      const found = yield* discover(request.options)
      if (request.options.useIndex === true) {
        // Sites with URLs still lacking metadata get a background job (it leases what is really unenriched).
        const waiting = new Set<string>()
        for (const url of found.urls) {
          if (url.title !== undefined) continue
          const site = siteOf(url.url)
          if (site !== undefined) waiting.add(site)
        }
        if (waiting.size > 0) yield* Effect.flatMap(UrlEnrichment, (enrichment) => enrichment.queue([...waiting]))
      }
      return {
        body: {
          success: true,
          domain: found.domain,
          urls: found.urls.map(mappedUrl),
          ...(found.partial ? { partial: true } : {})
        },
        credits: request.options.search === undefined ? 1 : 2,
        headers: { "cache-control": "no-store" }
      }
    })
}

/** `GET /web/scrape/sitemap` (decisions §3): sitemaps only; 1 credit, 2 with `search`. */
export const sitemap: MapHandler = {
  validate: (caller) => validate(caller.query, { crawl: "never", useIndex: false }),
  run: (_caller, request) =>
    Effect.map(discover(request.options), (found) => ({
      body: {
        success: true,
        domain: found.domain,
        urls: found.urls.map((u) => u.url),
        meta: {
          sitemapsDiscovered: found.meta.sitemapsDiscovered,
          sitemapsFetched: found.meta.sitemapsFetched,
          sitemapsSkipped: found.meta.sitemapsSkipped,
          errors: found.meta.errors.length
        },
        ...(found.partial ? { partial: true } : {})
      },
      credits: request.options.search === undefined ? 1 : 2,
      headers: { "cache-control": "no-store" }
    }))
}
