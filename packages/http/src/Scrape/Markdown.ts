/**
 * `GET /web/scrape/markdown` (decisions §3): one URL to GitHub-flavoured Markdown. 1 credit; 2 with actions; plus 1
 * per PDF page OCR recovered.
 *
 * @since 0.1.0
 */
import { Cache, type Errors, type Fetcher, Pipeline } from "@sift/core"
import { Effect } from "effect"
import { stringify } from "../internal/json.js"
import { andThen } from "../internal/steps.js"
import * as QueryParams from "../QueryParams.js"
import type { Handler } from "../RequestPipeline.js"
import * as Indexing from "../Search/Indexing.js"
import * as ScrapeQuery from "./ScrapeQuery.js"

/** The query. */
export const Query = ScrapeQuery.struct({
  includeHTML: QueryParams.optional(
    QueryParams.boolean.pipe(ScrapeQuery.lands("formats.html", { to: (html: boolean) => html || undefined })).annotations({
      description: "Also return the HTML the Markdown came from"
    })
  ),
  shortenBase64Images: QueryParams.optional(
    QueryParams.boolean.pipe(ScrapeQuery.lands("markdownParams.inlineImages", { to: (shorten: boolean) => shorten ? undefined : "preserve" }))
      .annotations({ description: "Replace base64 images by placeholders (default true)" })
  ),
  ...ScrapeQuery.fields,
  includeLinks: QueryParams.optional(
    QueryParams.boolean.pipe(ScrapeQuery.lands("markdownParams.includeLinks")).annotations({ description: "Keep link targets (default true)" })
  ),
  includeImages: QueryParams.optional(
    QueryParams.boolean.pipe(ScrapeQuery.lands("markdownParams.includeImages")).annotations({ description: "Include images (default false)" })
  )
}).annotations({ description: "Scrape one URL to GitHub-flavoured Markdown (1 credit; 2 with actions)" })

const decode = ScrapeQuery.decoder("markdown", Query, (query) =>
  ScrapeQuery.toPost(Query, query, { formats: { markdown: true }, sharedParams: {}, markdownParams: {} }))

const creditsOf = (decoded: ScrapeQuery.Decoded<typeof Query.Type>) => ScrapeQuery.hasActions(decoded.request) ? 2 : 1

/** `GET /web/scrape/markdown`. */
export const markdown: Handler<ScrapeQuery.Decoded<typeof Query.Type>, Errors.InvalidRequest, never, Errors.ScrapeError, Fetcher.Fetcher | Cache.Cache> = {
  // A query decoded before is answered at once, so a repeated request is validated without a step of its own.
  validate: (caller) => andThen(decode(caller), (decoded) => Effect.succeed(ScrapeQuery.planFor(decoded.request, creditsOf(decoded), decoded))),
  run: (caller, decoded) =>
    // Sift's own page index keeps the page with its cache entry (not with ZDR or forwarded headers).
    Effect.map(Indexing.storing(caller.auth.org.id, !Cache.usesCache(decoded.request), Pipeline.runMemoized(decoded.request, ScrapeQuery.runOptions(decoded.query)), (outcome) =>
      [{ url: decoded.request.url, result: outcome.result }]), ({ derived, document, render, result }) => ({
      // The members a memoized result always answers with are serialized once per memo.
      serialized: derived.get("markdown", () => {
        const markdownText = result.markdown.data ?? ""
        return stringify({
          success: true,
          markdown: markdownText,
          contentLength: Buffer.byteLength(markdownText, "utf8"),
          url: result.url,
          metadata: result.metadata,
          ...(result.html.requested ? { html: result.html.data ?? "" } : {}),
          ...ScrapeQuery.actionsOf(render)
        }).slice(1, -1)
      }),
      body: {
        cache_metadata: result.cache_metadata,
        ...(result.isPartial ? { finalDOMState: "still-loading" } : {})
      },
      credits: ScrapeQuery.chargeOf(creditsOf(decoded), document)
    }))
}
