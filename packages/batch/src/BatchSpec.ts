/**
 * The body of `POST /batch/submit` (wave2 §1.1) as one Schema, and what a batch's pages are scraped with. The Schema
 * is the edge: the service decodes the body with it (and documents the endpoint from it); everything after trusts it.
 *
 * @since 0.1.0
 */
import { Crawler, ScrapeRequest } from "@sift/core"
import { Schema } from "effect"

/** URLs of one batch at most. */
export const MAX_URLS = 25_000
/** Pages a crawl reads when `maxUrls` is not given (wave2 §21.5). */
export const DEFAULT_CRAWL_MAX_URLS = 1_000

const Country = Schema.String.pipe(Schema.pattern(/^[A-Za-z]{2}$/, { message: () => "must be a two-letter country code" }))

const Pdf = Schema.Struct({
  start: Schema.optional(Schema.Int.pipe(Schema.greaterThanOrEqualTo(1))),
  end: Schema.optional(Schema.Int.pipe(Schema.greaterThanOrEqualTo(1))),
  ocr: Schema.optional(Schema.Boolean),
  shouldParse: Schema.optional(Schema.Boolean)
}).pipe(Schema.filter((pdf) => pdf.start === undefined || pdf.end === undefined || pdf.end >= pdf.start || "end must be at least start"))

const htmlOptionFields = {
  country: Schema.optional(Country),
  excludeSelectors: Schema.optional(Schema.NullOr(ScrapeRequest.SelectorList)),
  includeSelectors: Schema.optional(Schema.NullOr(ScrapeRequest.SelectorList)),
  maxAgeMs: Schema.optional(Schema.NullOr(ScrapeRequest.MaxAgeMs)),
  pdf: Schema.optional(Pdf),
  settleAnimations: Schema.optional(Schema.Boolean),
  useMainContentOnly: Schema.optional(Schema.Boolean),
  waitForMs: Schema.optional(Schema.Int.pipe(Schema.between(0, 30_000)))
}

/** Page options of an `html` batch. */
export const HtmlOptions = Schema.Struct(htmlOptionFields)

/** Page options of a `markdown` batch. */
export const MarkdownOptions = Schema.Struct({
  ...htmlOptionFields,
  includeHTML: Schema.optional(Schema.Boolean),
  includeImages: Schema.optional(Schema.Boolean),
  includeLinks: Schema.optional(Schema.Boolean),
  shortenBase64Images: Schema.optional(Schema.Boolean)
})
/** @category models */
export type PageOptions = typeof MarkdownOptions.Type

/** A URL of a scrape batch. */
export const BatchUrl = Schema.Struct({
  url: Schema.String.pipe(Schema.maxLength(8192)),
  itemId: Schema.optional(Schema.String.pipe(Schema.maxLength(256))),
  meta: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.Unknown }))
})

const Urls = Schema.Array(BatchUrl).pipe(
  Schema.minItems(1),
  Schema.maxItems(MAX_URLS, { message: () => `at most ${MAX_URLS.toLocaleString("en")} URLs are allowed in one batch` })
)

const MaxUrls = Schema.Int.pipe(Schema.between(1, MAX_URLS))
const Regex = Schema.String.pipe(Schema.maxLength(256))

/** Where a crawl starts. */
export const CrawlSource = Schema.Union(
  Schema.Struct({
    type: Schema.Literal("start_url"),
    url: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(8192)),
    controls: Schema.optional(Schema.Struct({
      followSubdomains: Schema.optional(Schema.Boolean),
      maxDepth: Schema.optional(Schema.Int.pipe(Schema.greaterThanOrEqualTo(0))),
      maxUrls: Schema.optional(MaxUrls),
      regex: Schema.optional(Regex)
    }))
  }),
  Schema.Struct({
    type: Schema.Literal("sitemap"),
    domain: Schema.String.pipe(Schema.minLength(3), Schema.maxLength(2048)),
    controls: Schema.optional(Schema.Struct({ maxUrls: Schema.optional(MaxUrls), regex: Schema.optional(Regex) }))
  })
)
/** @category models */
export type CrawlSource = typeof CrawlSource.Type

/** A batch's input: a URL list or a site crawl, in Markdown or HTML. */
export const Input = Schema.Union(
  Schema.Struct({
    mode: Schema.Literal("scrape"),
    data: Schema.Union(
      Schema.Struct({ format: Schema.Literal("markdown"), urls: Urls, options: Schema.optional(MarkdownOptions) }),
      Schema.Struct({ format: Schema.Literal("html"), urls: Urls, options: Schema.optional(HtmlOptions) })
    )
  }),
  Schema.Struct({
    mode: Schema.Literal("crawl"),
    data: Schema.Union(
      Schema.Struct({ format: Schema.Literal("markdown"), source: CrawlSource, options: Schema.optional(MarkdownOptions) }),
      Schema.Struct({ format: Schema.Literal("html"), source: CrawlSource, options: Schema.optional(HtmlOptions) })
    )
  })
)
/** @category models */
export type Input = typeof Input.Type

/** The webhook of a batch (`retry` opts into durable retries; omitted: one attempt and a quick retry). */
export const Webhook = Schema.Struct({
  url: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(2048)),
  retry: Schema.optional(Schema.Struct({ delays_seconds: Schema.optional(Schema.Array(Schema.Int.pipe(Schema.between(0, 259_200))).pipe(Schema.maxItems(20))) }))
})

/** The body of `POST /batch/submit`. */
export const SubmitBody = Schema.Struct({
  input: Input,
  tags: Schema.optional(ScrapeRequest.Tags),
  webhook: Schema.optional(Webhook),
  webhookUrl: Schema.optional(Schema.String.pipe(Schema.minLength(1), Schema.maxLength(2048)))
}).pipe(Schema.filter((body) =>
  body.webhook === undefined || body.webhookUrl === undefined ||
  { path: ["webhookUrl"], message: "cannot be combined with webhook; send one of them" }
))
/** @category models */
export type SubmitBody = typeof SubmitBody.Type

/** A scrape request without its `url`: what every page of a batch is read with. */
export type PageRequest = Crawler.PageRequest

/**
 * The scrape request each page of a batch is read with (its `url` set per page): the crawler's one mapping of page
 * options, with the batch's rule that filtered pages are always read fresh (wave2 §1.1) and `maxAgeMs` one day otherwise.
 */
export const pageRequest = (format: "markdown" | "html", options: PageOptions | undefined): PageRequest => {
  const o = options ?? {}
  const filtered = (o.includeSelectors?.length ?? 0) + (o.excludeSelectors?.length ?? 0) > 0
  return Crawler.pageRequest(format, { ...o, maxAgeMs: filtered ? 0 : o.maxAgeMs ?? ScrapeRequest.DEFAULT_MAX_AGE_MS })
}
