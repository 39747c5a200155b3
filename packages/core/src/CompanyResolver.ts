/**
 * Turns the `input` of GET /web/naics into a domain: a valid domain is used directly, a URL (also one whose host is an IP
 * or carries a port) is read as given, path kept, through the Fetcher's address guard; anything else is a company
 * name, looked up first in a `CompanyIndex` (the URL index: names and titles of known sites) and then through a
 * `CompanySearch` provider (SearXNG at `SIFT_SEARXNG_URL`). With neither able to answer, the name fails with
 * `SearchUnavailable` (503 `SEARCH_UNAVAILABLE`); a search that finds nothing fails with `NotFound`
 * (400 `WEBSITE_NOT_FOUND`).
 *
 * @since 0.1.0
 */
import { Config, type ConfigError, Context, Effect, Layer, Option } from "effect"
import { InvalidRequest, WebsiteError } from "./Errors.js"
import * as SearchProvider from "./SearchProvider.js"

/** Looks a company name up among known sites (an interface of the URL index). @category services */
export class CompanyIndex extends Context.Tag("@sift/core/CompanyIndex")<CompanyIndex, {
  /** The domain of the best-matching known site, if any. */
  readonly findDomain: (name: string) => Effect.Effect<Option.Option<string>>
  /** URLs the index knows on a domain: evidence gathering looks among them for about, services and product pages. */
  readonly pagesOf?: (domain: string) => Effect.Effect<ReadonlyArray<string>>
}>() {}

/** Searches the web for a company's website. @category services */
export class CompanySearch extends Context.Tag("@sift/core/CompanySearch")<CompanySearch, {
  /** Result URLs, best first; fails with `SearchUnavailable` when the provider cannot answer. */
  readonly search: (query: string) => Effect.Effect<ReadonlyArray<string>, WebsiteError>
}>() {}

/** Hosts that are directories, social networks or encyclopedias, never a company's own site. */
const notCompanySites =
  /(^|\.)(wikipedia\.org|linkedin\.com|facebook\.com|instagram\.com|twitter\.com|x\.com|youtube\.com|yelp\.com|crunchbase\.com|bloomberg\.com|glassdoor\.com|indeed\.com|tripadvisor\.com|google\.com|bing\.com|duckduckgo\.com|amazon\.com|reddit\.com|zoominfo\.com|dnb\.com|mapquest\.com|bbb\.org)$/i

const hostname = /^(?=.{4,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z][a-z0-9-]{1,62}$/i

/** The domain named by a domain or URL input, or `undefined` when the input is a name. */
export const domainOf = (input: string): string | undefined => {
  const text = input.trim()
  if (/\s/.test(text)) return undefined
  try {
    const url = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(text) ? text : `http://${text}`)
    const host = url.hostname.toLowerCase().replace(/^www\./, "")
    return hostname.test(host) && (url.protocol === "http:" || url.protocol === "https:") ? host : undefined
  } catch {
    return undefined
  }
}

/** What an input names: the company's domain (the answer's `domain`) and, for a URL, the page to read first. */
export interface Target {
  readonly domain: string
  /** The URL exactly as given (path and port kept), when the input was a URL; else the homepage is read. */
  readonly url?: string
}

const ipv4 = /^\d{1,3}(?:\.\d{1,3}){3}$/

/**
 * The target named by a domain or URL input, or `undefined` when the input is a name. A URL with a path, a port or an
 * IP host is read as given; its `domain` is the host (with the port, when given).
 */
export const targetOf = (input: string): Target | undefined => {
  const text = input.trim()
  if (/\s/.test(text)) return undefined
  const schemed = /^[a-z][a-z0-9+.-]*:\/\//i.test(text)
  let url: URL
  try {
    url = new URL(schemed ? text : `http://${text}`)
  } catch {
    return undefined
  }
  if (url.protocol !== "http:" && url.protocol !== "https:" || url.username !== "" || url.password !== "") return undefined
  const host = url.hostname.toLowerCase()
  const ip = ipv4.test(host) || host.startsWith("[")
  // With a scheme any host is a URL (`http://localhost:8080/`); without one, only an IP or a dotted host name is.
  if (host === "" || !schemed && !ip && !hostname.test(host.replace(/^www\./, ""))) return undefined
  // A domain, or a URL of its homepage, is read from the homepage (https, then http); other URLs exactly as given.
  if (!ip && url.port === "" && (!schemed || url.pathname === "/" && url.search === "")) return { domain: host.replace(/^www\./, "") }
  const domain = ip ? url.host.toLowerCase() : `${host.replace(/^www\./, "")}${url.port === "" ? "" : `:${url.port}`}`
  return { domain, url: url.href }
}

/** The first result that looks like a company's own site. */
export const pickDomain = (urls: ReadonlyArray<string>): string | undefined => {
  for (const url of urls) {
    const domain = domainOf(url)
    if (domain !== undefined && !notCompanySites.test(domain)) return domain
  }
  return undefined
}

/** Resolves an input to a domain. */
export const resolve = (input: string): Effect.Effect<string, InvalidRequest | WebsiteError> =>
  Effect.map(resolveTarget(input), (target) => target.domain)

/** Resolves an input to a target: a URL is kept as given, a domain read from its homepage, a name searched. */
export const resolveTarget = (input: string): Effect.Effect<Target, InvalidRequest | WebsiteError> =>
  Effect.gen(function*() {
    const text = input.trim()
    if (text.length < 4) {
      return yield* new InvalidRequest({ reason: "Invalid", field: "input", detail: "must be at least 4 characters" })
    }
    const direct = targetOf(text)
    if (direct !== undefined) return direct
    const index = yield* Effect.serviceOption(CompanyIndex)
    if (Option.isSome(index)) {
      const found = yield* index.value.findDomain(text)
      if (Option.isSome(found)) return { domain: found.value }
    }
    const search = yield* Effect.serviceOption(CompanySearch)
    if (Option.isNone(search)) {
      return yield* new WebsiteError({ reason: "SearchUnavailable", url: text, detail: "no search provider is configured (SIFT_SEARXNG_URL)" })
    }
    const domain = pickDomain(yield* search.value.search(text))
    if (domain === undefined) return yield* new WebsiteError({ reason: "NotFound", url: text, detail: "no website found for this name" })
    return { domain }
  })

/** A `CompanySearch` over a `SearchProvider`: result URLs of one page; any failure is `SearchUnavailable`. */
export const fromProvider = (provider: Context.Tag.Service<SearchProvider.SearchProvider>): Context.Tag.Service<CompanySearch> => ({
  search: (query) =>
    provider.search({ query, numResults: 10 }).pipe(
      Effect.map((hits) => hits.map((hit) => hit.url)),
      Effect.mapError((error) => new WebsiteError({ reason: "SearchUnavailable", url: query, detail: error.detail }))
    )
})

/** A `CompanySearch` over a SearXNG instance's JSON API (`/search?format=json`), through `SearchProvider.searxng`. */
export const searxng = (baseUrl: string, timeoutMs = 5_000): Context.Tag.Service<CompanySearch> =>
  fromProvider(SearchProvider.searxng(baseUrl, { timeoutMs, retries: 1, maxPages: 1 }))

/** `CompanySearch` through SearXNG at this URL. */
export const layerSearxng = (baseUrl: string): Layer.Layer<CompanySearch> => Layer.succeed(CompanySearch, searxng(baseUrl))

/** Stands in when no provider is configured: every search fails with `SearchUnavailable`. */
export const unavailable: Context.Tag.Service<CompanySearch> = {
  search: (query) =>
    Effect.fail(new WebsiteError({ reason: "SearchUnavailable", url: query, detail: "no search provider is configured (SIFT_SEARXNG_URL)" }))
}

/** `CompanySearch` through SearXNG at `SIFT_SEARXNG_URL`; without it, names cannot be searched (`SEARCH_UNAVAILABLE`). */
export const layerSearchConfig: Layer.Layer<CompanySearch, ConfigError.ConfigError> = Layer.effect(
  CompanySearch,
  Effect.map(Config.option(Config.string("SIFT_SEARXNG_URL")), (url) =>
    Option.match(url, { onNone: () => unavailable, onSome: (u) => searxng(u) }))
)

/** A `CompanyIndex` over a fixed table of names (lower case) to domains: for tests and small deployments. */
export const layerIndexMemory = (entries: Readonly<Record<string, string>>): Layer.Layer<CompanyIndex> => {
  const table = new Map(Object.entries(entries).map(([name, domain]) => [name.trim().toLowerCase(), domain]))
  return Layer.succeed(CompanyIndex, { findDomain: (name) => Effect.succeed(Option.fromNullable(table.get(name.trim().toLowerCase()))) })
}
