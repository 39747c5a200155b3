/**
 * The per-domain index of a site's URLs behind GET /web/urls: every URL discovery has seen, with what is known about the
 * page (title, description, keywords, language from enrichment; lastmod from sitemaps) and when it was last seen. Maps
 * read it to answer with metadata at once; URLs without metadata are what background enrichment picks up.
 *
 * This module holds the interface and an in-memory implementation; the durable one lives with the store. Storage
 * failures are defects (nothing a caller can do about them), so every method is infallible in its type.
 *
 * @since 0.1.0
 */
import { Clock, Context, Effect, Layer } from "effect"
import { dedupeKey, normalize, siteHost } from "./UrlNormal.js"

/** What discovery or enrichment learned about one URL. @category models */
export interface UrlFacts {
  readonly url: string
  readonly title?: string | undefined
  readonly description?: string | undefined
  readonly keywords?: ReadonlyArray<string> | undefined
  readonly language?: string | undefined
  /** As the sitemap gave it (W3C datetime). */
  readonly lastmod?: string | undefined
}

/** One indexed URL. @category models */
export interface IndexedUrl extends UrlFacts {
  /** When discovery last saw the URL (ms since the epoch). */
  readonly seenAt: number
  /** When the page's metadata was last read (ms since the epoch); absent until enriched. */
  readonly enrichedAt?: number | undefined
}

/** The index of URLs per site. Domains are keyed by {@link siteHost}, URLs by {@link dedupeKey}. @category services */
export class UrlIndex extends Context.Tag("@sift/core/UrlIndex")<UrlIndex, {
  /** Records URLs seen now under `domain`; given metadata replaces the stored value, absent metadata keeps it. */
  readonly record: (domain: string, facts: ReadonlyArray<UrlFacts>) => Effect.Effect<void>
  /** Stores page metadata read by enrichment (marks the URLs enriched). */
  readonly enrich: (domain: string, facts: ReadonlyArray<UrlFacts>) => Effect.Effect<void>
  /** The stored entries for these URLs, keyed by the URL as asked; unknown URLs are absent. */
  readonly lookup: (domain: string, urls: ReadonlyArray<string>) => Effect.Effect<ReadonlyMap<string, IndexedUrl>>
  /** Every URL of `domain` (and its subdomains when asked), in the order first recorded. */
  readonly list: (domain: string, options?: { readonly includeSubdomains?: boolean }) => Effect.Effect<ReadonlyArray<IndexedUrl>>
  /** Up to `limit` URLs of `domain` never enriched, oldest seen first: the queue of background enrichment. */
  readonly unenriched: (domain: string, limit: number) => Effect.Effect<ReadonlyArray<string>>
  /**
   * `record`, then the stored entries of those URLs that carry page metadata (title, description, keywords or
   * language), in one step for stores that can (one statement instead of two passes over a large map). Optional:
   * callers fall back to `record` and `lookup`.
   */
  readonly recordAndLookup?: (domain: string, facts: ReadonlyArray<UrlFacts>) => Effect.Effect<ReadonlyMap<string, IndexedUrl>>
}>() {}

const keyOf = (url: string): string => dedupeKey(normalize(url) ?? url)

const merge = (old: IndexedUrl | undefined, facts: UrlFacts, seenAt: number, enrichedAt: number | undefined): IndexedUrl => ({
  url: old?.url ?? facts.url,
  title: facts.title ?? old?.title,
  description: facts.description ?? old?.description,
  keywords: facts.keywords ?? old?.keywords,
  language: facts.language ?? old?.language,
  lastmod: facts.lastmod ?? old?.lastmod,
  seenAt: Math.max(seenAt, old?.seenAt ?? 0),
  enrichedAt: enrichedAt ?? old?.enrichedAt
})

/** Sites whose host is `domain` or under it (for `includeSubdomains`). */
const sitesOf = (sites: ReadonlyMap<string, unknown>, domain: string, includeSubdomains: boolean): Array<string> => {
  const site = siteHost(domain)
  return [...sites.keys()].filter((key) => key === site || (includeSubdomains && key.endsWith(`.${site}`)))
}

/** An index held in this process: for tests, the CLI and embedded single-process use. */
export const makeMemory = Effect.sync(() => {
  // Site -> (dedupe key -> entry); a Map keeps first-recorded order.
  const sites = new Map<string, Map<string, IndexedUrl>>()
  const siteOfUrl = (url: string, fallback: string): string => {
    try {
      return siteHost(new URL(url).hostname)
    } catch {
      return siteHost(fallback)
    }
  }
  const put = (domain: string, facts: ReadonlyArray<UrlFacts>, enriched: boolean) =>
    Effect.map(Clock.currentTimeMillis, (now) => {
      for (const fact of facts) {
        const site = siteOfUrl(fact.url, domain)
        let table = sites.get(site)
        if (table === undefined) sites.set(site, (table = new Map()))
        const key = keyOf(fact.url)
        const old = table.get(key)
        table.set(key, merge(old, fact, enriched ? (old?.seenAt ?? now) : now, enriched ? now : undefined))
      }
    })
  return UrlIndex.of({
    record: (domain, facts) => put(domain, facts, false),
    enrich: (domain, facts) => put(domain, facts, true),
    lookup: (domain, urls) =>
      Effect.sync(() => {
        const out = new Map<string, IndexedUrl>()
        for (const url of urls) {
          const found = sites.get(siteOfUrl(url, domain))?.get(keyOf(url))
          if (found !== undefined) out.set(url, found)
        }
        return out
      }),
    list: (domain, options) =>
      Effect.sync(() =>
        sitesOf(sites, domain, options?.includeSubdomains ?? false).flatMap((site) => [...sites.get(site)!.values()])
      ),
    unenriched: (domain, limit) =>
      Effect.sync(() =>
        [...(sites.get(siteHost(domain))?.values() ?? [])]
          .filter((entry) => entry.enrichedAt === undefined)
          .sort((a, b) => a.seenAt - b.seenAt)
          .slice(0, limit)
          .map((entry) => entry.url)
      )
  })
})

/** The in-memory index as a layer. */
export const layerMemory: Layer.Layer<UrlIndex> = Layer.effect(UrlIndex, makeMemory)
