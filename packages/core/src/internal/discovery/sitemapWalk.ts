/**
 * Walks sitemaps: fetches each (up to the protocol's 50 MB), reads it, adds its URLs to the collector and follows
 * sitemap indexes to any depth. Every sitemap URL is visited once (the loop guard: an index listing itself or an
 * ancestor is read once), fetches share a fixed number of connections, and walking stops once `maxLinks` is met.
 *
 * Sources are either declared (robots.txt `Sitemap:`, a given `sitemapUrl`, an index entry: their failures are
 * reported in `meta.errors`) or guessed (common locations: a 404 there is just absence, not an error).
 */
import { Effect } from "effect"
import type { InvalidRequest, WebsiteError } from "../../Errors.js"
import { Fetcher } from "../../Fetcher.js"
import { normalize } from "../../UrlNormal.js"
import type { Collector } from "./collector.js"
import { type Entry, MAX_SITEMAP_BYTES, read, type Read, Unreadable } from "./sitemapRead.js"

/** A sitemap or feed to read. */
export interface Source {
  readonly url: string
  /** True when something named it; false for a guessed common location. */
  readonly declared: boolean
}

/** Paths tried on every live origin besides what robots.txt declares: sitemaps first, then feeds. */
export const commonLocations: ReadonlyArray<string> = [
  "/sitemap.xml",
  "/sitemap_index.xml",
  "/sitemap-index.xml",
  "/sitemap.xml.gz",
  "/wp-sitemap.xml",
  "/sitemap.txt",
  "/feed",
  "/rss.xml",
  "/atom.xml",
  "/feed.xml",
  "/index.xml"
]

/** Sitemaps read per discovery at most: a guard against generated index graphs, reported when reached. */
export const MAX_SITEMAPS = 20_000

/** Sitemaps fetched at once. */
export const CONCURRENCY = 8

/** Fetched sitemaps read at once (one inflating while another is scanned). */
export const READERS = 2

interface WalkOptions {
  readonly collector: Collector
  readonly headers: Readonly<Record<string, string>> | undefined
  /** Told of every sitemap that could not be fetched (besides `meta.errors`), with the fetch's error. */
  readonly onFetchFailure?: ((url: string, error: WebsiteError | InvalidRequest) => void) | undefined
}

/** Reads sources and everything their indexes lead to; every call shares one loop guard and one connection pool. */
export interface Walker {
  /** Reads these sources. Never fails: problems go to `meta.errors`. */
  readonly walk: (sources: ReadonlyArray<Source>) => Effect.Effect<void>
}

/** Reads `sources` and everything their indexes lead to. Never fails: problems go to `meta.errors`. */
export const walk = (sources: ReadonlyArray<Source>, options: WalkOptions): Effect.Effect<void, never, Fetcher> =>
  Effect.flatMap(makeWalker(options), (walker) => walker.walk(sources))

/** A {@link Walker} writing to `options.collector`. */
export const makeWalker = (options: WalkOptions): Effect.Effect<Walker, never, Fetcher> =>
  Effect.gen(function*() {
    const fetcher = yield* Fetcher
    const { collector, headers } = options
    const meta = collector.meta
    const visited = new Set<string>()
    const permits = yield* Effect.makeSemaphore(CONCURRENCY)
    const readers = yield* Effect.makeSemaphore(READERS)

    // Page URLs go to the collector as they are read, and reading stops once it is full: of a sitemap larger than what
    // is left of maxLinks, the rest is neither kept nor scanned (sitemaps still in flight then stop at once).
    const take = (base: string) => (entry: Entry): boolean => {
      if (collector.full) return false
      collector.addListed(entry.loc, base, entry.lastmod === undefined ? undefined : { lastmod: entry.lastmod })
      return !collector.full
    }

    // A fetched sitemap is read (inflated, decoded, scanned) while at most READERS others are: each read holds its
    // whole text, so reads of large parts at CONCURRENCY at once set the map's peak memory; one that waited for its
    // turn is not read at all when maxLinks was met meanwhile ("unneeded": fetched, its entries not wanted).
    const load = (url: string) =>
      fetcher.fetch({ url, headers, maxBytes: MAX_SITEMAP_BYTES }).pipe(
        Effect.flatMap((response) =>
          readers.withPermits(1)(Effect.suspend((): Effect.Effect<Read | "unneeded", Unreadable> =>
            collector.full
              ? Effect.succeed("unneeded")
              : Effect.tryPromise({ try: () => read(response.body, take(url)), catch: (error) => error as Unreadable })
          ))
        ),
        Effect.either
      )

    const use = (source: Source, result: Read, url: string): ReadonlyArray<Source> => {
      if (result.kind === "none") {
        if (source.declared) {
          meta.sitemapsSkipped++
          collector.error(source.url, "not a sitemap or feed; skipped")
        }
        return []
      }
      if (!source.declared) meta.sitemapsDiscovered++
      meta.sitemapsFetched++
      if (result.damage !== undefined) {
        collector.error(source.url, `${result.damage}; used the ${result.count} entries before it`)
      }
      if (result.kind === "index") {
        // Relative entries are not in the protocol, but they occur; they mean what a browser would make of them.
        return result.entries.map((entry) => ({ url: normalize(entry.loc, url) ?? entry.loc, declared: true }))
      }
      // Page URLs were given to the collector while reading (`take`).
      return []
    }

    const visit = (source: Source): Effect.Effect<void, never, never> =>
      Effect.suspend(() => {
        const url = normalize(source.url)
        if (url === undefined) {
          if (source.declared) collector.error(source.url, "not an http(s) URL; skipped")
          return Effect.void
        }
        if (visited.has(url)) return Effect.void
        visited.add(url)
        if (source.declared) meta.sitemapsDiscovered++
        if (collector.full || visited.size > MAX_SITEMAPS) {
          if (source.declared) meta.sitemapsSkipped++
          if (visited.size === MAX_SITEMAPS + 1) collector.error(url, `more than ${MAX_SITEMAPS} sitemaps; the rest skipped`)
          return Effect.void
        }
        // Checked again once a connection is free: maxLinks may have been met while this one waited.
        const loadUnlessFull = Effect.suspend(() => (collector.full ? Effect.succeed(undefined) : load(url)))
        return permits.withPermits(1)(loadUnlessFull).pipe(
          Effect.flatMap((outcome) => {
            if (outcome === undefined) {
              if (source.declared) meta.sitemapsSkipped++
              return Effect.void
            }
            if (outcome._tag === "Right") {
              const result = outcome.right
              if (result === "unneeded") {
                // Counted as a full map's last sitemaps in flight always were; a guessed location is not known to be one.
                if (source.declared) meta.sitemapsFetched++
                return Effect.void
              }
              const next = use({ url, declared: source.declared }, result, url)
              collector.report()
              return Effect.forEach(next, visit, { concurrency: "unbounded", discard: true })
            }
            const error = outcome.left
            const tooLarge = error instanceof Unreadable
              ? error.tooLarge
              : error._tag === "WebsiteError" && error.reason === "TooLarge"
            if (!tooLarge && !(error instanceof Unreadable)) options.onFetchFailure?.(url, error)
            if (!source.declared && !tooLarge) return Effect.void // a guessed location that is not there
            if (!source.declared) meta.sitemapsDiscovered++
            meta.sitemapsSkipped++
            collector.error(
              url,
              tooLarge ? `larger than the sitemap limit of ${MAX_SITEMAP_BYTES} bytes; skipped` : `${error.message}; skipped`
            )
            return Effect.void
          })
        )
      })

    return { walk: (sources) => Effect.forEach(sources, visit, { concurrency: "unbounded", discard: true }) }
  })
