/**
 * `POST /parse`: raw file bytes (at most 25 MiB) to Markdown, with the detected `type`. 1 credit, plus 1 per page
 * recovered by OCR; the header `x-parse-ocr-used` says whether OCR ran. Accepts the spec's `filename` and the SDK's
 * `extension`, and both `pdfStart`/`pdfEnd` and `pdf[start]`/`pdf[end]`.
 *
 * @since 0.1.0
 */
import { Errors, ParseDocument } from "@sift/core"
import { Effect, Either, Schema } from "effect"
import * as QueryParams from "../QueryParams.js"
import type { Handler } from "../RequestPipeline.js"

/** The upload limit (interface.md: parse body 25 MiB). */
export const MAX_BYTES = 25 * 1024 * 1024

/** OCR pages held when an OCR parse names no page range (a longer scan is charged for at most this many). */
export const OCR_HOLD_PAGES = 50

interface ParseRequest {
  readonly input: ParseDocument.ParseInput
  readonly zdr: boolean
  readonly tags: ReadonlyArray<string>
}

const invalid = (field: string, detail: string) => new Errors.InvalidRequest({ reason: "Invalid", field, detail })
const { optional } = QueryParams

const firstPage = QueryParams.integer.pipe(QueryParams.check((page: number) => page >= 1, "must be at least 1"))

/** `pdf[start]`, `pdf[end]`: whole numbers from 1. */
const pdf = QueryParams.reading(Schema.Struct({ start: Schema.optional(Schema.Int), end: Schema.optional(Schema.Int) }), (value, field) => {
  const object = QueryParams.readObject(value, field) ?? {}
  const page = (name: string) => {
    const raw = object[name]
    if (raw === undefined) return undefined
    if (!/^\d+$/.test(String(raw))) throw invalid(`${field}[${name}]`, "must be a positive integer")
    if (Number(raw) < 1) throw invalid(`${field}[${name}]`, "must be at least 1")
    return Number(raw)
  }
  return { ...(object.start === undefined ? {} : { start: page("start") }), ...(object.end === undefined ? {} : { end: page("end") }) }
})

/** The query (the body is the file's bytes). */
export const Query = Schema.Struct({
  filename: optional(QueryParams.string.annotations({ description: "The upload's file name; its extension helps detection (the file's magic bytes win)" })),
  extension: optional(QueryParams.string.annotations({ description: "A file extension such as pdf or docx; wins over filename" })),
  pdfStart: optional(firstPage.annotations({ description: "First PDF page to convert, 1-based (alias pdf[start])" })),
  pdfEnd: optional(firstPage.annotations({ description: "Last PDF page to convert, inclusive; not before pdfStart (alias pdf[end])" })),
  pdf: optional(pdf.annotations({ description: "pdf[start], pdf[end]: the same page range in deep-object form" })),
  ocr: optional(QueryParams.boolean.annotations({
    description: "OCR scanned PDF pages (default false; images are always read by OCR); holds 1 credit per page of the range, 50 without one"
  })),
  includeImages: optional(QueryParams.boolean.annotations({ description: "Include images in the Markdown (default false)" })),
  includeLinks: optional(QueryParams.boolean.annotations({ description: "Keep link targets (default true)" })),
  useMainContentOnly: optional(QueryParams.boolean.annotations({ description: "Main-content extraction, for HTML uploads (default false)" })),
  baseUrl: optional(QueryParams.string.pipe(QueryParams.check((url: string) => /^https?:\/\//i.test(url), "must begin with http:// or https://")).annotations({
    description: "http(s) URL that relative links of an HTML upload resolve against"
  })),
  zdr: optional(QueryParams.zdr),
  tags: optional(QueryParams.tags)
}).annotations({
  description: "Convert an uploaded file (PDF, Word, Excel, PowerPoint, CSV, HTML, text, images, ...) to Markdown (1 credit, plus 1 per page recovered by OCR)"
})

const decode = QueryParams.decode(Query)

const read = (query: QueryParams.Query, bytes: Uint8Array, contentType: string | undefined) =>
  Either.gen(function*() {
    const { pdf, pdfEnd: flatEnd, pdfStart: flatStart, tags, zdr, ...rest } = yield* decode(query)
    const pdfStart = flatStart ?? pdf?.start
    const pdfEnd = flatEnd ?? pdf?.end
    if (pdfStart !== undefined && pdfEnd !== undefined && pdfEnd < pdfStart) return yield* Either.left(invalid("pdfEnd", "must not be before pdfStart"))
    return {
      zdr: zdr === "enabled",
      tags: tags ?? [],
      input: {
        bytes,
        filename: rest.filename,
        extension: rest.extension,
        contentType: contentType === "application/octet-stream" ? undefined : contentType,
        pdfStart,
        pdfEnd,
        ocr: rest.ocr,
        includeImages: rest.includeImages,
        includeLinks: rest.includeLinks,
        useMainContentOnly: rest.useMainContentOnly,
        baseUrl: rest.baseUrl
      }
    } satisfies ParseRequest
  })

/** `POST /parse`. */
export const parse = (contentType: string | undefined): Handler<ParseDocument.ParseInput, Errors.InvalidRequest, never, Errors.ContentError | Errors.InvalidRequest, never> => ({
  validate: (caller) => {
    if (!(caller.body instanceof Uint8Array) || caller.body.byteLength === 0) return Effect.fail(invalid("body", "send the file's bytes as the request body"))
    return Effect.map(read(caller.query, caller.body, contentType), (request) => {
      // Held up front: 1, plus with OCR one per page of the requested range (OCR_HOLD_PAGES without a range); the
      // charge is 1 + the pages OCR actually recovered, never more than was held.
      const { ocr, pdfEnd, pdfStart } = request.input
      const ocrHold = ocr === true ? (pdfEnd !== undefined ? pdfEnd - (pdfStart ?? 1) + 1 : OCR_HOLD_PAGES) : 0
      return { input: request.input, credits: 1 + ocrHold, zdr: request.zdr, tags: request.tags, holdMs: 360_000 }
    })
  },
  run: (_caller, input) =>
    Effect.map(ParseDocument.parse(input), (parsed) => ({
      body: { success: true, markdown: parsed.markdown, type: parsed.type },
      credits: 1 + parsed.ocrPages,
      headers: { "x-parse-ocr-used": String(parsed.ocrUsed) }
    }))
})
