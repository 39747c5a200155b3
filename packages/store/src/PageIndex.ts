/**
 * Sift's own page index: the pages an organization scraped, crawled or batched, searchable with PostgreSQL full-text
 * search on either backend (PGlite or PostgreSQL, same statements). One row per organization and page (`page_index`,
 * migrations under the `search` key): the title (weight A), headings (B) and main-content Markdown (C) as one
 * `tsvector` made with two configurations, `simple` (exact words, any language) and the page language's own
 * (stemmed: `english`, `german`, ... when the database has it). A query is read with `simple` and with the stemmed
 * configurations of the organization's pages (at most four, the most used first) and matches any. Pages asked for with ZDR are
 * never given to it (its callers' rule); a row expires when the page's cache entry does (the cache's retention after
 * the page was fetched: a page read from the cache keeps its entry's age) and is swept like the cache's entries.
 *
 * Ranking of plain words: BM25's idf of each word among the organization's pages (common words from ANALYZE's most
 * common lexemes, rare ones counted exactly, in one statement); candidates are the pages holding every selective word
 * (then, when they are too few, any), at most `CANDIDATES`, cut by ts_rank; BM25 over the weighted fields (title x2,
 * headings x1.5, body x1: the query's lexemes of each candidate and its stored field lengths) orders them. Phrases,
 * `-word` and `OR` are ranked by ts_rank. The GIN index's pending list is kept short (every search reads it whole).
 *
 * @since 0.1.0
 */
import * as SqlClient from "@effect/sql/SqlClient"
import type { Fragment } from "@effect/sql/Statement"
import type { ScrapeResult } from "@sift/core/ScrapeResult"
import { Context, Duration, Effect, Layer, Schedule, type Scope } from "effect"
import * as CacheStore from "./CacheStore.js"

/** The table. */
export const tableName = "page_index"

/** What is kept of one page. */
export interface IndexedPage {
  readonly orgId: string
  readonly url: string
  readonly title: string
  readonly headings: ReadonlyArray<string>
  /** The main content as Markdown (links and images are reduced to their text). */
  readonly markdown: string
  /** The page's meta description, shown as the result's snippet when present. */
  readonly description?: string | undefined
  /** The page's language (`en`, `de-AT`), choosing the stemmed configuration. */
  readonly language?: string | undefined
  /**
   * When the page was fetched (epoch ms; its page-cache entry's time, default now): the row expires `retentionMs` after
   * it, as that entry does, and `freshness` reads it.
   */
  readonly storedAt?: number | undefined
}

/**
 * A page read to Markdown as the organization's row, or none when there is nothing to index: a partial or ZDR result,
 * or one without Markdown. A page answered from the cache is as old as its entry (`now` less its age), and leaves the
 * index with it.
 */
export const pageOf = (orgId: string, result: ScrapeResult, now: number): IndexedPage | undefined => {
  if (result.isPartial === true || result.cache_metadata.status === "zdr") return undefined
  if (typeof result.markdown.data !== "string" || result.markdown.data.trim() === "") return undefined
  return {
    orgId,
    url: result.url,
    title: result.metadata.title ?? "",
    headings: (result.metadata.headings ?? []).map((heading) => heading.text),
    markdown: result.markdown.data,
    description: result.metadata.description,
    language: result.metadata.language,
    storedAt: now - result.cache_metadata.age_ms
  }
}

/** A search of one organization's pages. */
export interface IndexQuery {
  readonly orgId: string
  /** Words, quoted phrases, `-word` and `OR`, as `websearch_to_tsquery` reads them (no `site:` operators). */
  readonly text: string
  readonly limit: number
  /** Only pages on these domains or their subdomains (normalized: lower case, no `www.`). */
  readonly includeDomains?: ReadonlyArray<string> | undefined
  readonly excludeDomains?: ReadonlyArray<string> | undefined
  /** Only pages fetched at most this long ago. */
  readonly maxAgeMs?: number | undefined
  /** The query's language, for its stemmed form, besides the languages of the organization's pages (English when none). */
  readonly language?: string | undefined
}

/** One match. */
export interface IndexHit {
  readonly url: string
  readonly title: string
  readonly snippet: string
  readonly rank: number
  /** When the page was fetched (epoch ms). */
  readonly indexedAt: number
}

/** Options of the index. */
export interface Options {
  /** How long a page stays indexed after it was fetched (default: the page cache's retention, 30 days). */
  readonly retentionMs?: number
  /** How often expired rows are deleted (default 10 minutes). */
  readonly sweepIntervalMs?: number
}

/** Bodies are cut here before indexing (a tsvector holds at most 1 MB; positions stop at 16,383). */
export const MAX_BODY_CHARS = 200_000
const MAX_TITLE_CHARS = 1_000
const MAX_HEADINGS_CHARS = 20_000
const SNIPPET_CHARS = 300

/** The index. @category services */
export class PageIndex extends Context.Tag("@sift/store/PageIndex")<PageIndex, {
  /**
   * Adds or replaces pages in one statement, with `alongside` (a data-modifying statement of the caller's: the pages'
   * cache entries, `CacheStore.upsert`) in a `WITH` of that statement, so both are written or neither. Whether it was
   * written; a database error is logged, never failed.
   */
  readonly add: (pages: ReadonlyArray<IndexedPage>, alongside?: Fragment) => Effect.Effect<boolean>
  /**
   * The pages' insert as a fragment for a data-modifying `WITH` of the caller's own statement (a batch page's record);
   * none when no page has a host to index it under.
   */
  readonly insert: (pages: ReadonlyArray<IndexedPage>) => Fragment | undefined
  /** Best matches first. */
  readonly search: (query: IndexQuery) => Effect.Effect<ReadonlyArray<IndexHit>>
  /** Which of these domains (normalized) have at least one indexed page of the organization. */
  readonly covered: (orgId: string, domains: ReadonlyArray<string>) => Effect.Effect<ReadonlyArray<string>>
  /** Deletes expired rows now (also done periodically). */
  readonly prune: Effect.Effect<number>
}>() {}

/** A tsvector's positions of weight A, B and C (title, headings, body), in SQL. */
const fieldLengths = (sql: SqlClient.SqlClient, document: ReturnType<SqlClient.SqlClient["literal"]>) =>
  sql`(SELECT ARRAY[count(*) FILTER (WHERE w = 'A'), count(*) FILTER (WHERE w = 'B'), count(*) FILTER (WHERE w = 'C')]::real[]
    FROM unnest(${document}) AS u, unnest(u.weights) AS w)`

/** The index's table, under the `search` migrations key. */
export const migrations = {
  "0001_page_index": Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.all([
      sql`CREATE TABLE IF NOT EXISTS page_index (
        org_id text NOT NULL,
        url text NOT NULL,
        host_rev text COLLATE "C" NOT NULL,
        title text NOT NULL,
        snippet text NOT NULL,
        config text NOT NULL,
        document tsvector NOT NULL,
        indexed_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz NOT NULL,
        PRIMARY KEY (org_id, url)
      )`,
      sql`CREATE INDEX IF NOT EXISTS page_index_document ON page_index USING gin (document)`,
      sql`CREATE INDEX IF NOT EXISTS page_index_host ON page_index (org_id, host_rev)`,
      sql`CREATE INDEX IF NOT EXISTS page_index_expires ON page_index (expires_at)`
    ], { discard: true })),
  // GIN's pending list (new entries not yet merged into the index) is read in full by every search, and only VACUUM or
  // a list over `gin_pending_list_limit` (4 MB by default) merges it: PGlite runs no autovacuum, so a search read up
  // to 4 MB of it (45 ms of a query over 50,000 pages). A 64 kB limit merges it during writes instead.
  "0002_gin_pending_list": Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.all([
      sql`ALTER INDEX page_index_document SET (gin_pending_list_limit = 64)`,
      sql`SELECT gin_clean_pending_list('page_index_document'::regclass)`
    ], { discard: true })),
  // Each page's field lengths (positions of weight A, B, C in its tsvector), so BM25 needs only the query's lexemes of
  // a candidate rather than its whole tsvector as text.
  "0003_field_lengths": Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.all([
      sql`ALTER TABLE page_index ADD COLUMN IF NOT EXISTS field_lengths real[]`,
      sql`UPDATE page_index SET field_lengths = ${fieldLengths(sql, sql`document`)} WHERE field_lengths IS NULL`
    ], { discard: true }))
}

/** PostgreSQL's snowball configurations by ISO 639-1 code (used only when the database has them: PGlite has more than 15). */
const configByLanguage: Readonly<Record<string, string>> = {
  ar: "arabic", hy: "armenian", eu: "basque", ca: "catalan", da: "danish", nl: "dutch", en: "english", et: "estonian",
  fi: "finnish", fr: "french", de: "german", el: "greek", hi: "hindi", hu: "hungarian", id: "indonesian", ga: "irish",
  it: "italian", lt: "lithuanian", ne: "nepali", no: "norwegian", nb: "norwegian", nn: "norwegian", pt: "portuguese",
  ro: "romanian", ru: "russian", sr: "serbian", es: "spanish", sv: "swedish", ta: "tamil", tr: "turkish", yi: "yiddish"
}

/** A host written backwards by label (`docs.example.com` -> `com.example.docs`), so a domain and its subdomains share a prefix. */
export const reverseHost = (host: string): string => host.split(".").reverse().join(".")

const hostOf = (url: string): string => {
  try {
    return new URL(url).hostname.toLowerCase().replace(/^www\./, "").replace(/\.$/, "")
  } catch {
    return ""
  }
}

/** Markdown as words: link targets, image references, code fences and emphasis marks dropped. */
export const plainText = (markdown: string): string =>
  markdown
    .slice(0, MAX_BODY_CHARS)
    .replace(/!\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/<[^>]{0,200}>/g, " ")
    .replace(/[`*_#>|~]+/g, " ")
    .replace(/\s+/g, " ")
    .trim()

/** Candidate pages scored per query at most: the index finds them (cut by ts_rank), BM25 orders them. */
const CANDIDATES = 100

/** Field weights (title, headings, body: the tsvector's weights A, B, C) and BM25's parameters. */
const FIELD_WEIGHTS: Readonly<Record<string, number>> = { A: 2, B: 1.5, C: 1 }
const K1 = 1.2
const B = 0.75

/** One candidate as BM25 reads it: its fields' lengths (title, headings, body: positions of weight A, B, C in its
 * tsvector) and, per field, the query's lexemes found there with their positions (a tsvector's text: `'lexeme':3,9`). */
export interface Candidate {
  readonly lengths: ReadonlyArray<number>
  readonly fields: ReadonlyArray<string>
}

/**
 * BM25 of each page over its weighted fields for the query's words (each its lexemes in both configurations and its
 * idf): a word's count is the weighted sum of its counts per field, the page's length the weighted sum of its fields'
 * lengths, averaged over the pages scored. Each occurrence is indexed once per configuration, so counts and lengths
 * are halved.
 */
export const bm25Fields = (candidates: ReadonlyArray<Candidate>, words: ReadonlyArray<{ readonly lexemes: ReadonlyArray<string>; readonly idf: number }>): Array<number> => {
  const wanted = new Map<string, Array<number>>()
  words.forEach((word, i) => word.lexemes.forEach((lexeme) => wanted.set(lexeme, [...(wanted.get(lexeme) ?? []), i])))
  const weights = [FIELD_WEIGHTS.A!, FIELD_WEIGHTS.B!, FIELD_WEIGHTS.C!]
  const parsed = candidates.map(({ fields, lengths }) => {
    // The weighted count of each word.
    const tf = words.map(() => 0)
    fields.forEach((text, field) => {
      for (const match of text.matchAll(/'((?:[^']|'')*)'(?::([0-9A-D,]+))?/g)) {
        const hits = wanted.get(match[1]!.replace(/''/g, "'"))
        const count = match[2] === undefined ? 1 : match[2].split(",").length
        if (hits !== undefined) for (const i of hits) tf[i]! += weights[field]! * count / 2
      }
    })
    // One length per page (its fields weighted as their words are), as BM25 over the weighted concatenation has it.
    return { tf, length: weights.reduce((sum, weight, field) => sum + weight * Number(lengths[field] ?? 0) / 2, 0) }
  })
  const average = Math.max(1, parsed.reduce((sum, p) => sum + p.length, 0) / Math.max(1, parsed.length))
  return parsed.map(({ length, tf }) => {
    const norm = 1 - B + B * length / average
    return words.reduce((score, word, i) => {
      const weighted = tf[i]!
      return weighted === 0 ? score : score + word.idf * (weighted * (K1 + 1)) / (K1 * norm + weighted)
    }, 0)
  })
}

/** A float array as either driver returns it (an array, or its text form). */
const numbers = (value: ReadonlyArray<number> | string | null): ReadonlyArray<number> =>
  value === null ? [] : Array.isArray(value) ? value.map(Number) : String(value).replace(/^\{|\}$/g, "").split(",").map(Number)

const toMillis = (value: unknown): number =>
  value instanceof Date ? value.getTime() : typeof value === "number" ? value : Number(value)

const domainsJson = (domains: ReadonlyArray<string> | undefined) => JSON.stringify((domains ?? []).map(reverseHost))

/**
 * Builds the index over the `SqlClient` in context and starts its sweep for the scope's lifetime.
 *
 * @category constructors
 */
export const make = (options: Options = {}): Effect.Effect<PageIndex["Type"], never, SqlClient.SqlClient | Scope.Scope> =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const retentionMs = options.retentionMs ?? CacheStore.DEFAULT_RETENTION_MS
    const available = new Set(
      yield* sql<{ name: string }>`SELECT cfgname AS name FROM pg_ts_config`.pipe(
        Effect.map((rows) => rows.map((row) => row.name)),
        Effect.orElseSucceed(() => [] as Array<string>)
      )
    )
    const configOf = (language: string | undefined): string => {
      const name = configByLanguage[(language ?? "").toLowerCase().slice(0, 2)]
      return name !== undefined && available.has(name) ? name : "simple"
    }

    const prune = sql<{ n: number }>`WITH gone AS (DELETE FROM page_index WHERE expires_at < now() RETURNING 1) SELECT count(*)::int AS n FROM gone`.pipe(
      Effect.map((rows) => Number(rows[0]?.n ?? 0)),
      Effect.catchAllCause((cause) => Effect.as(Effect.logWarning("page index: sweep failed", cause), 0))
    )
    yield* Effect.forkScoped(Effect.repeat(prune, Schedule.spaced(Duration.millis(options.sweepIntervalMs ?? 600_000))))

    const insert = (pages: ReadonlyArray<IndexedPage>) => {
      const now = Date.now()
      const rows = pages.flatMap((page) => {
        const host = hostOf(page.url)
        if (host === "") return []
        const body = plainText(page.markdown)
        const description = (page.description ?? "").replace(/\s+/g, " ").trim()
        return [{
          org_id: page.orgId,
          url: page.url,
          host_rev: reverseHost(host),
          title: page.title.replace(/\s+/g, " ").trim().slice(0, MAX_TITLE_CHARS),
          headings: page.headings.join("\n").slice(0, MAX_HEADINGS_CHARS),
          body,
          snippet: (description !== "" ? description : body).slice(0, SNIPPET_CHARS),
          config: configOf(page.language),
          // The page's fetch time, and its expiry: those of its page-cache entry (a page read from the cache is as old
          // as its entry, and leaves the index when the entry leaves the cache).
          stored_at: new Date(Math.min(now, page.storedAt ?? now)).toISOString(),
          expires_at: new Date(Math.min(now, page.storedAt ?? now) + retentionMs).toISOString()
        }]
      })
      if (rows.length === 0) return undefined
      // One row per organization and URL (pages read under two addresses can end at one): an upsert that meets its own
      // key twice fails. The last is kept.
      const unique = [...new Map(rows.map((row) => [`${row.org_id}\u0000${row.url}`, row])).values()]
      return sql`
        INSERT INTO page_index (org_id, url, host_rev, title, snippet, config, document, field_lengths, indexed_at, expires_at)
        SELECT r.org_id, r.url, r.host_rev, r.title, r.snippet, r.config, d.document, ${fieldLengths(sql, sql`d.document`)},
          r.stored_at, r.expires_at
        FROM jsonb_to_recordset(${JSON.stringify(unique)}::jsonb)
          AS r(org_id text, url text, host_rev text, title text, headings text, body text, snippet text, config text,
            stored_at timestamptz, expires_at timestamptz),
        LATERAL (SELECT
          setweight(to_tsvector('simple', r.title), 'A') || setweight(to_tsvector(r.config::regconfig, r.title), 'A') ||
          setweight(to_tsvector('simple', r.headings), 'B') || setweight(to_tsvector(r.config::regconfig, r.headings), 'B') ||
          setweight(to_tsvector('simple', r.body), 'C') || setweight(to_tsvector(r.config::regconfig, r.body), 'C') AS document) AS d
        ON CONFLICT (org_id, url) DO UPDATE SET host_rev = EXCLUDED.host_rev, title = EXCLUDED.title,
          snippet = EXCLUDED.snippet, config = EXCLUDED.config, document = EXCLUDED.document,
          field_lengths = EXCLUDED.field_lengths, indexed_at = EXCLUDED.indexed_at, expires_at = EXCLUDED.expires_at`
    }

    const add = (pages: ReadonlyArray<IndexedPage>, alongside?: Fragment): Effect.Effect<boolean> => {
      const statement = insert(pages)
      if (statement === undefined) return Effect.succeed(false)
      return (alongside === undefined ? statement : sql`WITH alongside AS (${alongside}) ${statement}`).pipe(
        Effect.as(true),
        Effect.catchAllCause((cause) => Effect.as(Effect.logWarning("page index: write failed, pages not indexed", cause), false))
      )
    }

    // Pages per organization and the stemmed configurations they use (most pages first), read at most once a minute:
    // idf needs the collection's size, not its exact size.
    const counted = new Map<string, { n: number; configs: ReadonlyArray<string>; at: number }>()
    const orgStats = (orgId: string) =>
      Effect.suspend(() => {
        const known = counted.get(orgId)
        if (known !== undefined && Date.now() - known.at < 60_000) return Effect.succeed(known)
        return Effect.map(sql<{ config: string; n: number }>`
          SELECT config, count(*)::float8 AS n FROM page_index WHERE org_id = ${orgId} AND expires_at > now()
          GROUP BY config ORDER BY n DESC, config`, (rows) => {
          const stats = {
            n: rows.reduce((sum, row) => sum + Number(row.n), 0),
            configs: rows.map((row) => row.config).filter((config) => config !== "simple"),
            at: Date.now()
          }
          if (counted.size > 10_000) counted.clear()
          counted.set(orgId, stats)
          return stats
        })
      })

    const search = (query: IndexQuery): Effect.Effect<ReadonlyArray<IndexHit>> => {
      const text = query.text.trim()
      if (text === "") return Effect.succeed([])
      const minIndexed = query.maxAgeMs === undefined ? null : new Date(Date.now() - query.maxAgeMs)
      // `read` of simple (exact words) and of each stemmed configuration a query may meet (the query's language
      // when given, those of the organization's pages: at most four, the most used first; English when none), joined by ||.
      const eachConfig = (configs: ReadonlyArray<string>, read: (config: Fragment | string) => Fragment) =>
        sql.join(" || ", false)([read(sql.literal("'simple'")), ...configs.map((config) => read(config))])
      // Operator queries: websearch syntax in any of those configurations.
      const run = (mode: "all" | "any", configs: ReadonlyArray<string>) =>
        sql<{ url: string; title: string; snippet: string; rank: number; indexedAt: unknown }>`
          WITH q AS (
            SELECT CASE WHEN ${mode} = 'all'
              THEN ${eachConfig(configs, (config) => sql`websearch_to_tsquery(${config}::regconfig, ${text})`)}
              ELSE ${eachConfig(configs, (config) => sql`replace(plainto_tsquery(${config}::regconfig, ${text})::text, '&', '|')::tsquery`)}
            END AS query
          ), inc AS (SELECT jsonb_array_elements_text(${domainsJson(query.includeDomains)}::jsonb) AS d),
          exc AS (SELECT jsonb_array_elements_text(${domainsJson(query.excludeDomains)}::jsonb) AS d)
          SELECT p.url, p.title, p.snippet,
            ts_rank('{0.1, 0.2, 0.4, 1.0}', p.document, q.query, 1)::float8 AS rank,
            (extract(epoch from p.indexed_at) * 1000)::float8 AS "indexedAt"
          FROM page_index p, q
          WHERE p.org_id = ${query.orgId} AND p.document @@ q.query AND p.expires_at > now()
            AND (${minIndexed}::timestamptz IS NULL OR p.indexed_at >= ${minIndexed}::timestamptz)
            AND (NOT EXISTS (SELECT 1 FROM inc) OR EXISTS (SELECT 1 FROM inc WHERE p.host_rev = inc.d OR p.host_rev LIKE inc.d || '.%'))
            AND NOT EXISTS (SELECT 1 FROM exc WHERE p.host_rev = exc.d OR p.host_rev LIKE exc.d || '.%')
          ORDER BY rank DESC, p.url
          LIMIT ${query.limit}`
      // Plain words: BM25's idf of each word among the organization's live pages, then one ranked pass. A word the
      // database's statistics list as common (ANALYZE's most common lexemes) is weighed by that frequency; the others
      // are rare, so counting their pages exactly is cheap (the index's pending list is kept short for it).
      const weighted = (terms: ReadonlyArray<string>, n: number, configs: ReadonlyArray<string>) =>
        Effect.gen(function*() {
          const queryOf = (word: string | Fragment) => sql`(${eachConfig(configs, (config) => sql`plainto_tsquery(${config}::regconfig, ${word})`)})`
          // One statement: each word's lexemes, its page frequency among ANALYZE's most common lexemes (from the
          // statistics, never counted), or else (rare words) its pages counted exactly.
          const lexemes = yield* sql<{ word: string; lexemes: ReadonlyArray<string> | string; common: number; df: number | null }>`
            WITH stats AS MATERIALIZED (
              SELECT most_common_elems::text::text[] AS elems, most_common_elem_freqs::float8[] AS freqs
              FROM pg_stats WHERE tablename = 'page_index' AND attname = 'document' LIMIT 1
            ), words AS (
              SELECT w.word, w.at, tsvector_to_array(${eachConfig(configs, (config) => sql`to_tsvector(${config}::regconfig, w.word)`)}) AS lexemes
              FROM jsonb_array_elements_text(${JSON.stringify(terms)}::jsonb) WITH ORDINALITY AS w(word, at)
            ), weighed AS MATERIALIZED (
              SELECT words.*, coalesce((SELECT max(s.freqs[array_position(s.elems, l)]) FROM stats s, unnest(words.lexemes) AS l), 0)::float8 AS common
              FROM words
            )
            SELECT word, lexemes, common,
              CASE WHEN common > 0 THEN NULL ELSE (SELECT count(*) FROM page_index p WHERE p.org_id = ${query.orgId}
                AND p.document @@ ${queryOf(sql`weighed.word`)}
                AND p.expires_at > now())::float8 END AS df
            FROM weighed ORDER BY at`
          const rowOf = new Map(lexemes.map((row) => [row.word, row]))
          const found = terms.flatMap((word) => {
            const row = rowOf.get(word)
            const common = Number(row?.common ?? 0)
            const df = common > 0 ? Math.max(1, Math.round(common * n)) : Number(row?.df ?? 0)
            return df === 0 ? [] : [{ word, df, idf: Math.log(1 + (Math.max(n, df) - df + 0.5) / (df + 0.5)), match: df <= Math.max(1, n / 5) }]
          })
          if (found.length === 0) return []
          if (!found.some((w) => w.match)) found.forEach((w) => (w.match = true))
          const lexemesOf = new Map(lexemes.map((row) => [row.word, Array.isArray(row.lexemes) ? row.lexemes : String(row.lexemes).replace(/^\{|\}$/g, "").split(",").filter((l) => l !== "")]))
          const column = (i: number) => sql.literal(`q${i}`)
          const selective = found.flatMap((w, i) => (w.match ? [sql`q.${column(i)}`] : []))
          // Candidates: pages holding the selective words, cut (when there are very many) by ts_rank of that match.
          const wanted = [...new Set(found.flatMap((w) => lexemesOf.get(w.word) ?? []))]
          // A field's positions of the query's lexemes: that field alone (`ts_filter`), the lexemes marked D (no position
          // carries D otherwise) and kept; a few bytes rather than the page's whole tsvector.
          const matchesIn = (field: string) =>
            sql`ts_filter(setweight(ts_filter(p.document, ${`{${field}}`}::"char"[]), 'D', ${wanted}::text[]), '{D}')::text`
          const candidates = (matching: ReturnType<ReturnType<typeof sql.join>>) => sql<{ url: string; title: string; snippet: string; lengths: ReadonlyArray<number> | string | null; a: string; b: string; c: string; indexedAt: unknown }>`
            WITH q AS (SELECT ${sql.join(", ", false)(found.map((w, i) => sql`${queryOf(w.word)} AS ${column(i)}`))}),
            inc AS (SELECT jsonb_array_elements_text(${domainsJson(query.includeDomains)}::jsonb) AS d),
            exc AS (SELECT jsonb_array_elements_text(${domainsJson(query.excludeDomains)}::jsonb) AS d)
            SELECT p.url, p.title, p.snippet, p.field_lengths::float8[] AS lengths, ${matchesIn("A")} AS a, ${matchesIn("B")} AS b,
              ${matchesIn("C")} AS c, (extract(epoch from p.indexed_at) * 1000)::float8 AS "indexedAt"
            FROM page_index p, q
            WHERE p.org_id = ${query.orgId} AND p.document @@ (${matching}) AND p.expires_at > now()
              AND (${minIndexed}::timestamptz IS NULL OR p.indexed_at >= ${minIndexed}::timestamptz)
              AND (NOT EXISTS (SELECT 1 FROM inc) OR EXISTS (SELECT 1 FROM inc WHERE p.host_rev = inc.d OR p.host_rev LIKE inc.d || '.%'))
              AND NOT EXISTS (SELECT 1 FROM exc WHERE p.host_rev = exc.d OR p.host_rev LIKE exc.d || '.%')
            ORDER BY ts_rank('{0.1, 0.2, 0.4, 1.0}', p.document, (${matching}), 1) DESC, p.url
            LIMIT ${CANDIDATES}`
          // Pages holding every selective word first; any of them only when those are too few.
          const every = selective.length > 1 ? yield* candidates(sql.join(" && ", false)(selective)) : []
          const some = every.length >= query.limit ? [] : yield* candidates(sql.join(" || ", false)(selective))
          const pool = [...every, ...some.filter((row) => !every.some((e) => e.url === row.url))]
          const scored = bm25Fields(pool.map((row) => ({ lengths: numbers(row.lengths), fields: [row.a, row.b, row.c] })), found.map((w) => ({ lexemes: lexemesOf.get(w.word) ?? [], idf: w.idf })))
          return pool.map((row, i) => ({ url: row.url, title: row.title, snippet: row.snippet, indexedAt: row.indexedAt, rank: scored[i]! }))
            .sort((x, y) => y.rank - x.rank || (x.url < y.url ? -1 : 1))
            .slice(0, query.limit)
        })
      return Effect.gen(function*() {
        // Quoted phrases, exclusions and OR say exactly what must match: websearch syntax, ranked by ts_rank.
        const operators = /"|(^|\s)-\S|\sOR\s/.test(text)
        const terms = [...new Set(text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [])].slice(0, 32)
        const stats = yield* orgStats(query.orgId)
        const asked = query.language === undefined ? [] : [configOf(query.language)]
        const found = [...new Set([...asked, ...stats.configs])].filter((config) => config !== "simple").slice(0, 4)
        const configs = found.length > 0 ? found : [configOf("en")]
        const rows = operators ? yield* run("all", configs) : terms.length === 0 ? [] : yield* weighted(terms, stats.n, configs)
        return rows.map((row) => ({ url: row.url, title: row.title, snippet: row.snippet, rank: Number(row.rank), indexedAt: Math.round(toMillis(row.indexedAt)) }))
      }).pipe(
        // A query PostgreSQL cannot read as text search (only stop words, say) finds nothing rather than failing.
        Effect.catchAllCause((cause) => Effect.as(Effect.logDebug("page index: search failed", cause), [] as ReadonlyArray<IndexHit>))
      )
    }

    const covered = (orgId: string, domains: ReadonlyArray<string>): Effect.Effect<ReadonlyArray<string>> =>
      domains.length === 0 ? Effect.succeed([]) : sql<{ d: string }>`
        SELECT d FROM jsonb_array_elements_text(${domainsJson(domains)}::jsonb) AS d
        WHERE EXISTS (SELECT 1 FROM page_index p WHERE p.org_id = ${orgId} AND (p.host_rev = d OR p.host_rev LIKE d || '.%'))`.pipe(
        Effect.map((rows) => rows.map((row) => reverseHost(row.d))),
        Effect.catchAllCause((cause) => Effect.as(Effect.logWarning("page index: coverage lookup failed", cause), [] as ReadonlyArray<string>))
      )

    return PageIndex.of({ add, insert: (pages) => insert(pages), search, covered, prune })
  })

/**
 * The page index on the store's database.
 *
 * @category layers
 */
export const layer = (options?: Options): Layer.Layer<PageIndex, never, SqlClient.SqlClient> => Layer.scoped(PageIndex, make(options))
