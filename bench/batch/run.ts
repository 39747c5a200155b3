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
import { buildSync } from "esbuild"
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs"
import { spawn, spawnSync } from "node:child_process"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"
import { request } from "undici"
import { extractionCorpus } from "../corpus.js"
import { allocatorEnv } from "../support/allocator.js"

const arg = (name: string, fallback: number) => {
  const at = process.argv.indexOf(`--${name}`)
  return at === -1 ? fallback : Number(process.argv[at + 1])
}
const quick = process.argv.includes("--quick")
const pages = arg("pages", quick ? 600 : 10_000)
const concurrency = arg("concurrency", 16)
const latencyMs = arg("latency", 3)
const submitUrls = quick ? 2_500 : 25_000

const only = process.argv.includes("--only") ? process.argv[process.argv.indexOf("--only") + 1] : undefined
const originArg = process.argv.includes("--origin") ? process.argv[process.argv.indexOf("--origin") + 1] : undefined

/**
 * The site: corpus pages, each served under many URLs (a page's title made unique so no two records are alike). It
 * runs in a process of its own, as a real site would: its bodies and responses never count in a contender's memory.
 */
const serveSite = async (): Promise<{ origin: string; close: () => void }> => {
  const corpusDir = extractionCorpus()
  const files = readdirSync(join(corpusDir, "html")).filter((f) => f.endsWith(".html")).sort().slice(0, 300)
  const bodies = files.map((f) => readFileSync(join(corpusDir, "html", f), "utf8"))
  const server = createServer((req, res) => {
    const n = Number((req.url ?? "/").match(/\/p\/(\d+)/)?.[1] ?? 0)
    const html = bodies[n % bodies.length]!.replace(/<title>/i, `<title>${n} `)
    setTimeout(() => res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(html), latencyMs)
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => server.close() }
}
if (only === "site") {
  const site = await serveSite()
  process.stdout.write(`ORIGIN ${site.origin}\n`)
  // Serves until the parent goes (its stdin closes).
  process.stdin.resume()
  process.stdin.on("end", () => process.exit(0))
  await new Promise<never>(() => {})
}
const origin = originArg ?? ""
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
  const cpuBefore = process.cpuUsage()
  await crawler.run(urls)
  const perSecond = urls.length / ((performance.now() - started) / 1000)
  const cpu = process.cpuUsage(cpuBefore)
  if (made !== urls.length) console.error(`crawlee made ${made} of ${urls.length} pages`)
  return { perSecond, cpuMsPerPage: (cpu.user + cpu.system) / 1000 / urls.length }
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
    const trace = (what: string) => {
      if (process.env["BENCH_BATCH_TRACE"] !== undefined) {
        const m = process.memoryUsage()
        console.error(`${what}: rss ${(m.rss / 1048576).toFixed(0)} heap ${(m.heapUsed / 1048576).toFixed(0)} external ${(m.external / 1048576).toFixed(0)}`)
      }
    }
    trace("ready")
    // The server's time to accept a large submission (validation, intake, one transaction with every page).
    const submitStarted = performance.now()
    const big = yield* Batches.submit(owner, {
      input: { mode: "scrape", data: { format: "markdown", urls: Array.from({ length: submitUrls }, (_, i) => ({ url: `${origin}/s/${i}` })) } }
    }, { requestId: "req_submit" })
    const submitMs = performance.now() - submitStarted
    trace("submitted")
    yield* sql`UPDATE batches SET status = 'cancelled' WHERE id = ${big.id}`
    yield* sql`DELETE FROM batch_pages WHERE batch_id = ${big.id}`
    trace("deleted")
    const before = sizeOf(dir)
    const made = yield* Batches.submit(owner, { input: { mode: "scrape", data: { format: "markdown", urls: urls.map((url) => ({ url })) } } }, { requestId: "req_bench" })
    trace("batch submitted")
    let peak = rssMb()
    const samples: Array<{ done: number; rss: number; heap: number; external: number; arrayBuffers: number }> = []
    const sampler = setInterval(() => {
      peak = Math.max(peak, rssMb())
    }, 100)
    // RSS against pages done, four times a second, read through the same client.
    yield* Effect.forkScoped(Effect.forever(Effect.zipRight(
      Effect.sleep(250),
      Effect.map(sql<{ n: number }>`SELECT succeeded + failed AS n FROM batches WHERE id = ${made.id}`, (rows) => {
        if (process.env["BENCH_BATCH_TRACE"] === "gc") (globalThis as { gc?: () => void }).gc?.()
        const m = process.memoryUsage()
        samples.push({ done: Number(rows[0]?.n ?? 0), rss: m.rss / 1048576, heap: m.heapUsed / 1048576, external: m.external / 1048576, arrayBuffers: m.arrayBuffers / 1048576 })
        if (process.env["BENCH_BATCH_TRACE"] !== undefined) console.error(JSON.stringify(samples[samples.length - 1]))
      })
    )))
    const started = performance.now()
    const cpuBefore = process.cpuUsage()
    yield* BatchRunner.drive(made.id, { concurrency, perHost: concurrency })
    const seconds = (performance.now() - started) / 1000
    // The process's CPU time (every thread: the pipeline, PGlite's worker) per page: load on the machine hardly moves it.
    const cpu = process.cpuUsage(cpuBefore)
    const cpuMsPerPage = (cpu.user + cpu.system) / 1000 / pages
    clearInterval(sampler)
    const view = yield* Batches.get(owner, made.id, String)
    const after = sizeOf(dir)
    return { perSecond: pages / seconds, cpuMsPerPage, submitMs, peak, samples, view, bytesPerPage: (after - before) / pages }
  })
  const result = await Effect.runPromise(Effect.scoped(Effect.provide(program, live)))
  rmSync(dir, { recursive: true, force: true })
  return result
}

// Each contender runs in a child process of its own, so memory and event-loop work of one never counts for another.
if (only !== undefined && only !== "site") {
  const result = only === "raw" ? { perSecond: await raw() } : only === "crawlee" ? { ...(await crawlee()), peak: rssMb() } : await sift()
  process.stdout.write(`\nRESULT ${JSON.stringify(result)}\n`)
  process.exit(0)
}

// Each contender (and the site) runs this file compiled to JavaScript under plain node, with Sift's packages from dist
// (built first, so they are the sources as they are now), as `sift serve` runs: under tsx a process also holds its
// loader (a thread with a heap of its own and transform caches), about 60 MB of RSS that counted against whichever
// contender ran in it. Node flags given to the bench (a profiler) are passed on.
const benchDir = dirname(dirname(fileURLToPath(import.meta.url)))
const built = spawnSync(process.execPath, [join(benchDir, "..", "node_modules", "typescript", "bin", "tsc"), "-b"], { cwd: join(benchDir, ".."), stdio: "inherit" })
if (built.status !== 0) throw new Error("bench/batch: tsc -b failed")
// Every process (the site and each contender) starts with the allocator settings `sift serve` starts with.
const childEnv = { ...process.env, ...allocatorEnv(), NODE_OPTIONS: (process.env.NODE_OPTIONS ?? "").replace(/--conditions=@sift\/source/g, "").trim() }
const compiled = join(benchDir, "..", "node_modules", ".cache", "sift-bench", "batch.mjs")
mkdirSync(dirname(compiled), { recursive: true })
buildSync({
  entryPoints: [fileURLToPath(import.meta.url)],
  bundle: true,
  packages: "external",
  platform: "node",
  format: "esm",
  target: "node20",
  outfile: compiled,
  logLevel: "error",
  // The bench's own modules find the corpora from their directory (bench/corpus.ts is the one that looks).
  define: { "import.meta.url": JSON.stringify(pathToFileURL(join(benchDir, "corpus.ts")).href) }
})
const nodeFlags = process.execArgv.filter((flag, i, all) => !/^--(import|loader)(=|$)/.test(flag) && !/^--(import|loader)$/.test(all[i - 1] ?? ""))
const site = spawn(process.execPath, [...nodeFlags, compiled, ...process.argv.slice(2), "--only", "site"], { stdio: ["pipe", "pipe", "inherit"], env: childEnv })
const siteOrigin = await new Promise<string>((resolve, reject) => {
  let out = ""
  site.stdout.on("data", (chunk: Buffer) => {
    out += chunk.toString()
    const found = out.match(/ORIGIN (\S+)/)
    if (found !== null) resolve(found[1]!)
  })
  site.once("exit", (code) => reject(new Error(`bench/batch site exited (${code})`)))
})

const child = (name: string): any => {
  const args = [...nodeFlags, compiled, ...process.argv.slice(2), "--only", name, "--origin", siteOrigin]
  const run = spawnSync(process.execPath, args, { encoding: "utf8", env: { ...childEnv, CRAWLEE_LOG_LEVEL: "ERROR" }, maxBuffer: 64 * 1024 * 1024 })
  const line = run.stdout.split("\n").find((l) => l.startsWith("RESULT "))
  if (line === undefined) throw new Error(`bench/batch ${name} failed (${run.status}): ${run.stderr.slice(-2000)}`)
  return JSON.parse(line.slice("RESULT ".length))
}

console.log(`bench/batch: ${pages} pages, concurrency ${concurrency}, ${latencyMs} ms latency per page${quick ? " (quick)" : ""}; each in its own process`)
// Sift first: its process loads the code as it is when the bench starts.
const ours = child("sift")
const floor = child("raw").perSecond as number
console.log(`raw undici loop:              ${floor.toFixed(0)} pages/s`)
const crawleeRun = child("crawlee")
const peer = crawleeRun.perSecond as number
console.log(`Crawlee Cheerio + turndown:   ${peer.toFixed(0)} pages/s, CPU ${crawleeRun.cpuMsPerPage.toFixed(2)} ms per page, peak RSS ${crawleeRun.peak.toFixed(0)} MB`)
console.log(`Sift batch (durable, PGlite): ${ours.perSecond.toFixed(0)} pages/s = ${(ours.perSecond / peer).toFixed(2)}x Crawlee (target >= 1.5x), ${(100 * ours.perSecond / floor).toFixed(0)}% of the raw floor`)
console.log(`  CPU ${ours.cpuMsPerPage.toFixed(2)} ms per page (all of the process's threads) = ${(crawleeRun.cpuMsPerPage / ours.cpuMsPerPage).toFixed(2)}x Crawlee's pages per CPU second (machine load hardly moves this one)`)
console.log(`  completed ${ours.view.progress.succeeded} ok, ${ours.view.progress.failed} failed; status ${ours.view.status}`)
// RSS over the first and the last tenth of the pages (a thousand of 10,000): the median of the samples in each (the
// nearest one when none fell in it), since one reading lands anywhere in the collector's cycle (one run's samples
// differ by 100 MB).
const tenth = Math.min(1_000, pages / 10)
const medianRss = (window: ReadonlyArray<{ rss: number }>) => {
  const sorted = window.map((s) => s.rss).sort((a, b) => a - b)
  return sorted.length === 0 ? Number.NaN : sorted[Math.floor(sorted.length / 2)]!
}
type Sample = { done: number; rss: number }
const within = (from: number, to: number, near: number): ReadonlyArray<Sample> => {
  const inside = (ours.samples as Array<Sample>).filter((s) => s.done >= from && s.done <= to)
  if (inside.length > 0 || ours.samples.length === 0) return inside
  return [(ours.samples as Array<Sample>).reduce((a, b) => Math.abs(b.done - near) < Math.abs(a.done - near) ? b : a)]
}
const firstTenth = within(1, tenth, tenth)
const lastTenth = within(pages - tenth, pages - 1, pages - tenth)
console.log(`  peak RSS ${ours.peak.toFixed(0)} MB (target < 600); RSS median over pages 1-${tenth} ${medianRss(firstTenth).toFixed(0)} MB (${firstTenth.length} samples), over the last ${tenth} ${medianRss(lastTenth).toFixed(0)} MB (${lastTenth.length} samples) (target: flat)`)
console.log(`  database growth ${(ours.bytesPerPage / 1024).toFixed(1)} KB per page`)
console.log(`  submission of ${submitUrls.toLocaleString("en")} URLs: ${ours.submitMs.toFixed(0)} ms of the server's time (target < 2000 for 25,000)`)
site.kill()
