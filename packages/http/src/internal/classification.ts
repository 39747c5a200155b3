/**
 * What the company classification endpoints (`GET /web/naics`, `GET /web/sic`) share: their query members, reading a
 * query into the request with its deadline, and the handler (1 credit; names resolved through the `CompanyIndex` and
 * `CompanySearch` the application provides; a return-partial deadline that left no codes is a 408, uncharged).
 */
import { CompanyResolver, Errors, type Fetcher, type NaicsClassification } from "@sift/core"
import { Effect, Either, Schema } from "effect"
import * as QueryParams from "../QueryParams.js"
import type { Handler, Plan } from "../RequestPipeline.js"
import * as CommonQuery from "./commonQuery.js"

const DEFAULT_TIMEOUT_MS = 30_000
const HOLD_SLACK_MS = 60_000
const { optional } = QueryParams

const count = QueryParams.integer.pipe(QueryParams.check((n: number) => n >= 1 && n <= 10, "must be an integer from 1 to 10"))

/** The company to classify: a domain, URL or name. */
export const input = QueryParams.string.pipe(
  Schema.transform(Schema.UndefinedOr(Schema.String), { decode: (text) => text?.trim(), encode: (text) => text }),
  QueryParams.check((text: string) => text !== "", "is required"),
  QueryParams.check((text: string) => text.length >= 4, "must be at least 4 characters")
).annotations({ description: "Domain, URL or company name (min 4 characters)" })

/** The members after `input` that every classification query has. */
export const common = {
  minResults: optional(count.annotations({ description: "1 to 10, default 1" })),
  maxResults: optional(count.annotations({ description: "1 to 10, default 5" })),
  timeoutOpts: optional(QueryParams.timeoutOpts),
  zdr: optional(QueryParams.zdr),
  tags: optional(QueryParams.tags)
}

/** A decoded query of the common members. */
interface Common {
  readonly input?: string | undefined
  readonly minResults?: number | undefined
  readonly maxResults?: number | undefined
  readonly timeoutOpts?: Parameters<typeof CommonQuery.deadline>[0]
  readonly zdr?: "enabled" | "disabled" | undefined
  readonly tags?: ReadonlyArray<string> | undefined
}

/** A classification request: the company and the classifier's options. */
export interface Request<O> {
  readonly input: string
  readonly options: O
}

/** The classifier's options every endpoint has. */
type CommonOptions = Pick<NaicsClassification.NaicsOptions, "minResults" | "maxResults" | "timeoutMs" | "timeoutBehavior">

/** Reads a decoded query: `minResults` ≤ `maxResults`, the deadline; `extra` adds the endpoint's own options. */
const read = <O extends CommonOptions>(decoded: Common, extra: Omit<O, keyof CommonOptions>) =>
  Either.gen(function*() {
    const { maxResults, minResults } = decoded
    if ((minResults ?? 1) > (maxResults ?? 5)) {
      return yield* Either.left(new Errors.InvalidRequest({ reason: "Invalid", field: "minResults", detail: "must not exceed maxResults" }))
    }
    const timeout = yield* CommonQuery.deadline(decoded.timeoutOpts)
    const options = {
      ...extra,
      ...(minResults === undefined ? {} : { minResults }),
      ...(maxResults === undefined ? {} : { maxResults }),
      ...(timeout === undefined ? {} : { timeoutMs: timeout.milliseconds, timeoutBehavior: timeout.behavior ?? "fail" })
    } as O
    return {
      zdr: decoded.zdr === "enabled",
      tags: decoded.tags ?? [],
      timeoutMs: timeout?.milliseconds ?? DEFAULT_TIMEOUT_MS,
      request: { input: decoded.input!, options } satisfies Request<O>
    }
  })

/**
 * The handler of a classification endpoint: `decode` checks the query, `extra` picks the endpoint's own options from
 * it, `classify` runs the classifier.
 */
export const handler = <D extends Common, O extends CommonOptions>(
  decode: (query: QueryParams.Query) => Either.Either<D, Errors.InvalidRequest>,
  extra: (decoded: D) => Omit<O, keyof CommonOptions>,
  classify: (input: string, options: O) => Effect.Effect<
    { readonly partial?: boolean | undefined; readonly codes: ReadonlyArray<unknown> },
    NaicsClassification.NaicsError,
    Fetcher.Fetcher | CompanyResolver.CompanyIndex | CompanyResolver.CompanySearch
  >
): Handler<Request<O>, Errors.InvalidRequest, never, NaicsClassification.NaicsError, Fetcher.Fetcher | CompanyResolver.CompanyIndex | CompanyResolver.CompanySearch> => ({
  validate: (caller) =>
    Effect.map(
      Either.flatMap(decode(caller.query), (decoded) => read<O>(decoded, extra(decoded))),
      (query): Plan<Request<O>> => ({
        input: query.request,
        credits: 1,
        zdr: query.zdr,
        tags: query.tags,
        holdMs: query.timeoutMs + HOLD_SLACK_MS
      })
    ),
  run: (_caller, request) =>
    Effect.gen(function*() {
      const index = yield* CompanyResolver.CompanyIndex
      const search = yield* CompanyResolver.CompanySearch
      // Interruptible: the platform runs handlers uninterruptibly, and the deadline must be able to stop a fetch.
      const result = yield* Effect.interruptible(classify(request.input, request.options)).pipe(
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
})
