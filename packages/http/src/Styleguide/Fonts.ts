/**
 * `GET /web/fonts` (wave2 §4): the fonts of a site's text with element and word counts, shares, fallbacks and uses,
 * and the files of the families it serves (`fontLinks`, omitted when none resolve), from the same read and cache as
 * `GET /web/styleguide` (no color scheme emulated, no `zdr` member in the SDK's type). 1 credit, a cache hit too.
 *
 * @since 0.1.0
 */
import type { Cache, Errors } from "@sift/core"
import { Effect, Schema } from "effect"
import * as QueryParams from "../QueryParams.js"
import type { Handler } from "../RequestPipeline.js"
import * as DesignCache from "./DesignCache.js"
import { type DesignInput, planOf, targetFields } from "./Http.js"

/** The query of `GET /web/fonts`. */
export const Query = Schema.Struct({
  ...targetFields,
  zdr: QueryParams.optional(QueryParams.zdr)
}).annotations({ description: "Font families of a site's text with element and word counts, fallbacks and files (1 credit)" })

const decode = QueryParams.decode(Query)

/** `GET /web/fonts`: 1 credit. */
export const fonts: Handler<DesignInput, Errors.InvalidRequest, never, Errors.ScrapeError, Cache.Cache> = {
  validate: (caller) => planOf(decode(caller.query)),
  run: (_caller, input) =>
    Effect.map(DesignCache.read(input.request), ({ cache, design }) => ({
      body: {
        status: "ok",
        code: 200,
        domain: input.domain,
        fonts: design.fonts,
        ...(Object.keys(design.fontLinks).length === 0 ? {} : { fontLinks: design.fontLinks }),
        finalDOMState: design.finalDOMState,
        cache_metadata: cache
      },
      credits: 1
    }))
}
