/**
 * What a scrape returns: the body of `POST /web/scrape` without the service's `request_id` and `key_metadata`
 * (decisions §2). All six outputs are always present as `{ requested, data }`; `data` is null when not requested.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"
import { PageMetadata } from "./Metadata.js"

/** One output: whether it was asked for, and its data (null when not). */
export const Output = <A, I, R>(data: Schema.Schema<A, I, R>) =>
  Schema.Struct({ requested: Schema.Boolean, data: Schema.NullOr(data) })

/** An image found on the page. */
export const ImageItem = Schema.Struct({
  url: Schema.String,
  alt: Schema.String,
  width: Schema.optional(Schema.Number),
  height: Schema.optional(Schema.Number),
  classification: Schema.optional(Schema.String),
  fileUrl: Schema.optional(Schema.String)
})
export type ImageItem = typeof ImageItem.Type

/** The original response body, untouched by waits, actions and filters. */
export const OriginalBytes = Schema.Struct({ base64: Schema.String, contentType: Schema.String })
export type OriginalBytes = typeof OriginalBytes.Type

/** Cache outcome: `hit` only when every cache-controlled fetch behind the outputs hit; age of the oldest hit. */
export const CacheMetadata = Schema.Struct({
  status: Schema.Literal("hit", "miss", "zdr"),
  age_ms: Schema.Int.pipe(Schema.greaterThanOrEqualTo(0))
})
export type CacheMetadata = typeof CacheMetadata.Type

/** Page metadata plus what the pipeline has to say about the content (a Sift addition). */
export const ScrapeMetadata = Schema.extend(PageMetadata, Schema.Struct({
  /** Set when main-content extraction found no confident main content and fell back; says why. */
  mainContentFallback: Schema.optional(Schema.String)
}))

/** The scrape result. */
export const ScrapeResult = Schema.Struct({
  url: Schema.String,
  html: Output(Schema.String),
  markdown: Output(Schema.String),
  screenshot: Output(Schema.String),
  images: Output(Schema.Array(ImageItem)),
  bytes: Output(OriginalBytes),
  parsed: Output(Schema.Record({ key: Schema.String, value: Schema.Unknown })),
  metadata: ScrapeMetadata,
  cache_metadata: CacheMetadata,
  isPartial: Schema.optional(Schema.Literal(true))
})
export type ScrapeResult = typeof ScrapeResult.Type
