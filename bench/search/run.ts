/**
 * bench/search (own-index half of issue 20): Sift's own page index (store `PageIndex`: PostgreSQL full-text search)
 * against a BM25 baseline computed in the same run over the same texts (`wink-bm25-text-search`, fields title x2,
 * headings x1.5, body x1, Porter-stemmed tokens), on a generated corpus with known relevant pages per query.
 *
 * Corpus: pages of made-up words (no tokenizer or stemmer has seen them; syllables so both stem alike), each about a
 * primary topic (six topic words, drawn from the rarer part of a Zipf vocabulary; topics share words by chance) and
 * sometimes a secondary one; the title and headings carry topic words more often than the body, the rest is Zipf
 * background; topic words come from a narrow band, so each belongs to two or three topics. A query is two or three
 * words of one topic (a third of them plus a stray word); its pages are graded 2 (primary topic) and 1 (secondary).
 *
 * Targets: nDCG@10 of the index / BM25's >= 1.0; query p50 < 50 ms on PGlite and on PostgreSQL (both reported, with
 * index growth per page). PostgreSQL is `DATABASE_URL` (else the local test database); without it only PGlite runs.
 * Each p50 is also given as a multiple of the in-process BM25's p50 in the same run, with the load average: on a
 * shared machine the wall clock moves with the load, the multiple much less.
 *
 *   npm run bench -- search [--pages 50000] [--queries 50] [--quick]
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { stem } from "@sift/core/Stem"
import { Migrations, Sql } from "@sift/store"
import * as PageIndex from "@sift/store/PageIndex"
import { Effect, Layer, Redacted } from "effect"
import { createRequire } from "node:module"
import { loadavg } from "node:os"

const arg = (name: string, fallback: number) => {
  const at = process.argv.indexOf(`--${name}`)
  return at === -1 ? fallback : Number(process.argv[at + 1])
}
const quick = process.argv.includes("--quick")
const pageCount = arg("pages", quick ? 5_000 : 50_000)
const queryCount = arg("queries", quick ? 20 : 50)
const postgresUrl = process.env.DATABASE_URL ?? "postgres://sift_test:sift_test@127.0.0.1:5432/sift_test"

// A seeded generator: every run builds the same corpus.
let seed = 20_201
const random = () => {
  seed = (seed + 0x6d2b79f5) | 0
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
  return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296
}
const pick = <A>(items: ReadonlyArray<A>): A => items[Math.floor(random() * items.length)]!

const syllables = ["ka", "lo", "mi", "ne", "ru", "ta", "vo", "zi", "pe", "shu", "dra", "ben", "kor", "lim", "sat", "tor", "vel", "qua", "fen", "gor"]
const VOCABULARY = 8_000
const vocabulary = Array.from({ length: VOCABULARY }, (_, i) => {
  let n = i + 400
  let word = ""
  while (n > 0) {
    word += syllables[n % syllables.length]
    n = Math.floor(n / syllables.length)
  }
  return word
})
// Zipf background: cumulative weights 1/rank.
const cumulative: Array<number> = []
vocabulary.reduce((sum, _w, rank) => (cumulative[rank] = sum + 1 / (rank + 1)), 0)
const backgroundWord = () => {
  const target = random() * cumulative[cumulative.length - 1]!
  let lo = 0
  let hi = cumulative.length - 1
  while (lo < hi) {
    const mid = (lo + hi) >> 1
    if (cumulative[mid]! < target) lo = mid + 1
    else hi = mid
  }
  return vocabulary[lo]!
}

const TOPICS = Math.max(50, Math.round(pageCount / 50))
// Topic words come from a narrow band of the vocabulary, so each is shared by two or three topics: a query's words
// must be read together to tell its topic apart.
const TOPIC_BAND = Math.min(VOCABULARY - 300, Math.max(200, Math.round(TOPICS * 2.5)))
const topics = Array.from({ length: TOPICS }, () => Array.from({ length: 6 }, () => vocabulary[300 + Math.floor(random() * TOPIC_BAND)]!))

interface Page {
  readonly url: string
  readonly title: string
  readonly headings: Array<string>
  readonly body: string
  readonly primary: number
  readonly secondary: number | undefined
}

const words = (count: number, topic: ReadonlyArray<string>, share: number, other?: ReadonlyArray<string>) =>
  Array.from({ length: count }, () => {
    const r = random()
    return r < share ? pick(topic) : other !== undefined && r < share + 0.04 ? pick(other) : backgroundWord()
  }).join(" ")

const pages: Array<Page> = Array.from({ length: pageCount }, (_, i) => {
  const primary = Math.floor(random() * TOPICS)
  const secondary = random() < 0.3 ? Math.floor(random() * TOPICS) : undefined
  const topic = topics[primary]!
  const other = secondary === undefined ? undefined : topics[secondary]
  return {
    url: `https://site${i % 400}.test/page/${i}`,
    title: words(3 + Math.floor(random() * 4), topic, 0.3),
    headings: [words(3, topic, 0.2), words(4, topic, 0.15, other)],
    body: words(100 + Math.floor(random() * 80), topic, 0.05, other),
    primary,
    secondary
  }
})

const queries = Array.from({ length: queryCount }, () => {
  const topic = Math.floor(random() * TOPICS)
  const length = random() < 0.5 ? 2 : 3
  const chosen = new Set<string>()
  while (chosen.size < length) chosen.add(pick(topics[topic]!))
  // A third of the queries carry a word of the user's that no page of the topic need hold.
  if (random() < 0.33) chosen.add(backgroundWord())
  return { topic, text: [...chosen].join(" ") }
})

const grade = (page: Page, topic: number): number => page.primary === topic ? 2 : page.secondary === topic ? 1 : 0

/** nDCG@10 of a ranking (page indexes) for a query's topic. */
const ndcg = (ranking: ReadonlyArray<number>, topic: number): number => {
  const dcg = ranking.slice(0, 10).reduce((sum, p, i) => sum + (2 ** grade(pages[p]!, topic) - 1) / Math.log2(i + 2), 0)
  const ideal = pages.map((p) => grade(p, topic)).filter((g) => g > 0).sort((a, b) => b - a).slice(0, 10)
  const idcg = ideal.reduce((sum, g, i) => sum + (2 ** g - 1) / Math.log2(i + 2), 0)
  return idcg === 0 ? 0 : dcg / idcg
}
const mean = (xs: ReadonlyArray<number>) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length)
const median = (xs: ReadonlyArray<number>) => {
  const sorted = [...xs].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)] ?? 0
}
const pageOf = new Map(pages.map((p, i) => [p.url, i]))

// --- The BM25 baseline (wink-bm25-text-search 3.1.2), same texts, same run.
const require = createRequire(import.meta.url)
const winkBm25 = require("wink-bm25-text-search") as () => {
  defineConfig: (config: unknown) => void
  definePrepTasks: (tasks: ReadonlyArray<(input: string) => Array<string>>) => void
  addDoc: (doc: Record<string, string>, id: number) => void
  consolidate: () => void
  search: (text: string, limit: number) => Array<[number, number]>
}
const tokens = (text: string) => (text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).map(stem)
const bm25 = winkBm25()
bm25.defineConfig({ fldWeights: { title: 2, headings: 1.5, body: 1 } })
bm25.definePrepTasks([tokens])
let started = performance.now()
pages.forEach((page, i) => bm25.addDoc({ title: page.title, headings: page.headings.join(" "), body: page.body }, i))
bm25.consolidate()
const bm25BuildMs = performance.now() - started
const bm25Ndcg = mean(queries.map((q) => ndcg(bm25.search(q.text, 10).map(([id]) => Number(id)), q.topic)))
const bm25Times = queries.map((q) => {
  const t = performance.now()
  bm25.search(q.text, 10)
  return performance.now() - t
})

// --- Sift's own index, on one backend.
interface Measured {
  readonly ndcg: number
  readonly p50Ms: number
  readonly bytesPerPage: number
  readonly loadMs: number
}

const measure = (database: Layer.Layer<SqlClient.SqlClient, unknown>) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    yield* Migrations.run({ search: PageIndex.migrations })
    const index = yield* PageIndex.make({ sweepIntervalMs: 3_600_000 })
    const orgId = `bench_${Date.now().toString(36)}`
    const size = () => Effect.map(sql<{ n: number }>`SELECT pg_total_relation_size('page_index')::float8 AS n`, (rows) => Number(rows[0]!.n))
    const sizeBefore = yield* size()
    const loadStarted = performance.now()
    for (let i = 0; i < pages.length; i += 500) {
      yield* index.add(pages.slice(i, i + 500).map((page) => ({
        orgId,
        url: page.url,
        title: page.title,
        headings: page.headings,
        markdown: page.body,
        language: "en"
      })))
    }
    const loadMs = performance.now() - loadStarted
    yield* sql`ANALYZE page_index`
    const sizeAfter = yield* size()
    const rankings: Array<Array<number>> = []
    for (const q of queries) {
      const hits = yield* index.search({ orgId, text: q.text, limit: 10 })
      rankings.push(hits.map((hit) => pageOf.get(hit.url)!))
    }
    const times: Array<number> = []
    for (let round = 0; round < 2; round++) {
      for (const q of queries) {
        const t = performance.now()
        yield* index.search({ orgId, text: q.text, limit: 10 })
        times.push(performance.now() - t)
      }
    }
    yield* sql`DELETE FROM page_index WHERE org_id = ${orgId}`
    return {
      ndcg: mean(queries.map((q, i) => ndcg(rankings[i]!, q.topic))),
      p50Ms: median(times),
      bytesPerPage: (sizeAfter - sizeBefore) / pages.length,
      loadMs
    } satisfies Measured
  }).pipe(Effect.scoped, Effect.provide(database))

const pglite = await Effect.runPromise(measure(Sql.layerPglite({ dir: "memory://" }) as Layer.Layer<SqlClient.SqlClient, unknown>))
const postgres = await Effect.runPromise(
  Effect.either(measure(Sql.layerPg({ url: Redacted.make(postgresUrl) }) as Layer.Layer<SqlClient.SqlClient, unknown>))
)

const kb = (bytes: number) => (bytes / 1024).toFixed(2)
console.log(`bench/search: ${pages.length.toLocaleString("en")} generated pages, ${TOPICS} topics, ${queries.length} queries (2-3 topic words each)`)
console.log(`BM25 baseline (wink-bm25-text-search, title x2 headings x1.5 body x1): built in ${(bm25BuildMs / 1000).toFixed(1)} s in memory, query p50 ${median(bm25Times).toFixed(2)} ms`)
console.log(`PGlite: loaded in ${(pglite.loadMs / 1000).toFixed(1)} s (${Math.round(pages.length / (pglite.loadMs / 1000))} pages/s), index growth ${kb(pglite.bytesPerPage)} KB per page`)
if (postgres._tag === "Right") {
  console.log(`PostgreSQL: loaded in ${(postgres.right.loadMs / 1000).toFixed(1)} s (${Math.round(pages.length / (postgres.right.loadMs / 1000))} pages/s), index growth ${kb(postgres.right.bytesPerPage)} KB per page (shared test database: approximate)`)
} else {
  console.log(`PostgreSQL: not measured (${String((postgres.left as Error)?.message ?? postgres.left).slice(0, 120)})`)
}
console.log(`nDCG@10: own index ${pglite.ndcg.toFixed(3)}, BM25 ${bm25Ndcg.toFixed(3)}: ratio ${(pglite.ndcg / bm25Ndcg).toFixed(3)} (target >= 1.0)`)
if (postgres._tag === "Right" && Math.abs(postgres.right.ndcg - pglite.ndcg) > 1e-9) {
  console.log(`nDCG@10 on PostgreSQL: ${postgres.right.ndcg.toFixed(3)} (differs from PGlite's)`)
}
// Wall-clock figures move with the machine's load: the ratio to the in-process BM25 of the same run moves less.
const versusBm25 = (ms: number) => `${(ms / Math.max(0.01, median(bm25Times))).toFixed(1)}x the BM25 baseline's p50`
const load = loadavg().map((n) => n.toFixed(1)).join(" ")
console.log(`query p50 on PGlite: ${pglite.p50Ms.toFixed(1)} ms (target < 50; ${versusBm25(pglite.p50Ms)}; load average ${load})`)
if (postgres._tag === "Right") console.log(`query p50 on PostgreSQL: ${postgres.right.p50Ms.toFixed(1)} ms (target < 50; ${versusBm25(postgres.right.p50Ms)})`)
process.exit(0)
