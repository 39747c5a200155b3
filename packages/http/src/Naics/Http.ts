/**
 * `GET /web/naics` (interface.md; decisions §5): classifies a company given by domain, URL or name into NAICS 2022
 * codes with core's `NaicsClassification`. Names resolve through the store's URL index (`CompanyIndex`) and then the
 * configured search provider (`CompanySearch`, SearXNG at `SIFT_SEARXNG_URL`). 1 credit; nothing when it fails or a
 * return-partial deadline left no codes.
 *
 * @since 0.1.0
 */
import { CompanyResolver, NaicsClassification } from "@sift/core"
import { UrlIndexStore } from "@sift/store"
import { Layer, Schema } from "effect"
import * as Classification from "../internal/classification.js"
import * as QueryParams from "../QueryParams.js"

/** A decoded NAICS query. */
export type NaicsRequest = Classification.Request<NaicsClassification.NaicsOptions>

/** The query. */
export const Query = Schema.Struct({ input: Classification.input, ...Classification.common })

/** `GET /web/naics`: 1 credit. */
export const naics = Classification.handler(
  QueryParams.decode(Query),
  () => ({}),
  (input, options: NaicsClassification.NaicsOptions) => NaicsClassification.classifyNaicsEffect(input, options)
)

/** Name lookup for the endpoint: the store's URL index, then SearXNG at `SIFT_SEARXNG_URL` when configured. */
export const layerCompanies = Layer.merge(UrlIndexStore.layerCompanyIndex, Layer.orDie(CompanyResolver.layerSearchConfig))
