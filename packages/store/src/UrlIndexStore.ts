/**
 * Core's `UrlIndex` over the store's database (PGlite or PostgreSQL, same statements): the durable index behind
 * GET /web/urls. One row per site (`siteHost`) and page (`dedupeKey`), so spellings of one page (http/https, `www.`)
 * share a row; `seq` keeps first-recorded order. Batches travel as one JSON parameter (`jsonb_to_recordset`), which
 * both backends accept and which keeps a 100,000-URL map to a few statements.
 *
 * Beside the interface, `claim` leases unenriched URLs to one enrichment worker at a time (`FOR UPDATE SKIP LOCKED`),
 * so competing jobs or replicas never fetch the same page twice.
 *
 * @since 0.1.0
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { CompanyIndex } from "@sift/core/CompanyResolver"
import { UrlIndex } from "@sift/core/UrlIndex"
import type { IndexedUrl, UrlFacts } from "@sift/core/UrlIndex"
import { dedupeKey, normalize, siteHost } from "@sift/core/UrlNormal"
import { Clock, Context, Effect, Layer, Option } from "effect"

/** The table of indexed URLs. */
export const tableName = "url_index"

/** The store-only side of the index: leases for background enrichment. @category models */
export interface UrlIndexLeasesShape {
  /**
   * Leases up to `limit` never-enriched URLs of `site` (oldest seen first) for `leaseMs`; a URL leased and not enriched
   * in that time (a stopped worker) becomes available again.
   */
  readonly claim: (site: string, limit: number, leaseMs: number) => Effect.Effect<ReadonlyArray<string>>
  /** Sites that still have URLs waiting for enrichment (to resume after a restart). */
  readonly pendingSites: (limit: number) => Effect.Effect<ReadonlyArray<string>>
}

/** @category tags */
export class UrlIndexLeases extends Context.Tag("@sift/store/UrlIndexLeases")<UrlIndexLeases, UrlIndexLeasesShape>() {}

/** The index's table, registered with the store's migrations. */
export const migration = Effect.flatMap(SqlClient.SqlClient, (sql) =>
  Effect.all([
    sql`CREATE TABLE url_index (
      site text NOT NULL,
      key text NOT NULL,
      seq bigserial,
      url text NOT NULL,
      title text,
      description text,
      keywords jsonb,
      language text,
      lastmod text,
      seen_at bigint NOT NULL,
      enriched_at bigint,
      leased_until bigint,
      PRIMARY KEY (site, key)
    )`,
    sql`CREATE INDEX url_index_site_seq ON url_index (site, seq)`,
    sql`CREATE INDEX url_index_unenriched ON url_index (site, seen_at, seq) WHERE enriched_at IS NULL`
  ], { discard: true }))

interface Row {
  readonly url: string
  readonly title: string | null
  readonly description: string | null
  readonly keywords: unknown
  readonly language: string | null
  readonly lastmod: string | null
  readonly seen_at: string | number
  readonly enriched_at: string | number | null
  readonly key?: string
}

// Rows per statement: keeps each JSON parameter at a few MB.
const CHUNK = 5_000

const keyOf = (url: string): string => dedupeKey(normalize(url) ?? url)

const siteOf = (url: string, fallback: string): string => {
  try {
    return siteHost(new URL(url).hostname)
  } catch {
    return siteHost(fallback)
  }
}

const keywordsOf = (value: unknown): ReadonlyArray<string> | undefined => {
  const parsed = typeof value === "string" ? JSON.parse(value) as unknown : value
  return Array.isArray(parsed) ? parsed.filter((k): k is string => typeof k === "string") : undefined
}

const toIndexed = (row: Row): IndexedUrl => {
  const entry: { -readonly [K in keyof IndexedUrl]: IndexedUrl[K] } = { url: row.url, seenAt: Number(row.seen_at) }
  if (row.title !== null) entry.title = row.title
  if (row.description !== null) entry.description = row.description
  const keywords = row.keywords === null ? undefined : keywordsOf(row.keywords)
  if (keywords !== undefined) entry.keywords = keywords
  if (row.language !== null) entry.language = row.language
  if (row.lastmod !== null) entry.lastmod = row.lastmod
  if (row.enriched_at !== null) entry.enrichedAt = Number(row.enriched_at)
  return entry
}

/** Facts merged per row key (later facts win, absent ones keep earlier): one statement may not touch a row twice. */
const rowsOf = (domain: string, facts: ReadonlyArray<UrlFacts>) => {
  const rows = new Map<string, Record<string, unknown>>()
  for (const fact of facts) {
    const site = siteOf(fact.url, domain)
    const key = keyOf(fact.url)
    const id = `${site} ${key}`
    const old = rows.get(id)
    rows.set(id, {
      site,
      key,
      url: old?.url ?? fact.url,
      title: fact.title ?? old?.title ?? null,
      description: fact.description ?? old?.description ?? null,
      keywords: fact.keywords ?? old?.keywords ?? null,
      language: fact.language ?? old?.language ?? null,
      lastmod: fact.lastmod ?? old?.lastmod ?? null
    })
  }
  return [...rows.values()]
}

const chunks = <A>(items: ReadonlyArray<A>): Array<ReadonlyArray<A>> => {
  const out: Array<ReadonlyArray<A>> = []
  for (let i = 0; i < items.length; i += CHUNK) out.push(items.slice(i, i + CHUNK))
  return out
}

/** The durable index and its leases on the `SqlClient` in context (its migration must have run). */
export const make = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const orDie = <A, E>(effect: Effect.Effect<A, E>) => Effect.orDie(effect)

  // Upserts the facts. With `returning`, gives back the merged rows that carry page metadata: only those, because
  // sending every row of a 100,000-URL map back costs more than writing it (measured on PGlite: 6 s of 10).
  const put = (domain: string, facts: ReadonlyArray<UrlFacts>, enriched: boolean, returning: boolean) =>
    Effect.gen(function*() {
      const now = yield* Clock.currentTimeMillis
      const enrichedAt = enriched ? now : null
      const stored: Array<Row & { site: string; key: string }> = []
      for (const chunk of chunks(rowsOf(domain, facts))) {
        const json = JSON.stringify(chunk)
        // Recording refreshes seen_at; enrichment keeps it (and clears the lease).
        const upsert = sql`
          INSERT INTO url_index (site, key, url, title, description, keywords, language, lastmod, seen_at, enriched_at)
          SELECT r.site, r.key, r.url, r.title, r.description, r.keywords, r.language, r.lastmod, ${now}::bigint, ${enrichedAt}::bigint
          FROM jsonb_to_recordset(${json}::jsonb) AS r(site text, key text, url text, title text, description text,
            keywords jsonb, language text, lastmod text)
          ON CONFLICT (site, key) DO UPDATE SET
            title = COALESCE(EXCLUDED.title, url_index.title),
            description = COALESCE(EXCLUDED.description, url_index.description),
            keywords = COALESCE(EXCLUDED.keywords, url_index.keywords),
            language = COALESCE(EXCLUDED.language, url_index.language),
            lastmod = COALESCE(EXCLUDED.lastmod, url_index.lastmod),
            seen_at = CASE WHEN ${enriched} THEN url_index.seen_at ELSE GREATEST(url_index.seen_at, EXCLUDED.seen_at) END,
            enriched_at = COALESCE(EXCLUDED.enriched_at, url_index.enriched_at),
            leased_until = CASE WHEN ${enriched} THEN NULL ELSE url_index.leased_until END`
        if (!returning) {
          yield* orDie(upsert)
          continue
        }
        const rows = yield* orDie(sql<Row & { site: string; key: string }>`
          WITH up AS (${upsert} RETURNING site, key, url, title, description, keywords, language, lastmod, seen_at, enriched_at)
          SELECT * FROM up
          WHERE title IS NOT NULL OR description IS NOT NULL OR keywords IS NOT NULL OR language IS NOT NULL`)
        for (const row of rows) stored.push(row)
      }
      return stored
    })

  const index = UrlIndex.of({
    record: (domain, facts) => Effect.asVoid(put(domain, facts, false, false)),
    enrich: (domain, facts) => Effect.asVoid(put(domain, facts, true, false)),
    recordAndLookup: (domain, facts) =>
      Effect.map(put(domain, facts, false, true), (rows) => {
        const byRow = new Map(rows.map((row) => [`${row.site} ${row.key}`, toIndexed(row)]))
        const out = new Map<string, IndexedUrl>()
        for (const fact of facts) {
          const entry = byRow.get(`${siteOf(fact.url, domain)} ${keyOf(fact.url)}`)
          if (entry !== undefined) out.set(fact.url, entry)
        }
        return out
      }),
    lookup: (domain, urls) =>
      Effect.gen(function*() {
        const out = new Map<string, IndexedUrl>()
        const asked = urls.map((url) => ({ url, site: siteOf(url, domain), key: keyOf(url) }))
        for (const chunk of chunks(asked)) {
          const json = JSON.stringify(chunk.map(({ key, site }) => ({ site, key })))
          const rows = yield* orDie(sql<Row & { site: string; key: string }>`
            SELECT u.site, u.key, u.url, u.title, u.description, u.keywords, u.language, u.lastmod, u.seen_at, u.enriched_at
            FROM jsonb_to_recordset(${json}::jsonb) AS a(site text, key text)
            JOIN url_index u ON u.site = a.site AND u.key = a.key`)
          const found = new Map(rows.map((row) => [`${row.site} ${row.key}`, toIndexed(row)]))
          for (const { key, site, url } of chunk) {
            const entry = found.get(`${site} ${key}`)
            if (entry !== undefined) out.set(url, entry)
          }
        }
        return out
      }),
    list: (domain, options) =>
      Effect.map(
        orDie(sql<Row>`
          SELECT url, title, description, keywords, language, lastmod, seen_at, enriched_at FROM url_index
          WHERE site = ${siteHost(domain)}
            OR (${options?.includeSubdomains === true} AND site LIKE ${`%.${siteHost(domain).replace(/[\\%_]/g, "\\$&")}`})
          ORDER BY seq`),
        (rows) => rows.map(toIndexed)
      ),
    unenriched: (domain, limit) =>
      Effect.map(
        orDie(sql<{ url: string }>`
          SELECT url FROM url_index WHERE site = ${siteHost(domain)} AND enriched_at IS NULL
          ORDER BY seen_at, seq LIMIT ${limit}`),
        (rows) => rows.map((row) => row.url)
      )
  })

  const leases = UrlIndexLeases.of({
    claim: (site, limit, leaseMs) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) =>
        Effect.map(
          orDie(sql<{ url: string; seen_at: string; seq: string }>`
            UPDATE url_index SET leased_until = ${now + leaseMs}
            WHERE (site, key) IN (
              SELECT site, key FROM url_index
              WHERE site = ${siteHost(site)} AND enriched_at IS NULL AND (leased_until IS NULL OR leased_until < ${now})
              ORDER BY seen_at, seq LIMIT ${limit}
              FOR UPDATE SKIP LOCKED)
            RETURNING url, seen_at, seq`),
          (rows) => [...rows].sort((a, b) => Number(a.seen_at) - Number(b.seen_at) || Number(a.seq) - Number(b.seq)).map((r) => r.url)
        )),
    pendingSites: (limit) =>
      Effect.map(
        orDie(sql<{ site: string }>`SELECT DISTINCT site FROM url_index WHERE enriched_at IS NULL LIMIT ${limit}`),
        (rows) => rows.map((row) => row.site)
      )
  })
  return { index, leases }
})

/** `UrlIndex` and `UrlIndexLeases` on the store's database. */
export const layer: Layer.Layer<UrlIndex | UrlIndexLeases, never, SqlClient.SqlClient> = Layer.effectContext(
  Effect.map(make, ({ index, leases }) => Context.make(UrlIndex, index).pipe(Context.add(UrlIndexLeases, leases)))
)

const words = (text: string): Array<string> => text.toLowerCase().normalize("NFKD").replace(/[\u0300-\u036f]/g, "").split(/[^\p{L}\p{N}]+/u).filter((w) => w !== "")

/**
 * Core's `CompanyIndex` over the URL index: a company name resolves to the site whose home page title (or, failing
 * that, any page title) contains every word of the name; home pages and shorter titles win. Case is ignored; accents
 * are ignored in the word comparison (the scan itself matches the longest word as spelled).
 */
export const makeCompanyIndex = Effect.map(SqlClient.SqlClient, (sql) =>
  CompanyIndex.of({
    findDomain: (name) =>
      Effect.gen(function*() {
        const wanted = words(name)
        if (wanted.length === 0) return Option.none()
        // The longest word narrows the scan; the rest is checked here.
        const longest = wanted.reduce((a, b) => (b.length > a.length ? b : a))
        const rows = yield* sql<{ site: string; key: string; title: string }>`
          SELECT site, key, title FROM url_index
          WHERE title ILIKE ${`%${longest.replace(/[\\%_]/g, "\\$&")}%`}
          ORDER BY (key = site || '/') DESC, length(title)
          LIMIT 200`.pipe(Effect.orDie)
        const match = rows.find((row) => {
          const have = new Set(words(row.title))
          return wanted.every((w) => have.has(w))
        })
        return Option.fromNullable(match?.site)
      }),
    // Shortest paths first: a site's about and services pages sit near its root.
    pagesOf: (domain) =>
      Effect.map(
        sql<{ url: string }>`SELECT url FROM url_index WHERE site = ${siteHost(domain)} ORDER BY length(key), seq LIMIT 500`.pipe(Effect.orDie),
        (rows) => rows.map((row) => row.url)
      )
  }))

/** `CompanyIndex` over the URL index. */
export const layerCompanyIndex: Layer.Layer<CompanyIndex, never, SqlClient.SqlClient> = Layer.effect(CompanyIndex, makeCompanyIndex)
