import { Effect } from "effect"
import type { Root } from "hast"
import * as Convert from "../../Convert.js"
import { ContentError, type InvalidRequest } from "../../Errors.js"
import type { LoadedPage } from "./page.js"

/** How a page's document is written: `html` and `document` through the hast writer, `text` as its own text. */
export type DocumentKind = Convert.Converted["kind"]

/** A page turned into the pipeline's document: its kind and type, its hast tree and, for text, the decoded text. */
export interface PageDocument {
  readonly kind: DocumentKind
  readonly type: Convert.DocumentType
  readonly tree: Root
  readonly text: string
  /** PDF pages recovered by OCR. */
  readonly ocrPages: number
}

/** What the request says about documents: the PDF page range, OCR, and whether a PDF may be parsed at all. */
export interface DocumentOptions {
  readonly pdf?: {
    readonly startPage?: number | undefined
    readonly endPage?: number | undefined
    readonly ocr?: "off" | "auto" | undefined
    /** False: a PDF fails with `PdfSkipped` (`pdf[shouldParse]=false`). */
    readonly shouldParse?: boolean | undefined
  } | undefined
}

/** Plain text as Markdown: the text itself (as MarkItDown and browsers treat it), line endings normalised. */
export const textAsMarkdown = (text: string): string => {
  const normalised = text.replace(/^\ufeff/, "").replace(/\r\n?/g, "\n").replace(/[ \t]+$/gm, "").trim()
  return normalised === "" ? "" : normalised + "\n"
}

/** Which document type a page is, or undefined when the pipeline cannot convert it. */
export const typeOf = (page: LoadedPage): Effect.Effect<Convert.DocumentType | undefined> =>
  Convert.detect({ bytes: page.body, contentType: page.headers["content-type"] ?? page.contentType, url: page.url })

/** Converts a page into the hast document every filter and format works on. */
export const toDocument = (
  page: LoadedPage,
  options: DocumentOptions = {}
): Effect.Effect<PageDocument, ContentError | InvalidRequest> => Effect.flatMap(typeOf(page), (type) => {
  if (type === undefined) {
    return Effect.fail(new ContentError({
      reason: "Unsupported",
      detail: `Cannot convert content of type ${page.contentType} from ${page.url}; request only the bytes format for it`
    }))
  }
  if (type === "pdf" && options.pdf?.shouldParse === false) {
    return Effect.fail(new ContentError({
      reason: "PdfSkipped",
      detail: `${page.url} is a PDF and pdf[shouldParse] is false; request only the bytes format to get the file`
    }))
  }
  const ocr = options.pdf?.ocr === "auto"
  return Effect.map(
    Convert.convert(
      { bytes: page.body, contentType: page.headers["content-type"] ?? page.contentType, url: page.url },
      type,
      { pdf: { startPage: options.pdf?.startPage, endPage: options.pdf?.endPage, ocr }, ocrImages: ocr }
    ),
    (converted) => ({
      kind: converted.kind,
      type: converted.type,
      tree: converted.tree,
      text: converted.text ?? "",
      ocrPages: converted.ocrPages
    })
  )
})
