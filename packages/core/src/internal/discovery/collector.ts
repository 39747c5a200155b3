/**
 * What a map has gathered so far: the deduplicated URLs in scope that pass `urlRegex`, with whatever is known about
 * each, and the sitemap counters of `meta`. Sitemap walking and link crawling write here as they go, so a deadline
 * with `return-partial` reads the state at the moment it fired (a mutable record owned by one discovery, in the
 * role the style guide gives a `Ref`: fibers of the same discovery only ever add to it).
 */
import type { UrlFacts } from "../../UrlIndex.js"
import { dedupeKey, inScope, parse } from "../../UrlNormal.js"

/** Counters reported as `meta` of GET /web/scrape/sitemap, plus crawl figures. */
export interface Meta {
  /** Distinct sitemaps and feeds known: declared in robots.txt or an index, given, or found at a common location. */
  sitemapsDiscovered: number
  /** Sitemaps and feeds fetched and read (damaged ones included: their entries up to the damage are used). */
  sitemapsFetched: number
  /** Sitemaps known but not used: failed, over the size limit, not a sitemap, or not needed once `maxLinks` was met. */
  sitemapsSkipped: number
  /** One line per problem met: `<url>: <what happened>`. */
  readonly errors: Array<string>
  /** Pages fetched by the link crawl. */
  pagesCrawled: number
  /** Sitemap entries dropped because an earlier entry named the same page (another spelling of it included). */
  duplicates: number
}

/** A progress report for long maps. */
export interface Progress {
  readonly urls: number
  readonly sitemapsDiscovered: number
  readonly sitemapsFetched: number
  readonly pagesCrawled: number
}

/** How a collector filters. */
export interface CollectorOptions {
  readonly domain: string
  readonly includeSubdomains: boolean
  /** `urlRegex` compiled: URLs failing it are neither kept nor counted. */
  readonly accepts: (url: string) => boolean
  /** Stop gathering at this many URLs; `undefined` gathers everything (ranking needs all candidates). */
  readonly limit: number | undefined
  readonly onProgress: ((progress: Progress) => void) | undefined
}

/** The gathered state of one discovery. */
export class Collector {
  readonly urls = new Map<string, UrlFacts>()
  readonly meta: Meta = { sitemapsDiscovered: 0, sitemapsFetched: 0, sitemapsSkipped: 0, errors: [], pagesCrawled: 0, duplicates: 0 }
  private lastReport = 0
  // Pages sitemaps listed, so a repeat among their entries is told from a page the home page or a crawl added first.
  private readonly listed = new Set<string>()

  constructor(readonly options: CollectorOptions) {}

  /** Whether `maxLinks` is met, so gathering can stop. */
  get full(): boolean {
    return this.options.limit !== undefined && this.urls.size >= this.options.limit
  }

  /** How many URLs were gathered. */
  get size(): number {
    return this.urls.size
  }

  /** Adds one URL (relative to `base` if given); false when it was unusable, out of scope, filtered, or already known. */
  add(raw: string, base: string | undefined, facts?: Omit<UrlFacts, "url">): boolean {
    const parsed = parse(raw, base)
    if (parsed === undefined) return false
    const href = parsed.href
    const url = href.endsWith("?") ? href.slice(0, -1) : href
    const key = dedupeKey(url)
    const known = this.urls.get(key)
    if (known !== undefined) {
      // Same page again: prefer the https spelling, and keep any metadata the new sighting brings.
      const upgrade = known.url.startsWith("http:") && url.startsWith("https:")
      if (upgrade || facts !== undefined) this.urls.set(key, { ...known, ...defined(facts), url: upgrade ? url : known.url })
      return false
    }
    if (this.full) return false
    if (!inScope(parsed, this.options.domain, this.options.includeSubdomains)) return false
    if (!this.options.accepts(url)) return false
    this.urls.set(key, facts === undefined ? { url } : { url, ...defined(facts) })
    return true
  }

  /** Adds a URL a sitemap lists, as `add`; an entry naming a page an earlier entry listed counts in `meta.duplicates`. */
  addListed(raw: string, base: string | undefined, facts?: Omit<UrlFacts, "url">): boolean {
    const added = this.add(raw, base, facts)
    const parsed = parse(raw, base)
    if (parsed === undefined) return added
    const href = parsed.href
    const key = dedupeKey(href.endsWith("?") ? href.slice(0, -1) : href)
    if (!this.listed.has(key)) this.listed.add(key)
    else if (!added && this.urls.has(key)) this.meta.duplicates++
    return added
  }

  /** Whether a URL is already gathered. */
  has(url: string): boolean {
    return this.urls.has(dedupeKey(url))
  }

  /** Records a problem for `meta.errors`. */
  error(url: string, detail: string): void {
    this.meta.errors.push(`${url}: ${detail}`)
  }

  /** Reports progress, at most every 200 ms unless `force`. */
  report(force = false): void {
    const onProgress = this.options.onProgress
    if (onProgress === undefined) return
    const now = Date.now()
    if (!force && now - this.lastReport < 200) return
    this.lastReport = now
    onProgress({
      urls: this.urls.size,
      sitemapsDiscovered: this.meta.sitemapsDiscovered,
      sitemapsFetched: this.meta.sitemapsFetched,
      pagesCrawled: this.meta.pagesCrawled
    })
  }
}

const defined = (facts: Omit<UrlFacts, "url"> | undefined): Partial<UrlFacts> => {
  const out: Record<string, unknown> = {}
  if (facts !== undefined) {
    for (const key in facts) {
      const value = facts[key as keyof typeof facts]
      if (value !== undefined) out[key] = value
    }
  }
  return out as Partial<UrlFacts>
}
