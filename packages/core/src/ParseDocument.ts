/**
 * The core of POST /parse: uploaded bytes → detected type → the same document and Markdown writer as a scrape. The
 * HTTP layer maps the query (`extension` or `filename`, `pdf[start]`/`pdfStart`, `ocr`, ...) onto `ParseInput` and
 * charges `ocrPages` extra credits.
 *
 * @since 0.1.0
 */
import { Effect } from "effect"
import * as Convert from "./Convert.js"
import { type ContentError, InvalidRequest } from "./Errors.js"
import * as MainContent from "./MainContent.js"
import * as Markdown from "./Markdown.js"
import { textAsMarkdown } from "./internal/pipeline/document.js"

/** The upload size limit of POST /parse (interface.md, limits). */
export const MAX_BYTES = 25 * 1024 * 1024

/** An uploaded file and how to convert it. */
export interface ParseInput {
  readonly bytes: Uint8Array
  /** The upload's file name (the spec's `filename`); its extension is a type hint. */
  readonly filename?: string | undefined
  /** An extension hint (the SDK's `extension`), which wins over the file name. */
  readonly extension?: string | undefined
  readonly contentType?: string | undefined
  /** Inclusive 1-based PDF page range. */
  readonly pdfStart?: number | undefined
  readonly pdfEnd?: number | undefined
  /** OCR scanned PDF pages (images are always read by OCR). Default false. */
  readonly ocr?: boolean | undefined
  /** Default false. */
  readonly includeImages?: boolean | undefined
  /** Default true. */
  readonly includeLinks?: boolean | undefined
  /** Main-content extraction, for HTML inputs only (other documents have no page chrome). Default false. */
  readonly useMainContentOnly?: boolean | undefined
  /** Relative links in HTML inputs resolve against it. */
  readonly baseUrl?: string | undefined
}

/** The Markdown, the detected type, and how many PDF pages OCR recovered. */
export interface Parsed {
  readonly markdown: string
  readonly type: Convert.DocumentType
  readonly ocrPages: number
  /** Whether OCR ran at all (for `x-parse-ocr-used`). */
  readonly ocrUsed: boolean
}

const invalid = (field: string, detail: string) => new InvalidRequest({ reason: "Invalid", field, detail })

const validate = (input: ParseInput): InvalidRequest | undefined => {
  if (input.bytes.byteLength === 0) return invalid("body", "the file is empty")
  if (input.bytes.byteLength > MAX_BYTES) return invalid("body", `the file is larger than ${MAX_BYTES / 1024 / 1024} MiB`)
  for (const [field, page] of [["pdfStart", input.pdfStart], ["pdfEnd", input.pdfEnd]] as const) {
    if (page !== undefined && (!Number.isInteger(page) || page < 1)) return invalid(field, "must be a whole number of at least 1")
  }
  if (input.pdfStart !== undefined && input.pdfEnd !== undefined && input.pdfEnd < input.pdfStart) {
    return invalid("pdfEnd", "must not be before pdfStart")
  }
  if (input.baseUrl !== undefined && !URL.canParse(input.baseUrl)) return invalid("baseUrl", "must be an absolute URL")
  return undefined
}

/** Converts an uploaded file to Markdown. */
export const parse = (input: ParseInput): Effect.Effect<Parsed, ContentError | InvalidRequest> =>
  Effect.gen(function*() {
    const problem = validate(input)
    if (problem !== undefined) return yield* problem
    const converted = yield* Convert.detectAndConvert(
      { bytes: input.bytes, filename: input.filename, extension: input.extension, contentType: input.contentType },
      { pdf: { startPage: input.pdfStart, endPage: input.pdfEnd, ocr: input.ocr === true } }
    )
    const tree = converted.kind === "html" && input.useMainContentOnly === true
      ? MainContent.extract(converted.tree, { url: input.baseUrl }).tree
      : converted.tree
    const markdown = converted.kind === "text" ? textAsMarkdown(converted.text ?? "") : Markdown.fromHast(tree, {
      baseUrl: input.baseUrl,
      includeLinks: input.includeLinks ?? true,
      includeImages: input.includeImages ?? false
    })
    return { markdown, type: converted.type, ocrPages: converted.ocrPages, ocrUsed: converted.ocrUsed }
  })
