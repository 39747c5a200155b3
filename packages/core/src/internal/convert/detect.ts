/**
 * What a file is: magic bytes first, read by file-type (a PDF served as `application/octet-stream` is still a PDF; zip
 * and OLE2 containers are told apart by the parts they hold), then the file extension of an upload or of the URL's
 * path, then the Content-Type, then a look at the text itself.
 */
import { fileTypeFromBuffer } from "file-type"

/** Extensions (lower case, without the dot) → document type. */
export const extensionTypes: Readonly<Record<string, string>> = {
  txt: "text", text: "text", log: "text", md: "markdown", markdown: "markdown", mdx: "markdown",
  html: "html", htm: "html", xhtml: "html", xml: "xml", rss: "xml", atom: "xml", csv: "csv", tsv: "tsv", tab: "tsv",
  yaml: "yaml", yml: "yaml", json: "json", jsonl: "jsonl", ndjson: "jsonl",
  py: "python", java: "java", js: "javascript", jsx: "javascript", mjs: "javascript", cjs: "javascript",
  ts: "typescript", tsx: "typescript", mts: "typescript", cts: "typescript", php: "php",
  sh: "shell", bash: "shell", zsh: "shell", fish: "shell", rb: "ruby", rtf: "rtf", srt: "srt",
  css: "css", scss: "scss", less: "less", styl: "stylus", sass: "sass", svg: "svg", pdf: "pdf",
  docx: "docx", docm: "docx", dotx: "docx", doc: "doc", dot: "doc",
  xlsx: "xlsx", xlsm: "xlsx", xltx: "xlsx", xltm: "xlsx", xlsb: "xlsb", xls: "xls", xlt: "xls",
  pptx: "pptx", pptm: "pptx", ppsx: "pptx", ppsm: "pptx", potx: "pptx", potm: "pptx", ppt: "ppt", pps: "ppt", pot: "ppt",
  jpg: "jpg", jpeg: "jpg", jpe: "jpg", png: "png", gif: "gif", bmp: "bmp", tiff: "tiff", tif: "tiff", webp: "webp",
  ppm: "ppm", pbm: "pbm", pgm: "pgm", pnm: "pnm"
}

/** Content-Type media types → document type. */
const mediaTypes: Readonly<Record<string, string>> = {
  "text/html": "html", "application/xhtml+xml": "html", "text/plain": "text", "text/markdown": "markdown",
  "text/x-markdown": "markdown", "text/csv": "csv", "application/csv": "csv", "text/tab-separated-values": "tsv",
  "application/json": "json", "text/json": "json", "application/ld+json": "json", "application/x-ndjson": "jsonl",
  "application/jsonl": "jsonl", "application/x-jsonlines": "jsonl", "application/yaml": "yaml", "application/x-yaml": "yaml",
  "text/yaml": "yaml", "text/x-yaml": "yaml", "application/xml": "xml", "text/xml": "xml", "application/rss+xml": "xml",
  "application/atom+xml": "xml", "image/svg+xml": "svg", "application/rtf": "rtf", "text/rtf": "rtf",
  "application/x-subrip": "srt", "text/srt": "srt", "text/css": "css", "text/javascript": "javascript",
  "application/javascript": "javascript", "text/x-python": "python", "text/x-java-source": "java",
  "application/x-sh": "shell", "text/x-shellscript": "shell", "application/x-httpd-php": "php", "text/x-ruby": "ruby",
  "application/typescript": "typescript", "application/pdf": "pdf", "application/x-pdf": "pdf",
  "application/vnd.openxmlformats-officedocument.wordprocessingml.document": "docx", "application/msword": "doc",
  "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet": "xlsx", "application/vnd.ms-excel": "xls",
  "application/vnd.openxmlformats-officedocument.presentationml.presentation": "pptx",
  "application/vnd.ms-powerpoint": "ppt", "image/jpeg": "jpg", "image/png": "png", "image/gif": "gif", "image/bmp": "bmp",
  "image/tiff": "tiff", "image/webp": "webp", "image/x-portable-pixmap": "ppm", "image/x-portable-bitmap": "pbm",
  "image/x-portable-graymap": "pgm", "image/x-portable-anymap": "pnm"
}

const startsWith = (bytes: Uint8Array, signature: ReadonlyArray<number>, at = 0) =>
  signature.every((byte, i) => bytes[at + i] === byte)

const ascii = (text: string) => [...text].map((c) => c.charCodeAt(0))
const utf16 = (text: string) => [...text].flatMap((c) => [c.charCodeAt(0), 0])

const contains = (bytes: Uint8Array, needle: ReadonlyArray<number>) =>
  Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).indexOf(Buffer.from(needle)) >= 0

// file-type's names → Sift's document types; macro-enabled Office files, templates and shows convert like their kind.
const fileTypes: Readonly<Record<string, string>> = {
  pdf: "pdf", png: "png", apng: "png", jpg: "jpg", gif: "gif", webp: "webp", tif: "tiff", rtf: "rtf",
  docx: "docx", docm: "docx", dotx: "docx", dotm: "docx",
  xlsx: "xlsx", xlsm: "xlsx", xltx: "xlsx", xltm: "xlsx",
  pptx: "pptx", pptm: "pptx", ppsx: "pptx", ppsm: "pptx", potx: "pptx", potm: "pptx"
}

/** A zip's Office kind by the part names of its local headers (stored uncompressed), for archives file-type calls zip. */
const officeByEntries = (bytes: Uint8Array, hint: string | undefined): string | undefined => {
  if (contains(bytes, ascii("word/"))) return "docx"
  if (contains(bytes, ascii("xl/"))) return hint === "xlsb" ? "xlsb" : "xlsx"
  if (contains(bytes, ascii("ppt/"))) return "pptx"
  return undefined
}

/** An OLE2 compound file's kind (file-type says only `cfb`): the hint, else the stream names it holds. */
const legacyOffice = (bytes: Uint8Array, hint: string | undefined): string | undefined => {
  if (hint === "doc" || hint === "xls" || hint === "ppt") return hint
  if (contains(bytes, utf16("WordDocument"))) return "doc"
  if (contains(bytes, utf16("Workbook")) || contains(bytes, utf16("Book"))) return "xls"
  if (contains(bytes, utf16("PowerPoint Document"))) return "ppt"
  return undefined
}

// file-type takes any file starting with "BM" for a bitmap; a real one also has a DIB header size (12 or more).
const isBitmap = (bytes: Uint8Array) => startsWith(bytes, ascii("BM")) && bytes.length > 26 && bytes[14]! >= 12 && bytes[15] === 0

/** What file-type finds in the bytes, or undefined (it is best-effort on malformed input, which may throw). */
const identify = async (bytes: Uint8Array): Promise<string | undefined> => {
  try {
    return (await fileTypeFromBuffer(bytes))?.ext
  } catch {
    return undefined
  }
}

/**
 * The type a file's first bytes prove, for binary formats; undefined for text and unknown binaries. file-type reads the
 * signature (and an Office archive's `[Content_Types].xml`); Sift keeps its own rules where file-type stops short: the
 * kind of an OLE2 file, Office archives without content types, a PDF with junk before its header, Netpbm images.
 */
export const sniffBinary = async (bytes: Uint8Array, hint?: string): Promise<string | undefined> => {
  const found = await identify(bytes)
  if (found === "cfb") return legacyOffice(bytes, hint)
  if (found === "zip") return officeByEntries(bytes, hint)
  if (found === "xlsx" && hint === "xlsb") return "xlsb"
  if (found !== undefined && found !== "bmp" && found !== "xml") return fileTypes[found]
  if (found === "bmp" && isBitmap(bytes)) return "bmp"
  // A PDF may have junk before its header; readers accept it within the first kilobyte.
  if (Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.byteLength, 1024)).includes("%PDF-")) return "pdf"
  if (bytes[0] === 0x50 && bytes[1]! >= 0x31 && bytes[1]! <= 0x36 && /\s/.test(String.fromCharCode(bytes[2] ?? 0))) {
    return ["pbm", "pgm", "ppm", "pbm", "pgm", "ppm"][bytes[1]! - 0x31]
  }
  return undefined
}

/** Whether the bytes look like binary data (NUL bytes early on) rather than text in any common encoding. */
export const looksBinary = (bytes: Uint8Array): boolean => {
  const head = bytes.subarray(0, 1024)
  if ((head[0] === 0xff && head[1] === 0xfe) || (head[0] === 0xfe && head[1] === 0xff)) return false
  return head.includes(0)
}

/** Looks at the start of text for HTML, the way browsers sniff a response without a usable Content-Type. */
export const looksLikeHtml = (bytes: Uint8Array): boolean => {
  const head = new TextDecoder("latin1").decode(bytes.subarray(0, 512)).replace(/^\ufeff|^ï»¿/, "").trimStart().toLowerCase()
  return /^(?:<!doctype html|<html|<head|<body|<!--|<meta|<title|<div|<p[\s>])/.test(head)
}

/** The extension of a file name or URL path, lower case, if it has one. */
export const extensionOf = (name: string | undefined): string | undefined => {
  if (name === undefined) return undefined
  let path = name
  try {
    path = new URL(name).pathname
  } catch {
    // not a URL: a plain file name
  }
  const match = /\.([a-z0-9]{1,8})$/i.exec(path.split("/").pop() ?? "")
  return match?.[1]?.toLowerCase()
}

/** The media type of a Content-Type value, lower case, without parameters. */
export const mediaTypeOf = (contentType: string | undefined): string | undefined =>
  contentType?.split(";")[0]?.trim().toLowerCase() || undefined

/** The document type for a media type, if one is known. */
export const typeOfMedia = (mediaType: string | undefined): string | undefined =>
  mediaType === undefined ? undefined : mediaTypes[mediaType]
