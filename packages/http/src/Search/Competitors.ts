/**
 * `GET /web/competitors` (wave2 §9): a company's direct competitors from its landing page and search evidence. The
 * landing page gives the target (`companyName` from its site name or title, `fieldDescription` from its meta
 * description, `field` the NAICS title Sift classifies it to); the search engine is asked for "<company>
 * competitors", "<company> alternatives" and "<field> companies"; each candidate domain's own home page is classified
 * and kept only in the target's industry: `high` when the same 6-digit code and found by two or more searches,
 * `medium` for the same code found once or the same 4-digit industry group. 10 credits (§21.1); 503
 * `SEARCH_UNAVAILABLE` without an engine, 502 when it fails, both uncharged.
 *
 * @since 0.1.0
 */
import { CompanyEvidence, CompanyResolver, Errors, type Fetcher, NaicsClassifier } from "@sift/core"
import * as SearchProvider from "@sift/core/SearchProvider"
import { Clock, Duration, Effect, Either, Option, Schema } from "effect"
import * as CommonQuery from "../internal/commonQuery.js"
import * as QueryParams from "../QueryParams.js"
import type { Handler } from "../RequestPipeline.js"

/** Limits of the query. */
export const limits = { numCompetitors: { min: 1, max: 10, default: 5 }, defaultTimeoutMs: 60_000, candidates: 15 } as const

const { optional } = QueryParams

/** The query. */
export const Query = Schema.Struct({
  domain: QueryParams.string.pipe(
    QueryParams.check((input: string) => input.trim() !== "", "is required"),
    QueryParams.check((input: string) => CompanyResolver.domainOf(input) !== undefined, "must be a domain or an http(s) URL")
  ).annotations({ description: "The company's domain (full URLs are normalized to their domain)" }),
  numCompetitors: optional(QueryParams.integer.pipe(
    QueryParams.check((n: number) => n >= limits.numCompetitors.min && n <= limits.numCompetitors.max, "must be an integer from 1 to 10")
  ).annotations({ description: "Competitors to return, 1 to 10 (default 5)" })),
  timeoutOpts: optional(QueryParams.timeoutOpts),
  zdr: optional(QueryParams.zdr),
  tags: optional(QueryParams.tags)
})

const decode = QueryParams.decode(Query)

interface Planned {
  readonly domain: string
  readonly numCompetitors: number
  readonly timeoutMs: number
  readonly behavior: "fail" | "return-partial"
}

/** A company's name from its home page: the site name, else the title's shortest telling part. */
export const companyNameOf = (page: CompanyEvidence.PageEvidence | undefined, domain: string): string => {
  const title = (page?.title ?? "").trim()
  const parts = title.split(/\s+[|\u2013\u2014:·-]\s+/).map((p) => p.trim()).filter((p) => p !== "")
  const fallback = domain.split(".")[0] ?? domain
  if (parts.length === 0) return fallback.charAt(0).toUpperCase() + fallback.slice(1)
  const label = fallback.toLowerCase()
  return parts.find((p) => p.toLowerCase().replace(/[^a-z0-9]/g, "").includes(label.replace(/[^a-z0-9]/g, ""))) ?? parts[parts.length > 1 ? parts.length - 1 : 0]!
}

interface Profile {
  readonly domain: string
  readonly url: string
  readonly name: string
  readonly description: string
  readonly code: NaicsClassifier.RankedCode | undefined
}

/** A company's home page read and classified. */
const profileOf = (domain: string, timeoutMs: number): Effect.Effect<Profile, Errors.WebsiteError | Errors.InvalidRequest, Fetcher.Fetcher> =>
  Effect.gen(function*() {
    const evidence = yield* CompanyEvidence.gather(domain, { timeoutMs, maxPages: 1 })
    const home = evidence.pages[0]
    const codes = yield* NaicsClassifier.classifyEffect(evidence, { maxResults: 1 })
    return {
      domain,
      url: home?.url ?? `https://${domain}/`,
      name: companyNameOf(home, domain),
      description: (home?.description ?? home?.jsonLdDescriptions[0] ?? "").trim(),
      code: codes[0]
    }
  })

/** `GET /web/competitors`: 10 credits. */
export const competitors: Handler<
  Planned,
  Errors.InvalidRequest,
  never,
  Errors.WebsiteError | Errors.InvalidRequest | Errors.RequestTimeout | SearchProvider.ProviderError,
  Fetcher.Fetcher | SearchProvider.SearchProvider
> = {
  validate: (caller) =>
    Either.gen(function*() {
      const read = yield* decode(caller.query)
      const timeout = yield* CommonQuery.deadline(read.timeoutOpts)
      const timeoutMs = timeout?.milliseconds ?? limits.defaultTimeoutMs
      return {
        input: {
          domain: CompanyResolver.domainOf(read.domain!)!,
          numCompetitors: read.numCompetitors ?? limits.numCompetitors.default,
          timeoutMs,
          behavior: timeout?.behavior ?? "fail"
        },
        credits: 10,
        zdr: read.zdr === "enabled",
        tags: read.tags ?? [],
        holdMs: timeoutMs + 60_000
      }
    }),
  run: (_caller, planned) =>
    Effect.gen(function*() {
      const engine = yield* SearchProvider.SearchProvider
      if (!engine.configured) return yield* new SearchProvider.ProviderError({ reason: "Unavailable", detail: SearchProvider.UNAVAILABLE_DETAIL })
      const started = yield* Clock.currentTimeMillis
      const left = Effect.map(Clock.currentTimeMillis, (now) => Math.max(1, planned.timeoutMs - (now - started)))
      const target = yield* profileOf(planned.domain, Math.min(15_000, yield* left))
      const field = target.code?.name ?? ""
      const queries = [`${target.name} competitors`, `${target.name} alternatives`, ...(field === "" ? [] : [`${field} companies`])]
      const lists = yield* Effect.forEach(queries, (query) =>
        Effect.flatMap(left, (ms) => engine.search({ query, numResults: 10, excludeDomains: [planned.domain], timeoutMs: ms })), { concurrency: 3 })
      // Candidates in first-seen order, with the searches and result URLs that named them.
      const candidates = new Map<string, { sets: Set<number>; sourceUrls: Array<string> }>()
      lists.forEach((hits, set) => {
        for (const hit of hits) {
          const domain = CompanyResolver.pickDomain([hit.url])
          if (domain === undefined || domain === planned.domain || domain.endsWith(`.${planned.domain}`)) continue
          const entry = candidates.get(domain) ?? { sets: new Set<number>(), sourceUrls: [] }
          entry.sets.add(set)
          if (!entry.sourceUrls.includes(hit.url)) entry.sourceUrls.push(hit.url)
          candidates.set(domain, entry)
        }
      })
      const checked: Array<{ profile: Profile; sets: number; sourceUrls: Array<string>; order: number }> = []
      const check = Effect.forEach([...candidates.entries()].slice(0, limits.candidates), ([domain, entry], order) =>
        Effect.flatMap(left, (ms) =>
          profileOf(domain, Math.min(10_000, ms)).pipe(
            Effect.tap((profile) => Effect.sync(() => checked.push({ profile, sets: entry.sets.size, sourceUrls: entry.sourceUrls, order }))),
            Effect.catchAll(() => Effect.void)
          )), { concurrency: 4, discard: true })
      const finished = yield* Effect.timeoutOption(check, Duration.millis(yield* left))
      // A candidate's read ends at the request's deadline too, and its failure is dropped: if the deadline has come and a
      // candidate is missing, the deadline cut the work, whichever timer fired first.
      const elapsed = (yield* Clock.currentTimeMillis) - started
      const cut = Option.isNone(finished) || (elapsed >= planned.timeoutMs && checked.length < Math.min(candidates.size, limits.candidates))
      if (cut && planned.behavior === "fail") {
        return yield* new Errors.RequestTimeout({ milliseconds: planned.timeoutMs, detail: "the candidates were not all read in time" })
      }
      const targetCode = target.code?.code ?? ""
      const kept = checked.flatMap(({ profile, sets, sourceUrls, order }) => {
        const code = profile.code?.code ?? ""
        if (targetCode === "" || code === "") return []
        const same = code === targetCode
        if (!same && code.slice(0, 4) !== targetCode.slice(0, 4)) return []
        const confidence = same && sets >= 2 ? "high" as const : "medium" as const
        return [{ confidence, order, competitor: { confidence, description: profile.description, domain: profile.domain, name: profile.name, sourceUrls, url: profile.url } }]
      }).sort((a, b) => (a.confidence === b.confidence ? 0 : a.confidence === "high" ? -1 : 1) || a.order - b.order)
      return {
        body: {
          competitors: kept.slice(0, planned.numCompetitors).map((k) => k.competitor),
          domain: planned.domain,
          status: "ok",
          target: { companyName: target.name, field, fieldDescription: target.description, websiteUrl: target.url },
          ...(cut ? { partial: true } : {})
        },
        credits: 10
      }
    }).pipe(Effect.interruptible)
}
