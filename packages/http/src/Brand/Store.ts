/**
 * Where retrieved brands are kept (migrations under the `brand` key):
 *
 * - `brand_cache`: the last retrieval per key (`domain:<domain>` or `url:<url>` for `by_direct_url`), the brand as core
 *   returned it (logo and backdrop URLs on the site, each with its content hash), and when it was read.
 * - `brand_index`: one row per domain retrieved, for `GET /brand/search`: its name, the lower-case name (`name_key`)
 *   for prefix matching, the trigrams of name and domain label (`text[]` under a GIN index: portable to PGlite and
 *   PostgreSQL without the `pg_trgm` extension, which PGlite only has when loaded at start-up), its first logo's asset,
 *   and how often it was retrieved (the "most popular" order).
 *
 * Logos and backdrops themselves are in the BlobStore under `brand-asset/<sha256>`, never expired: their URL is
 * content-addressed, so it stays valid as long as a brand points to it.
 *
 * @since 0.1.0
 */
import * as SqlClient from "@effect/sql/SqlClient"
import type { Brand } from "@sift/core/Brand"
import { Effect } from "effect"

/** The brand package's migrations. */
export const migrations = {
  "0001_brands": Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.all([
      sql`CREATE TABLE IF NOT EXISTS brand_cache (
        key text PRIMARY KEY,
        domain text NOT NULL,
        brand jsonb NOT NULL,
        fetched_at timestamptz NOT NULL DEFAULT now()
      )`,
      sql`CREATE TABLE IF NOT EXISTS brand_index (
        domain text PRIMARY KEY,
        name text NOT NULL DEFAULT '',
        name_key text NOT NULL DEFAULT '',
        trigrams text[] NOT NULL DEFAULT '{}',
        logo text NOT NULL DEFAULT '',
        retrievals integer NOT NULL DEFAULT 0,
        updated_at timestamptz NOT NULL DEFAULT now()
      )`,
      sql`CREATE INDEX IF NOT EXISTS brand_index_name_key ON brand_index (name_key text_pattern_ops)`,
      sql`CREATE INDEX IF NOT EXISTS brand_index_domain_prefix ON brand_index (domain text_pattern_ops)`,
      sql`CREATE INDEX IF NOT EXISTS brand_index_trigrams ON brand_index USING gin (trigrams)`
    ], { discard: true })),
  // Search reads mapped sites' home pages only: one row a site, not every URL a map has seen (the store's
  // migrations, url_index among them, run before this package's).
  "0002_url_index_home_pages": Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql`CREATE INDEX IF NOT EXISTS url_index_home_pages ON url_index (site) WHERE key = site || '/'`.pipe(Effect.asVoid))
}

/** A cached retrieval. */
export interface Cached {
  readonly brand: Brand
  readonly fetchedAt: Date
}

/** Lower case, accents off, runs of anything but letters and digits as one space. */
export const normalize = (text: string): string =>
  text.toLowerCase().normalize("NFKD").replace(/[\u0300-\u036f]/g, "").replace(/[^\p{L}\p{N}]+/gu, " ").trim()

/** The trigrams of each word (padded as pg_trgm pads them: two spaces before, one after). */
export const trigrams = (text: string): Array<string> => {
  const out = new Set<string>()
  for (const word of normalize(text).split(" ")) {
    if (word === "") continue
    const padded = `  ${word} `
    for (let i = 0; i + 3 <= padded.length; i++) out.add(padded.slice(i, i + 3))
  }
  return [...out]
}

/** The first label of a domain (`acme` of `acme.co.uk`'s `acme.co.uk`, `www.` dropped). */
export const domainLabel = (domain: string): string => domain.replace(/^www\./, "").split(".")[0] ?? domain

// A text[] literal: trigrams hold only letters, digits and spaces (normalized), so quoting each suffices.
const textArray = (items: ReadonlyArray<string>): string => `{${items.map((item) => `"${item.replace(/["\\]/g, "")}"`).join(",")}}`

interface CacheRow {
  readonly brand: unknown
  readonly fetched_at: Date | string
}

/** The cached brand under `key`, if any. */
export const get = (key: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.map(sql<CacheRow>`SELECT brand, fetched_at FROM brand_cache WHERE key = ${key}`, (rows) => {
      const row = rows[0]
      if (row === undefined) return undefined
      const brand = (typeof row.brand === "string" ? JSON.parse(row.brand) : row.brand) as Brand
      return { brand, fetchedAt: new Date(row.fetched_at) } satisfies Cached
    }))

/** Stores a retrieval under `key`; a domain's retrieval also updates its search entry. */
export const put = (key: string, brand: Brand, options: { readonly index: boolean }) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql.withTransaction(Effect.gen(function*() {
      yield* sql`INSERT INTO brand_cache (key, domain, brand, fetched_at) VALUES (${key}, ${brand.domain}, ${JSON.stringify(brand)}::jsonb, now())
        ON CONFLICT (key) DO UPDATE SET brand = EXCLUDED.brand, domain = EXCLUDED.domain, fetched_at = EXCLUDED.fetched_at`
      if (!options.index) return
      const name = brand.title ?? ""
      const logo = brand.logos[0] === undefined ? "" : `${brand.logos[0].asset.sha256}.${brand.logos[0].asset.ext}`
      const grams = [...new Set([...trigrams(name), ...trigrams(domainLabel(brand.domain))])]
      yield* sql`INSERT INTO brand_index (domain, name, name_key, trigrams, logo, updated_at)
        VALUES (${brand.domain}, ${name}, ${normalize(name)}, ${textArray(grams)}::text[], ${logo}, now())
        ON CONFLICT (domain) DO UPDATE SET name = EXCLUDED.name, name_key = EXCLUDED.name_key, trigrams = EXCLUDED.trigrams,
          logo = EXCLUDED.logo, updated_at = now()`
    })))

/** Counts a retrieval of a domain (cache hits included): the popularity search ranks by. */
export const countRetrieval = (domain: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => sql`UPDATE brand_index SET retrievals = retrievals + 1 WHERE domain = ${domain}`)

/** The domain of a retrieved brand whose name is exactly this (case and punctuation ignored), if any. */
export const domainByName = (name: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.map(
      sql<{ domain: string }>`SELECT domain FROM brand_index WHERE name_key = ${normalize(name)} ORDER BY retrievals DESC LIMIT 1`,
      (rows) => rows[0]?.domain
    ))

/** One search candidate. */
export interface IndexRow {
  readonly domain: string
  readonly name: string
  readonly name_key: string
  readonly logo: string
  readonly retrievals: number
}

const escapeLike = (text: string) => text.replace(/[\\%_]/g, "\\$&")

/**
 * Pieces of a query every match within `typos` edits contains unchanged: each word whole without typos, else cut into
 * `typos + 1` runs (an edit touches at most one run of one word, so some run of some word survives).
 */
export const pieces = (query: string, typos: number): Array<string> => {
  const out = new Set<string>()
  for (const word of normalize(query).split(" ")) {
    if (word === "") continue
    const parts = Math.min(typos + 1, word.length)
    const size = Math.ceil(word.length / parts)
    for (let at = 0; at < word.length; at += size) out.add(word.slice(at, at + size))
  }
  return [...out]
}

/** A mapped site's home page: its domain and `<title>`. */
export interface MappedRow {
  readonly domain: string
  readonly title: string
}

/**
 * Home pages of mapped sites (the URL index, filled by maps and crawls) whose title holds a piece of the query or
 * whose domain starts with it: the search's candidates beside retrieved brands; the caller ranks and filters them.
 */
export const mappedCandidates = (query: string, options: { readonly typos: number; readonly limit: number }) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => {
    const patterns = pieces(query, options.typos).map((piece) => `%${escapeLike(piece)}%`)
    const domainLike = `${escapeLike(query.trim().toLowerCase().replace(/^https?:\/\//, "").replace(/^www\./, ""))}%`
    return sql<MappedRow>`SELECT site AS domain, title FROM url_index
      WHERE key = site || '/' AND title IS NOT NULL AND title <> ''
        AND (site LIKE ${domainLike} OR title ILIKE ANY (${textArray(patterns)}::text[]))
      ORDER BY length(title), site LIMIT ${options.limit}`
  })

/**
 * Candidates for a search: exact and prefix matches of the name's words and of the domain, plus (with typo tolerance)
 * rows sharing a trigram with the query, best known first; the caller ranks and filters them.
 */
export const candidates = (query: string, options: { readonly fuzzy: boolean; readonly limit: number }) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => {
    const key = normalize(query)
    const like = escapeLike(key)
    const domainLike = escapeLike(query.trim().toLowerCase())
    const grams = trigrams(query)
    return Effect.map(
      options.fuzzy && grams.length > 0
        ? sql<IndexRow>`SELECT domain, name, name_key, logo, retrievals FROM brand_index
            WHERE name_key LIKE ${`${like}%`} OR name_key LIKE ${`% ${like}%`} OR domain LIKE ${`${domainLike}%`} OR trigrams && ${textArray(grams)}::text[]
            ORDER BY retrievals DESC, domain LIMIT ${options.limit}`
        : sql<IndexRow>`SELECT domain, name, name_key, logo, retrievals FROM brand_index
            WHERE name_key LIKE ${`${like}%`} OR name_key LIKE ${`% ${like}%`} OR domain LIKE ${`${domainLike}%`}
            ORDER BY retrievals DESC, domain LIMIT ${options.limit}`,
      (rows) => rows.map((row) => ({ ...row, retrievals: Number(row.retrievals) }))
    )
  })
