/**
 * bench/batch: Sift's durable batch (Markdown, every record stored in PGlite in a data directory, pg-boss, exactly
 * once) against the peer a Node user would pick, Crawlee's CheerioCrawler + turndown (in memory, nothing stored), and
 * the floor, a raw undici fetch loop, at the same concurrency, on one local site of realistic pages (the extraction
 * corpus, each page served under many URLs) with a few ms of latency per page. Also: peak RSS and RSS over the run
 * (first vs last thousand pages), database growth per page, and the server's time to accept a 25,000-URL submission.
 *
 * Targets (issue 18): Sift >= 1.5x Crawlee's pages/s; peak RSS < 600 MB and flat; submission of 25,000 URLs < 2 s.
 *
 *   npm run bench -- batch [--pages 10000] [--concurrency 16] [--latency 3] [--quick]
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { BatchCredits, BatchRunner, Batches, migrations as batchMigrations } from "@sift/batch"
import { Fetcher } from "@sift/core"
import { BlobStore, CacheStore, JobQueue, Migrations, Sql } from "@sift/store"
import { Deliveries, migrations as webhookMigrations } from "@sift/webhooks"
import { ConfigProvider, Effect, Layer } from "effect"
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs"
import { spawnSync } from "node:child_process"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { request } from "undici"
import { extractionCorpus } from "../corpus.js"

const arg = (name: string, fallback: number) => {
  const at = process.argv.indexOf(`--${name}`)
  return at === -1 ? fallback : Number(process.argv[at + 1])
}
const quick = process.argv.includes("--quick")
const pages = arg("pages", quick ? 600 : 10_000)
const concurrency = arg("concurrency", 16)
const latencyMs = arg("latency", 3)
const submitUrls = quick ? 2_500 : 25_000

// The site: corpus pages, each served under many URLs (a page's title made unique so no two records are alike).
const corpusDir = extractionCorpus()
const files = readdirSync(join(corpusDir, "html")).filter((f) => f.endsWith(".html")).sort().slice(0, 300)
const bodies = files.map((f) => readFileSync(join(corpusDir, "html", f), "utf8"))
const server = createServer((req, res) => {
  const n = Number((req.url ?? "/").match(/\/p\/(\d+)/)?.[1] ?? 0)
  const html = bodies[n % bodies.length]!.replace(/<title>/i, `<title>${n} `)
  setTimeout(() => res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(html), latencyMs)
})
await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
const urls = Array.from({ length: pages }, (_, i) => `${origin}/p/${i}`)

const rssMb = () => process.memoryUsage().rss / 1024 / 1024

/** The floor: fetch every page and read its body, `concurrency` at a time. */
const raw = async () => {
  let next = 0
  const started = performance.now()
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next < urls.length) {
      const url = urls[next++]!
      const response = await request(url)
      await response.body.text()
    }
  }))
  return urls.length / ((performance.now() - started) / 1000)
}

/** The peer: Crawlee's CheerioCrawler with turndown, nothing persisted. */
const crawlee = async () => {
  // Loaded only in the peer's own process, so Sift's figures never carry Crawlee's modules.
  const { CheerioCrawler, Configuration } = await import("@crawlee/cheerio")
  const { default: TurndownService } = await import("turndown")
  const turndown = new TurndownService({ headingStyle: "atx", codeBlockStyle: "fenced" })
  let made = 0
  const crawler = new CheerioCrawler({
    minConcurrency: concurrency,
    maxConcurrency: concurrency,
    maxRequestRetries: 0,
    useSessionPool: false,
    requestHandler: async ({ body }) => {
      if (turndown.turndown(String(body)).length > 0) made++
    }
  }, new Configuration({ persistStorage: false, purgeOnStart: true }))
  const started = performance.now()
  await crawler.run(urls)
  const perSecond = urls.length / ((performance.now() - started) / 1000)
  if (made !== urls.length) console.error(`crawlee made ${made} of ${urls.length} pages`)
  return perSecond
}

/** Sift: a durable batch on PGlite in a data directory, driven in this process. */
const sift = async () => {
  const dir = mkdtempSync(join(tmpdir(), "sift-bench-batch-"))
  const sizeOf = (path: string): number => {
    const stat = statSync(path)
    return stat.isDirectory() ? readdirSync(path).reduce((sum, f) => sum + sizeOf(join(path, f)), 0) : stat.size
  }
  const credits = Layer.succeed(BatchCredits.BatchCredits, {
    reserve: () => Effect.succeed({ remaining: 1_000_000 }),
    settle: () => Effect.void
  })
  const storage = Layer.tap(Sql.layerPglite({ dir }), (ctx) =>
    Effect.provide(Migrations.run({ store: Migrations.store, webhooks: webhookMigrations, batch: batchMigrations }), ctx))
  const fetcher = Fetcher.layerConfig.pipe(
    Layer.provide(Layer.setConfigProvider(ConfigProvider.fromMap(new Map([["SIFT_ALLOW_PRIVATE_TARGETS", "true"]])))),
    Layer.orDie
  )
  // The page cache as the service has it: in the database, with its 64 MB memory front.
  const live = Layer.mergeAll(credits, BlobStore.layerSql, CacheStore.layer(), JobQueue.layer({ queues: [Batches.QUEUE, Deliveries.QUEUE], supervise: false })).pipe(
    Layer.provideMerge(storage),
    Layer.provideMerge(fetcher)
  )
  const owner: Batches.Owner = { orgId: "org_bench", keyId: undefined, plan: "scale" }
  const program = Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    // The server's time to accept a large submission (validation, intake, one transaction with every page).
    const submitStarted = performance.now()
    const big = yield* Batches.submit(owner, {
      input: { mode: "scrape", data: { format: "markdown", urls: Array.from({ length: submitUrls }, (_, i) => ({ url: `${origin}/s/${i}` })) } }
    }, { requestId: "req_submit" })
    const submitMs = performance.now() - submitStarted
    yield* sql`UPDATE batches SET status = 'cancelled' WHERE id = ${big.id}`
    yield* sql`DELETE FROM batch_pages WHERE batch_id = ${big.id}`
    const before = sizeOf(dir)
    const made = yield* Batches.submit(owner, { input: { mode: "scrape", data: { format: "markdown", urls: urls.map((url) => ({ url })) } } }, { requestId: "req_bench" })
    let peak = rssMb()
    const samples: Array<{ done: number; rss: number }> = []
    const sampler = setInterval(() => {
      peak = Math.max(peak, rssMb())
    }, 100)
    // RSS against pages done, once a second, read through the same client.
    yield* Effect.forkScoped(Effect.forever(Effect.zipRight(
      Effect.sleep(1_000),
      Effect.map(sql<{ n: number }>`SELECT succeeded + failed AS n FROM batches WHERE id = ${made.id}`, (rows) => {
        samples.push({ done: Number(rows[0]?.n ?? 0), rss: rssMb() })
      })
    )))
    const started = performance.now()
    yield* BatchRunner.drive(made.id, { concurrency, perHost: concurrency })
    const seconds = (performance.now() - started) / 1000
    clearInterval(sampler)
    const view = yield* Batches.get(owner, made.id, String)
    const after = sizeOf(dir)
    return { perSecond: pages / seconds, submitMs, peak, samples, view, bytesPerPage: (after - before) / pages }
  })
  const result = await Effect.runPromise(Effect.scoped(Effect.provide(program, live)))
  rmSync(dir, { recursive: true, force: true })
  return result
}

// Each contender runs in a child process of its own, so memory and event-loop work of one never counts for another.
const only = process.argv.includes("--only") ? process.argv[process.argv.indexOf("--only") + 1] : undefined
if (only !== undefined) {
  const result = only === "raw" ? { perSecond: await raw() } : only === "crawlee" ? { perSecond: await crawlee(), peak: rssMb() } : await sift()
  process.stdout.write(`\nRESULT ${JSON.stringify(result)}\n`)
  server.close()
  process.exit(0)
}
server.close()

const child = (name: string): any => {
  const args = [...process.execArgv, process.argv[1]!, ...process.argv.slice(2), "--only", name]
  const run = spawnSync(process.execPath, args, { encoding: "utf8", env: { ...process.env, CRAWLEE_LOG_LEVEL: "ERROR" }, maxBuffer: 64 * 1024 * 1024 })
  const line = run.stdout.split("\n").find((l) => l.startsWith("RESULT "))
  if (line === undefined) throw new Error(`bench/batch ${name} failed (${run.status}): ${run.stderr.slice(-2000)}`)
  return JSON.parse(line.slice("RESULT ".length))
}

console.log(`bench/batch: ${pages} pages, concurrency ${concurrency}, ${latencyMs} ms latency per page${quick ? " (quick)" : ""}; each in its own process`)
const floor = child("raw").perSecond as number
console.log(`raw undici loop:              ${floor.toFixed(0)} pages/s`)
const peer = child("crawlee").perSecond as number
console.log(`Crawlee Cheerio + turndown:   ${peer.toFixed(0)} pages/s`)
const ours = child("sift")
console.log(`Sift batch (durable, PGlite): ${ours.perSecond.toFixed(0)} pages/s = ${(ours.perSecond / peer).toFixed(2)}x Crawlee (target >= 1.5x), ${(100 * ours.perSecond / floor).toFixed(0)}% of the raw floor`)
console.log(`  completed ${ours.view.progress.succeeded} ok, ${ours.view.progress.failed} failed; status ${ours.view.status}`)
const first = ours.samples.find((s: { done: number }) => s.done >= Math.min(1_000, pages / 10)) ?? ours.samples[0]
const last = ours.samples[ours.samples.length - 1]
console.log(`  peak RSS ${ours.peak.toFixed(0)} MB (target < 600); RSS at ${first?.done ?? "?"} pages ${first?.rss.toFixed(0) ?? "?"} MB, at ${last?.done ?? "?"} pages ${last?.rss.toFixed(0) ?? "?"} MB`)
console.log(`  database growth ${(ours.bytesPerPage / 1024).toFixed(1)} KB per page`)
console.log(`  submission of ${submitUrls.toLocaleString("en")} URLs: ${ours.submitMs.toFixed(0)} ms of the server's time (target < 2000 for 25,000)`)
