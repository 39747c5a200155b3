/**
 * Decoding fetched bytes to text as a browser would (the WHATWG encoding sniffing algorithm): a byte order mark first,
 * then the Content-Type `charset`, then a `<meta>` prescan of the first 1024 bytes, then UTF-8 if the bytes are valid
 * UTF-8, else windows-1252.
 *
 * @since 0.1.0
 */
import { charsetFromContent, prescanMeta } from "./internal/fetch/prescan.js"
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
    const fromMeta = prescanMeta(bytes, encodingForLabel)
    if (fromMeta !== undefined) return { encoding: fromMeta, source: "meta" }
  }
  return { encoding: undefined, source: "none" }
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
