/**
 * `POST /brand/ai/product` and `POST /brand/ai/products` (wave2 §11): product extraction with core's `Products`.
 * Credits (§21.1): 5 and 10, charged only on success. A bot wall, CAPTCHA or challenge answers 400
 * `WEBSITE_ACCESS_ERROR` (the SDK's rule for product extraction), uncharged; a page that is not a product detail page
 * is a 200 with `is_product_page: false`, `product: null`, `platform: null`.
 *
 * @since 0.1.0
 */
import { type Cache, Errors, type Fetcher, Products, ScrapeRequest } from "@sift/core"
import { Effect, type ParseResult, Schema } from "effect"
import { ApiFailure } from "../ErrorMapping.js"
import type { Handler } from "../RequestPipeline.js"

const HttpUrl = Schema.String.pipe(Schema.maxLength(4096), Schema.filter((url) => /^https?:\/\/[^\s/]+/i.test(url) || "must be an http:// or https:// URL"))
const Domain = Schema.String.pipe(
  Schema.maxLength(253),
  Schema.filter((domain) => /^(https?:\/\/)?[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)+(:\d{1,5})?\/?$/i.test(domain.trim()) || "must be a domain such as shop.example")
)
const MaxAgeMs = ScrapeRequest.MaxAgeMs.annotations({ description: "Reuse pages cached within this many ms (default 604800000, 7 days; max 30 days; 0: always fetch)" })

/** The body of `POST /brand/ai/product`. */
export const ProductBody = Schema.Struct({
  url: HttpUrl.annotations({ description: "The page to read" }),
  maxAgeMs: Schema.optional(MaxAgeMs),
  tags: Schema.optional(ScrapeRequest.Tags),
  timeoutOpts: Schema.optional(ScrapeRequest.TimeoutOpts),
  zdr: Schema.optional(ScrapeRequest.Zdr)
}).annotations({ description: "Whether a URL is a product detail page, and its product (5 credits)" })

/** The body of `POST /brand/ai/products`: exactly one of `domain` and `directUrl`. */
export const ProductsBody = Schema.Struct({
  domain: Schema.optional(Domain).annotations({ description: "The shop's domain (exactly one of domain and directUrl)" }),
  directUrl: Schema.optional(HttpUrl).annotations({ description: "A URL to start from instead of the domain's home page" }),
  maxAgeMs: Schema.optional(MaxAgeMs),
  maxProducts: Schema.optional(Schema.Int.pipe(Schema.between(1, Products.limits.maxProducts.max))).annotations({ description: "1 to 100 (default 12)" }),
  tags: Schema.optional(ScrapeRequest.Tags),
  timeoutOpts: Schema.optional(ScrapeRequest.TimeoutOpts)
}).annotations({ description: "A shop's products, read from its catalogue JSON, lists, links and sitemap (10 credits)" })

const decodeProduct = Schema.decodeUnknown(ProductBody, { onExcessProperty: "error", errors: "first" })
const decodeProducts = Schema.decodeUnknown(ProductsBody, { onExcessProperty: "error", errors: "first" })

const HOLD_SLACK_MS = 60_000

/** Walls and challenges are `WEBSITE_ACCESS_ERROR` here (wave2 §11), not `WEBSITE_BLOCKED`. */
const accessError = <E extends Errors.ScrapeError>(error: E): E | ApiFailure =>
  error._tag === "WebsiteError" && error.reason === "Blocked"
    ? new ApiFailure({ code: "WEBSITE_ACCESS_ERROR", detail: error.message })
    : error

interface ProductInput {
  readonly url: string
  readonly options: Products.LoadOptions
}

/** `POST /brand/ai/product`: 5 credits. */
export const product: Handler<ProductInput, Errors.InvalidRequest, never, Errors.ScrapeError | ApiFailure, Fetcher.Fetcher | Cache.Cache> = {
  validate: (caller) =>
    Effect.map(
      Effect.mapError(decodeProduct(caller.body), (error: ParseResult.ParseError) => ScrapeRequest.fromParseError(error)),
      (body) => {
        const timeoutMs = body.timeoutOpts?.milliseconds ?? Products.limits.timeoutMs.default
        return {
          input: {
            url: body.url,
            options: {
              maxAgeMs: body.maxAgeMs,
              zdr: body.zdr === "enabled",
              timeoutMs,
              timeoutBehavior: body.timeoutOpts?.behavior ?? "fail"
            }
          },
          credits: 5,
          zdr: body.zdr === "enabled",
          tags: body.tags ?? [],
          holdMs: timeoutMs + HOLD_SLACK_MS
        }
      }
    ),
  run: (_caller, input) =>
    Effect.interruptible(Products.extractProduct(input.url, input.options)).pipe(
      Effect.mapError(accessError),
      Effect.map(({ cache, page }) => ({ body: { cache_metadata: cache, ...page }, credits: 5 }))
    )
}

interface ProductsInput {
  readonly options: Products.CatalogOptions
}

/** `POST /brand/ai/products`: 10 credits. */
export const products: Handler<ProductsInput, Errors.InvalidRequest, never, Errors.ScrapeError | ApiFailure, Fetcher.Fetcher | Cache.Cache> = {
  validate: (caller) =>
    Effect.flatMap(
      Effect.mapError(decodeProducts(caller.body), (error: ParseResult.ParseError) => ScrapeRequest.fromParseError(error)),
      (body) => {
        if ((body.domain === undefined) === (body.directUrl === undefined)) {
          return Effect.fail(new Errors.InvalidRequest({ reason: "Invalid", field: "domain", detail: "give exactly one of domain and directUrl" }))
        }
        const timeoutMs = body.timeoutOpts?.milliseconds ?? Products.limits.timeoutMs.default
        return Effect.succeed({
          input: {
            options: {
              domain: body.domain?.trim(),
              directUrl: body.directUrl,
              maxProducts: body.maxProducts,
              maxAgeMs: body.maxAgeMs,
              timeoutMs,
              timeoutBehavior: body.timeoutOpts?.behavior ?? "fail"
            }
          },
          credits: 10,
          zdr: false,
          tags: body.tags ?? [],
          holdMs: timeoutMs + HOLD_SLACK_MS
        })
      }
    ),
  run: (_caller, input) =>
    Effect.interruptible(Products.extractProducts(input.options)).pipe(
      Effect.mapError(accessError),
      Effect.map((catalog) => ({
        body: { cache_metadata: catalog.cache, products: catalog.products, ...(catalog.partial === true ? { partial: true } : {}) },
        credits: 10
      }))
    )
}
