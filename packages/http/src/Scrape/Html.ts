/**
 * `GET /web/scrape/html` (decisions §3): one URL to cleaned HTML. 1 credit, plus 1 per PDF page OCR recovered; `type`
 * is the detected document type.
 *
 * @since 0.1.0
 */
import { type Cache, type Errors, type Fetcher, Pipeline } from "@sift/core"
import { Effect } from "effect"
import type { Handler } from "../RequestPipeline.js"
import * as ScrapeQuery from "./ScrapeQuery.js"

/** The query. */
export const Query = ScrapeQuery.struct(ScrapeQuery.fields).annotations({ description: "Scrape one URL to cleaned HTML (1 credit)" })

const decode = ScrapeQuery.decoder("html", Query, (query) => ScrapeQuery.toPost(Query, query, { formats: { html: true }, sharedParams: {} }))

/** `GET /web/scrape/html`. */
export const html: Handler<ScrapeQuery.Decoded<typeof Query.Type>, Errors.InvalidRequest, never, Errors.ScrapeError, Fetcher.Fetcher | Cache.Cache> = {
  validate: (caller) => Effect.map(decode(caller), (decoded) => ScrapeQuery.planFor(decoded.request, 1, decoded)),
  run: (_caller, decoded) =>
    Effect.map(Pipeline.runMemoized(decoded.request, ScrapeQuery.runOptions(decoded.query)), ({ document, render, result }) => ({
      body: {
        success: true,
        html: result.html.data ?? "",
        url: result.url,
        type: document.type ?? "html",
        finalDOMState: result.isPartial ? "still-loading" : "complete",
        metadata: result.metadata,
        cache_metadata: result.cache_metadata,
        ...ScrapeQuery.actionsOf(render)
      },
      credits: ScrapeQuery.chargeOf(1, document)
    }))
}
