/**
 * Reads one fetched sitemap-like document into entries: XML sitemaps (`urlset`) and sitemap indexes (`sitemapindex`),
 * text sitemaps (one URL a line), RSS 2.0 / RSS 1.0 and Atom feeds, each possibly gzip-compressed on disk (`.xml.gz`
 * served as a file rather than with `Content-Encoding`). Decompression is capped at the protocol's 50 MB.
 *
 * fast-xml-parser reads well-formed XML; a document it rejects (truncated, broken markup) is read again by
 * htmlparser2's forgiving XML mode, which keeps every entry up to the damage, and the failure is reported alongside.
 */
import { XMLParser } from "fast-xml-parser"
import { Parser } from "htmlparser2"
import { promisify } from "node:util"
import { gunzip } from "node:zlib"

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
  readonly entries: ReadonlyArray<Entry>
  /** Set when the document was damaged and only partly read. */
  readonly damage?: string | undefined
}

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

const listTags = new Set(["url", "sitemap", "item", "entry", "link"])

const xml = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: "@",
  removeNSPrefix: true,
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: true,
  processEntities: true,
  htmlEntities: true,
  isArray: (name) => listTags.has(name)
})

type Node = Record<string, unknown>

const text = (value: unknown): string | undefined => {
  if (typeof value === "string") return value.trim() || undefined
  if (typeof value === "object" && value !== null && typeof (value as Node)["#text"] === "string") {
    return ((value as Node)["#text"] as string).trim() || undefined
  }
  return undefined
}

const asList = (value: unknown): ReadonlyArray<Node> =>
  Array.isArray(value) ? (value as Array<Node>) : typeof value === "object" && value !== null ? [value as Node] : []

/** Entries of a parsed document tree, by its root element. */
const fromTree = (tree: Node): Read => {
  if (tree["urlset"] !== undefined) {
    const entries: Array<Entry> = []
    for (const url of asList((tree["urlset"] as Node)?.["url"])) {
      const loc = text(url["loc"])
      if (loc !== undefined) entries.push({ loc, lastmod: text(url["lastmod"]) })
      // hreflang alternates (`xhtml:link rel="alternate"`): the same page in other languages, often listed nowhere else.
      for (const link of asList(url["link"])) {
        const href = link["@href"]
        if (typeof href === "string" && link["@rel"] === "alternate") entries.push({ loc: href.trim() })
      }
    }
    return { kind: "urls", entries }
  }
  if (tree["sitemapindex"] !== undefined) {
    const entries: Array<Entry> = []
    for (const sitemap of asList((tree["sitemapindex"] as Node)?.["sitemap"])) {
      const loc = text(sitemap["loc"])
      if (loc !== undefined) entries.push({ loc, lastmod: text(sitemap["lastmod"]) })
    }
    return { kind: "index", entries }
  }
  const rss = (tree["rss"] as Node | undefined)?.["channel"] as Node | undefined
  const rdf = tree["RDF"] as Node | undefined
  if (rss !== undefined || rdf !== undefined) {
    const items = asList(rss !== undefined ? rss["item"] : rdf!["item"])
    const entries: Array<Entry> = []
    for (const item of items) {
      const loc = asList(item["link"]).map(text).find((l) => l !== undefined)
      if (loc !== undefined) entries.push({ loc, lastmod: text(item["pubDate"]) ?? text(item["date"]) })
    }
    return { kind: "feed", entries }
  }
  if (tree["feed"] !== undefined) {
    const entries: Array<Entry> = []
    for (const entry of asList((tree["feed"] as Node)["entry"])) {
      const links = asList(entry["link"])
      const link = links.find((l) => l["@rel"] === undefined || l["@rel"] === "alternate") ?? links[0]
      const href = link?.["@href"]
      if (typeof href === "string") entries.push({ loc: href.trim(), lastmod: text(entry["updated"]) })
    }
    return { kind: "feed", entries }
  }
  return { kind: "none", entries: [] }
}

/** Forgiving second pass over damaged XML: every complete `loc` (or feed `link`) before the damage. */
const recover = (source: string, damage: string): Read => {
  const entries: Array<Entry> = []
  const stack: Array<string> = []
  let buffer: string | undefined
  let index = false
  let feed = false
  const parser = new Parser({
    onopentag: (name, attributes) => {
      const local = name.slice(name.indexOf(":") + 1).toLowerCase()
      if (local === "sitemapindex") index = true
      if (local === "rss" || local === "feed" || local === "rdf") feed = true
      const parent = stack[stack.length - 1]
      if (local === "loc" || (local === "link" && (parent === "item" || parent === "entry"))) {
        if (attributes["href"] !== undefined) entries.push({ loc: attributes["href"].trim() })
        else buffer = ""
      }
      stack.push(local)
    },
    ontext: (chunk) => {
      if (buffer !== undefined) buffer += chunk
    },
    onclosetag: () => {
      const local = stack.pop()
      if (buffer !== undefined && (local === "loc" || local === "link")) {
        const loc = buffer.trim()
        if (loc !== "") entries.push({ loc })
        buffer = undefined
      }
    }
  }, { xmlMode: true, decodeEntities: true, recognizeCDATA: true })
  parser.write(source)
  // Not `end()`: an element left open by truncation must not be completed with half a URL.
  return { kind: index ? "index" : feed ? "feed" : "urls", entries, damage }
}

const decoder = new TextDecoder("utf-8")

/** Reads one fetched body. Fails with {@link Unreadable} when it cannot be decompressed. */
export const read = async (body: Uint8Array): Promise<Read> => {
  const bytes = await inflate(body)
  const source = decoder.decode(bytes).replace(/^\uFEFF/, "")
  const start = source.search(/\S/)
  if (start === -1) return { kind: "none", entries: [] }
  if (source[start] !== "<") {
    const entries: Array<Entry> = []
    for (const line of source.split(/\r?\n/)) {
      const loc = line.trim()
      if (/^https?:\/\//i.test(loc)) entries.push({ loc })
    }
    return { kind: entries.length > 0 ? "text" : "none", entries }
  }
  // An HTML page where a sitemap was expected (soft 404): not worth an XML parse, and not damage.
  const head = source.slice(start, start + 512).toLowerCase()
  if (head.startsWith("<!doctype html") || head.startsWith("<html")) return { kind: "none", entries: [] }
  let tree: Node
  try {
    tree = xml.parse(source) as Node
  } catch (error) {
    return recover(source, `malformed XML: ${(error as Error).message}`)
  }
  return fromTree(tree)
}
