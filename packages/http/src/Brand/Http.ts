/**
 * The brand endpoints (wave2 §10, §14, §21): `POST /brand/retrieve` (10 credits) by domain, direct URL, email, name,
 * ticker or transaction descriptor; `GET /brand/retrieve-simplified` (5); `GET /brand/search` (1); and
 * `POST /utility/prefetch` (0, outside rate limits), which queues a retrieval as a durable job. Retrievals are kept per
 * domain (`Store`) and answered from there while younger than `maxAgeMs` (default 3 months, clamped to 0 … 1 year); a
 * domain with nothing kept and a deadline under 10 s is refused (422 `COLD_DOMAIN_TIMEOUT_TOO_LOW`). Logos and
 * backdrops are served content-addressed from `/v1/assets/{sha256}.{ext}` (`Assets`).
 *
 * @since 0.1.0
 */
import type * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import type * as SqlClient from "@effect/sql/SqlClient"
import { CompanyResolver, Errors, type Fetcher } from "@sift/core"
import * as Brand from "@sift/core/Brand"
import type { BlobStore } from "@sift/store"
import { Clock, Context, Effect, Either, Option, type ParseResult, Schema } from "effect"
import * as ErrorMapping from "../ErrorMapping.js"
import { publicOrigin } from "../Images/HostedFiles.js"
import * as CommonQuery from "../internal/commonQuery.js"
import * as QueryParams from "../QueryParams.js"
import type { Handler, Plan } from "../RequestPipeline.js"
import * as Assets from "./Assets.js"
import * as Emails from "./Emails.js"
import * as Store from "./Store.js"
import * as Tickers from "./Tickers.js"

/** `maxAgeMs` default (3 months) and ceiling (1 year), as the SDK states them. */
export const DEFAULT_MAX_AGE_MS = 7_776_000_000
export const MAX_MAX_AGE_MS = 31_536_000_000
/** A domain with nothing kept needs at least this deadline. */
export const COLD_MIN_TIMEOUT_MS = 10_000
/** The deadline of a retrieval that states none. */
export const DEFAULT_TIMEOUT_MS = 30_000
const HOLD_SLACK_MS = 60_000
const MAX_TIMEOUT_MS = 300_000

/** Clamps a `maxAgeMs` as the SDK says: negative to 0, above a year to a year. */
export const clampMaxAge = (value: number | null | undefined): number =>
  value === undefined || value === null || !Number.isFinite(value) ? DEFAULT_MAX_AGE_MS : Math.min(MAX_MAX_AGE_MS, Math.max(0, Math.floor(value)))

const TimeoutOpts = Schema.Struct({
  milliseconds: Schema.Int.pipe(Schema.greaterThanOrEqualTo(1)),
  behavior: Schema.optional(Schema.Literal("fail", "return-partial"))
})
const Tags = Schema.Array(Schema.String.pipe(Schema.minLength(1), Schema.maxLength(50))).pipe(Schema.maxItems(20))
const Text = (max: number) => Schema.String.pipe(Schema.minLength(1), Schema.maxLength(max))
const Common = {
  force_language: Schema.optional(Schema.NullOr(Schema.String.pipe(Schema.maxLength(40)))),
  maxAgeMs: Schema.optional(Schema.Number),
  maxSpeed: Schema.optional(Schema.Boolean),
  tags: Schema.optional(Tags),
  timeoutOpts: Schema.optional(TimeoutOpts)
}

/** The body of `POST /brand/retrieve`: one variant per `type`. */
export const RetrieveBody = Schema.Union(
  Schema.Struct({ type: Schema.Literal("by_domain"), domain: Text(253), ...Common }),
  Schema.Struct({ type: Schema.Literal("by_name"), name: Text(200), country_gl: Schema.optional(Text(8)), ...Common }),
  Schema.Struct({ type: Schema.Literal("by_email"), email: Text(320), ...Common }),
  Schema.Struct({ type: Schema.Literal("by_ticker"), ticker: Text(16), ticker_exchange: Schema.optional(Text(16)), ...Common }),
  Schema.Struct({ type: Schema.Literal("by_direct_url"), direct_url: Text(2048), tags: Schema.optional(Tags), timeoutOpts: Schema.optional(TimeoutOpts) }),
  Schema.Struct({
    type: Schema.Literal("by_transaction"),
    transaction_info: Text(500),
    city: Schema.optional(Text(100)),
    country_gl: Schema.optional(Text(8)),
    high_confidence_only: Schema.optional(Schema.Boolean),
    mcc: Schema.optional(Schema.Union(Schema.String, Schema.Number)),
    phone: Schema.optional(Schema.Union(Schema.String, Schema.Number)),
    ...Common
  })
).annotations({ description: "Retrieve a brand by exactly one identifier (10 credits)" })
/** @category models */
export type RetrieveBody = typeof RetrieveBody.Type

const decodeRetrieve = Schema.decodeUnknown(RetrieveBody, { onExcessProperty: "error", errors: "first" })

/** How a retrieval finds its site. */
type Lookup =
  | { readonly _tag: "Target"; readonly target: Brand.Target }
  | { readonly _tag: "Name"; readonly name: string }
  | { readonly _tag: "Ticker"; readonly ticker: string; readonly exchange: string }

/** A validated retrieval. */
export interface Retrieval {
  readonly lookup: Lookup
  readonly maxAgeMs: number
  readonly timeoutMs: number
  readonly behavior: "fail" | "return-partial"
  readonly maxSpeed: boolean
}

const invalid = (field: string, detail: string) => new Errors.InvalidRequest({ reason: "Invalid", field, detail })

const timeoutOf = (timeout: typeof TimeoutOpts.Type | undefined): Either.Either<number, Errors.InvalidRequest> =>
  Either.map(CommonQuery.deadline(timeout), (t) => t?.milliseconds ?? DEFAULT_TIMEOUT_MS)

/** A domain input (`stripe.com`, `https://www.stripe.com/`) as its domain, or a 400 naming `field`. */
const domainInput = (value: string, field: string): Either.Either<string, Errors.InvalidRequest> => {
  const target = CompanyResolver.targetOf(value)
  return target === undefined || target.url !== undefined && !/^https?:\/\/[^/]+\/?$/i.test(value.trim())
    ? Either.left(invalid(field, "must be a domain such as example.com"))
    : Either.right(target.domain)
}

/** The domain of an email, refused when free or disposable (422, uncharged: validation runs before credits). */
export const emailDomain = (email: string, field: string): Either.Either<string, Errors.InvalidRequest | ErrorMapping.ApiFailure> => {
  const domain = Emails.domainOfEmail(email)
  if (domain === undefined) return Either.left(invalid(field, "must be an email address"))
  const kind = Emails.kindOf(domain)
  if (kind === "disposable") {
    return Either.left(new ErrorMapping.ApiFailure({ code: "DISPOSABLE_EMAIL_DETECTED", detail: `${field}: ${domain} is a disposable email domain` }))
  }
  if (kind === "free") {
    return Either.left(new ErrorMapping.ApiFailure({ code: "FREE_EMAIL_DETECTED", detail: `${field}: ${domain} is a free email provider, not a company's domain` }))
  }
  return Either.right(domain)
}

// Card processors' and payment services' prefixes of a statement line, and what follows the merchant's name.
const TRANSACTION_NOISE = /^(sq|tst|sp|pp|paypal|ic|dd|pos|ach|chk|dbt|purchase|payment)\s*\*\s*|\s*\*\s*|\b\d[\d\s.\-/#]*\b|\b(www|com|inc|llc|ltd)\b/gi

/** A card statement's merchant name: processor prefixes, numbers and punctuation taken out. */
export const merchantOf = (info: string): string =>
  info.replace(TRANSACTION_NOISE, " ").replace(/[^\p{L}\p{N}&' ]+/gu, " ").replace(/\s+/g, " ").trim()

const lookupOf = (body: RetrieveBody): Either.Either<Lookup, Errors.InvalidRequest | ErrorMapping.ApiFailure> => {
  switch (body.type) {
    case "by_domain":
      return Either.map(domainInput(body.domain, "domain"), (domain) => ({ _tag: "Target" as const, target: { domain } }))
    case "by_email":
      return Either.map(emailDomain(body.email, "email"), (domain) => ({ _tag: "Target" as const, target: { domain } }))
    case "by_direct_url": {
      const target = /^https?:\/\//i.test(body.direct_url.trim()) ? CompanyResolver.targetOf(body.direct_url) : undefined
      if (target === undefined) return Either.left(invalid("direct_url", "must be an http:// or https:// URL"))
      return Either.right({ _tag: "Target", target: { domain: target.domain.replace(/:\d+$/, ""), url: target.url ?? new URL(body.direct_url.trim()).href } })
    }
    case "by_ticker": {
      const ticker = body.ticker.trim().toUpperCase()
      if (!/^[A-Z0-9][A-Z0-9.\-]{0,15}$/.test(ticker)) return Either.left(invalid("ticker", "must be a stock ticker such as AAPL"))
      const listing = Tickers.find(ticker, body.ticker_exchange)
      // A ticker the table does not list is searched for (the search provider), as a name is.
      if (listing === undefined) return Either.right({ _tag: "Ticker", ticker, exchange: body.ticker_exchange?.trim().toUpperCase() ?? "NASDAQ" })
      return Either.right({ _tag: "Target", target: { domain: listing.domain } })
    }
    case "by_name":
      return body.name.trim() === "" ? Either.left(invalid("name", "must name a company")) : Either.right({ _tag: "Name", name: body.name.trim() })
    case "by_transaction": {
      const merchant = merchantOf(body.transaction_info)
      if (merchant.length < 2) return Either.left(invalid("transaction_info", "names no merchant"))
      return Either.right({ _tag: "Name", name: body.city === undefined ? merchant : `${merchant} ${body.city}` })
    }
  }
}

const readRetrieve = (body: unknown) =>
  Effect.gen(function*() {
    const decoded = yield* Effect.mapError(decodeRetrieve(body), (error: ParseResult.ParseError) => QueryParams.fromParseError(error))
    const timeoutMs = yield* timeoutOf(decoded.timeoutOpts)
    const lookup = yield* lookupOf(decoded)
    const retrieval: Retrieval = {
      lookup,
      maxAgeMs: clampMaxAge("maxAgeMs" in decoded ? decoded.maxAgeMs : undefined),
      timeoutMs,
      behavior: decoded.timeoutOpts?.behavior ?? "fail",
      maxSpeed: "maxSpeed" in decoded && decoded.maxSpeed === true
    }
    return { retrieval, tags: decoded.tags ?? [] }
  })

/** What a retrieval answered with: the brand, and whether the store had it. */
export interface Obtained {
  readonly brand: Brand.Brand
  readonly cache: { readonly status: "hit" | "miss"; readonly age_ms: number }
  readonly partial: boolean
}

/** What retrievals need. */
export type Services = Fetcher.Fetcher | SqlClient.SqlClient | BlobStore.BlobStore | CompanyResolver.CompanyIndex | CompanyResolver.CompanySearch

/** What a retrieval may fail with. */
export type RetrieveError = Errors.InvalidRequest | Errors.WebsiteError | Errors.RequestTimeout | ErrorMapping.ApiFailure

/** Result URLs of the search provider for `query`; 503 `SEARCH_UNAVAILABLE` when none is configured or it fails. */
const searchUrls = (query: string) =>
  Effect.gen(function*() {
    const search = yield* Effect.serviceOption(CompanyResolver.CompanySearch)
    if (Option.isNone(search)) {
      return yield* new Errors.WebsiteError({ reason: "SearchUnavailable", url: query, detail: "no search provider is configured (SIFT_SEARXNG_URL)" })
    }
    return yield* search.value.search(query)
  })

/**
 * The domain of a name: a domain given as the name, retrieved brands, then the URL index's titles, then the search
 * provider. Short names (IBM, HP, 3M) are names here, not refused as core's resolver refuses inputs under 4 characters.
 */
const domainOfName = (name: string) =>
  Effect.gen(function*() {
    const direct = CompanyResolver.targetOf(name)
    if (direct !== undefined && direct.url === undefined) return direct.domain
    const known = yield* ErrorMapping.dieOnInfrastructure(Store.domainByName(name))
    if (known !== undefined) return known
    const index = yield* Effect.serviceOption(CompanyResolver.CompanyIndex)
    if (Option.isSome(index)) {
      const mapped = yield* index.value.findDomain(name)
      if (Option.isSome(mapped)) return mapped.value
    }
    const domain = CompanyResolver.pickDomain(yield* searchUrls(name))
    if (domain === undefined) return yield* new Errors.WebsiteError({ reason: "NotFound", url: name, detail: "no website found for this name" })
    return domain
  })

// Market-data, brokerage and filing sites: a ticker's results list them ahead of the company's own site.
const MARKET_SITES =
  /(^|\.)(yahoo\.com|nasdaq\.com|nyse\.com|marketwatch\.com|bloomberg\.com|reuters\.com|cnbc\.com|investing\.com|morningstar\.com|seekingalpha\.com|fool\.com|zacks\.com|tradingview\.com|stockanalysis\.com|macrotrends\.net|barrons\.com|wsj\.com|ft\.com|marketbeat\.com|finviz\.com|robinhood\.com|etoro\.com|companiesmarketcap\.com|stocktwits\.com|sec\.gov|otcmarkets\.com|londonstockexchange\.com|tmx\.com|euronext\.com|google\.com|wikipedia\.org)$/i

/** The domain of a listed ticker the bundled table lacks: the first company site among the search results. */
const domainOfTicker = (ticker: string, exchange: string) =>
  Effect.gen(function*() {
    const urls = yield* searchUrls(`"${ticker}" ${exchange} stock investor relations`)
    const domain = CompanyResolver.pickDomain(urls.filter((url) => !MARKET_SITES.test(CompanyResolver.domainOf(url) ?? "")))
    if (domain === undefined) {
      return yield* new ErrorMapping.ApiFailure({ code: "NOT_FOUND", detail: `ticker: no company site found for ${ticker} on ${exchange}` })
    }
    return domain
  })

/**
 * A brand for a target: the kept one while younger than `maxAgeMs`, else read from the site (a cold domain needs a
 * deadline of 10 s or more), its images stored as assets and the brand kept (not a partial one).
 */
export const obtain = (retrieval: Retrieval): Effect.Effect<Obtained, RetrieveError, Services> =>
  Effect.gen(function*() {
    const lookup = retrieval.lookup
    const target: Brand.Target = lookup._tag === "Target"
      ? lookup.target
      : { domain: lookup._tag === "Name" ? yield* domainOfName(lookup.name) : yield* domainOfTicker(lookup.ticker, lookup.exchange) }
    const key = target.url === undefined ? `domain:${target.domain}` : `url:${target.url}`
    const kept = yield* ErrorMapping.dieOnInfrastructure(Store.get(key))
    const now = yield* Clock.currentTimeMillis
    const indexed = target.url === undefined
    if (kept !== undefined && now - kept.fetchedAt.getTime() <= retrieval.maxAgeMs) {
      if (indexed) yield* ErrorMapping.dieOnInfrastructure(Store.countRetrieval(target.domain))
      return { brand: kept.brand, cache: { status: "hit", age_ms: Math.max(0, now - kept.fetchedAt.getTime()) }, partial: false }
    }
    if (retrieval.timeoutMs < COLD_MIN_TIMEOUT_MS) {
      return yield* new ErrorMapping.ApiFailure({
        code: "COLD_DOMAIN_TIMEOUT_TOO_LOW",
        detail: `timeoutOpts.milliseconds: ${target.domain} is not cached; an uncached brand lookup needs at least ${COLD_MIN_TIMEOUT_MS} ms`
      })
    }
    // Interruptible: the platform runs handlers uninterruptibly, and the deadline must be able to stop a fetch.
    const result = yield* Effect.interruptible(Brand.retrieve(target, {
      timeoutMs: retrieval.timeoutMs,
      timeoutBehavior: retrieval.behavior,
      maxSpeed: retrieval.maxSpeed
    })).pipe(
      // A wall or challenge in place of the home page is WEBSITE_ACCESS_ERROR, one of the brand errors wave2 §10 names.
      Effect.catchIf(
        (error): error is Errors.WebsiteError => error._tag === "WebsiteError" && error.reason === "Blocked",
        (error) => Effect.fail(new ErrorMapping.ApiFailure({ code: "WEBSITE_ACCESS_ERROR", detail: error.message }))
      )
    )
    yield* Assets.store(result.assets)
    if (result.partial !== true) {
      yield* ErrorMapping.dieOnInfrastructure(Store.put(key, result.brand, { index: indexed }))
      if (indexed) yield* ErrorMapping.dieOnInfrastructure(Store.countRetrieval(target.domain))
    }
    return { brand: result.brand, cache: { status: "miss", age_ms: 0 }, partial: result.partial === true }
  })

const links = (brand: Brand.Brand) => ({
  blog: brand.links.blog ?? null,
  careers: brand.links.careers ?? null,
  contact: brand.links.contact ?? null,
  pricing: brand.links.pricing ?? null,
  privacy: brand.links.privacy ?? null,
  terms: brand.links.terms ?? null
})

/** The brand as the SDK reads it: logos and backdrops at their asset URLs. */
export const wire = (brand: Brand.Brand, origin: string) => {
  const { backdrops, logos, ...rest } = brand
  return {
    ...rest,
    logos: logos.map(({ asset, ...logo }) => ({ ...logo, url: Assets.urlOf(origin, asset) })),
    backdrops: backdrops.map(({ asset, ...backdrop }) => ({ ...backdrop, url: Assets.urlOf(origin, asset) })),
    links: links(brand)
  }
}

/** `POST /brand/retrieve`: 10 credits. */
export const retrieve: Handler<
  Retrieval,
  Errors.InvalidRequest | ErrorMapping.ApiFailure,
  never,
  RetrieveError,
  Services | HttpServerRequest.HttpServerRequest
> = {
  validate: (caller) =>
    Effect.map(readRetrieve(caller.body), ({ retrieval, tags }): Plan<Retrieval> => ({
      input: retrieval,
      credits: 10,
      zdr: false,
      tags,
      holdMs: retrieval.timeoutMs + HOLD_SLACK_MS
    })),
  run: (_caller, retrieval) =>
    Effect.gen(function*() {
      const obtained = yield* obtain(retrieval)
      const origin = yield* publicOrigin
      return {
        body: {
          status: "ok",
          code: 200,
          brand: wire(obtained.brand, origin),
          cache_metadata: obtained.cache,
          ...(obtained.partial ? { partial: true } : {})
        },
        credits: 10
      }
    })
}

const { optional } = QueryParams

const maxAgeQuery = QueryParams.reading(Schema.NullOr(Schema.Number), (value, field) => {
  const text = QueryParams.readString(value, field)
  if (text === "" || text === "null") return null
  const number = Number(text)
  if (!Number.isFinite(number)) throw invalid(field, "must be a number")
  return number
})

/** The query of `GET /brand/retrieve-simplified`. */
export const SimplifiedQuery = Schema.Struct({
  domain: QueryParams.text(253).annotations({ description: "The brand's domain" }),
  maxAgeMs: optional(maxAgeQuery.annotations({ description: "Oldest kept brand to answer with, ms (default 3 months, at most 1 year)" })),
  theme: optional(QueryParams.oneOf("light", "dark").annotations({ description: "Logos for this theme first" })),
  tags: optional(QueryParams.tags),
  timeoutOpts: optional(QueryParams.timeoutOpts)
})

const decodeSimplified = QueryParams.decode(SimplifiedQuery)

interface Simplified {
  readonly retrieval: Retrieval
  readonly theme: "light" | "dark" | undefined
}

/** `GET /brand/retrieve-simplified`: 5 credits; domain, title, colors, logos and backdrops. */
export const retrieveSimplified: Handler<
  Simplified,
  Errors.InvalidRequest,
  never,
  RetrieveError,
  Services | HttpServerRequest.HttpServerRequest
> = {
  validate: (caller) =>
    Effect.gen(function*() {
      const query = yield* decodeSimplified(caller.query)
      if (query.domain === undefined) return yield* invalid("domain", "is required")
      const domain = yield* domainInput(query.domain, "domain")
      const timeoutMs = yield* timeoutOf(query.timeoutOpts)
      return {
        input: {
          retrieval: { lookup: { _tag: "Target", target: { domain } }, maxAgeMs: clampMaxAge(query.maxAgeMs), timeoutMs, behavior: query.timeoutOpts?.behavior ?? "fail", maxSpeed: false },
          theme: query.theme as "light" | "dark" | undefined
        },
        credits: 5,
        zdr: false,
        tags: query.tags ?? [],
        holdMs: timeoutMs + HOLD_SLACK_MS
      } satisfies Plan<Simplified>
    }),
  run: (_caller, { retrieval, theme }) =>
    Effect.gen(function*() {
      const obtained = yield* obtain(retrieval)
      const origin = yield* publicOrigin
      const full = wire(obtained.brand, origin)
      // A theme puts the logos made for it first (opaque ones suit both), keeping relevance order otherwise.
      const rank = (mode: string) => (theme === undefined || mode === theme ? 0 : mode === "has_opaque_background" ? 1 : 2)
      const logos = theme === undefined ? full.logos : [...full.logos].sort((a, b) => rank(a.mode) - rank(b.mode))
      return {
        body: {
          status: "ok",
          code: 200,
          brand: { domain: full.domain, ...(full.title === undefined ? {} : { title: full.title }), colors: full.colors, logos, backdrops: full.backdrops },
          cache_metadata: obtained.cache,
          ...(obtained.partial ? { partial: true } : {})
        },
        credits: 5
      }
    })
}

const typoTolerance = QueryParams.integer.pipe(QueryParams.check((n: number) => n >= 0 && n <= 2, "must be 0, 1 or 2"))
const queryBy = QueryParams.list({ commaSeparated: true }).pipe(
  QueryParams.check((values: ReadonlyArray<string>) => values.length > 0 && values.every((v) => v === "name" || v === "domain"), "must list name and/or domain")
)

/** The query of `GET /brand/search`. */
export const SearchQuery = Schema.Struct({
  query: QueryParams.text(200).annotations({ description: "Matched against names and/or domains ('nike', 'nike.com', 'nik')" }),
  autocomplete: optional(QueryParams.boolean.annotations({ description: "Prefix matching (default true); false matches whole words only" })),
  queryBy: optional(queryBy.annotations({ description: "name, domain or both (default both)" })),
  typoTolerance: optional(typoTolerance.annotations({ description: "Edits allowed, 0 to 2 (default 0)" })),
  tags: optional(QueryParams.tags)
})

const decodeSearch = QueryParams.decode(SearchQuery)

/** A validated search. */
export interface Search {
  readonly query: string
  readonly autocomplete: boolean
  readonly byName: boolean
  readonly byDomain: boolean
  readonly typoTolerance: number
}

/** Levenshtein distance, stopping early past `max`. */
export const editDistance = (a: string, b: string, max: number): number => {
  if (Math.abs(a.length - b.length) > max) return max + 1
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i)
  for (let i = 1; i <= a.length; i++) {
    const current = [i]
    let best = i
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1))
      best = Math.min(best, current[j]!)
    }
    if (best > max) return max + 1
    previous = current
  }
  return previous[b.length]!
}

/** Whether `text` (normalized words) matches `query` (normalized) as a prefix or whole words, within `typos` edits. */
export const textMatches = (text: string, query: string, autocomplete: boolean, typos: number): boolean => {
  if (query === "" || text === "") return false
  const words = text.split(" ")
  const span = query.split(" ").length
  // Each run of as many words as the query has, from every word on.
  for (let i = 0; i + span <= words.length || i === 0 && words.length < span; i++) {
    const run = words.slice(i, i + span).join(" ")
    const candidate = autocomplete ? run.slice(0, Math.max(query.length, 1)) : run
    if (candidate === query) return true
    if (typos > 0 && query.length > typos + 1 && editDistance(candidate, query, typos) <= typos) return true
    // A prefix one edit shorter or longer than the query (autocomplete with a dropped or doubled letter).
    if (typos > 0 && autocomplete) {
      for (let d = -typos; d <= typos; d++) {
        if (d === 0) continue
        const prefix = run.slice(0, query.length + d)
        if (prefix.length > typos && editDistance(prefix, query, typos) <= typos) return true
      }
    }
  }
  return false
}

/** Ranks candidates: name matches first, then domain matches, each by popularity; at most 10. */
export const rank = (rows: ReadonlyArray<Store.IndexRow>, search: Search): Array<Store.IndexRow> => {
  const key = Store.normalize(search.query)
  const domainQuery = search.query.trim().toLowerCase().replace(/^https?:\/\//, "").replace(/^www\./, "").replace(/\/.*$/, "")
  const byName: Array<Store.IndexRow> = []
  const byDomain: Array<Store.IndexRow> = []
  for (const row of rows) {
    if (search.byName && textMatches(row.name_key, key, search.autocomplete, search.typoTolerance)) byName.push(row)
    else if (search.byDomain && (
      (search.autocomplete ? row.domain.startsWith(domainQuery) : row.domain === domainQuery || Store.domainLabel(row.domain) === domainQuery) ||
      search.typoTolerance > 0 && textMatches(Store.normalize(Store.domainLabel(row.domain)), Store.normalize(domainQuery.split(".")[0] ?? ""), search.autocomplete, search.typoTolerance)
    )) byDomain.push(row)
  }
  const popular = (a: Store.IndexRow, b: Store.IndexRow) => b.retrievals - a.retrievals
  return [...byName.sort(popular), ...byDomain.sort(popular)].slice(0, 10)
}

/** `GET /brand/search`: 1 credit. */
export const search: Handler<
  Search,
  Errors.InvalidRequest,
  never,
  never,
  SqlClient.SqlClient | HttpServerRequest.HttpServerRequest
> = {
  validate: (caller) =>
    Effect.gen(function*() {
      const query = yield* decodeSearch(caller.query)
      if (query.query === undefined || query.query.trim() === "") return yield* invalid("query", "is required")
      const by = query.queryBy ?? ["name", "domain"]
      return {
        input: {
          query: query.query,
          autocomplete: query.autocomplete ?? true,
          byName: by.includes("name"),
          byDomain: by.includes("domain"),
          typoTolerance: query.typoTolerance ?? 0
        },
        credits: 1,
        zdr: false,
        tags: query.tags ?? [],
        holdMs: 60_000
      } satisfies Plan<Search>
    }),
  run: (_caller, input) =>
    Effect.gen(function*() {
      const rows = yield* Effect.orDie(Store.candidates(input.query, { fuzzy: input.typoTolerance > 0, limit: 200 }))
      // Mapped sites (the URL index) by their home page's title, matched as names are; a retrieved brand's row wins.
      const retrieved = new Set(rows.map((row) => row.domain))
      const mapped = yield* Effect.orDie(Store.mappedCandidates(input.query, { typos: input.typoTolerance, limit: 200 }))
      const mappedRows = mapped.filter((row) => !retrieved.has(row.domain)).map((row): Store.IndexRow => ({
        domain: row.domain,
        name: Brand.titleBrand(row.title, row.domain),
        name_key: Store.normalize(row.title),
        logo: "",
        retrievals: 0
      }))
      const ranked = rank([...rows, ...mappedRows], input)
      const origin = yield* publicOrigin
      const results = ranked.map((row) => ({ domain: row.domain, name: row.name, logo: row.logo === "" ? "" : `${origin}${Assets.PATH_PREFIX}${row.logo}` }))
      return { body: { results }, credits: 1 }
    })
}

/** Queues prefetches (the prefetch endpoint's service; `Prefetch.layer` runs them). @category services */
export class BrandPrefetch extends Context.Tag("@sift/http/BrandPrefetch")<BrandPrefetch, {
  /** Queues a brand retrieval or a styleguide read of `domain` as a durable job. */
  readonly queue: (type: "brand" | "styleguide", domain: string, timeoutMs: number) => Effect.Effect<void>
}>() {}

/** The body of `POST /utility/prefetch`. */
export const PrefetchBody = Schema.Struct({
  type: Schema.Literal("brand", "styleguide"),
  identifier: Schema.Struct({ domain: Schema.optional(Text(253)), email: Schema.optional(Text(320)) }),
  tags: Schema.optional(Tags),
  timeoutOpts: Schema.optional(Schema.Struct({
    milliseconds: Schema.Int.pipe(Schema.between(1, MAX_TIMEOUT_MS)),
    behavior: Schema.optional(Schema.Literal("fail").annotations({ message: () => "only \"fail\" is supported" }))
  }))
}).annotations({ description: "Queue a brand retrieval so a later call is a cache hit (0 credits)" })

const decodePrefetch = Schema.decodeUnknown(PrefetchBody, { onExcessProperty: "error", errors: "first" })

interface Prefetch {
  readonly type: "brand" | "styleguide"
  readonly domain: string
  readonly timeoutMs: number
}

/** `POST /utility/prefetch`: 0 credits, outside rate limits. */
export const prefetch: Handler<Prefetch, Errors.InvalidRequest | ErrorMapping.ApiFailure, never, never, BrandPrefetch> = {
  validate: (caller) =>
    Effect.gen(function*() {
      const body = yield* Effect.mapError(decodePrefetch(caller.body), (error: ParseResult.ParseError) => QueryParams.fromParseError(error))
      const { domain, email } = body.identifier
      if ((domain === undefined) === (email === undefined)) return yield* invalid("identifier", "must have exactly one of domain or email")
      const resolved = domain !== undefined ? yield* domainInput(domain, "identifier.domain") : yield* emailDomain(email!, "identifier.email")
      const timeoutMs = body.timeoutOpts?.milliseconds ?? 60_000
      return {
        input: { type: body.type, domain: resolved, timeoutMs: Math.max(COLD_MIN_TIMEOUT_MS, timeoutMs) },
        credits: 0,
        zdr: false,
        tags: body.tags ?? [],
        holdMs: 60_000
      } satisfies Plan<Prefetch>
    }),
  run: (_caller, input) =>
    Effect.gen(function*() {
      yield* Effect.flatMap(BrandPrefetch, (prefetcher) => prefetcher.queue(input.type, input.domain, input.timeoutMs))
      return {
        body: {
          status: "ok",
          type: input.type,
          domain: input.domain,
          message: `Queued a ${input.type === "brand" ? "brand retrieval" : "styleguide read"} of ${input.domain}`
        },
        credits: 0
      }
    })
}

