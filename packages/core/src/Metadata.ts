/**
 * Page metadata (decisions §2): title, description, dates, Open Graph, Twitter cards, JSON-LD, alternates and the
 * page's headings, read from the full page before any content filter.
 *
 * @since 0.1.0
 */
import type { Root } from "hast"
import { Schema } from "effect"
import { type DocumentScan, type MetaEntry, scan } from "./internal/page/documentScan.js"
import { findImage, findName, findString, type JsonLdObject, parseJsonLd } from "./internal/page/jsonLd.js"
import { inlineText } from "./internal/page/text.js"
import { documentBase, resolve } from "./internal/page/url.js"

/** At most this many headings are reported, each cut to {@link maxHeadingText} characters (decisions §2). */
export const maxHeadings = 500
/** The longest heading text reported. */
export const maxHeadingText = 1000

/** One heading of the page: its level (1 for `h1`) and its text, whitespace collapsed. @category models */
export const Heading = Schema.Struct({
  level: Schema.Int.pipe(Schema.between(1, 6)),
  text: Schema.String.pipe(Schema.maxLength(maxHeadingText))
})
/** @category models */
export type Heading = typeof Heading.Type

/** A `<link rel="alternate">`: a translation, a feed, another format of the page. @category models */
export const Alternate = Schema.Struct({
  href: Schema.String,
  hreflang: Schema.optional(Schema.String),
  title: Schema.optional(Schema.String),
  type: Schema.optional(Schema.String)
})
/** @category models */
export type Alternate = typeof Alternate.Type

/** The `metadata` member of a scrape result; every member is optional and absent when the page has nothing for it. */
export const PageMetadata = Schema.Struct({
  title: Schema.optional(Schema.String),
  description: Schema.optional(Schema.String),
  author: Schema.optional(Schema.String),
  canonicalUrl: Schema.optional(Schema.String),
  favicon: Schema.optional(Schema.String),
  image: Schema.optional(Schema.String),
  keywords: Schema.optional(Schema.Array(Schema.String)),
  language: Schema.optional(Schema.String),
  modifiedTime: Schema.optional(Schema.String),
  publishedTime: Schema.optional(Schema.String),
  robots: Schema.optional(Schema.String),
  siteName: Schema.optional(Schema.String),
  headings: Schema.optional(Schema.Array(Heading).pipe(Schema.maxItems(maxHeadings))),
  jsonLd: Schema.optional(Schema.Array(Schema.Record({ key: Schema.String, value: Schema.Unknown }))),
  openGraph: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.String })),
  twitter: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.String })),
  additionalMeta: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.String })),
  alternates: Schema.optional(Schema.Array(Alternate)),
  statusCode: Schema.optional(Schema.Int),
  contentType: Schema.optional(Schema.String)
})
/** @category models */
export type PageMetadata = typeof PageMetadata.Type

/** What metadata needs besides the page: its URL (for relative links) and the response facts to echo. */
export interface ExtractContext {
  readonly url: string
  readonly statusCode?: number
  readonly contentType?: string
}

/** The page's headings h1 to h6 in document order (at most 500, each at most 1000 characters); empty ones skipped. */
export const headings = (tree: Root): Array<Heading> => headingsOf(scan(tree))

const headingsOf = (found: DocumentScan): Array<Heading> => {
  const out: Array<Heading> = []
  for (const element of found.headings) {
    if (out.length >= maxHeadings) break
    const text = inlineText(element).slice(0, maxHeadingText)
    if (text !== "") out.push({ level: Number(element.tagName.slice(1)), text })
  }
  return out
}

// Meta names (lower case) whose values become dedicated fields rather than `additionalMeta` entries.
const dedicated = new Set(["description", "keywords", "author", "robots", "content-language"])

/** Reads the metadata of a page. Pass the unfiltered tree: headings and the head are read from the whole page. */
export const extract = (tree: Root, context: ExtractContext): PageMetadata => {
  const found = scan(tree)
  const base = documentBase(tree, context.url)
  const metas = indexMetas(found.metas)
  const meta = (...keys: ReadonlyArray<string>): string | undefined => {
    for (const key of keys) {
      const value = metas.byKey.get(key)
      if (value !== undefined) return value
    }
    return undefined
  }
  const jsonLd = parseJsonLd(found.jsonLdSources)
  const absolute = (value: string | undefined) => (value === undefined ? undefined : resolve(value, base))
  const firstH1 = found.headings.find((element) => element.tagName === "h1")

  const metadata: Record<string, unknown> = {
    title: nonEmpty(found.title) ?? meta("og:title", "twitter:title") ??
      nonEmpty(firstH1 === undefined ? undefined : inlineText(firstH1)),
    description: meta("description", "og:description", "twitter:description", "dc.description"),
    author: meta("author", "dc.creator", "dcterms.creator", "parsely-author", "sailthru.author") ??
      notUrl(meta("article:author")) ?? findName(jsonLd, "author"),
    canonicalUrl: absolute(linkHref(found, "canonical") ?? meta("og:url")),
    favicon: absolute(linkHref(found, "icon") ?? "/favicon.ico"),
    image: absolute(meta("og:image", "og:image:url", "og:image:secure_url", "twitter:image", "twitter:image:src") ??
      findImage(jsonLd)),
    keywords: keywordsOf(meta("keywords", "news_keywords")),
    language: nonEmpty(found.htmlLang) ?? meta("content-language", "language", "dc.language"),
    publishedTime: publishedTime(meta, jsonLd, found),
    modifiedTime: modifiedTime(meta, jsonLd, found),
    robots: meta("robots"),
    siteName: meta("og:site_name", "application-name") ?? findName(jsonLd, "publisher"),
    headings: headingsOf(found),
    jsonLd: jsonLd.length === 0 ? undefined : jsonLd,
    openGraph: nonEmptyRecord(metas.openGraph),
    twitter: nonEmptyRecord(metas.twitter),
    additionalMeta: nonEmptyRecord(metas.additional),
    alternates: alternatesOf(found, base),
    statusCode: context.statusCode,
    contentType: context.contentType
  }
  for (const key of Object.keys(metadata)) if (metadata[key] === undefined) delete metadata[key]
  return metadata as PageMetadata
}

interface MetaIndex {
  /** First value per lower-cased key. */
  readonly byKey: Map<string, string>
  readonly openGraph: Record<string, string>
  readonly twitter: Record<string, string>
  readonly additional: Record<string, string>
}

const indexMetas = (metas: ReadonlyArray<MetaEntry>): MetaIndex => {
  const index: MetaIndex = { byKey: new Map(), openGraph: {}, twitter: {}, additional: {} }
  for (const { content, key } of metas) {
    const lower = key.toLowerCase()
    if (!index.byKey.has(lower)) index.byKey.set(lower, content)
    const target = lower.startsWith("og:")
      ? [index.openGraph, lower.slice(3)] as const
      : lower.startsWith("twitter:")
      ? [index.twitter, lower.slice(8)] as const
      : dedicated.has(lower)
      ? undefined
      : [index.additional, key] as const
    // First value wins: a repeated `og:image` describes further images, not a replacement.
    if (target !== undefined && target[1] !== "" && !Object.hasOwn(target[0], target[1])) target[0][target[1]] = content
  }
  return index
}

const publishedTime = (
  meta: (...keys: ReadonlyArray<string>) => string | undefined,
  jsonLd: ReadonlyArray<JsonLdObject>,
  found: DocumentScan
): string | undefined =>
  meta(
    "article:published_time",
    "og:published_time",
    "datepublished",
    "published_time",
    "pubdate",
    "publishdate",
    "publish-date",
    "parsely-pub-date",
    "sailthru.date",
    "dcterms.created",
    "dc.date.issued",
    "dc.date",
    "date"
  ) ?? findString(jsonLd, "datePublished") ?? found.times.find((time) => time.role === "published")?.dateTime ??
    // A single undistinguished `<time>` on the page is the page's date; with several, which one is anyone's guess.
    (found.times.length === 1 && found.times[0]!.role === undefined ? found.times[0]!.dateTime : undefined)

const modifiedTime = (
  meta: (...keys: ReadonlyArray<string>) => string | undefined,
  jsonLd: ReadonlyArray<JsonLdObject>,
  found: DocumentScan
): string | undefined =>
  meta("article:modified_time", "og:updated_time", "datemodified", "dcterms.modified", "last-modified") ??
    findString(jsonLd, "dateModified") ?? found.times.find((time) => time.role === "modified")?.dateTime

const linkHref = (found: DocumentScan, rel: string): string | undefined => {
  for (const link of found.links) {
    const rels = link.properties.rel
    const href = link.properties.href
    if (Array.isArray(rels) && typeof href === "string" && href.trim() !== "" &&
      rels.some((token) => String(token).toLowerCase() === rel)) return href
  }
  return undefined
}

const alternatesOf = (found: DocumentScan, base: string): Array<Alternate> | undefined => {
  const out: Array<Alternate> = []
  const seen = new Set<string>()
  for (const link of found.links) {
    const rels = link.properties.rel
    if (!Array.isArray(rels) || !rels.some((token) => String(token).toLowerCase() === "alternate")) continue
    const href = typeof link.properties.href === "string" ? resolve(link.properties.href, base) : undefined
    if (href === undefined) continue
    const hreflang = nonEmpty(stringOf(link.properties.hrefLang))
    const key = `${href} ${hreflang ?? ""}`
    if (seen.has(key)) continue
    seen.add(key)
    const title = nonEmpty(stringOf(link.properties.title))
    const type = nonEmpty(stringOf(link.properties.type))
    out.push({
      href,
      ...(hreflang === undefined ? {} : { hreflang }),
      ...(title === undefined ? {} : { title }),
      ...(type === undefined ? {} : { type })
    })
  }
  return out.length === 0 ? undefined : out
}

const keywordsOf = (value: string | undefined): Array<string> | undefined => {
  if (value === undefined) return undefined
  const keywords = value.split(",").map((keyword) => keyword.trim()).filter((keyword) => keyword !== "")
  return keywords.length === 0 ? undefined : keywords
}

const stringOf = (value: unknown): string | undefined => (typeof value === "string" ? value : undefined)

const nonEmpty = (value: string | undefined): string | undefined => {
  const trimmed = value?.trim()
  return trimmed === undefined || trimmed === "" ? undefined : trimmed
}

const notUrl = (value: string | undefined): string | undefined =>
  value === undefined || /^https?:\/\//i.test(value) ? undefined : value

const nonEmptyRecord = (record: Record<string, string>): Record<string, string> | undefined =>
  Object.keys(record).length === 0 ? undefined : record
