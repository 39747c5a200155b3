/**
 * `GET /web/scrape/bytes` (decisions §3): the original body of a URL, untouched, base64. 1 credit; always fetched
 * fresh (`maxAgeMs` 0).
 *
 * @since 0.1.0
 */
import { type Cache, type Errors, type Fetcher, Pipeline } from "@sift/core"
import { Effect } from "effect"
import * as QueryParams from "../QueryParams.js"
import type { Handler } from "../RequestPipeline.js"
import * as ScrapeQuery from "./ScrapeQuery.js"

/** The query. */
export const Query = ScrapeQuery.struct({
  timeoutOpts: QueryParams.optional(ScrapeQuery.timeoutOpts),
  timeoutMS: QueryParams.optional(ScrapeQuery.timeoutMS),
  zdr: QueryParams.optional(ScrapeQuery.zdr),
  tags: QueryParams.optional(ScrapeQuery.tags),
  headers: QueryParams.optional(ScrapeQuery.headers),
  country: QueryParams.optional(ScrapeQuery.country)
}).annotations({ description: "Fetch the original bytes of a URL (1 credit)" })

const decode = ScrapeQuery.decoder("bytes", Query, (query) =>
  ScrapeQuery.toPost(Query, query, { formats: { bytes: true }, sharedParams: {}, maxAgeMs: 0 }))

/** `GET /web/scrape/bytes`. */
export const bytes: Handler<ScrapeQuery.Decoded<typeof Query.Type>, Errors.InvalidRequest, never, Errors.ScrapeError, Fetcher.Fetcher | Cache.Cache> = {
  validate: (caller) => Effect.map(decode(caller), (decoded) => ScrapeQuery.planFor(decoded.request, 1, decoded)),
  run: (_caller, { request }) =>
    Effect.map(Pipeline.runMemoized(request), ({ result }) => {
      const data = result.bytes.data!
      return {
        body: {
          success: true,
          url: request.url,
          finalUrl: result.url,
          statusCode: result.metadata.statusCode ?? 200,
          contentType: data.contentType,
          contentLength: Buffer.from(data.base64, "base64").byteLength,
          encoding: "base64",
          bytes: data.base64
        },
        credits: 1
      }
    })
}
