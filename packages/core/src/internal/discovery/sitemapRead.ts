/**
 * Reads one fetched sitemap-like document into entries: XML sitemaps (`urlset`) and sitemap indexes (`sitemapindex`),
 * text sitemaps (one URL a line), RSS 2.0 / RSS 1.0 and Atom feeds, each possibly gzip-compressed on disk (`.xml.gz`
 * served as a file rather than with `Content-Encoding`). Decompression is capped at the protocol's 50 MB.
 *
 * XML goes through the forgiving scanner of `xmlScan.ts`: a damaged document (truncated, broken markup) gives every
 * entry complete before the damage, and the damage is reported alongside.
 */
import { promisify } from "node:util"
import { gunzip } from "node:zlib"
import { scan } from "./xmlScan.js"

/** The sitemap protocol's limit on an uncompressed sitemap file. */
export const MAX_SITEMAP_BYTES = 50 * 1024 * 1024

/** One URL a document lists. */
export interface Entry {
  readonly loc: string
  readonly lastmod?: string | undefined
}

/** What a document contained. */
export interface Read {
  /** `index`: its entries are sitemaps to read next. `none`: not a sitemap or feed (an HTML soft 404, say). */
  readonly kind: "urls" | "index" | "feed" | "text" | "none"
  /** The entries read; with a `take`, only an index's (page URLs went to `take` instead). */
  readonly entries: ReadonlyArray<Entry>
  /** How many entries were read (page URLs given to `take` included). */
  readonly count: number
  /** Set when the document was damaged and only partly read. */
  readonly damage?: string | undefined
}

/**
 * Receives each page URL as it is read (not an index's sitemaps); false stops reading the document there. A map that
 * has met `maxLinks` neither keeps nor reads the rest of a large sitemap.
 */
export type Take = (entry: Entry) => boolean

/** The body could not be read at all (decompressed past the limit, or corrupt gzip). */
export class Unreadable extends Error {
  constructor(readonly tooLarge: boolean, detail: string) {
    super(detail)
  }
}

const gunzipAsync = promisify(gunzip) as (buffer: Uint8Array, options: { maxOutputLength: number }) => Promise<Buffer>

const isGzip = (bytes: Uint8Array): boolean => bytes.length > 2 && bytes[0] === 0x1f && bytes[1] === 0x8b

/** Decompresses gzip bodies (by magic bytes, whatever the URL says) under the limit. */
const inflate = async (bytes: Uint8Array): Promise<Uint8Array> => {
  if (!isGzip(bytes)) return bytes
  try {
    return await gunzipAsync(bytes, { maxOutputLength: MAX_SITEMAP_BYTES })
  } catch (error) {
    if (error instanceof RangeError || (error as { code?: string }).code === "ERR_BUFFER_TOO_LARGE") {
      throw new Unreadable(true, `decompresses to more than the sitemap limit of ${MAX_SITEMAP_BYTES} bytes`)
    }
    throw new Unreadable(false, `corrupt gzip data: ${(error as Error).message}`)
  }
}

type Kind = Read["kind"]

const rootKinds: Record<string, Kind> = { urlset: "urls", sitemapindex: "index", rss: "feed", RDF: "feed", feed: "feed" }
// The element each kind lists entries in, and the child holding an entry's date.
const entryElements = new Set(["url", "sitemap", "item", "entry"])
const dateElements = new Set(["lastmod", "pubDate", "date", "updated"])

/** Reads an XML sitemap, index or feed with the forgiving scanner; damage keeps the entries complete before it. */
const readXml = (source: string, take: Take | undefined): Read => {
  let kind: Kind | undefined
  const entries: Array<Entry> = []
  let count = 0
  let stop = false
  // An index's entries are always kept (they are sitemaps to walk); page URLs go to `take` when there is one.
  const deliver = (entry: Entry) => {
    count++
    if (take === undefined || kind === "index") entries.push(entry)
    else if (!stop && !take(entry)) stop = true
  }
  let depth = 0
  let inEntry = false
  let entryDepth = 0
  let loc: string | undefined
  let lastmod: string | undefined
  // hreflang alternates of the current entry, listed after it.
  let alternates: Array<string> = []
  // Text of the element being captured (`loc`, an RSS `link`, a date), if any.
  let capture: "loc" | "date" | undefined
  let buffer = ""
  const flush = () => {
    if (loc !== undefined && loc !== "") deliver({ loc, lastmod })
    for (const alternate of alternates) deliver({ loc: alternate })
    if (alternates.length > 0) alternates = []
    loc = undefined
    lastmod = undefined
  }
  const damage = scan(source, {
    open: (name, attribute, selfClosing) => {
      depth++
      if (depth === 1) kind = Object.hasOwn(rootKinds, name) ? rootKinds[name]! : "none"
      if (kind === "none") return
      if (entryElements.has(name)) {
        inEntry = true
        entryDepth = depth
        loc = undefined
        lastmod = undefined
        return
      }
      // Only the entry's own children: an `image:loc` inside a `url` is the image, not the page.
      if (!inEntry || depth !== entryDepth + 1) return
      if (name === "loc") capture = "loc"
      else if (name === "link") {
        const href = attribute("href")
        if (href === undefined) {
          if (!selfClosing && loc === undefined) capture = "loc" // RSS: <link>url</link>
        } else {
          const rel = attribute("rel")
          // Atom: the entry's own link; sitemap `xhtml:link` alternates: the page in other languages.
          if (kind === "feed" && (rel === undefined || rel === "alternate") && loc === undefined) loc = href.trim()
          else if (kind === "urls" && rel === "alternate") alternates.push(href.trim())
        }
      } else if (dateElements.has(name) && lastmod === undefined) capture = "date"
      buffer = ""
    },
    text: (text) => {
      buffer += text
    },
    wantsText: () => capture !== undefined,
    close: (name) => {
      depth--
      if (capture !== undefined) {
        const value = buffer.trim()
        if (capture === "loc" && loc === undefined) loc = value
        else if (capture === "date") lastmod = value === "" ? undefined : value
        capture = undefined
        buffer = ""
      }
      if (entryElements.has(name) && inEntry && depth === entryDepth - 1) {
        flush()
        inEntry = false
      }
    },
    stopped: () => stop
  })
  // An entry whose `loc` was complete before the damage is still an entry.
  if (damage !== undefined && inEntry) flush()
  return {
    kind: kind ?? "none",
    entries,
    count,
    damage: damage === undefined || kind === "none" ? undefined : `malformed XML: ${damage}`
  }
}

const decoder = new TextDecoder("utf-8")

/** Reads a text sitemap (one URL a line), line by line so that `take` can stop it. */
const readText = (source: string, take: Take | undefined): Read => {
  const entries: Array<Entry> = []
  let count = 0
  for (let at = 0; at < source.length;) {
    const end = source.indexOf("\n", at)
    const loc = source.slice(at, end === -1 ? source.length : end).trim()
    at = end === -1 ? source.length : end + 1
    if (!/^https?:\/\//i.test(loc)) continue
    count++
    if (take === undefined) entries.push({ loc })
    else if (!take({ loc })) break
  }
  return { kind: count > 0 ? "text" : "none", entries, count }
}

/**
 * Reads one fetched body; with `take`, page URLs go to it as they are read (see {@link Take}). Fails with
 * {@link Unreadable} when it cannot be decompressed.
 */
export const read = async (body: Uint8Array, take?: Take): Promise<Read> => {
  const bytes = await inflate(body)
  const source = decoder.decode(bytes).replace(/^\uFEFF/, "")
  const start = source.search(/\S/)
  if (start === -1) return { kind: "none", entries: [], count: 0 }
  if (source[start] !== "<") return readText(source, take)
  // An HTML page where a sitemap was expected (soft 404): not worth an XML parse, and not damage.
  const head = source.slice(start, start + 512).toLowerCase()
  if (head.startsWith("<!doctype html") || head.startsWith("<html")) return { kind: "none", entries: [], count: 0 }
  return readXml(source, take)
}
