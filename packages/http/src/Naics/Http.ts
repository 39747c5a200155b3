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
import { Effect, Layer } from "effect"
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

const invalid = (field: string, detail: string) => new Errors.InvalidRequest({ reason: "Invalid", field, detail })

const count = (query: QueryParams.Query, field: string): number | undefined => {
  const value = QueryParams.asInteger(query, field)
  if (value !== undefined && (value < 1 || value > 10)) throw invalid(field, "must be an integer from 1 to 10")
  return value
}

const readQuery = (query: QueryParams.Query) => {
  const input = QueryParams.asString(query, "input")?.trim()
  if (input === undefined || input === "") throw invalid("input", "is required")
  if (input.length < 4) throw invalid("input", "must be at least 4 characters")
  const minResults = count(query, "minResults")
  const maxResults = count(query, "maxResults")
  if ((minResults ?? 1) > (maxResults ?? 5)) throw invalid("minResults", "must not exceed maxResults")
  const timeout = CommonQuery.timeoutOf(query)
  return {
    zdr: CommonQuery.zdrOf(query),
    tags: CommonQuery.tagsOf(query),
    timeoutMs: timeout?.milliseconds ?? DEFAULT_TIMEOUT_MS,
    request: {
      input,
      options: {
        ...(minResults === undefined ? {} : { minResults }),
        ...(maxResults === undefined ? {} : { maxResults }),
        ...(timeout === undefined ? {} : { timeoutMs: timeout.milliseconds, timeoutBehavior: timeout.behavior ?? "fail" })
      }
    } satisfies NaicsRequest
  }
}

/** `GET /web/naics`: 1 credit. */
export const naics: Handler<
  NaicsRequest,
  Errors.InvalidRequest,
  never,
  NaicsClassification.NaicsError,
  Fetcher.Fetcher | CompanyResolver.CompanyIndex | CompanyResolver.CompanySearch
> = {
  validate: (caller) =>
    Effect.map(CommonQuery.read(() => readQuery(caller.query)), (read): Plan<NaicsRequest> => ({
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
