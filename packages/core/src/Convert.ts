/**
 * The convert stage: what a file is (magic bytes, file extension, Content-Type, a look at the text) and one converter
 * per type, each producing the same hast document as a web page, so selectors, main-content filtering and every format
 * apply to PDFs, Word, Excel, PowerPoint, CSV, subtitles, source code and images alike.
 *
 * @since 0.1.0
 */
import { Effect, Schema } from "effect"
import type { Root } from "hast"
import * as Charset from "./Charset.js"
import { ContentError, InvalidRequest } from "./Errors.js"
import * as Html from "./Html.js"
import { convertCsv } from "./internal/convert/csv.js"
import {
  extensionOf,
  extensionTypes,
  looksBinary,
  looksLikeHtml,
  mediaTypeOf,
  sniffBinary,
  typeOfMedia
} from "./internal/convert/detect.js"
import { convertDocx } from "./internal/convert/docx.js"
import { convertImage } from "./internal/convert/image.js"
import { modernOf, toOpenXml } from "./internal/convert/legacy.js"
import { convertPdf } from "./internal/convert/pdf/document.js"
import { convertPptx } from "./internal/convert/pptx.js"
import { codeDocument, fenceLanguage, rtfDocument, srtDocument } from "./internal/convert/textFiles.js"
import { textTree } from "./internal/convert/textTree.js"
import { convertXlsx } from "./internal/convert/xlsx.js"

/** Every document type Sift detects (the `type` of a POST /parse response). @category models */
export const DocumentType = Schema.Literal(
  "html", "xml", "json", "jsonl", "text", "csv", "tsv", "markdown", "yaml", "python", "java", "javascript", "php",
  "shell", "ruby", "typescript", "rtf", "srt", "css", "scss", "less", "stylus", "sass", "svg", "pdf", "docx", "doc",
  "xlsx", "xls", "pptx", "ppt", "jpg", "png", "gif", "bmp", "tiff", "webp", "ppm", "pbm", "pgm", "pnm"
)
/** @category models */
export type DocumentType = typeof DocumentType.Type

const isDocumentType = Schema.is(DocumentType)
const imageTypes = new Set<DocumentType>(["jpg", "png", "gif", "bmp", "tiff", "webp", "ppm", "pbm", "pgm", "pnm"])

/** Whether a type is an image (converted by OCR). */
export const isImage = (type: DocumentType): boolean => imageTypes.has(type)

/** A file to convert and what is known about it. */
export interface Source {
  readonly bytes: Uint8Array
  /** The Content-Type header value, parameters included (a charset is honoured). */
  readonly contentType?: string | undefined
  /** An upload's file name, or a URL whose path may end in an extension. */
  readonly filename?: string | undefined
  /** An explicit extension hint (`pdf`, `.docx`), which wins over the file name. */
  readonly extension?: string | undefined
  /** The URL the file came from: its path's extension counts only when the Content-Type is generic or unknown. */
  readonly url?: string | undefined
}

const genericMedia = new Set([undefined, "application/octet-stream", "binary/octet-stream", "application/download", "application/force-download", "text/plain"])

/**
 * The document type of a file, or undefined when it is binary data Sift cannot convert. Binary signatures win over
 * names and headers; names win over headers (uploads are often `application/octet-stream`); `text/plain` is refined by
 * the name (raw CSV or source files are served as text/plain).
 */
export const detect = (source: Source): Effect.Effect<DocumentType | undefined> => {
  const hinted = source.extension?.replace(/^\./, "").toLowerCase() ?? extensionOf(source.filename)
  const byName = hinted === undefined ? undefined : extensionTypes[hinted]
  const byUrl = extensionOf(source.url)
  const byUrlType = byUrl === undefined ? undefined : extensionTypes[byUrl]
  // sniffBinary never rejects (file-type's failures read as "no signature").
  return Effect.map(Effect.promise(() => sniffBinary(source.bytes, byName ?? byUrlType)), (binary) => byContent(source, binary, byName, byUrlType))
}

const byContent = (
  source: Source,
  binary: string | undefined,
  byName: string | undefined,
  byUrlType: string | undefined
): DocumentType | undefined => {
  if (binary === "xlsb") return "xlsx"
  if (binary !== undefined && isDocumentType(binary)) return binary
  if (byName === "xlsb") return looksBinary(source.bytes) ? "xlsx" : undefined
  const media = mediaTypeOf(source.contentType)
  const byMedia = typeOfMedia(media)
  const textual = !looksBinary(source.bytes)
  const generic = genericMedia.has(media) || byMedia === undefined
  const candidates = [byName, ...(generic ? [byUrlType, byMedia] : [byMedia, byUrlType])].filter((type): type is DocumentType => type !== undefined && isDocumentType(type))
  for (const type of candidates) {
    // A name or header that promises a binary format the bytes do not prove is not trusted; text types need text.
    if (["pdf", "docx", "xlsx", "pptx", "doc", "xls", "ppt"].includes(type) || isImage(type)) continue
    if (!textual) continue
    return type
  }
  if (!textual) return undefined
  if (byMedia === undefined && looksLikeHtml(source.bytes)) return "html"
  if (media === undefined || media === "application/octet-stream" || media.startsWith("text/")) return "text"
  return undefined
}

/** How conversion runs. */
export interface ConvertOptions {
  /** PDF page range (inclusive, 1-based) and whether scanned pages may be OCRed. */
  readonly pdf?: {
    readonly startPage?: number | undefined
    readonly endPage?: number | undefined
    readonly ocr?: boolean | undefined
  } | undefined
  /** Whether images may be converted at all (by OCR). Default true. */
  readonly ocrImages?: boolean | undefined
}

/** A converted document. `kind: "text"` documents are written as their own text (plain text and Markdown files). */
export interface Converted {
  readonly type: DocumentType
  readonly kind: "html" | "text" | "document"
  readonly tree: Root
  /** The decoded text of `text` documents. */
  readonly text: string | undefined
  /** PDF pages whose text OCR recovered (each is charged). */
  readonly ocrPages: number
  /** Whether OCR ran at all (scanned PDF pages or an image). */
  readonly ocrUsed: boolean
}

const document = (type: DocumentType, tree: Root, ocrPages = 0, ocrUsed = false): Converted =>
  ({ type, kind: "document", tree, text: undefined, ocrPages, ocrUsed })

const convertAsync = async (source: Source, type: DocumentType, options: ConvertOptions, signal: AbortSignal): Promise<Converted> => {
  const { bytes } = source
  const decoded = () => Charset.decode(bytes, source.contentType).text
  switch (type) {
    case "pdf": {
      const pdf = await convertPdf(bytes, { ...options.pdf, signal })
      return document(type, pdf.tree, pdf.ocrPages, pdf.ocrPages > 0)
    }
    case "docx":
      return document(type, await convertDocx(bytes))
    case "xlsx":
      return document(type, await convertXlsx(bytes))
    case "pptx":
      return document(type, await convertPptx(bytes))
    case "doc":
    case "xls":
    case "ppt": {
      const modern = await convertAsync({ bytes: await toOpenXml(bytes, type, signal) }, modernOf[type], options, signal)
      return { ...modern, type }
    }
    case "csv":
    case "tsv":
      return document(type, convertCsv(bytes, source.contentType, type === "tsv"))
    case "html":
      return { type, kind: "html", tree: Html.parse(decoded()), text: undefined, ocrPages: 0, ocrUsed: false }
    case "text":
    case "markdown": {
      const text = decoded()
      return { type, kind: "text", tree: textTree(text), text, ocrPages: 0, ocrUsed: false }
    }
    case "srt":
      return document(type, srtDocument(decoded()))
    case "rtf":
      return document(type, rtfDocument(new TextDecoder("latin1").decode(bytes)))
    default: {
      if (isImage(type)) {
        if (options.ocrImages === false) {
          throw new ContentError({ reason: "Unsupported", detail: `An image (${type}) has text only through OCR; enable OCR or request only the bytes format` })
        }
        return document(type, await convertImage(bytes, type, signal), 0, true)
      }
      return document(type, codeDocument(decoded(), fenceLanguage[type] ?? type))
    }
  }
}

/** Converts a file of a known type into the pipeline's document. */
export const convert = (
  source: Source,
  type: DocumentType,
  options: ConvertOptions = {}
): Effect.Effect<Converted, ContentError | InvalidRequest> =>
  Effect.tryPromise({
    try: (signal) => convertAsync(source, type, options, signal),
    catch: (error) =>
      error instanceof ContentError || error instanceof InvalidRequest
        ? error
        : new ContentError({ reason: "Corrupt", detail: `The ${type} file cannot be converted: ${(error as Error)?.message ?? String(error)}` })
  })

/** Detects and converts; a file of no convertible type is `Unsupported`. */
export const detectAndConvert = (
  source: Source,
  options: ConvertOptions = {}
): Effect.Effect<Converted, ContentError | InvalidRequest> =>
  Effect.flatMap(detect(source), (type) =>
    type === undefined
      ? Effect.fail(new ContentError({
        reason: "Unsupported",
        detail: `Cannot convert content of type ${mediaTypeOf(source.contentType) ?? "unknown"}${source.filename === undefined ? "" : ` (${source.filename})`}`
      }))
      : convert(source, type, options))
