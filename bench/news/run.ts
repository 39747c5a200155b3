/**
 * bench/news (issue 20, quality and speed): one polling cycle over N publisher feeds (default 200) served by a local
 * HTTP server under N distinct `*.test` hosts (host rules), each feed 20 items in RSS or Atom (alternately), read by
 * core's `NewsSource` through the real Fetcher and stored by the service's `News/Store` (story clustering included)
 * in PGlite, and in PostgreSQL when DATABASE_URL is set (or the local test database answers). The cycle is
 * `News/Poller.pollCycle`, the same `pollFeed` the `news-poll` jobs run.
 *
 * Among the items, 40 wire stories are syndicated to 5 feeds each on one day: half as the same headline with the
 * publisher's suffix, half re-headlined over a lightly edited body. Reported: the cycle's wall time (target < 10 s),
 * the share of syndicated stories whose copies share one story_id (target 1.0), and unrelated items wrongly merged.
 *
 * `npm run bench -- news [feeds] [concurrency]`
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { Fetcher } from "@sift/core"
import * as News from "@sift/core/News"
import { Migrations, Sql } from "@sift/store"
import { Effect, Layer, Redacted } from "effect"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import * as Poller from "../../packages/http/src/News/Poller.js"
import * as Store from "../../packages/http/src/News/Store.js"

const FEEDS = Number(process.argv[2] ?? 200)
const CONCURRENCY = Number(process.argv[3] ?? 16)
const ITEMS = 20
const STORIES = 40
const COPIES = 5
const postgresUrl = process.env.DATABASE_URL ?? "postgres://sift_test:sift_test@127.0.0.1:5432/sift_test"

// Deterministic made-up words, so no two unrelated items share a headline or a body by chance.
// mulberry32: 32-bit integer steps (a plain LCG in doubles loses precision and cycles).
let seed = 7
const random = () => {
  seed = (seed + 0x6d2b79f5) | 0
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}
const syllables = ["ka", "lo", "mi", "ra", "te", "vu", "zo", "ne", "pi", "su", "do", "fa", "gi", "ho", "ju", "we"]
const word = () => Array.from({ length: 2 + Math.floor(random() * 3) }, () => syllables[Math.floor(random() * syllables.length)]).join("")
const words = (n: number) => Array.from({ length: n }, word).join(" ")

interface Item {
  readonly title: string
  readonly link: string
  readonly body: string
  readonly date: Date
  readonly story: number | undefined
}

const day = Math.floor(Date.now() / 86_400_000) * 86_400_000 - 86_400_000
const feeds: Array<Array<Item>> = Array.from({ length: FEEDS }, () => [])
for (let s = 0; s < STORIES; s++) {
  const headline = `Acme ${words(6)}`
  const body = words(60)
  const targets = new Set<number>()
  while (targets.size < Math.min(COPIES, FEEDS)) targets.add(Math.floor(random() * FEEDS))
  let copy = 0
  for (const f of targets) {
    const edited = s % 2 === 1 && copy > 0
    feeds[f]!.push({
      title: edited ? `Acme ${words(5)}` : copy === 0 ? headline : `${headline} - Feed ${f}`,
      link: `http://feed${f}.test/story/${s}`,
      body: edited ? body.replace(/^(\S+ \S+ \S+)/, "$1 reportedly") : body,
      date: new Date(day + (8 + copy) * 3_600_000),
      story: s
    })
    copy++
  }
}
for (const [f, items] of feeds.entries()) {
  for (let i = items.length; i < ITEMS; i++) {
    items.push({ title: `${word()} ${words(6)}`, link: `http://feed${f}.test/item/${i}`, body: words(40), date: new Date(day - Math.floor(random() * 10) * 86_400_000 + i * 60_000), story: undefined })
  }
}

const escape = (text: string) => text.replace(/&/g, "&amp;").replace(/</g, "&lt;")
const rss = (f: number) => `<?xml version="1.0"?><rss version="2.0"><channel><title>Feed ${f}</title><language>en</language>` +
  feeds[f]!.map((i) => `<item><title>${escape(i.title)}</title><link>${i.link}</link><description>${escape(i.body)}</description><pubDate>${i.date.toUTCString()}</pubDate></item>`).join("") + `</channel></rss>`
const atom = (f: number) => `<?xml version="1.0"?><feed xmlns="http://www.w3.org/2005/Atom" xml:lang="en"><title>Feed ${f}</title><id>urn:feed${f}</id><updated>${new Date().toISOString()}</updated>` +
  feeds[f]!.map((i) => `<entry><title>${escape(i.title)}</title><link href="${i.link}"/><id>${i.link}</id><updated>${i.date.toISOString()}</updated><summary>${escape(i.body)}</summary></entry>`).join("") + `</feed>`
const bodies = feeds.map((_, f) => f % 2 === 0 ? rss(f) : atom(f))

const server = http.createServer((req, res) => {
  const f = Number(/^feed(\d+)\.test/.exec(req.headers.host ?? "")?.[1] ?? -1)
  if (!(f >= 0 && f < FEEDS)) return void res.writeHead(404).end()
  res.writeHead(200, { "content-type": f % 2 === 0 ? "application/rss+xml" : "application/atom+xml" }).end(bodies[f])
})
await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
const port = (server.address() as AddressInfo).port
const urls = feeds.map((_, f) => `http://feed${f}.test/${f % 2 === 0 ? "rss" : "atom"}`)

const services = Layer.mergeAll(
  News.layer().pipe(Layer.provide(Fetcher.layer({ allowPrivateTargets: true, hostRules: `MAP *.test 127.0.0.1:${port}` })))
)

const measure = (database: Layer.Layer<SqlClient.SqlClient, unknown>) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    yield* Migrations.run({ news: Store.migrations })
    yield* sql`DELETE FROM news_article WHERE feed_url LIKE 'http://feed%.test/%'`
    // The feeds' reads alone (fetch and parse, nothing stored): what the cycle's storing adds is the rest.
    const readStarted = performance.now()
    yield* Effect.forEach(urls, (url) => Effect.flatMap(News.NewsSource, (source) => Effect.ignore(source.readFeed(url, Poller.publisherSource(url)))), { concurrency: CONCURRENCY, discard: true })
    const readMs = performance.now() - readStarted
    const started = performance.now()
    const stored = yield* Poller.pollCycle(urls, CONCURRENCY)
    const cycleMs = performance.now() - started
    const rows = yield* sql<{ url: string; story_id: string }>`SELECT url, story_id FROM news_article WHERE feed_url LIKE 'http://feed%.test/%'`
    const storyOf = new Map(rows.map((r) => [r.url, r.story_id]))
    let together = 0
    for (let s = 0; s < STORIES; s++) {
      const ids = new Set(feeds.flatMap((items) => items.filter((i) => i.story === s).map((i) => storyOf.get(i.link))))
      if (ids.size === 1 && !ids.has(undefined)) together++
    }
    const members = new Map<string, number>()
    for (const r of rows) members.set(r.story_id, (members.get(r.story_id) ?? 0) + 1)
    const unrelatedMerged = feeds.flat().filter((i) => i.story === undefined && (members.get(storyOf.get(i.link) ?? "") ?? 0) > 1).length
    yield* sql`DELETE FROM news_article WHERE feed_url LIKE 'http://feed%.test/%'`
    return { cycleMs, readMs, stored, together, unrelatedMerged }
  }).pipe(Effect.scoped, Effect.provide(Layer.merge(database, services)))

const pglite = await Effect.runPromise(measure(Sql.layerPglite({ dir: "memory://" }) as Layer.Layer<SqlClient.SqlClient, unknown>))
const postgres = await Effect.runPromise(Effect.either(measure(Sql.layerPg({ url: Redacted.make(postgresUrl) }) as Layer.Layer<SqlClient.SqlClient, unknown>)))
server.close()

console.log(`bench/news: ${FEEDS} feeds (RSS and Atom alternately) x ${ITEMS} items on local servers, ${STORIES} stories syndicated to ${COPIES} feeds each (half re-headlined), ${CONCURRENCY} feeds at once`)
const report = (name: string, m: typeof pglite) => {
  console.log(`${name}: one polling cycle stored ${m.stored} articles in ${(m.cycleMs / 1000).toFixed(2)} s (target < 10); the reads alone (fetch and parse) ${(m.readMs / 1000).toFixed(2)} s`)
  console.log(`${name}: syndicated stories in one story_id ${(m.together / STORIES).toFixed(3)} (target >= 1.0); unrelated items merged into a story: ${m.unrelatedMerged}`)
}
report("PGlite", pglite)
if (postgres._tag === "Right") report("PostgreSQL", postgres.right)
else console.log(`PostgreSQL: not measured (${String((postgres.left as Error)?.message ?? postgres.left).slice(0, 120)})`)
process.exit(0)
