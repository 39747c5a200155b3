/**
 * Where news articles are kept (migrations under the `news` key):
 *
 * - `news_article`: one row per article id (stable: from its link), with the company it belongs to when it came from
 *   the company's own feed or its EDGAR filings (`company`: a domain or `cik:<n>`; empty for publisher feeds), the
 *   `story_id` it was clustered into, and the keys of clustering: the day, the normalized headline, the body's MinHash sketch.
 * - `news_feed`: every feed polled (and every site whose feeds were discovered, as `site:<domain>`), when, and how it went.
 *
 * Story clustering happens as articles are stored: an article joins the story of an article of the same day whose
 * headline normalizes the same or whose body's MinHash sketch agrees in at least {@link SAME_STORY} of its slots; otherwise it starts one,
 * whose id is a digest of day and headline (so two processes storing the same copy at once agree). Stores in one
 * process are serialized, so two feeds polled at once cluster against each other.
 *
 * @since 0.1.0
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as News from "@sift/core/News"
import { Effect } from "effect"
import { createHash } from "node:crypto"

/** The news package's migrations. */
export const migrations = {
  "0001_news": Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.all([
      sql`CREATE TABLE IF NOT EXISTS news_article (
        id text PRIMARY KEY,
        url text NOT NULL,
        title text NOT NULL,
        description text,
        authors text NOT NULL DEFAULT '[]',
        image_url text,
        language text,
        published_at timestamptz,
        type text NOT NULL,
        source_domain text NOT NULL,
        source_name text NOT NULL,
        direct boolean NOT NULL DEFAULT false,
        company text NOT NULL DEFAULT '',
        title_key text NOT NULL,
        sketch text NOT NULL DEFAULT '',
        day text NOT NULL,
        story_id text NOT NULL,
        feed_url text NOT NULL,
        first_seen timestamptz NOT NULL DEFAULT now()
      )`,
      sql`CREATE INDEX IF NOT EXISTS news_article_company ON news_article (company, published_at DESC)`,
      sql`CREATE INDEX IF NOT EXISTS news_article_day ON news_article (day, title_key)`,
      sql`CREATE INDEX IF NOT EXISTS news_article_published ON news_article (published_at DESC)`,
      sql`CREATE TABLE IF NOT EXISTS news_feed (
        url text PRIMARY KEY,
        kind text NOT NULL,
        company text NOT NULL DEFAULT '',
        polled_at timestamptz NOT NULL DEFAULT now(),
        ok boolean NOT NULL,
        error text,
        articles integer NOT NULL DEFAULT 0
      )`
    ], { discard: true }))
}

/** Bodies this similar (estimated Jaccard of 3-word shingles) are the same story: copies with a sentence or two edited. */
export const SAME_STORY = 0.5

const storyOf = (day: string, titleKey: string) => `sto_${createHash("sha256").update(`${day}\n${titleKey}`).digest("hex").slice(0, 20)}`

const dayOf = (article: News.Article, now: Date) => (article.publishedAt ?? now).toISOString().slice(0, 10)

let lock: Effect.Semaphore | undefined
const serialized = <A, E, R>(effect: Effect.Effect<A, E, R>) => (lock ??= Effect.unsafeMakeSemaphore(1)).withPermits(1)(effect)

interface Peer {
  readonly title_key: string
  readonly sketch: string
  readonly story_id: string
}

// The clustering keys of a day's articles, kept per database for PEERS_TTL_MS: a polling cycle stores hundreds of
// feeds of the same few days, and reading each day's keys again for every feed was most of its time. Another
// process's articles are seen once the entry is read again (until then a copy it stored may start its own story).
const PEERS_TTL_MS = 60_000
const MAX_DAYS_KEPT = 32
const MAX_PEERS_PER_DAY = 20_000
const peerCache = new WeakMap<object, Map<string, { readonly loadedAt: number; readonly peers: Array<Peer> }>>()

const peersOf = (sql: SqlClient.SqlClient, days: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    let cache = peerCache.get(sql)
    if (cache === undefined) peerCache.set(sql, cache = new Map())
    const now = Date.now()
    const stale = days.filter((day) => {
      const entry = cache.get(day)
      return entry === undefined || now - entry.loadedAt > PEERS_TTL_MS
    })
    if (stale.length > 0) {
      const rows = yield* sql<Peer & { day: string }>`
        SELECT day, title_key, sketch, story_id FROM news_article WHERE day IN ${sql.in(stale)} LIMIT ${MAX_PEERS_PER_DAY * stale.length}`
      for (const day of stale) cache.set(day, { loadedAt: now, peers: [] })
      for (const row of rows) cache.get(row.day)?.peers.push(row)
      // The oldest entries go first (a Map iterates in insertion order).
      for (const day of cache.keys()) if (cache.size > MAX_DAYS_KEPT && !days.includes(day)) cache.delete(day)
    }
    const byDay = new Map<string, Array<Peer>>()
    for (const day of days) {
      const peers = cache.get(day)!.peers
      if (peers.length > MAX_PEERS_PER_DAY) peers.splice(0, peers.length - MAX_PEERS_PER_DAY)
      byDay.set(day, peers)
    }
    return byDay
  })

/** Stores a feed's articles (known ids are kept as they were), clustering new ones into stories; returns how many were new. */
export const store = (articles: ReadonlyArray<News.Article>, feedUrl: string, company: string) =>
  serialized(Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    if (articles.length === 0) return 0
    const ids = articles.map((a) => a.id)
    const known = new Set((yield* sql<{ id: string }>`SELECT id FROM news_article WHERE id IN ${sql.in(ids)}`).map((r) => r.id))
    const now = new Date()
    const fresh = articles.filter((a, i) => !known.has(a.id) && articles.findIndex((b) => b.id === a.id) === i)
    if (fresh.length === 0) return 0
    const byDay = yield* peersOf(sql, [...new Set(fresh.map((a) => dayOf(a, now)))])
    const rows = fresh.map((article) => {
      const day = dayOf(article, now)
      const peers = byDay.get(day) ?? []
      // A filing is its own story: filings of one form share a headline ("8-K - Current report").
      const filing = article.type === "regulatory_filing"
      const peer = filing ? undefined : peers.find((p) => article.titleKey !== "" && p.title_key === article.titleKey) ??
        peers.find((p) => News.similarity(p.sketch, article.sketch) >= SAME_STORY)
      const storyId = peer?.story_id ?? storyOf(day, filing ? article.id : article.titleKey)
      peers.push({ title_key: article.titleKey, sketch: article.sketch, story_id: storyId })
      byDay.set(day, peers)
      return {
        id: article.id,
        url: article.url,
        title: article.title,
        description: article.description,
        authors: JSON.stringify(article.authors),
        image_url: article.imageUrl,
        language: article.language,
        published_at: article.publishedAt,
        type: article.type,
        source_domain: article.source.domain,
        source_name: article.source.name,
        direct: article.source.direct,
        company,
        title_key: article.titleKey,
        sketch: article.sketch,
        day,
        story_id: storyId,
        feed_url: feedUrl
      }
    })
    // One statement per feed read (a feed holds at most News.limits.maxItems items).
    yield* sql`INSERT INTO news_article ${sql.insert(rows)} ON CONFLICT (id) DO NOTHING`
    return fresh.length
  }))

/** Records a poll of a feed (or a discovery of a site's feeds). */
export const recordPoll = (url: string, kind: string, company: string, outcome: { readonly ok: boolean; readonly error?: string; readonly articles?: number }) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql`INSERT INTO news_feed (url, kind, company, polled_at, ok, error, articles)
      VALUES (${url}, ${kind}, ${company}, now(), ${outcome.ok}, ${outcome.error ?? null}, ${outcome.articles ?? 0})
      ON CONFLICT (url) DO UPDATE SET polled_at = now(), ok = EXCLUDED.ok, error = EXCLUDED.error, articles = EXCLUDED.articles, kind = EXCLUDED.kind, company = EXCLUDED.company`)

/** When a feed (or `site:<domain>`) was last polled, if ever. */
export const lastPolled = (url: string) =>
  Effect.map(
    Effect.flatMap(SqlClient.SqlClient, (sql) => sql<{ polled_at: Date | string }>`SELECT polled_at FROM news_feed WHERE url = ${url}`),
    (rows) => rows[0] === undefined ? undefined : new Date(rows[0].polled_at)
  )

/** A stored article as the search reads it. */
export interface Row {
  readonly id: string
  readonly url: string
  readonly title: string
  readonly description: string | null
  readonly authors: string
  readonly image_url: string | null
  readonly language: string | null
  readonly published_at: Date | string | null
  readonly type: News.ArticleType
  readonly source_domain: string
  readonly source_name: string
  readonly direct: boolean
  readonly company: string
  readonly story_id: string
}

/** At most this many candidate articles are read for one search (newest first). */
export const MAX_CANDIDATES = 5_000

const escapeLike = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`)

/**
 * Candidate articles of an entity: those of its own feeds and filings (`companies`), and publisher articles whose
 * headline or summary holds one of `names` (normalized; the caller checks word boundaries), newest first.
 */
export const candidates = (companies: ReadonlyArray<string>, names: ReadonlyArray<string>) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => {
    const own = companies.length === 0 ? sql`false` : sql`company IN ${sql.in(companies)}`
    const likes = names.map((name) => sql`lower(title || ' ' || coalesce(description, '')) LIKE ${`%${name.split(" ").map(escapeLike).join("%")}%`}`)
    const mentioned = likes.length === 0 ? sql`false` : sql.or(likes)
    return sql<Row>`SELECT id, url, title, description, authors, image_url, language, published_at, type, source_domain, source_name, direct,
        company, story_id
      FROM news_article WHERE ${own} OR (company = '' AND ${mentioned})
      ORDER BY published_at DESC NULLS LAST, id LIMIT ${MAX_CANDIDATES}`
  })
