/**
 * bench/cluster: `sift serve` as deployed, one real process per database, measured from outside.
 *
 * 1. Cache-hit `GET /v1/web/scrape/markdown` requests/s of a `sift serve` on PostgreSQL (DATABASE_URL, a fresh
 *    schema) and of one on embedded PGlite, against a bare `node:http` server returning the same bytes (in this
 *    process, as bench/http has it). Target: each Sift at least 1/5 of the bare server (bench/http's target, here also
 *    on PostgreSQL, where every answer waits for its charge and log row to commit).
 * 2. Sizing figures for docs/deploy.md: CPU time of the Sift process (and its children: Chromium) per cache hit, per
 *    static scrape (a page not cached yet) and per rendered page (a page drawn by script), read from /proc; PostgreSQL
 *    connections the process holds under load (pg_stat_activity, by application name).
 * 3. With `--soak N` (seconds; `--quick`: 180, its short variant, run by CI) the PostgreSQL process is replaced by an
 *    `api` and a `worker` process on the same database, which take N seconds of mixed traffic: through the api,
 *    cache hits, static scrapes, rendered pages and maps; manual runs of three monitors (each with a webhook to a
 *    local receiver) every minute (the short variant: every N/6 s); a 50-URL batch every two minutes (short: every
 *    N/3 s). Each process's RSS, open file descriptors and Chromium processes, and the PostgreSQL connections of both,
 *    are read under traffic at N/6 (the 5th minute of a 30-minute soak; under 10 minutes, past the warm-up: N/2) and
 *    2 s before the end (RSS: the median of samples every 2 s over the minute before; connections: the most held in
 *    it): flat within 10% is the target. Errors are answers other than 2xx; the batches and webhook deliveries are
 *    counted at the end.
 *
 *   npm run bench -- cluster [--seconds 5] [--rounds 3] [--concurrency 32] [--scrapes 200] [--renders 20] [--soak 1800]
 *   npm run bench -- cluster --quick
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as Auth from "@sift/auth"
import { App } from "@sift/http"
import { Migrations, Sql } from "@sift/store"
import { Effect, Layer, ManagedRuntime, Redacted } from "effect"
import { type ChildProcess, spawn } from "node:child_process"
import * as fs from "node:fs"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { parseArgs } from "node:util"
import { Pool } from "undici"
import { allocatorEnv } from "../support/allocator.js"
import { startOrigin } from "../support/service.js"

const { values } = parseArgs({
  options: {
    seconds: { type: "string", default: "5" },
    rounds: { type: "string", default: "3" },
    warmup: { type: "string", default: "2" },
    concurrency: { type: "string", default: "32" },
    scrapes: { type: "string", default: "200" },
    renders: { type: "string", default: "20" },
    soak: { type: "string" },
    quick: { type: "boolean", default: false }
  }
})
const quick = values.quick
const seconds = quick ? 2 : Number(values.seconds)
const rounds = quick ? 3 : Number(values.rounds)
const warmup = quick ? 1 : Number(values.warmup)
const concurrency = Number(values.concurrency)
const scrapes = quick ? 40 : Number(values.scrapes)
const renders = quick ? 4 : Number(values.renders)
const soakSeconds = values.soak !== undefined ? Number(values.soak) : quick ? 180 : 0
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..")
const databaseUrl = process.env.DATABASE_URL || undefined
const appName = `sift-bench-cluster-${process.pid}`

// --- the origin: the bench page (cache hits and static scrapes) and a page only a browser draws --------------------
const origin = await startOrigin()
const drawn = createServer((req, res) =>
  res.writeHead(200, { "content-type": "text/html" }).end(
    `<!doctype html><html><head><title>Drawn</title></head><body><div id="root"></div><script>` +
      `document.getElementById("root").innerHTML = "<h1>Drawn ${req.url}</h1>" + "<p>Text drawn by script.</p>".repeat(20)</script></body></html>`
  ))
await new Promise<void>((resolve) => drawn.listen(0, "127.0.0.1", resolve))
const drawnUrl = `http://127.0.0.1:${(drawn.address() as AddressInfo).port}`

// --- accounts, made before each server starts (a PGlite directory belongs to its server once it runs) -------------
type Database = Layer.Layer<SqlClient.SqlClient | Sql.Database, unknown>
const prepare = (database: Database) =>
  Effect.runPromise(Effect.gen(function*() {
    yield* Migrations.run({ store: Migrations.store, ...App.migrations })
    const accounts = yield* Auth.Accounts.Accounts
    const org = yield* accounts.createOrg({ name: "bench-cluster", plan: "enterprise" })
    yield* accounts.setOverrides(org.id, { credits: 1_000_000_000, requestsPerMinute: 1_000_000_000 })
    const created = yield* (yield* Auth.ApiKeys.ApiKeys).create({ orgId: org.id, name: "bench" })
    return created.secret
  }).pipe(Effect.provide(Layer.fresh(Auth.layer).pipe(Layer.provideMerge(database)))) as Effect.Effect<string>)

const freePort = () =>
  new Promise<number>((resolve) => {
    const probe = createServer()
    probe.listen(0, "127.0.0.1", () => {
      const port = (probe.address() as AddressInfo).port
      probe.close(() => resolve(port))
    })
  })

interface Sift {
  readonly name: string
  readonly url: string
  readonly child: ChildProcess
  readonly secret: string
  /** Stops the process (SIGTERM) and waits for its exit. */
  readonly halt: () => Promise<void>
  /** Stops it, then removes what it used (its data directory or schema). */
  readonly stop: () => Promise<void>
}

const halt = async (child: ChildProcess) => {
  if (child.exitCode !== null || child.signalCode !== null) return
  const exited = new Promise((resolve) => child.once("exit", resolve))
  child.kill("SIGTERM")
  await exited
}

/** Starts `sift serve` (sources through tsx, as the tests do), logging warnings only, and waits for /ready. */
const startSift = async (name: string, env: Record<string, string>, secret: string, cleanup: () => Promise<void>): Promise<Sift> => {
  const port = await freePort()
  const child = spawn(process.execPath, ["--conditions=@sift/source", "--import", "tsx", path.join(root, "packages/http/src/bin.ts"), "serve", "--port", String(port)], {
    cwd: root,
    env: { ...process.env, ...allocatorEnv(), DATABASE_URL: "", SIFT_LOG_LEVEL: "warn", SIFT_ALLOW_PRIVATE_TARGETS: "true", ...env },
    stdio: ["ignore", "ignore", "pipe"]
  })
  let stderr = ""
  child.stderr!.on("data", (chunk) => (stderr += chunk))
  const url = `http://127.0.0.1:${port}`
  const deadline = Date.now() + 120_000
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${name}: sift serve exited ${child.exitCode}\n${stderr}`)
    const ready = await fetch(`${url}/ready`).then((r) => r.status === 200, () => false)
    if (ready) break
    if (Date.now() > deadline) throw new Error(`${name}: not ready in 120 s\n${stderr}`)
    await new Promise((r) => setTimeout(r, 200))
  }
  return {
    name,
    url,
    child,
    secret,
    halt: () => halt(child),
    stop: async () => {
      await halt(child)
      await cleanup()
    }
  }
}

// --- CPU of a process tree from /proc (utime + stime of each live process, plus its waited-for children) -------------
const ticks = 100 // USER_HZ on Linux
const treeOf = (pid: number): Array<number> => {
  const all = fs.readdirSync("/proc").filter((entry) => /^\d+$/.test(entry)).map(Number)
  const parents = new Map<number, number>()
  for (const candidate of all) {
    try {
      const stat = fs.readFileSync(`/proc/${candidate}/stat`, "utf8")
      parents.set(candidate, Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]))
    } catch {
      // gone
    }
  }
  const tree = [pid]
  for (let i = 0; i < tree.length; i++) for (const [child, parent] of parents) if (parent === tree[i]) tree.push(child)
  return tree
}
/** CPU milliseconds used so far by `pid` and its descendants (those alive, and those they have reaped). */
const cpuMs = (pid: number): number =>
  treeOf(pid).reduce((sum, member) => {
    try {
      const stat = fs.readFileSync(`/proc/${member}/stat`, "utf8")
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ")
      // fields[11..14]: utime, stime, cutime, cstime (stat fields 14-17)
      return sum + (Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14])) * (1000 / ticks)
    } catch {
      return sum
    }
  }, 0)
const rssMb = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0) / 1024
const openFds = (pid: number) => fs.readdirSync(`/proc/${pid}/fd`).length
const chromiumProcesses = (pid: number) =>
  treeOf(pid).slice(1).filter((member) => {
    try {
      return fs.readFileSync(`/proc/${member}/comm`, "utf8").startsWith("chrom")
    } catch {
      return false
    }
  }).length

// --- load --------------------------------------------------------------------------------------------------------
const cachedPath = `/v1/web/scrape/markdown?url=${encodeURIComponent(origin.url)}`
const load = async (url: string, headers: Record<string, string>, durationS: number, requestPath = cachedPath) => {
  const pool = new Pool(url, { connections: concurrency, pipelining: 1 })
  const latencies: Array<number> = []
  let errors = 0
  const end = performance.now() + durationS * 1000
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (performance.now() < end) {
      const started = performance.now()
      const response = await pool.request({ path: requestPath, method: "GET", headers })
      await response.body.arrayBuffer()
      if (response.statusCode !== 200) errors++
      latencies.push(performance.now() - started)
    }
  }))
  await pool.close()
  latencies.sort((a, b) => a - b)
  return { rps: latencies.length / durationS, p50: latencies[Math.floor(latencies.length / 2)] ?? 0, count: latencies.length, errors }
}

/** `count` requests of `pathOf(i)`, `parallel` at a time; CPU ms of the Sift process tree per request. */
const cpuPer = async (sift: Sift, count: number, parallel: number, pathOf: (i: number) => string) => {
  const before = cpuMs(sift.child.pid!)
  let next = 0
  let errors = 0
  const started = performance.now()
  await Promise.all(Array.from({ length: parallel }, async () => {
    while (next < count) {
      const i = next++
      const response = await fetch(`${sift.url}${pathOf(i)}`, { headers: { authorization: `Bearer ${sift.secret}` } })
      await response.arrayBuffer()
      if (response.status !== 200) errors++
    }
  }))
  const wallS = (performance.now() - started) / 1000
  return { cpuMs: (cpuMs(sift.child.pid!) - before) / count, perSecond: count / wallS, errors }
}

const pgConnections = async (): Promise<number | undefined> => {
  if (databaseUrl === undefined) return undefined
  return Effect.runPromise(Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ n: number }>`SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = ${appName}`).pipe(
      Effect.map((rows) => rows[0]!.n),
      Effect.provide(Sql.layerPg({ url: Redacted.make(databaseUrl) }))
    ) as Effect.Effect<number>)
}

// --- the servers -------------------------------------------------------------------------------------------------
const servers: Array<Sift> = []
let postgres: { url: string; secret: string; onAdmin: (statement: (sql: SqlClient.SqlClient) => Effect.Effect<unknown, unknown>) => Promise<unknown> } | undefined
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "sift-bench-cluster-"))
{
  const secret = await prepare(Sql.layerPglite({ dir }))
  servers.push(await startSift("PGlite", { SIFT_DATA_DIR: dir }, secret, async () => fs.rmSync(dir, { recursive: true, force: true })))
}
if (databaseUrl !== undefined) {
  const schema = `bench_cluster_${process.pid}_${Date.now()}`
  const admin = () => Sql.layerPg({ url: Redacted.make(databaseUrl) })
  const onAdmin = (statement: (sql: SqlClient.SqlClient) => Effect.Effect<unknown, unknown>) =>
    Effect.runPromise(Effect.provide(Effect.flatMap(SqlClient.SqlClient, statement), admin()) as Effect.Effect<unknown>)
  await onAdmin((sql) => sql`CREATE SCHEMA ${sql(schema)}`)
  const url = new URL(databaseUrl)
  url.searchParams.set("options", `-c search_path=${schema}`)
  url.searchParams.set("application_name", appName)
  const secret = await prepare(Sql.layerPg({ url: Redacted.make(url.toString()) }))
  postgres = { url: url.toString(), secret, onAdmin }
  servers.push(await startSift("PostgreSQL", { DATABASE_URL: url.toString(), SIFT_DATA_DIR: "/nonexistent/never-used" }, secret, async () => {
    await onAdmin((sql) => sql`DROP SCHEMA ${sql(schema)} CASCADE`)
  }))
} else {
  console.log("PostgreSQL: skipped (set DATABASE_URL to measure it)")
}

const bareBody = await (await fetch(`${servers[0]!.url}${cachedPath}`, { headers: { authorization: `Bearer ${servers[0]!.secret}` } })).text()
const bare = createServer((_req, res) => res.writeHead(200, { "content-type": "application/json" }).end(bareBody))
await new Promise<void>((resolve) => bare.listen(0, "127.0.0.1", resolve))
const bareUrl = `http://127.0.0.1:${(bare.address() as AddressInfo).port}`

try {
  console.log(`bench/cluster: sift serve processes (PGlite${databaseUrl === undefined ? "" : ", PostgreSQL"}) against bare node:http; load ${os.loadavg().map((l) => l.toFixed(1)).join(" ")} on ${os.cpus().length} cores`)
  // 1. Cache hits: every server warms up, then they take turns (a busy neighbour hits all alike).
  for (const sift of servers) await fetch(`${sift.url}${cachedPath}`, { headers: { authorization: `Bearer ${sift.secret}` } }).then((r) => r.arrayBuffer())
  await load(bareUrl, {}, warmup)
  for (const sift of servers) await load(sift.url, { authorization: `Bearer ${sift.secret}` }, warmup)
  const ratios = new Map<string, Array<number>>(servers.map((sift) => [sift.name, []]))
  const cpuPerHit = new Map<string, Array<number>>(servers.map((sift) => [sift.name, []]))
  const connections: Array<number> = []
  for (let round = 1; round <= rounds; round++) {
    const bareFigures = await load(bareUrl, {}, seconds)
    console.log(`round ${round}: bare node:http ${bareFigures.rps.toFixed(0)} req/s`)
    for (const sift of servers) {
      const cpuBefore = cpuMs(sift.child.pid!)
      const counting = sift.name === "PostgreSQL" ? setTimeout(() => void pgConnections().then((n) => n !== undefined && connections.push(n)), (seconds * 1000) / 2) : undefined
      const figures = await load(sift.url, { authorization: `Bearer ${sift.secret}` }, seconds)
      clearTimeout(counting)
      const cpu = (cpuMs(sift.child.pid!) - cpuBefore) / figures.count
      ratios.get(sift.name)!.push(figures.rps / bareFigures.rps)
      cpuPerHit.get(sift.name)!.push(cpu)
      console.log(`  ${`Sift on ${sift.name}`.padEnd(20)} ${figures.rps.toFixed(0).padStart(6)} req/s  p50 ${figures.p50.toFixed(1)} ms  ratio ${(figures.rps / bareFigures.rps).toFixed(3)}  CPU ${cpu.toFixed(3)} ms/request  errors ${figures.errors}`)
    }
  }
  const median = (list: Array<number>) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)]!
  for (const sift of servers) {
    console.log(`cache hits on ${sift.name}: ratio Sift / bare, median of ${rounds}: ${median(ratios.get(sift.name)!).toFixed(3)} (target >= 0.2); CPU per cache hit ${median(cpuPerHit.get(sift.name)!).toFixed(3)} ms`)
  }
  if (connections.length > 0) console.log(`PostgreSQL connections held by the PostgreSQL process under load (its SQL pool and its job queue): ${Math.max(...connections)}`)

  // 2. Static scrapes (each URL new: fetch, convert, store in the cache, charge) and rendered pages.
  for (const sift of servers) {
    const stamp = `${sift.name}-${Date.now()}`
    const statics = await cpuPer(sift, scrapes, 8, (i) => `/v1/web/scrape/markdown?url=${encodeURIComponent(`${origin.url}?s=${stamp}-${i}`)}`)
    console.log(`static scrape on ${sift.name}: CPU ${statics.cpuMs.toFixed(2)} ms/page, ${statics.perSecond.toFixed(0)} pages/s at 8 concurrent, errors ${statics.errors}`)
    const rendered = await cpuPer(sift, renders, 2, (i) => `/v1/web/scrape/markdown?url=${encodeURIComponent(`${drawnUrl}/r-${stamp}-${i}`)}`)
    console.log(`rendered page on ${sift.name}: CPU ${rendered.cpuMs.toFixed(1)} ms/page (Sift + Chromium), ${rendered.perSecond.toFixed(1)} pages/s at 2 concurrent, errors ${rendered.errors}`)
  }

  // 3. Soak: an api and a worker process on PostgreSQL (the roles need it) take mixed traffic for soakSeconds.
  if (soakSeconds > 0 && postgres === undefined) console.log("soak: skipped (api and worker processes need DATABASE_URL)")
  if (soakSeconds > 0 && postgres !== undefined) {
    const { onAdmin, secret } = postgres
    // The `all` process leaves (its schema stays for the pair); the pair has a job queue of its own.
    await servers.at(-1)!.halt()
    const jobsSchema = `bench_cluster_jobs_${process.pid}`
    const roleEnv = { DATABASE_URL: postgres.url, SIFT_DATA_DIR: "/nonexistent/never-used", SIFT_JOBS_SCHEMA: jobsSchema }
    const dropJobs = async () => void await onAdmin((sql) => sql`DROP SCHEMA IF EXISTS ${sql(jobsSchema)} CASCADE`)
    const api = await startSift("api", { ...roleEnv, SIFT_ROLE: "api" }, secret, async () => {})
    const worker = await startSift("worker", { ...roleEnv, SIFT_ROLE: "worker" }, secret, dropJobs)
    const auth = { authorization: `Bearer ${secret}` }
    const json = { ...auth, "content-type": "application/json" }
    // A webhook receiver: deliveries by event id (receivers deduplicate on X-Service-Id).
    const deliveries = new Map<string, number>()
    const receiver = createServer((req, res) => {
      req.resume()
      req.on("end", () => {
        const id = String(req.headers["x-service-id"] ?? "")
        deliveries.set(id, (deliveries.get(id) ?? 0) + 1)
        res.writeHead(200).end()
      })
    })
    await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve))
    const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`
    let errors = 0
    const call = async (pathname: string, init: RequestInit = {}) => {
      const response = await fetch(`${api.url}${pathname}`, { ...init, headers: { ...auth, ...init.headers } }).catch(() => undefined)
      const body = await response?.text().catch(() => "")
      if (response === undefined || response.status < 200 || response.status > 299) {
        if (errors++ < 5) console.log(`  soak error: ${pathname.slice(0, 80)} -> ${response?.status ?? "no answer"} ${body?.slice(0, 200) ?? ""}`)
        return undefined
      }
      return body
    }
    try {
      const monitors: Array<string> = []
      for (let m = 0; m < 3; m++) {
        const created = await call("/v1/monitors", {
          method: "POST",
          headers: json,
          body: JSON.stringify({
            name: `soak ${m}`,
            target: { type: "page", url: `${origin.url}?monitor=${m}` },
            schedule: { type: "interval", frequency: 365, unit: "days" },
            webhook: { url: receiverUrl, events: ["run.completed"] }
          })
        })
        if (created !== undefined) monitors.push((JSON.parse(created) as { id: string }).id)
      }
      const pids = [api.child.pid!, worker.child.pid!]
      const sampleOf = async () => ({
        rssMb: pids.map((pid) => Math.round(rssMb(pid))),
        fds: pids.map(openFds),
        chromium: pids.map(chromiumProcesses),
        pg: await pgConnections()
      })
      const started = Date.now()
      const end = started + soakSeconds * 1000
      const monitorEveryMs = (quick || soakSeconds < 600 ? soakSeconds / 6 : 60) * 1000
      const batchEveryMs = (quick || soakSeconds < 600 ? soakSeconds / 3 : 120) * 1000
      let requests = 0
      let monitorRuns = 0
      const batches: Array<string> = []
      // Both readings under traffic: at the 5th minute of a 30-minute soak (N/6; a short one, N/2: under this traffic an
      // api's RSS rises for about 90 s while V8 sizes its heap; 2 s samples of a 240 s soak read 304 MB at the start,
      // 629 at 30 s, 747 at 70 s, 822 at 90 s, then 816-826 MB to the end, so a first reading at 30 s of a 90 s soak
      // measured the warm-up; on a busier machine the warm-up runs longer: CI read 729 -> 813 MB at 90 s and 178 s once,
      // and a 240 s soak read 692 -> 816 MB at 120 s and 238 s, beside other work. A longer short soak would not fit
      // `bench all --quick`'s five minutes a bench: only the long soak tells) and 2 s before the end.
      // RSS under load follows V8's collection cycle (the heap grows to a few times what is live, then is collected: an
      // api's RSS read once a minute went 550-755 MB in a 15-minute soak while its heap after a full collection stayed
      // at 154-156 MB), so each reading's RSS is the median of the samples taken every 2 s over the minute before it (a
      // short soak: a third of the time before the first reading); descriptors and Chromium processes are read at the
      // mark. PostgreSQL connections are the most held over that minute (read every 2 s): a server's pools keep the
      // connections they open, so the count is the most the traffic has needed (17 at both readings of a 30-minute
      // soak, of the 28 both may hold); when pools still closed idle ones it followed each minute's traffic (12 -> 9).
      const firstAtS = soakSeconds >= 600 ? soakSeconds / 6 : soakSeconds / 2
      const windowMs = Math.min(60_000, (firstAtS * 1000) / 3)
      const rssSamples: Array<{ at: number; rssMb: Array<number> }> = []
      const pgSamples: Array<{ at: number; n: number }> = []
      const pgReader = databaseUrl === undefined ? undefined : ManagedRuntime.make(Sql.layerPg({ url: Redacted.make(databaseUrl) }))
      const median = (xs: ReadonlyArray<number>) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0
      const rssOver = (untilMs: number) => {
        const inWindow = rssSamples.filter((sample) => sample.at > untilMs - windowMs && sample.at <= untilMs)
        return [0, 1].map((i) => median(inWindow.map((sample) => sample.rssMb[i]!)))
      }
      const pgOver = (untilMs: number) => {
        const inWindow = pgSamples.filter((sample) => sample.at > untilMs - windowMs && sample.at <= untilMs)
        return inWindow.length === 0 ? undefined : Math.max(...inWindow.map((sample) => sample.n))
      }
      const rssSampler = setInterval(() => {
        const at = Date.now()
        rssSamples.push({ at, rssMb: pids.map((pid) => Math.round(rssMb(pid))) })
        if (pgReader !== undefined) {
          void pgReader.runPromise(Effect.flatMap(SqlClient.SqlClient, (sql) =>
            sql<{ n: number }>`SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = ${appName}`)).then(
            (rows) => pgSamples.push({ at, n: rows[0]!.n }),
            () => undefined
          )
        }
      }, 2_000)
      let first: Awaited<ReturnType<typeof sampleOf>> | undefined
      let last: Awaited<ReturnType<typeof sampleOf>> | undefined
      const sampler = (async () => {
        await new Promise((r) => setTimeout(r, firstAtS * 1000))
        first = { ...(await sampleOf()), rssMb: rssOver(Date.now()), pg: pgOver(Date.now()) }
        await new Promise((r) => setTimeout(r, Math.max(0, end - 2_000 - Date.now())))
        last = { ...(await sampleOf()), rssMb: rssOver(Date.now()), pg: pgOver(Date.now()) }
        clearInterval(rssSampler)
        await pgReader?.dispose()
      })()
      const every = async (periodMs: number, action: (n: number) => Promise<void>) => {
        for (let n = 0; Date.now() < end; n++) {
          await action(n)
          await new Promise((r) => setTimeout(r, Math.min(periodMs, Math.max(0, end - Date.now()))))
        }
      }
      const mixed = async () => {
        while (Date.now() < end) {
          const n = requests++
          await call(n % 10 === 0
            ? `/v1/web/scrape/markdown?url=${encodeURIComponent(`${drawnUrl}/soak-${n % 50}`)}&maxAge=0`
            : n % 10 === 1
            ? `/v1/web/scrape/markdown?url=${encodeURIComponent(`${origin.url}?soak=${n}`)}`
            : n % 10 === 2
            ? `/v1/web/urls?domain=${encodeURIComponent(origin.url)}`
            : cachedPath)
        }
      }
      await Promise.all([
        ...Array.from({ length: 4 }, mixed),
        every(monitorEveryMs, async () => {
          for (const id of monitors) {
            const body = await call(`/v1/monitors/${id}/run`, { method: "POST" })
            if (body !== undefined && (JSON.parse(body) as { queued?: boolean }).queued === true) monitorRuns++
          }
        }),
        every(batchEveryMs, async (n) => {
          const urls = Array.from({ length: 50 }, (_, i) => ({ url: `${origin.url}?batch=${n}-${i}` }))
          const body = await call("/v1/batch/submit", {
            method: "POST",
            headers: json,
            body: JSON.stringify({ input: { mode: "scrape", data: { format: "markdown", urls } } })
          })
          if (body !== undefined) batches.push((JSON.parse(body) as { id: string }).id)
        }),
        sampler
      ])
      // The last batches and deliveries get a minute to finish (the worker's queue is not drained by the traffic).
      const settled = async () => {
        let done = 0
        for (const id of batches) {
          const body = await fetch(`${api.url}/v1/batch/${id}`, { headers: auth }).then((r) => r.json() as Promise<{ status: string }>, () => undefined)
          if (body?.status === "completed") done++
        }
        return done
      }
      for (let wait = 0; wait < 60 && (await settled() < batches.length || deliveries.size < monitorRuns + monitors.length); wait++) {
        await new Promise((r) => setTimeout(r, 1000))
      }
      const within = (a: number, b: number) => Math.abs(b - a) <= Math.max(1, 0.1 * a)
      const flat = first !== undefined && last !== undefined &&
        [0, 1].every((i) => within(first!.rssMb[i]!, last!.rssMb[i]!) && within(first!.fds[i]!, last!.fds[i]!) && within(first!.chromium[i]!, last!.chromium[i]!)) &&
        (first.pg === undefined || last.pg === undefined || within(first.pg, last.pg))
      const attempts = [...deliveries.values()].reduce((a, b) => a + b, 0)
      console.log(`soak ${soakSeconds} s on api + worker (PostgreSQL): ${requests} API requests, ${monitorRuns} monitor runs queued (+${monitors.length} initial), ${batches.length} batches of 50 (${await settled()} completed), webhook events ${deliveries.size} distinct in ${attempts} attempts, errors ${errors}`)
      const range = [0, 1].map((i) => {
        const all = rssSamples.map((sample) => sample.rssMb[i]!)
        return `${Math.min(...all)}-${Math.max(...all)} MB`
      })
      console.log(`soak RSS samples every 2 s [api, worker]: ${range.join(", ")} over the whole soak; readings below are medians over ${(windowMs / 1000).toFixed(0)} s (PostgreSQL connections: the most held in that time)`)
      console.log(`soak resources [api, worker] at ${firstAtS.toFixed(0)} s ${JSON.stringify(first)} and at ${soakSeconds - 2} s ${JSON.stringify(last)}: ${flat && errors === 0 ? "MET" : "MISSED"} (target: RSS, fds, Chromium processes, PostgreSQL connections flat within 10%; no error)`)
    } finally {
      receiver.close()
      await api.halt()
      await worker.stop()
    }
  }
} finally {
  bare.close()
  drawn.close()
  origin.close()
  for (const sift of servers) await sift.stop()
}
