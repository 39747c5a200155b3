/**
 * `POST /parse`: raw file bytes (at most 25 MiB) to Markdown, with the detected `type`. 1 credit, plus 1 per page
 * recovered by OCR; the header `x-parse-ocr-used` says whether OCR ran. Accepts the spec's `filename` and the SDK's
 * `extension`, and both `pdfStart`/`pdfEnd` and `pdf[start]`/`pdf[end]`.
 *
 * @since 0.1.0
 */
import { Errors, ParseDocument, ScrapeRequest } from "@sift/core"
import { Effect, Schema } from "effect"
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
const isTags = Schema.is(ScrapeRequest.Tags)

const page = (query: QueryParams.Query, flat: string, nested: string): number | undefined => {
  const direct = QueryParams.asInteger(query, flat)
  const value = direct ?? (() => {
    const raw = QueryParams.asObject(query, "pdf")?.[nested]
    if (raw === undefined) return undefined
    if (!/^\d+$/.test(String(raw))) throw invalid(`pdf[${nested}]`, "must be a positive integer")
    return Number(raw)
  })()
  if (value !== undefined && value < 1) throw invalid(direct === undefined ? `pdf[${nested}]` : flat, "must be at least 1")
  return value
}

const read = (query: QueryParams.Query, bytes: Uint8Array, contentType: string | undefined): ParseRequest => {
  const tags = QueryParams.asList(query, "tags", { commaSeparated: true }) ?? []
  if (!isTags(tags)) throw invalid("tags", "at most 20 tags of 1 to 50 characters")
  const zdr = QueryParams.asString(query, "zdr")
  if (zdr !== undefined && zdr !== "enabled" && zdr !== "disabled") throw invalid("zdr", "must be enabled or disabled")
  const baseUrl = QueryParams.asString(query, "baseUrl")
  if (baseUrl !== undefined && !/^https?:\/\//i.test(baseUrl)) throw invalid("baseUrl", "must begin with http:// or https://")
  const pdfStart = page(query, "pdfStart", "start")
  const pdfEnd = page(query, "pdfEnd", "end")
  if (pdfStart !== undefined && pdfEnd !== undefined && pdfEnd < pdfStart) throw invalid("pdfEnd", "must not be before pdfStart")
  return {
    zdr: zdr === "enabled",
    tags,
    input: {
      bytes,
      filename: QueryParams.asString(query, "filename"),
      extension: QueryParams.asString(query, "extension"),
      contentType: contentType === "application/octet-stream" ? undefined : contentType,
      pdfStart,
      pdfEnd,
      ocr: QueryParams.asBoolean(query, "ocr"),
      includeImages: QueryParams.asBoolean(query, "includeImages"),
      includeLinks: QueryParams.asBoolean(query, "includeLinks"),
      useMainContentOnly: QueryParams.asBoolean(query, "useMainContentOnly"),
      baseUrl
    }
  }
}

/** `POST /parse`. */
export const parse = (contentType: string | undefined): Handler<ParseDocument.ParseInput, Errors.InvalidRequest, never, Errors.ContentError | Errors.InvalidRequest, never> => ({
  validate: (caller) =>
    Effect.try({
      try: () => {
        if (!(caller.body instanceof Uint8Array) || caller.body.byteLength === 0) throw invalid("body", "send the file's bytes as the request body")
        const request = read(caller.query, caller.body, contentType)
        // Held up front: 1, plus with OCR one per page of the requested range (OCR_HOLD_PAGES without a range); the
        // charge is 1 + the pages OCR actually recovered, never more than was held.
        const { ocr, pdfEnd, pdfStart } = request.input
        const ocrHold = ocr === true ? (pdfEnd !== undefined ? pdfEnd - (pdfStart ?? 1) + 1 : OCR_HOLD_PAGES) : 0
        return { input: request.input, credits: 1 + ocrHold, zdr: request.zdr, tags: request.tags, holdMs: 360_000 }
      },
      catch: (error) => error instanceof Errors.InvalidRequest ? error : invalid("query", String(error))
    }),
  run: (_caller, input) =>
    Effect.map(ParseDocument.parse(input), (parsed) => ({
      body: { success: true, markdown: parsed.markdown, type: parsed.type },
      credits: 1 + parsed.ocrPages,
      headers: { "x-parse-ocr-used": String(parsed.ocrUsed) }
    }))
})
