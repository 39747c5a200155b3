/**
 * `POST /web/scrape` (decisions §2): one URL into any mix of formats. Its body is `ScrapeRequest` itself, the Schema
 * that validates it and that OpenAPI documents. The single-format GETs are `Markdown`, `Html`, `Bytes`, `Images/Http`
 * and `Screenshot/Http`, on `ScrapeQuery`.
 *
 * @since 0.1.0
 */
import type * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import { Cache, type Errors, type Fetcher, ScrapeRequest } from "@sift/core"
import type { BlobStore } from "@sift/store"
import { Clock, Effect } from "effect"
import * as Images from "../Images/Http.js"
import type { Handler } from "../RequestPipeline.js"
import * as Indexing from "../Search/Indexing.js"
import * as ScrapeCache from "../Screenshot/ScrapeCache.js"
import { chargeOf, planFor } from "./ScrapeQuery.js"

/** The body of `POST /web/scrape`. */
export const Body = ScrapeRequest.ScrapeRequest

/** `POST /web/scrape`: 1 credit for any mix of formats, cache hits included; plus 1 per PDF page OCR recovered. */
export const scrape: Handler<
  ScrapeRequest.ScrapeRequest,
  Errors.InvalidRequest,
  never,
  Errors.ScrapeError,
  Fetcher.Fetcher | Cache.Cache | BlobStore.BlobStore | HttpServerRequest.HttpServerRequest
> = {
  validate: (caller) => Effect.map(ScrapeRequest.decode(caller.body), (request) => planFor(request, 1, request)),
  run: (caller, request) =>
    Effect.gen(function*() {
      const startedAt = yield* Clock.currentTimeMillis
      // Image dedupe and enrichment (`imageParams`) download the images within what is left of the deadline.
      // The screenshot output goes through the screenshot cache; everything else as Pipeline.runMemoized.
      // Sift's own page index keeps the page with its cache entry (not with ZDR or forwarded headers, as the page cache).
      const outcome = yield* Indexing.storing(caller.auth.org.id, !Cache.usesCache(request), ScrapeCache.run(request), (read) =>
        [{ url: request.url, result: read.result }])
      const { result } = yield* Images.enrichResult(request, outcome.result, startedAt)
      return { body: { ...result }, credits: chargeOf(1, outcome.document) }
    })
}
