/**
 * News of a company from feeds (wave2 §12): RSS 2.0, Atom, RDF and JSON Feed read by `feedsmith` into articles, the
 * feeds a company's own site announces (`<link rel=alternate>` on its home, newsroom and press pages), OPML lists of
 * publisher feeds, SEC EDGAR's Atom feed of a company's filings (a ticker or ISIN mapped to a CIK by a bundled table),
 * and how well an article mentions a company. Storage and polling live in the service; this module fetches and reads.
 *
 * Articles carry a stable id (from the item's link, else its guid) and the keys that cluster syndicated copies into
 * one story: the normalized headline without the publisher's suffix, and a MinHash sketch of the body.
 *
 * @since 0.1.0
 */
import type { parseFeed } from "feedsmith"
import { Parser } from "htmlparser2"
import { Context, Effect, Layer } from "effect"
import { createRequire } from "node:module"
import * as Fetcher from "./Fetcher.js"
import * as Companies from "./internal/news/companies.js"
import { digest, minhash, normalize, plainText, similarity, titleKey } from "./internal/news/text.js"

export { minhash, normalize, similarity, titleKey }
export type { Company } from "./internal/news/companies.js"
/** Listed companies by ticker, ISIN, domain or name (bundled, plus `SIFT_NEWS_COMPANIES_FILE`). */
export const companies = { byTicker: Companies.byTicker, byIsin: Companies.byIsin, byDomain: Companies.byDomain, byName: Companies.byName }

/** Bounds of one feed read. */
export const limits = {
  /** A feed's bytes read at most (a larger feed is cut by the Fetcher and refused). */
  maxFeedBytes: 4 * 1024 * 1024,
  /** Items read from one feed (the newest come first in practice). */
  maxItems: 200,
  /** Site pages read to discover a company's feeds (home page plus newsroom/press pages). */
  maxDiscoveryPages: 4,
  /** Feeds of one company read. */
  maxCompanyFeeds: 4
} as const

/** The article kinds of the API. */
export type ArticleType = "editorial" | "press_release" | "regulatory_filing" | "advisory"

/** Where a feed's articles come from. */
export interface FeedSource {
  /** The feed's publisher: its domain and display name. */
  readonly domain: string
  /** Empty: the feed's own title. */
  readonly name: string
  /** True for the company's own feed. */
  readonly direct: boolean
  readonly type: ArticleType
}

/** One article read from a feed. @category models */
export interface Article {
  /** Stable: the same link (or guid) always gives the same id. */
  readonly id: string
  readonly url: string
  readonly title: string
  readonly description: string | null
  readonly authors: ReadonlyArray<string>
  readonly imageUrl: string | null
  readonly language: string | null
  readonly publishedAt: Date | null
  readonly type: ArticleType
  readonly source: { readonly domain: string; readonly name: string; readonly direct: boolean }
  /** The normalized headline syndicated copies share. */
  readonly titleKey: string
  /** MinHash sketch of the body's shingles ("" when too short): copies with an edited headline still agree. */
  readonly sketch: string
}

/** A feed that could not be read. @category errors */
export class FeedError extends Error {
  readonly _tag = "FeedError"
}

const textOf = (value: unknown): string => {
  if (typeof value === "string") return value
  if (value !== null && typeof value === "object" && "value" in value && typeof value.value === "string") return value.value
  return ""
}

const dateOf = (value: unknown): Date | null => {
  const text = textOf(value).trim()
  if (text === "") return null
  const date = new Date(text)
  // A date far in the future or before the web is not a reliable date (the API says null then).
  return Number.isNaN(date.getTime()) || date.getTime() > Date.now() + 2 * 86_400_000 || date.getFullYear() < 1990 ? null : date
}

const absolute = (href: string | undefined, base: string): string | undefined => {
  if (href === undefined || href.trim() === "") return undefined
  try {
    const url = new URL(href.trim(), base)
    return url.protocol === "http:" || url.protocol === "https:" ? url.href : undefined
  } catch {
    return undefined
  }
}

const language = (value: unknown): string | null => {
  const code = textOf(value).trim().toLowerCase().slice(0, 2)
  return /^[a-z]{2}$/.test(code) ? code : null
}

interface Raw {
  readonly link: string | undefined
  readonly guid: string | undefined
  readonly title: string
  readonly body: string
  readonly authors: ReadonlyArray<string>
  readonly image: string | undefined
  readonly published: unknown
  readonly language: string | null
}

const rawItems = (parsed: ReturnType<typeof parseFeed>, base: string): { items: Array<Raw>; title: string } => {
  const items: Array<Raw> = []
  switch (parsed.format) {
    case "rss":
    case "rdf": {
      const feed = parsed.feed as any
      const lang = language(feed.language ?? feed.dc?.languages?.[0] ?? feed.dc?.language)
      for (const item of (feed.items ?? []) as Array<any>) {
        items.push({
          link: absolute(textOf(item.link), base),
          guid: textOf(item.guid) || undefined,
          title: plainText(textOf(item.title), 500),
          body: textOf(item.content?.encoded) || textOf(item.description),
          authors: [...(item.authors ?? []), ...(item.dc?.creators ?? (item.dc?.creator ? [item.dc.creator] : []))].map((a: unknown) => plainText(textOf(a), 200)).filter((a: string) => a !== ""),
          image: (item.enclosures ?? (item.enclosure ? [item.enclosure] : [])).find((e: any) => String(e?.type ?? "").startsWith("image/"))?.url ?? item.media?.contents?.[0]?.url ?? item.media?.thumbnails?.[0]?.url,
          published: item.pubDate ?? item.dc?.dates?.[0] ?? item.dc?.date,
          language: lang
        })
      }
      return { items, title: textOf(feed.title) }
    }
    case "atom": {
      const feed = parsed.feed as any
      const lang = language(feed.xml?.lang ?? feed.lang)
      for (const entry of (feed.entries ?? []) as Array<any>) {
        const links = (entry.links ?? []) as Array<any>
        const link = links.find((l) => l.rel === undefined || l.rel === "alternate") ?? links[0]
        items.push({
          link: absolute(link?.href, base),
          guid: textOf(entry.id) || undefined,
          title: plainText(textOf(entry.title), 500),
          body: textOf(entry.content) || textOf(entry.summary),
          authors: ((entry.authors ?? []) as Array<any>).map((a) => plainText(textOf(a?.name), 200)).filter((a) => a !== ""),
          image: links.find((l) => l.rel === "enclosure" && String(l.type ?? "").startsWith("image/"))?.href ?? entry.media?.thumbnails?.[0]?.url,
          published: entry.published ?? entry.updated,
          language: language(entry.xml?.lang) ?? lang
        })
      }
      return { items, title: textOf(feed.title) }
    }
    case "json": {
      const feed = parsed.feed as any
      const lang = language(feed.language)
      for (const item of (feed.items ?? []) as Array<any>) {
        items.push({
          link: absolute(item.url ?? item.external_url, base),
          guid: item.id === undefined ? undefined : String(item.id),
          title: plainText(textOf(item.title), 500),
          body: textOf(item.content_html) || textOf(item.content_text) || textOf(item.summary),
          authors: ((item.authors ?? feed.authors ?? []) as Array<any>).map((a) => plainText(textOf(a?.name), 200)).filter((a) => a !== ""),
          image: absolute(item.image ?? item.banner_image, base),
          published: item.date_published ?? item.date_modified,
          language: language(item.language) ?? lang
        })
      }
      return { items, title: textOf(feed.title) }
    }
  }
}

// feedsmith (~3 MB of heap) is loaded by the first feed read, not at start.
let feeds: typeof import("feedsmith") | undefined
const feedsmith = (): typeof import("feedsmith") => (feeds ??= createRequire(import.meta.url)("feedsmith") as typeof import("feedsmith"))

// tinyld's language profiles cost ~17 MB of a process's memory: loaded by the first detection, not at start.
let detector: typeof import("tinyld") | undefined
const tinyld = (): typeof import("tinyld") => (detector ??= createRequire(import.meta.url)("tinyld") as typeof import("tinyld"))

/** The languages the API filters on. */
export const LANGUAGES = ["ar", "de", "en", "es", "fr", "hi", "it", "ja", "ko", "nl", "pt", "ru", "zh"] as const

/**
 * The language of an article that its feed does not state, detected by `tinyld` among {@link LANGUAGES}: the best
 * guess when it is confident (accuracy at least 0.3 and five times the next guess), else null.
 */
export const detectLanguage = (text: string): string | null => {
  if (text.split(/\s+/).length < 5) return null
  const [best, next] = tinyld().detectAll(text.slice(0, 2_000), { only: [...LANGUAGES] })
  return best !== undefined && best.accuracy >= 0.3 && best.accuracy >= 5 * (next?.accuracy ?? 0) ? best.lang : null
}

/**
 * The articles of a feed's text (RSS, Atom, RDF or JSON Feed), at most {@link limits.maxItems}; items without a
 * link or title are skipped. Throws `FeedError` for a text that is no feed.
 */
export const readFeedText = (text: string, feedUrl: string, source: FeedSource): Array<Article> => {
  if (text.length > limits.maxFeedBytes) throw new FeedError(`${feedUrl}: the feed is over ${limits.maxFeedBytes} bytes`)
  let parsed: ReturnType<typeof parseFeed>
  try {
    parsed = feedsmith().parseFeed(text)
  } catch (error) {
    throw new FeedError(`${feedUrl}: not a feed (${(error as Error).message})`)
  }
  const { items, title } = rawItems(parsed, feedUrl)
  // A publisher source without a name is named by its feed's title.
  const sourceName = source.name !== "" ? source.name : plainText(title, 200) || source.domain
  const articles: Array<Article> = []
  for (const item of items.slice(0, limits.maxItems)) {
    // A guid is a link only when it is an absolute URL (an id such as "2" is not a page of the feed's site).
    const url = item.link ?? (item.guid !== undefined && /^https?:\/\//i.test(item.guid.trim()) ? absolute(item.guid, feedUrl) : undefined)
    if (url === undefined || item.title === "") continue
    const description = plainText(item.body, 1_000)
    articles.push({
      id: `art_${digest(url.replace(/#.*$/, ""))}`,
      url,
      title: item.title,
      description: description === "" ? null : description,
      authors: [...new Set(item.authors)].slice(0, 20),
      imageUrl: typeof item.image === "string" ? absolute(item.image, feedUrl) ?? null : null,
      language: item.language ?? detectLanguage(`${item.title}. ${description}`),
      publishedAt: dateOf(item.published),
      type: source.type,
      source: { domain: source.domain, name: sourceName, direct: source.direct },
      titleKey: titleKey(item.title),
      sketch: minhash(plainText(item.body, 20_000))
    })
  }
  return articles
}

/** The feed URLs of an OPML document (nested outlines too), at most 10,000. */
export const opmlFeeds = (text: string): Array<string> => {
  const out: Array<string> = []
  const walk = (outlines: ReadonlyArray<any> | undefined, depth: number) => {
    if (outlines === undefined || depth > 8) return
    for (const outline of outlines) {
      if (out.length >= 10_000) return
      const url = absolute(outline?.xmlUrl, "http://invalid/")
      if (url !== undefined && !url.startsWith("http://invalid/")) out.push(url)
      walk(outline?.outlines, depth + 1)
    }
  }
  walk((feedsmith().parseOpml(text) as any)?.body?.outlines, 0)
  return out
}

const FEED_TYPES = /^application\/(rss|atom|feed|rdf)\+(xml|json)$|^application\/(rss\+)?xml$/i
const NEWS_PATH = /\/(news|newsroom|press|press-releases|media|blog|announcements)\/?$/i

/** What a site page says about feeds: the feeds it announces and its links to newsroom or press pages. */
export const feedLinks = (html: string, pageUrl: string): { feeds: Array<string>; newsPages: Array<string> } => {
  const feeds = new Set<string>()
  const newsPages = new Set<string>()
  const host = new URL(pageUrl).host
  const parser = new Parser({
    onopentag: (name, attributes) => {
      const rel = (attributes["rel"] ?? "").toLowerCase().split(/\s+/)
      if (name === "link" && rel.includes("alternate") && FEED_TYPES.test((attributes["type"] ?? "").trim())) {
        const url = absolute(attributes["href"], pageUrl)
        if (url !== undefined) feeds.add(url)
      } else if (name === "a") {
        const url = absolute(attributes["href"], pageUrl)
        if (url !== undefined && new URL(url).host === host && NEWS_PATH.test(new URL(url).pathname)) newsPages.add(url.replace(/#.*$/, ""))
      }
    }
  })
  parser.end(html.slice(0, 2 * 1024 * 1024))
  return { feeds: [...feeds], newsPages: [...newsPages] }
}

/** The company named or titled on a site's home page: `og:site_name`, else the title's first part. */
export const siteName = (html: string): string | undefined => {
  let siteName: string | undefined
  let title = ""
  let inTitle = false
  const parser = new Parser({
    onopentag: (name, attributes) => {
      if (name === "meta" && (attributes["property"] ?? attributes["name"]) === "og:site_name" && siteName === undefined) siteName = attributes["content"]?.trim()
      if (name === "title") inTitle = true
    },
    ontext: (text) => {
      if (inTitle) title += text
    },
    onclosetag: (name) => {
      if (name === "title") inTitle = false
    }
  }, { decodeEntities: true })
  parser.end(html.slice(0, 512 * 1024))
  const fromTitle = title.split(/\s+[|\-–—:·]\s+/)[0]?.trim()
  return siteName !== undefined && siteName !== "" ? siteName : fromTitle !== undefined && fromTitle !== "" ? fromTitle : undefined
}

/** The company a search is about: its name and, when known, its domain, aliases and SEC CIK. */
export interface Entity {
  readonly name: string
  readonly domain: string | undefined
  readonly aliases: ReadonlyArray<string>
  readonly cik: string | undefined
}

// Legal suffixes that headlines drop ("Acme Corp." is "Acme" in most copy).
const LEGAL = /\s+(inc|incorporated|corp|corporation|co|company|ltd|limited|llc|plc|gmbh|ag|sa|nv|group|holdings)\.?$/i

/** The names an article may use for the entity: its name, its name without a legal suffix, aliases, its domain. */
export const namesOf = (entity: Entity): Array<string> =>
  [...new Set([entity.name, entity.name.replace(LEGAL, ""), ...entity.aliases, ...(entity.domain === undefined ? [] : [entity.domain])]
    .map(normalize).filter((n) => n.length >= 2))]

const mentions = (text: string, name: string): boolean => ` ${normalize(text)} `.includes(` ${name} `)

/**
 * How an article mentions the entity: `primary` when a name is in the headline, `secondary` when only in the body,
 * undefined when not at all. The confidence is deterministic: the company's own feeds 1, a headline mention 0.9, a
 * body mention 0.5 plus 0.1 per further mention (at most 0.8).
 */
export const match = (article: Pick<Article, "title" | "description" | "source">, entity: Entity, own: boolean):
  { readonly level: "primary" | "secondary"; readonly confidence: number } | undefined => {
  if (own) return { level: "primary", confidence: 1 }
  const names = namesOf(entity)
  if (names.some((name) => mentions(article.title, name))) return { level: "primary", confidence: 0.9 }
  const body = ` ${normalize(article.description ?? "")} `
  const count = names.reduce((n, name) => n + (body.split(` ${name} `).length - 1), 0)
  return count === 0 ? undefined : { level: "secondary", confidence: Math.min(0.8, 0.5 + 0.1 * (count - 1)) }
}

/** Reads feeds and discovers a company's own. @category services */
export class NewsSource extends Context.Tag("@sift/core/NewsSource")<NewsSource, {
  /** The articles of one feed. */
  readonly readFeed: (url: string, source: FeedSource) => Effect.Effect<Array<Article>, FeedError>
  /** The feeds a company's site announces on its home page and its newsroom/press pages, and the site's name. */
  readonly companyFeeds: (domain: string) => Effect.Effect<{ readonly feeds: Array<string>; readonly name: string | undefined }, FeedError>
  /** The URL of EDGAR's Atom feed of a CIK's filings. */
  readonly edgarFeedUrl: (cik: string) => string
}>() {}

/** Where EDGAR is (tests point it at a local server). */
export interface Options {
  readonly edgarBaseUrl?: string
}

const decode = (body: Uint8Array) => new TextDecoder("utf-8", { fatal: false }).decode(body)

/** `NewsSource` over the Fetcher. @category layers */
export const layer = (options: Options = {}): Layer.Layer<NewsSource, never, Fetcher.Fetcher> =>
  Layer.effect(NewsSource, Effect.map(Fetcher.Fetcher, (fetcher) => {
    const get = (url: string, maxBytes: number) =>
      fetcher.fetch({ url, maxBytes, headers: { accept: "application/rss+xml, application/atom+xml, application/feed+json, application/xml, text/xml, text/html;q=0.8, */*;q=0.5" } }).pipe(
        Effect.mapError((error) => new FeedError(`${url}: ${error.message}`)),
        Effect.filterOrFail((response) => response.status < 400, (response) => new FeedError(`${url}: HTTP ${response.status}`)),
        Effect.map((response) => ({ url: response.url, text: decode(response.body) }))
      )
    const edgarBase = (options.edgarBaseUrl ?? "https://www.sec.gov").replace(/\/+$/, "")
    return NewsSource.of({
      readFeed: (url, source) =>
        Effect.flatMap(get(url, limits.maxFeedBytes + 1), (page) =>
          Effect.try({ try: () => readFeedText(page.text, page.url, source), catch: (error) => error instanceof FeedError ? error : new FeedError(String(error)) })),
      companyFeeds: (domain) =>
        Effect.gen(function*() {
          const home = yield* get(`https://${domain}/`, 2 * 1024 * 1024).pipe(Effect.orElse(() => get(`http://${domain}/`, 2 * 1024 * 1024)))
          const found = feedLinks(home.text, home.url)
          const feeds = new Set(found.feeds)
          // Newsroom and press pages often announce the feed the home page does not.
          const pages = found.newsPages.slice(0, limits.maxDiscoveryPages - 1)
          const more = yield* Effect.forEach(pages, (page) => Effect.option(get(page, 2 * 1024 * 1024)), { concurrency: 3 })
          for (const page of more) if (page._tag === "Some") for (const feed of feedLinks(page.value.text, page.value.url).feeds) feeds.add(feed)
          return { feeds: [...feeds].slice(0, limits.maxCompanyFeeds), name: siteName(home.text) }
        }),
      edgarFeedUrl: (cik) => `${edgarBase}/cgi-bin/browse-edgar?action=getcompany&CIK=${cik.padStart(10, "0")}&type=&dateb=&owner=include&count=40&output=atom`
    })
  }))
