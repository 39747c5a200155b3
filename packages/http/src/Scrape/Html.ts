/**
 * `GET /web/scrape/html` (decisions §3): one URL to cleaned HTML. 1 credit, plus 1 per PDF page OCR recovered; `type`
 * is the detected document type. `extractRules` (wave2 §17) run on the returned HTML into `extracted`, at no extra cost.
 *
 * @since 0.1.0
 */
import { type Cache, type Errors, type Fetcher, Pipeline } from "@sift/core"
import { Effect } from "effect"
import * as QueryParams from "../QueryParams.js"
import type { Handler } from "../RequestPipeline.js"
import * as ExtractRules from "./ExtractRules.js"
import * as ScrapeQuery from "./ScrapeQuery.js"

/** The query. */
export const Query = ScrapeQuery.struct({
  ...ScrapeQuery.fields,
  extractRules: QueryParams.optional(QueryParams.object.annotations({
    description: "CSS rules run on the returned HTML into `extracted`: a selector (\"h1\", \"a@href\") or { selector, type: item|list, " +
      "output: text|html|@attribute|{ nested rules } }; at most 100 fields across 5 levels; JSON or extractRules[name][selector]=…"
  }))
}).annotations({ description: "Scrape one URL to cleaned HTML (1 credit)" })

// The rules are checked with the query (so a bad rule is a 400 before any fetch) and remembered with it.
const rulesByQuery = new WeakMap<object, ReadonlyArray<ExtractRules.Rule>>()

const decode = ScrapeQuery.decoder("html", Query, (query) => {
  if (query.extractRules !== undefined) rulesByQuery.set(query, ExtractRules.compile(query.extractRules))
  return ScrapeQuery.toPost(Query, query, { formats: { html: true }, sharedParams: {} })
})

/** `GET /web/scrape/html`. */
export const html: Handler<ScrapeQuery.Decoded<typeof Query.Type>, Errors.InvalidRequest, never, Errors.ScrapeError, Fetcher.Fetcher | Cache.Cache> = {
  validate: (caller) => Effect.map(decode(caller), (decoded) => ScrapeQuery.planFor(decoded.request, 1, decoded)),
  run: (_caller, decoded) =>
    Effect.map(Pipeline.runMemoized(decoded.request, ScrapeQuery.runOptions(decoded.query)), ({ document, render, result }) => {
      const rules = rulesByQuery.get(decoded.query)
      const html = result.html.data ?? ""
      return {
        body: {
          success: true,
          html,
          url: result.url,
          type: document.type ?? "html",
          finalDOMState: result.isPartial ? "still-loading" : "complete",
          metadata: result.metadata,
          cache_metadata: result.cache_metadata,
          ...ScrapeQuery.actionsOf(render),
          ...(rules === undefined ? {} : { extracted: ExtractRules.extract(html, rules, result.url) })
        },
        credits: ScrapeQuery.chargeOf(1, document)
      }
    })
}
