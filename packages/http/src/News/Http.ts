/**
 * `POST /news/search` (wave2 §12): one company's news, identified by name, domain, ticker or ISIN, from what the
 * article table holds: the company's own feeds (`press_release`, `source.direct`), its SEC EDGAR filings
 * (`regulatory_filing`, when a ticker or ISIN maps to a CIK) and the configured publisher feeds (`editorial`, matched
 * by the company's names in headline or summary). The company's own feeds and filings are read during the request
 * when not read within `SIFT_NEWS_REFRESH_MS`; publisher feeds are polled in the background (`News/Poller`).
 *
 * Credits (§21.1): 1 per 10 articles returned, rounded up, at least 1; the reservation is that of a full page.
 *
 * @since 0.1.0
 */
import type * as SqlClient from "@effect/sql/SqlClient"
import { Errors, ScrapeRequest } from "@sift/core"
import * as News from "@sift/core/News"
import { Config, Duration, Effect, type ParseResult, Schema } from "effect"
import { createHash } from "node:crypto"
import { ApiFailure } from "../ErrorMapping.js"
import type { Handler } from "../RequestPipeline.js"
import * as Tickers from "../Brand/Tickers.js"
import * as Store from "./Store.js"

const EXCHANGES = ["AMEX", "AMS", "AQS", "ASX", "ATH", "BER", "BME", "BRU", "BSE", "BUD", "BUE", "BVC", "CBOE", "CNQ", "CPH", "DFM", "DOH", "DUB", "DUS", "DXE",
  "EGX", "FSX", "HAM", "HEL", "HKSE", "HOSE", "ICE", "IOB", "IST", "JKT", "JNB", "JPX", "KLS", "KOE", "KSC", "KUW", "LIS", "LSE", "MCX", "MEX", "MIL", "MUN",
  "NASDAQ", "NEO", "NSE", "NYSE", "NZE", "OSL", "OTC", "PAR", "PNK", "PRA", "RIS", "SAO", "SAU", "SES", "SET", "SGO", "SHH", "SHZ", "SIX", "STO", "STU",
  "TAI", "TAL", "TLV", "TSX", "TSXV", "TWO", "VIE", "WSE", "XETRA"] as const
const LANGUAGES = News.LANGUAGES
const TYPES = ["editorial", "press_release", "regulatory_filing", "advisory"] as const
const COUNTRIES = ["ae", "ar", "au", "ca", "cg", "ch", "cl", "cz", "de", "fi", "fr", "gb", "hk", "il", "in", "jp", "kr", "mx", "ng", "nl", "qa", "sa", "se",
  "sg", "us", "za"] as const

const upTo3 = <A, I>(item: Schema.Schema<A, I>) => Schema.Array(item).pipe(Schema.maxItems(3))
const Text = Schema.String.pipe(Schema.minLength(1), Schema.maxLength(253))

/** The company to search news for. */
export const Entity = Schema.Union(
  Schema.Struct({ type: Schema.Literal("name"), name: Text }),
  Schema.Struct({ type: Schema.Literal("domain"), domain: Text }),
  Schema.Struct({ type: Schema.Literal("ticker"), ticker: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(12)), exchange: Schema.optional(Schema.Literal(...EXCHANGES)) }),
  Schema.Struct({ type: Schema.Literal("isin"), isin: Schema.String.pipe(Schema.pattern(/^[A-Za-z]{2}[A-Za-z0-9]{9}[0-9]$/, { message: () => "must be a 12-character ISIN" })) })
)

/** The body of `POST /news/search`. */
export const NewsSearchBody = Schema.Struct({
  searchBy: Schema.Struct({ type: Schema.Literal("entity"), entity: Entity }),
  cursor: Schema.optional(Schema.NullOr(Schema.String.pipe(Schema.maxLength(512)))),
  filterBy: Schema.optional(Schema.Struct({
    articleLanguage: Schema.optional(upTo3(Schema.Literal(...LANGUAGES))),
    articleType: Schema.optional(upTo3(Schema.Literal(...TYPES))),
    date: Schema.optional(Schema.Struct({ from: Schema.optional(Schema.Number), to: Schema.optional(Schema.Number) })),
    sourceCountry: Schema.optional(upTo3(Schema.Literal(...COUNTRIES))),
    sourceDomain: Schema.optional(upTo3(Text))
  })),
  limit: Schema.optional(Schema.Int.pipe(Schema.between(1, 100))).annotations({ description: "1 to 100 (default 10)" }),
  sortBy: Schema.optional(Schema.Struct({ type: Schema.Literal("relevance", "newest") })),
  tags: Schema.optional(ScrapeRequest.Tags)
}).annotations({ description: "A company's news from its own feeds, its SEC filings and the configured publisher feeds (1 credit per 10 articles)" })

type Body = typeof NewsSearchBody.Type

const decode = Schema.decodeUnknown(NewsSearchBody, { onExcessProperty: "error", errors: "first" })

/** Credits of a page of `count` articles. */
export const creditsFor = (count: number) => Math.max(1, Math.ceil(count / 10))

// The company's own feeds and filings are read during a request for at most this long.
const REFRESH_BUDGET = Duration.seconds(20)

const settings = Config.all({
  refreshMs: Config.integer("SIFT_NEWS_REFRESH_MS").pipe(Config.withDefault(600_000)),
  edgar: Config.boolean("SIFT_NEWS_EDGAR").pipe(Config.withDefault(true))
})

const notFound = (detail: string) => new ApiFailure({ code: "NOT_FOUND", detail })

const domainOf = (value: string): string | undefined => {
  const text = value.trim().toLowerCase()
  try {
    const host = new URL(/^https?:\/\//.test(text) ? text : `http://${text}`).hostname.replace(/^www\./, "")
    return /^[a-z0-9-]+(\.[a-z0-9-]+)+$/.test(host) ? host : undefined
  } catch {
    return undefined
  }
}

const capitalized = (label: string) => label.charAt(0).toUpperCase() + label.slice(1)

/** The entity of a request, with what the companies table knows (an unknown ticker or ISIN is 404). */
const resolve = (entity: Body["searchBy"]["entity"]): Effect.Effect<News.Entity, ApiFailure | Errors.InvalidRequest> => {
  switch (entity.type) {
    case "name": {
      const company = News.companies.byName(entity.name)
      return Effect.succeed({ name: entity.name.trim(), domain: company?.domain, aliases: company === undefined ? [] : [company.name], cik: company?.cik })
    }
    case "domain": {
      const domain = domainOf(entity.domain)
      if (domain === undefined) return Effect.fail(new Errors.InvalidRequest({ reason: "Invalid", field: "searchBy.entity.domain", detail: "must be a domain such as example.com" }))
      const company = News.companies.byDomain(domain)
      return Effect.succeed({ name: company?.name ?? capitalized(domain.split(".")[0]!), domain, aliases: [], cik: company?.cik })
    }
    case "ticker": {
      const company = News.companies.byTicker(entity.ticker, entity.exchange)
      if (company !== undefined) return Effect.succeed({ name: company.name, domain: company.domain, aliases: [company.ticker], cik: company.cik })
      const listing = Tickers.find(entity.ticker, entity.exchange)
      if (listing === undefined) return Effect.fail(notFound(`ticker ${entity.ticker.toUpperCase()} is not in the companies table (SIFT_NEWS_COMPANIES_FILE extends it)`))
      return Effect.succeed({ name: capitalized(listing.domain.split(".")[0]!), domain: listing.domain, aliases: [listing.ticker], cik: undefined })
    }
    case "isin": {
      const company = News.companies.byIsin(entity.isin)
      if (company === undefined) return Effect.fail(notFound(`ISIN ${entity.isin.toUpperCase()} is not in the companies table (SIFT_NEWS_COMPANIES_FILE extends it)`))
      return Effect.succeed({ name: company.name, domain: company.domain, aliases: [company.ticker], cik: company.cik })
    }
  }
}

const stale = (url: string, refreshMs: number) =>
  Effect.map(Store.lastPolled(url), (at) => at === undefined || Date.now() - at.getTime() > refreshMs)

/** Reads the company's own feeds and its EDGAR filings into the store when not read lately; returns the site's name. */
const refresh = (entity: News.Entity) =>
  Effect.gen(function*() {
    const config = yield* Effect.orDie(settings)
    const source = yield* News.NewsSource
    let siteName: string | undefined
    if (entity.domain !== undefined && (yield* stale(`site:${entity.domain}`, config.refreshMs))) {
      const domain = entity.domain
      const found = yield* Effect.either(source.companyFeeds(domain))
      if (found._tag === "Right") {
        siteName = found.right.name
        const company: News.FeedSource = { domain, name: siteName ?? entity.name, direct: true, type: "press_release" }
        yield* Effect.forEach(found.right.feeds, (feed) =>
          source.readFeed(feed, company).pipe(
            Effect.flatMap((articles) => Store.store(articles, feed, domain)),
            Effect.tap((articles) => Store.recordPoll(feed, "company", domain, { ok: true, articles })),
            Effect.catchAll((error) => Store.recordPoll(feed, "company", domain, { ok: false, error: error.message.slice(0, 500) }))
          ), { concurrency: 4, discard: true })
      }
      yield* Store.recordPoll(`site:${domain}`, "site", domain, found._tag === "Right" ? { ok: true, articles: found.right.feeds.length } : { ok: false, error: found.left.message.slice(0, 500) })
    }
    if (entity.cik !== undefined && config.edgar) {
      const feed = source.edgarFeedUrl(entity.cik)
      if (yield* stale(feed, config.refreshMs)) {
        const company = `cik:${entity.cik}`
        yield* source.readFeed(feed, { domain: "sec.gov", name: "SEC EDGAR", direct: false, type: "regulatory_filing" }).pipe(
          Effect.flatMap((articles) => Store.store(articles, feed, company)),
          Effect.tap((articles) => Store.recordPoll(feed, "edgar", company, { ok: true, articles })),
          Effect.catchAll((error) => Store.recordPoll(feed, "edgar", company, { ok: false, error: error.message.slice(0, 500) }))
        )
      }
    }
    return siteName
  }).pipe(
    Effect.timeout(REFRESH_BUDGET),
    Effect.catchAll(() => Effect.succeed(undefined)),
    Effect.catchAllDefect((defect) => Effect.as(Effect.logWarning("news refresh failed", defect), undefined))
  )

// Publisher countries from the domain's country-code TLD (a .com publisher has no known country).
const countryOf = (domain: string): string | undefined => {
  const tld = domain.split(".").at(-1) ?? ""
  return tld === "uk" ? "gb" : /^[a-z]{2}$/.test(tld) ? tld : undefined
}

const onDomain = (domain: string, filter: string) => {
  const wanted = filter.trim().toLowerCase().replace(/^https?:\/\//, "").replace(/^www\./, "").replace(/\/.*$/, "")
  return domain === wanted || domain.endsWith(`.${wanted}`)
}

interface Cursor {
  readonly o: number
  readonly k: string
}

const queryKey = (body: Body) => createHash("sha256").update(JSON.stringify([body.searchBy, body.filterBy ?? null, body.sortBy ?? null])).digest("hex").slice(0, 16)

const readCursor = (text: string, key: string): Cursor | undefined => {
  try {
    const cursor = JSON.parse(Buffer.from(text, "base64url").toString("utf8")) as Cursor
    return Number.isInteger(cursor.o) && cursor.o >= 0 && cursor.k === key ? cursor : undefined
  } catch {
    return undefined
  }
}

interface Input {
  readonly body: Body
  readonly limit: number
  readonly offset: number
  readonly key: string
}

/** `POST /news/search`: 1 credit per 10 articles returned (at least 1). */
export const search: Handler<Input, Errors.InvalidRequest, never, ApiFailure | Errors.InvalidRequest, News.NewsSource | SqlClient.SqlClient> = {
  validate: (caller) =>
    Effect.flatMap(
      Effect.mapError(decode(caller.body), (error: ParseResult.ParseError) => ScrapeRequest.fromParseError(error)),
      (body) => {
        const key = queryKey(body)
        let offset = 0
        if (body.cursor !== undefined && body.cursor !== null && body.cursor !== "") {
          const cursor = readCursor(body.cursor, key)
          if (cursor === undefined) return Effect.fail(new Errors.InvalidRequest({ reason: "Invalid", field: "cursor", detail: "not a cursor of this search (use next_cursor as given, with the same searchBy, filterBy and sortBy)" }))
          offset = cursor.o
        }
        const limit = body.limit ?? 10
        return Effect.succeed({ input: { body, limit, offset, key }, credits: creditsFor(limit), zdr: false, tags: body.tags ?? [], holdMs: 60_000 })
      }
    ),
  run: (_caller, { body, key, limit, offset }) =>
    Effect.gen(function*() {
      const resolved = yield* resolve(body.searchBy.entity)
      const siteName = yield* refresh(resolved)
      const entity: News.Entity = siteName !== undefined && body.searchBy.entity.type === "domain"
        ? { ...resolved, name: siteName, aliases: [...resolved.aliases, resolved.name] }
        : resolved
      const own = [...(entity.domain === undefined ? [] : [entity.domain]), ...(entity.cik === undefined ? [] : [`cik:${entity.cik}`])]
      const rows = yield* Effect.orDie(Store.candidates(own, News.namesOf(entity)))
      const filter = body.filterBy
      const matched = rows.flatMap((row) => {
        const publishedAt = row.published_at === null ? null : new Date(row.published_at)
        const m = News.match({ title: row.title, description: row.description, source: { domain: row.source_domain, name: row.source_name, direct: row.direct } }, entity, own.includes(row.company))
        if (m === undefined) return []
        if (filter?.articleLanguage !== undefined && (row.language === null || !(filter.articleLanguage as ReadonlyArray<string>).includes(row.language))) return []
        if (filter?.articleType !== undefined && !(filter.articleType as ReadonlyArray<string>).includes(row.type)) return []
        if (filter?.date?.from !== undefined && (publishedAt === null || publishedAt.getTime() < filter.date.from)) return []
        if (filter?.date?.to !== undefined && (publishedAt === null || publishedAt.getTime() > filter.date.to)) return []
        if (filter?.sourceCountry !== undefined && !(filter.sourceCountry as ReadonlyArray<string | undefined>).includes(countryOf(row.source_domain))) return []
        if (filter?.sourceDomain !== undefined && !filter.sourceDomain.some((d) => onDomain(row.source_domain, d))) return []
        return [{ row, match: m, publishedAt }]
      })
      const time = (p: Date | null) => p?.getTime() ?? -Infinity
      matched.sort((a, b) =>
        (body.sortBy?.type === "relevance" ? b.match.confidence - a.match.confidence : 0) ||
        time(b.publishedAt) - time(a.publishedAt) ||
        (a.row.id < b.row.id ? -1 : a.row.id > b.row.id ? 1 : 0))
      const page = matched.slice(offset, offset + limit)
      const hasMore = offset + limit < matched.length
      const data = page.map(({ match, publishedAt, row }) => ({
        id: row.id,
        authors: JSON.parse(row.authors) as Array<string>,
        description: row.description,
        image_url: row.image_url,
        language: row.language,
        match,
        published_at: publishedAt?.toISOString() ?? null,
        source: { direct: row.direct, domain: row.source_domain, name: row.source_name },
        story_id: row.story_id,
        title: row.title,
        type: row.type,
        url: row.url
      }))
      return {
        body: {
          data,
          has_more: hasMore,
          meta: { count: data.length },
          next_cursor: hasMore ? Buffer.from(JSON.stringify({ o: offset + limit, k: key })).toString("base64url") : null
        },
        credits: creditsFor(data.length)
      }
    })
}
