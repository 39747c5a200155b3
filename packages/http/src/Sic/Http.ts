/**
 * `GET /web/sic` (wave2 §15): classifies a company given by domain, URL or name into SIC codes with core's `Sic`
 * (the NAICS classifier and the Census Bureau's NAICS → SIC concordance; `type=latest_sec` the SEC's list with its
 * offices). Names resolve as for `/web/naics`. 1 credit (§21.1); nothing when it fails or a return-partial deadline
 * left no codes.
 *
 * @since 0.1.0
 */
import { CompanyResolver, Errors, type Fetcher, type NaicsClassification, Sic } from "@sift/core"
import { Effect, Either, Schema } from "effect"
import * as CommonQuery from "../internal/commonQuery.js"
import * as QueryParams from "../QueryParams.js"
import type { Handler, Plan } from "../RequestPipeline.js"

/** A decoded SIC query. */
export interface SicRequest {
  readonly input: string
  readonly options: Sic.SicOptions
}

const DEFAULT_TIMEOUT_MS = 30_000
const HOLD_SLACK_MS = 60_000
const { optional } = QueryParams

const count = QueryParams.integer.pipe(QueryParams.check((n: number) => n >= 1 && n <= 10, "must be an integer from 1 to 10"))

/** The query. */
export const Query = Schema.Struct({
  input: QueryParams.string.pipe(
    Schema.transform(Schema.UndefinedOr(Schema.String), { decode: (input) => input?.trim(), encode: (input) => input }),
    QueryParams.check((input: string) => input !== "", "is required"),
    QueryParams.check((input: string) => input.length >= 4, "must be at least 4 characters")
  ).annotations({ description: "Domain, URL or company name (min 4 characters)" }),
  type: optional(QueryParams.oneOf("original_sic", "latest_sec").annotations({
    description: "original_sic (default): the 1987 SIC Manual, with major groups; latest_sec: the SEC's SIC list, with offices"
  })),
  minResults: optional(count.annotations({ description: "1 to 10, default 1" })),
  maxResults: optional(count.annotations({ description: "1 to 10, default 5" })),
  timeoutOpts: optional(QueryParams.timeoutOpts),
  zdr: optional(QueryParams.zdr),
  tags: optional(QueryParams.tags)
})

const decode = QueryParams.decode(Query)

const readQuery = (query: QueryParams.Query) =>
  Either.gen(function*() {
    const { input, maxResults, minResults, type, ...read } = yield* decode(query)
    if ((minResults ?? 1) > (maxResults ?? 5)) {
      return yield* Either.left(new Errors.InvalidRequest({ reason: "Invalid", field: "minResults", detail: "must not exceed maxResults" }))
    }
    const timeout = yield* CommonQuery.deadline(read.timeoutOpts)
    return {
      zdr: read.zdr === "enabled",
      tags: read.tags ?? [],
      timeoutMs: timeout?.milliseconds ?? DEFAULT_TIMEOUT_MS,
      request: {
        input: input!,
        options: {
          ...(type === undefined ? {} : { type }),
          ...(minResults === undefined ? {} : { minResults }),
          ...(maxResults === undefined ? {} : { maxResults }),
          ...(timeout === undefined ? {} : { timeoutMs: timeout.milliseconds, timeoutBehavior: timeout.behavior ?? "fail" })
        }
      } satisfies SicRequest
    }
  })

/** `GET /web/sic`: 1 credit. */
export const sic: Handler<
  SicRequest,
  Errors.InvalidRequest,
  never,
  NaicsClassification.NaicsError,
  Fetcher.Fetcher | CompanyResolver.CompanyIndex | CompanyResolver.CompanySearch
> = {
  validate: (caller) =>
    Effect.map(readQuery(caller.query), (read): Plan<SicRequest> => ({
      input: read.request,
      credits: 1,
      zdr: read.zdr,
      tags: read.tags,
      holdMs: read.timeoutMs + HOLD_SLACK_MS
    })),
  run: (_caller, request) =>
    Effect.gen(function*() {
      const index = yield* CompanyResolver.CompanyIndex
      const search = yield* CompanyResolver.CompanySearch
      // Interruptible: the platform runs handlers uninterruptibly, and the deadline must be able to stop a fetch.
      const result = yield* Effect.interruptible(Sic.classifySicEffect(request.input, request.options)).pipe(
        Effect.provideService(CompanyResolver.CompanyIndex, index),
        Effect.provideService(CompanyResolver.CompanySearch, search)
      )
      if (result.partial === true && result.codes.length === 0) {
        return yield* new Errors.RequestTimeout({
          milliseconds: request.options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
          detail: "no codes were completed in time"
        })
      }
      return { body: { ...result }, credits: 1 }
    })
}
