/**
 * The web search engine behind `POST /web/search`, `GET /web/competitors` and NAICS by name: one service with one real
 * client, SearXNG's JSON API (`GET {SIFT_SEARXNG_URL}/search?format=json&q=&pageno=&time_range=`). `freshness` becomes
 * `time_range`; `site:`/`-site:` operators pass through in the query; `includeDomains`/`excludeDomains` are added as
 * operators (one include domain, every exclude) and always enforced on the results, since engines honour operators
 * unevenly; pages are read until `numResults` distinct URLs are collected or a page brings nothing new. Each page is
 * retried on a transport failure or a 5xx, under a timeout that never passes the caller's deadline. With no engine
 * configured every search fails with `SEARCH_UNAVAILABLE` (503); an engine that fails, `EXTERNAL_PROVIDER_ERROR` (502).
 *
 * @since 0.1.0
 */
import { Config, type ConfigError, Context, Duration, Effect, Layer, Option, Schedule, Schema } from "effect"

/** How recent results must be (the SDK's `freshness`). */
export type Freshness = "last_24_hours" | "last_week" | "last_month" | "last_year"

/** What to search for. */
export interface SearchQuery {
  /** The query as the caller wrote it (operators such as `site:` included). */
  readonly query: string
  /** Distinct results wanted (the engine is paged until it gives them or runs dry). */
  readonly numResults: number
  readonly freshness?: Freshness | undefined
  /** Only results on these domains (and their subdomains). */
  readonly includeDomains?: ReadonlyArray<string> | undefined
  /** No results on these domains (nor their subdomains). */
  readonly excludeDomains?: ReadonlyArray<string> | undefined
  /** A language code for the engine (`en`, `de`), best effort. */
  readonly language?: string | undefined
  /** The time left for the whole search, in ms (the request's deadline); the engine's own timeout never passes it. */
  readonly timeoutMs?: number | undefined
}

/** One result, in the engine's order. */
export interface SearchHit {
  readonly url: string
  readonly title: string
  /** The engine's snippet; empty when it gives none. */
  readonly description: string
  /** When the page was published, if the engine says. */
  readonly publishedDate?: string | undefined
}

/**
 * No engine is configured (`SEARCH_UNAVAILABLE`, 503), or the engine failed (`EXTERNAL_PROVIDER_ERROR`, 502).
 *
 * @category errors
 */
export class ProviderError extends Schema.TaggedError<ProviderError>()("ProviderError", {
  reason: Schema.Literal("Unavailable", "Failed"),
  /** The provider (`search`, `language model`) and what went wrong, for the message. */
  detail: Schema.String
}) {
  get errorCode(): "SEARCH_UNAVAILABLE" | "EXTERNAL_PROVIDER_ERROR" {
    return this.reason === "Unavailable" ? "SEARCH_UNAVAILABLE" : "EXTERNAL_PROVIDER_ERROR"
  }
  get retryable(): boolean {
    return this.reason === "Failed"
  }
  override get message(): string {
    return this.detail
  }
}

/** The search engine. @category services */
export class SearchProvider extends Context.Tag("@sift/core/SearchProvider")<SearchProvider, {
  /** Whether a real engine is configured (else every search fails with `Unavailable`). */
  readonly configured: boolean
  /** Distinct results, best first, filtered by the query's domains. */
  readonly search: (query: SearchQuery) => Effect.Effect<ReadonlyArray<SearchHit>, ProviderError>
}>() {}

/** The message of a search without an engine: names the setting. */
export const UNAVAILABLE_DETAIL = "No search engine is configured: set SIFT_SEARXNG_URL to a SearXNG instance (see docs/providers.md)"

/** Options of the SearXNG client. */
export interface SearxngOptions {
  /** Per attempt, in ms (default 10,000); always within the query's `timeoutMs`. */
  readonly timeoutMs?: number
  /** Retries of a page after a transport failure or a 5xx (default 2). */
  readonly retries?: number
  /** Pages read at most per search (default 10: SearXNG gives about 10 results a page, `numResults` is at most 100). */
  readonly maxPages?: number
}

/** A SearXNG answer is a few hundred kilobytes; more is refused unread. */
export const MAX_RESPONSE_BYTES = 8 * 1024 * 1024

const timeRange: Record<Freshness, string> = { last_24_hours: "day", last_week: "week", last_month: "month", last_year: "year" }

/** A domain as compared: lower case, no scheme, path, port or leading `www.`. */
export const normalizeDomain = (domain: string): string => {
  const text = domain.trim().toLowerCase()
  const host = /^[a-z][a-z0-9+.-]*:\/\//.test(text) ? safeHost(text) : text.split(/[/:?#]/)[0] ?? ""
  return host.replace(/^www\./, "").replace(/\.$/, "")
}

const safeHost = (url: string): string => {
  try {
    return new URL(url).hostname
  } catch {
    return ""
  }
}

/** The host of a URL as `normalizeDomain` gives it, or `undefined` for what is not an http(s) URL. */
export const hostOf = (url: string): string | undefined => {
  try {
    const parsed = new URL(url)
    return parsed.protocol === "http:" || parsed.protocol === "https:" ? normalizeDomain(parsed.hostname) : undefined
  } catch {
    return undefined
  }
}

/** Whether `host` is `domain` or one of its subdomains. */
export const onDomain = (host: string, domain: string): boolean => host === domain || host.endsWith(`.${domain}`)

/** A query's operators that name sites, and its text without them. */
export interface QueryScope {
  readonly sites: ReadonlyArray<string>
  readonly excludedSites: ReadonlyArray<string>
  /** The query without its `site:`/`-site:` operators. */
  readonly text: string
}

/** Reads `site:x` and `-site:x` out of a query. */
export const scopeOf = (query: string): QueryScope => {
  const sites: Array<string> = []
  const excludedSites: Array<string> = []
  const text = query.replace(/(^|\s)(-?)site:(\S+)/gi, (_match, lead: string, minus: string, site: string) => {
    const domain = normalizeDomain(site)
    if (domain !== "") (minus === "-" ? excludedSites : sites).push(domain)
    return lead
  }).replace(/\s+/g, " ").trim()
  return { sites, excludedSites, text }
}

/** Whether a result's URL passes the query's domain rules (operators, include and exclude lists). */
export const allowed = (query: SearchQuery): (url: string) => boolean => {
  const scope = scopeOf(query.query)
  const include = [...(query.includeDomains ?? []).map(normalizeDomain), ...scope.sites].filter((d) => d !== "")
  const exclude = [...(query.excludeDomains ?? []).map(normalizeDomain), ...scope.excludedSites].filter((d) => d !== "")
  return (url) => {
    const host = hostOf(url)
    if (host === undefined) return false
    if (include.length > 0 && !include.some((d) => onDomain(host, d))) return false
    return !exclude.some((d) => onDomain(host, d))
  }
}

/** The query text sent to the engine: the caller's, plus a `site:` for a single include domain and a `-site:` per exclude. */
export const engineQuery = (query: SearchQuery): string => {
  const include = (query.includeDomains ?? []).map(normalizeDomain).filter((d) => d !== "")
  const exclude = (query.excludeDomains ?? []).map(normalizeDomain).filter((d) => d !== "")
  return [
    query.query.trim(),
    ...(include.length === 1 ? [`site:${include[0]}`] : []),
    ...exclude.map((d) => `-site:${d}`)
  ].join(" ")
}

const Result = Schema.Struct({
  url: Schema.optional(Schema.Unknown),
  title: Schema.optional(Schema.Unknown),
  content: Schema.optional(Schema.Unknown),
  publishedDate: Schema.optional(Schema.Unknown)
})
const Answer = Schema.Struct({ results: Schema.optional(Schema.Array(Result)) })
const decodeAnswer = Schema.decodeUnknownEither(Answer)

/** Why one page failed, and whether asking again may help. */
class PageFailure {
  constructor(readonly detail: string, readonly retryable: boolean) {}
}

const readBounded = async (response: Response): Promise<string> => {
  const declared = Number(response.headers.get("content-length") ?? 0)
  if (declared > MAX_RESPONSE_BYTES) throw new PageFailure(`the engine's answer declares ${declared} bytes`, false)
  const reader = response.body?.getReader()
  if (reader === undefined) return ""
  const chunks: Array<Uint8Array> = []
  let size = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    size += value.byteLength
    if (size > MAX_RESPONSE_BYTES) {
      await reader.cancel()
      throw new PageFailure(`the engine's answer is larger than ${MAX_RESPONSE_BYTES} bytes`, false)
    }
    chunks.push(value)
  }
  return Buffer.concat(chunks).toString("utf8")
}

const text = (value: unknown): string => typeof value === "string" ? value.replace(/\s+/g, " ").trim() : ""

/** One page of SearXNG results. */
const fetchPage = (baseUrl: string, query: SearchQuery, pageno: number, timeoutMs: number) =>
  Effect.tryPromise({
    try: async (signal) => {
      const url = new URL("search", baseUrl.endsWith("/") ? baseUrl : `${baseUrl}/`)
      url.searchParams.set("q", engineQuery(query))
      url.searchParams.set("format", "json")
      url.searchParams.set("pageno", String(pageno))
      if (query.freshness !== undefined) url.searchParams.set("time_range", timeRange[query.freshness])
      if (query.language !== undefined) url.searchParams.set("language", query.language)
      const response = await fetch(url, { signal: AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)]), headers: { accept: "application/json" } })
      if (!response.ok) {
        await response.body?.cancel()
        throw new PageFailure(`the search engine answered HTTP ${response.status}`, response.status >= 500 || response.status === 429)
      }
      const decoded = decodeAnswer(JSON.parse(await readBounded(response)))
      if (decoded._tag === "Left") throw new PageFailure("the search engine's answer is not SearXNG JSON", false)
      return (decoded.right.results ?? []).flatMap((r): Array<SearchHit> => {
        const link = text(r.url)
        if (hostOf(link) === undefined) return []
        const published = text(r.publishedDate)
        return [{ url: link, title: text(r.title), description: text(r.content), ...(published === "" ? {} : { publishedDate: published }) }]
      })
    },
    catch: (error) =>
      error instanceof PageFailure
        ? error
        : error instanceof SyntaxError
        ? new PageFailure("the search engine's answer is not JSON", false)
        : new PageFailure(`the search engine could not be reached: ${(error as Error)?.message ?? String(error)}`, true)
  })

/** A `SearchProvider` over the SearXNG instance at `baseUrl`. */
export const searxng = (baseUrl: string, options: SearxngOptions = {}): Context.Tag.Service<SearchProvider> => {
  const attemptMs = options.timeoutMs ?? 10_000
  const retries = options.retries ?? 2
  const maxPages = options.maxPages ?? 10
  return {
    configured: true,
    search: (query) => {
      const keep = allowed(query)
      const pages = Effect.gen(function*() {
        const seen = new Set<string>()
        const hits: Array<SearchHit> = []
        for (let pageno = 1; pageno <= maxPages && hits.length < query.numResults; pageno++) {
          const page = yield* fetchPage(baseUrl, query, pageno, attemptMs).pipe(
            Effect.retry({
              schedule: Schedule.exponential(Duration.millis(100)),
              times: retries,
              while: (failure) => failure.retryable
            })
          )
          let fresh = 0
          for (const hit of page) {
            if (seen.has(hit.url)) continue
            seen.add(hit.url)
            fresh++
            if (keep(hit.url) && hits.length < query.numResults) hits.push(hit)
          }
          if (fresh === 0) break
        }
        return hits as ReadonlyArray<SearchHit>
      }).pipe(Effect.mapError((failure) => new ProviderError({ reason: "Failed", detail: `Search failed (SIFT_SEARXNG_URL): ${failure.detail}` })))
      if (query.timeoutMs === undefined) return pages
      return Effect.timeoutFail(pages, {
        duration: Duration.millis(Math.max(0, query.timeoutMs)),
        onTimeout: () => new ProviderError({ reason: "Failed", detail: "Search failed (SIFT_SEARXNG_URL): the search engine did not answer within the request's deadline" })
      })
    }
  }
}

/** Stands in when no engine is configured: every search fails with `SEARCH_UNAVAILABLE`, naming the setting. */
export const unavailable: Context.Tag.Service<SearchProvider> = {
  configured: false,
  search: () => Effect.fail(new ProviderError({ reason: "Unavailable", detail: UNAVAILABLE_DETAIL }))
}

/** `SearchProvider` through SearXNG at this URL. */
export const layerSearxng = (baseUrl: string, options?: SearxngOptions): Layer.Layer<SearchProvider> =>
  Layer.succeed(SearchProvider, searxng(baseUrl, options))

/**
 * `SearchProvider` from `SIFT_SEARXNG_URL` (with `SIFT_SEARXNG_TIMEOUT_MS`, default 10,000, per attempt); without the
 * URL, every search answers `SEARCH_UNAVAILABLE`.
 */
export const layerConfig: Layer.Layer<SearchProvider, ConfigError.ConfigError> = Layer.effect(
  SearchProvider,
  Effect.map(
    Config.all({
      url: Config.option(Config.string("SIFT_SEARXNG_URL")),
      timeoutMs: Config.integer("SIFT_SEARXNG_TIMEOUT_MS").pipe(Config.withDefault(10_000))
    }),
    (config) => Option.match(config.url, { onNone: () => unavailable, onSome: (url) => searxng(url, { timeoutMs: config.timeoutMs }) })
  )
)
