/**
 * `GET /web/naics` (interface.md; decisions §5): classifies a company given by domain, URL or name into NAICS 2022
 * codes with core's `NaicsClassification`. Names resolve through the store's URL index (`CompanyIndex`) and then the
 * configured search provider (`CompanySearch`, SearXNG at `SIFT_SEARXNG_URL`). 1 credit; nothing when it fails or a
 * return-partial deadline left no codes.
 *
 * @since 0.1.0
 */
import { CompanyResolver, Errors, type Fetcher, NaicsClassification } from "@sift/core"
import { UrlIndexStore } from "@sift/store"
import { Effect, Either, Layer, Schema } from "effect"
import * as CommonQuery from "../internal/commonQuery.js"
import * as QueryParams from "../QueryParams.js"
import type { Handler, Plan } from "../RequestPipeline.js"

/** A decoded NAICS query. */
export interface NaicsRequest {
  readonly input: string
  readonly options: NaicsClassification.NaicsOptions
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
  minResults: optional(count.annotations({ description: "1 to 10, default 1" })),
  maxResults: optional(count.annotations({ description: "1 to 10, default 5" })),
  timeoutOpts: optional(QueryParams.timeoutOpts),
  zdr: optional(QueryParams.zdr),
  tags: optional(QueryParams.tags)
})

const decode = QueryParams.decode(Query)

const readQuery = (query: QueryParams.Query) =>
  Either.gen(function*() {
    const { input, maxResults, minResults, ...read } = yield* decode(query)
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
          ...(minResults === undefined ? {} : { minResults }),
          ...(maxResults === undefined ? {} : { maxResults }),
          ...(timeout === undefined ? {} : { timeoutMs: timeout.milliseconds, timeoutBehavior: timeout.behavior ?? "fail" })
        }
      } satisfies NaicsRequest
    }
  })

/** `GET /web/naics`: 1 credit. */
export const naics: Handler<
  NaicsRequest,
  Errors.InvalidRequest,
  never,
  NaicsClassification.NaicsError,
  Fetcher.Fetcher | CompanyResolver.CompanyIndex | CompanyResolver.CompanySearch
> = {
  validate: (caller) =>
    Effect.map(readQuery(caller.query), (read): Plan<NaicsRequest> => ({
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
      const result = yield* Effect.interruptible(NaicsClassification.classifyNaicsEffect(request.input, request.options)).pipe(
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

/** Name lookup for the endpoint: the store's URL index, then SearXNG at `SIFT_SEARXNG_URL` when configured. */
export const layerCompanies = Layer.merge(UrlIndexStore.layerCompanyIndex, Layer.orDie(CompanyResolver.layerSearchConfig))
