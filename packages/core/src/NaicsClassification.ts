/**
 * `classifyNaics(input, options)`: the core of GET /web/naics (decisions §5). Resolves the input to a domain,
 * gathers the company's pages within the request's deadline, and ranks NAICS 2022 codes. As an Effect
 * (`classifyNaicsEffect`, needing a `Fetcher`; `CompanyIndex`, `CompanySearch` and `NaicsReranker` are used when
 * provided) and as a Promise for Node apps.
 *
 * @since 0.1.0
 */
import { Cause, Effect, Exit, Layer, ManagedRuntime, Option } from "effect"
import * as CompanyEvidence from "./CompanyEvidence.js"
import * as CompanyResolver from "./CompanyResolver.js"
import * as Deadline from "./Deadline.js"
import { InvalidRequest, type RequestTimeout, type WebsiteError } from "./Errors.js"
import * as Fetcher from "./Fetcher.js"
import * as NaicsClassifier from "./NaicsClassifier.js"

/** Options of a classification (decisions §5). */
export interface NaicsOptions {
  /** Fewest codes returned, 1 to 10 (default 1). */
  readonly minResults?: number
  /** Most codes returned, 1 to 10 (default 5). */
  readonly maxResults?: number
  /** The whole request's budget in milliseconds (default 30000). */
  readonly timeoutMs?: number
  /** `fail` (default): expiry is a `RequestTimeout`; `return-partial`: codes from the pages gathered so far. */
  readonly timeoutBehavior?: Deadline.Behavior
}

/** One code of the answer. */
export interface NaicsCode {
  readonly code: string
  readonly name: string
  readonly confidence: NaicsClassifier.Confidence
}

/** The answer: the body of GET /web/naics without `request_id` and `key_metadata`. */
export interface NaicsClassification {
  readonly status: "ok"
  readonly domain: string
  readonly type: "naics"
  readonly codes: ReadonlyArray<NaicsCode>
  readonly partial?: boolean
}

/** What a classification can fail with. */
export type NaicsError = InvalidRequest | WebsiteError | RequestTimeout

const count = (field: string, value: number | undefined, fallback: number): Effect.Effect<number, InvalidRequest> =>
  value === undefined
    ? Effect.succeed(fallback)
    : Number.isInteger(value) && value >= 1 && value <= 10
    ? Effect.succeed(value)
    : Effect.fail(new InvalidRequest({ reason: "Invalid", field, detail: "must be an integer from 1 to 10" }))

/** Classifies a company given by domain, URL or name. */
export const classifyNaicsEffect = (
  input: string,
  options: NaicsOptions = {}
): Effect.Effect<NaicsClassification, NaicsError, Fetcher.Fetcher> =>
  Effect.gen(function*() {
    const minResults = yield* count("minResults", options.minResults, 1)
    const maxResults = yield* count("maxResults", options.maxResults, 5)
    if (minResults > maxResults) {
      return yield* new InvalidRequest({ reason: "Invalid", field: "minResults", detail: "must not exceed maxResults" })
    }
    const deadline = yield* Deadline.make(options.timeoutMs ?? 30_000, options.timeoutBehavior ?? "fail")
    const { domain, url: startUrl } = yield* CompanyResolver.resolveTarget(input)
    const left = yield* Deadline.remaining(deadline)
    // Inner budget a little under the outer one, so internal pages are cut (partial) before the homepage's guard fires.
    const gatherMs = Math.max(1, left - deadline.reserveMs - Math.min(250, Math.floor(left / 10)))
    // Pages the URL index already knows on the domain join the homepage's links as candidates for about/services pages.
    const index = yield* Effect.serviceOption(CompanyResolver.CompanyIndex)
    const knownUrls = Option.isSome(index) && index.value.pagesOf !== undefined ? yield* index.value.pagesOf(domain) : []
    const evidence = yield* Deadline.gather(deadline, CompanyEvidence.gather(domain, { timeoutMs: gatherMs, knownUrls, ...(startUrl === undefined ? {} : { startUrl }) }))
    if (Option.isNone(evidence)) return yield* Deadline.expired(deadline, "before the homepage was read")
    if (evidence.value.partial === true && deadline.behavior === "fail") {
      return yield* Deadline.expired(deadline, "while reading the company's pages")
    }
    const ranked = yield* Deadline.finish(deadline, NaicsClassifier.classifyEffect(evidence.value, { maxResults }))
    const codes = ranked.map(({ code, confidence, name }) => ({ code, name, confidence }))
    const body: NaicsClassification = { status: "ok", domain, type: "naics", codes }
    return evidence.value.partial === true ? { ...body, partial: true } : body
  })

/** Settles with the value or the tagged error itself (no fiber-failure wrapper). */
const settle = async <A>(exit: Promise<Exit.Exit<A, unknown>>): Promise<A> => {
  const result = await exit
  if (Exit.isSuccess(result)) return result.value
  throw Cause.squash(result.cause)
}

/** How the Promise front door is put together. */
export interface NaicsClientOptions {
  /** Fetcher settings; omitted ones come from the environment. */
  readonly fetcher?: Partial<Fetcher.FetcherOptions>
  /** A SearXNG URL for names; default `SIFT_SEARXNG_URL`. */
  readonly searxngUrl?: string
}

/** A classifier with its own connections; `close` releases them. */
export interface NaicsClient {
  readonly classifyNaics: (input: string, options?: NaicsOptions) => Promise<NaicsClassification>
  readonly close: () => Promise<void>
}

/** Creates a classifier client. */
export const makeClient = (client: NaicsClientOptions = {}): NaicsClient => {
  const search = client.searxngUrl === undefined ? CompanyResolver.layerSearchConfig : CompanyResolver.layerSearxng(client.searxngUrl)
  const fetcher = client.fetcher === undefined ? Fetcher.layerConfig : Fetcher.layer(client.fetcher)
  const runtime = ManagedRuntime.make(Layer.merge(fetcher, search))
  return {
    classifyNaics: (input, options) => settle(runtime.runPromiseExit(classifyNaicsEffect(input, options))),
    close: () => runtime.dispose()
  }
}

let shared: NaicsClient | undefined

/** Classifies with a process-wide client configured from the environment; rejects with a `NaicsError`. */
export const classifyNaics = (input: string, options?: NaicsOptions): Promise<NaicsClassification> => {
  shared ??= makeClient()
  return shared.classifyNaics(input, options)
}
