/**
 * `GET /web/sic` (wave2 §15): classifies a company given by domain, URL or name into SIC codes with core's `Sic`
 * (the NAICS classifier and the Census Bureau's NAICS → SIC concordance; `type=latest_sec` the SEC's list with its
 * offices). Names resolve as for `/web/naics`. 1 credit (§21.1); nothing when it fails or a return-partial deadline
 * left no codes.
 *
 * @since 0.1.0
 */
import { Sic } from "@sift/core"
import { Schema } from "effect"
import * as Classification from "../internal/classification.js"
import * as QueryParams from "../QueryParams.js"

/** A decoded SIC query. */
export type SicRequest = Classification.Request<Sic.SicOptions>

/** The query. */
export const Query = Schema.Struct({
  input: Classification.input,
  type: QueryParams.optional(QueryParams.oneOf("original_sic", "latest_sec").annotations({
    description: "original_sic (default): the 1987 SIC Manual, with major groups; latest_sec: the SEC's SIC list, with offices"
  })),
  ...Classification.common
})

/** `GET /web/sic`: 1 credit. */
export const sic = Classification.handler(
  QueryParams.decode(Query),
  ({ type }) => (type === undefined ? {} : { type }),
  (input, options: Sic.SicOptions) => Sic.classifySicEffect(input, options)
)
