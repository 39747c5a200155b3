/**
 * Decoding fetched bytes to text as a browser would (the WHATWG encoding sniffing algorithm): a byte order mark first,
 * then the Content-Type `charset`, then a `<meta>` prescan of the first 1024 bytes (html-encoding-sniffer), then UTF-8
 * if the bytes are valid UTF-8, else windows-1252. The fallback is Sift's: a browser would take windows-1252 for any
 * undeclared page, but most of today's undeclared pages are UTF-8.
 *
 * @since 0.1.0
 */
import htmlEncodingSniffer from "html-encoding-sniffer"
import { decodeWindows1252 } from "./internal/fetch/windows1252.js"

/** A decoded document and the WHATWG name of the encoding it was read with (`utf-8`, `shift_jis`, `windows-1252`...). */
export interface Decoded {
  readonly text: string
  readonly encoding: string
}

/** Where the encoding came from, in the order the algorithm tries them. @category models */
export type EncodingSource = "bom" | "header" | "meta" | "xml" | "none"

// Labels that the Encoding Standard maps to the "replacement" encoding (decode everything to one U+FFFD). That protects
// browsers from a script-injection trick but leaves a scraper nothing, so we treat them as unknown and keep sniffing.
const replacementLabels = new Set(["csiso2022kr", "hz-gb-2312", "iso-2022-cn", "iso-2022-cn-ext", "iso-2022-kr", "replacement"])

const labelCache = new Map<string, string | undefined>()

/**
 * The WHATWG name of the encoding a label means (`latin1` and `iso-8859-1` → `windows-1252`, `gb2312` → `gbk`,
 * `x-sjis` → `shift_jis`), or undefined for a label no decoder here supports.
 */
export const encodingForLabel = (label: string): string | undefined => {
  const key = label.trim().toLowerCase()
  if (labelCache.has(key)) return labelCache.get(key)
  let encoding: string | undefined
  if (key === "x-user-defined") {
    // The HTML prescan reads x-user-defined as windows-1252; Node has no decoder for it either way.
    encoding = "windows-1252"
  } else if (key !== "" && !replacementLabels.has(key)) {
    try {
      // Node's TextDecoder (full ICU) implements the Encoding Standard's label table exactly.
      encoding = new TextDecoder(key).encoding
    } catch {
      encoding = undefined
    }
  }
  if (labelCache.size < 256) labelCache.set(key, encoding)
  return encoding
}

const isSpace = (code: number): boolean => code === 0x09 || code === 0x0a || code === 0x0c || code === 0x0d || code === 0x20

/** The Encoding Standard's "extract a character encoding from a meta element", on a `content` or Content-Type value. */
const charsetFromContent = (content: string): string | undefined => {
  const text = content.toLowerCase()
  let pos = 0
  for (;;) {
    const found = text.indexOf("charset", pos)
    if (found < 0) return undefined
    pos = found + 7
    while (pos < text.length && isSpace(text.charCodeAt(pos))) pos++
    if (text[pos] !== "=") continue
    pos++
    while (pos < text.length && isSpace(text.charCodeAt(pos))) pos++
    const first = text[pos]
    if (first === undefined) return undefined
    if (first === "\"" || first === "'") {
      const close = text.indexOf(first, pos + 1)
      return close < 0 ? undefined : content.slice(pos + 1, close)
    }
    let stop = pos
    while (stop < text.length && !isSpace(text.charCodeAt(stop)) && text[stop] !== ";") stop++
    return content.slice(pos, stop)
  }
}

/** The `charset` parameter of a Content-Type header value, unquoted, or undefined. */
export const charsetParameter = (contentType: string | undefined): string | undefined => {
  if (contentType === undefined) return undefined
  const semicolon = contentType.indexOf(";")
  if (semicolon < 0) return undefined
  // A Content-Type value's parameters look like a meta `content` value, and the same extraction reads both.
  const found = charsetFromContent(contentType.slice(semicolon))
  return found === undefined || found === "" ? undefined : found
}

const bomEncoding = (bytes: Uint8Array): string | undefined => {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return "utf-8"
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return "utf-16be"
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return "utf-16le"
  return undefined
}

const isXml = (contentType: string | undefined): boolean => {
  const mime = contentType?.split(";")[0]!.trim().toLowerCase() ?? ""
  return mime.endsWith("/xml") || mime.endsWith("+xml")
}

// `<?xml version="1.0" encoding="..."?>`, only trusted for XML types (sitemaps, feeds), as XML parsers do.
const xmlDeclaration = /^<\?xml[^>]*?\sencoding\s*=\s*["']([^"']+)["']/

/** Picks the declared encoding of `bytes` without decoding them, and says which step found it (`none`: undeclared). */
export const sniff = (
  bytes: Uint8Array,
  contentType?: string
): { readonly encoding: string | undefined; readonly source: EncodingSource } => {
  const bom = bomEncoding(bytes)
  if (bom !== undefined) return { encoding: bom, source: "bom" }
  const label = charsetParameter(contentType)
  const fromHeader = label === undefined ? undefined : encodingForLabel(label)
  if (fromHeader !== undefined) return { encoding: fromHeader, source: "header" }
  if (isXml(contentType)) {
    const head = decodeWindows1252(bytes.subarray(0, 256))
    const declared = xmlDeclaration.exec(head)?.[1]
    const fromXml = declared === undefined ? undefined : encodingForLabel(declared)
    if (fromXml !== undefined) return { encoding: fromXml, source: "xml" }
  } else {
    // Browsers prescan only text/html; servers that label HTML text/plain or octet-stream are common enough that we
    // prescan every non-XML body, which costs at most 1024 bytes of scanning and finds nothing in non-HTML text.
    const fromMeta = prescanMeta(bytes)
    if (fromMeta !== undefined) return { encoding: fromMeta, source: "meta" }
  }
  return { encoding: undefined, source: "none" }
}

/** How many bytes the prescan looks at, as browsers do. */
const PRESCAN_LIMIT = 1024

/**
 * The encoding a `<meta charset>` or `<meta http-equiv="Content-Type" content="...charset=...">` declares in the first
 * 1024 bytes (html-encoding-sniffer's prescan; UTF-16 read as UTF-8, x-user-defined as windows-1252), as one of our
 * names; undefined when there is none or Node cannot decode it (the replacement encoding is no answer for a scraper).
 */
const prescanMeta = (bytes: Uint8Array): string | undefined => {
  // The BOM step is done; without a transport label and with an empty default, only the prescan can answer.
  let found: string
  try {
    found = htmlEncodingSniffer(bytes.subarray(0, PRESCAN_LIMIT), { defaultEncoding: "" })
  } catch {
    // It throws on a `content` that ends right after "charset"; such a page declares nothing usable.
    return undefined
  }
  return found === "" ? undefined : encodingForLabel(found)
}

const utf8Strict = new TextDecoder("utf-8", { fatal: true })

/** Decodes `bytes` with a known WHATWG encoding name (one that {@link encodingForLabel} returned). */
export const decodeAs = (bytes: Uint8Array, encoding: string): string =>
  encoding === "windows-1252" ? decodeWindows1252(bytes) : new TextDecoder(encoding).decode(bytes)

/** Decodes `bytes` as a browser would, given the response's Content-Type header value (with its parameters). */
export const decode = (bytes: Uint8Array, contentType?: string): Decoded => {
  const { encoding } = sniff(bytes, contentType)
  if (encoding !== undefined) return { text: decodeAs(bytes, encoding), encoding }
  // No declaration: one strict UTF-8 pass both validates and decodes; only invalid input pays for a second pass.
  try {
    return { text: utf8Strict.decode(bytes), encoding: "utf-8" }
  } catch {
    return { text: decodeWindows1252(bytes), encoding: "windows-1252" }
  }
}
