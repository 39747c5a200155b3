/**
 * Scale-out under a crash (issue 22, tests, item 2): two `api` and two `worker` processes of the real `sift serve` on one
 * PostgreSQL (a fresh schema and job schema of the test's own). A 2,000-URL batch is submitted through the official SDK
 * to one api; while it runs, the worker driving it is killed with SIGKILL (holding two webhook deliveries in flight,
 * as its concurrency allows) and started again; monitors due in that window run once each and every event they send
 * is delivered (the receiver deduplicates on X-Service-Id). Skipped without PostgreSQL.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as Auth from "@sift/auth"
import { Sql } from "@sift/store"
import ContextDev from "context.dev"
import { Effect, Layer, Redacted } from "effect"
import { execFileSync } from "node:child_process"
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { gunzipSync } from "node:zlib"
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest"
import { type ServerProcess, startServer, stopServer } from "./support/process.js"

const databaseUrl = inject("databaseUrl")

const PAGES = 2_000
/** Every 97th page answers 404: recorded once too, and refunded. */
const missing = (n: number) => n % 97 === 0
/** Each page answers after this long: 2,000 pages, 8 at a time, take over a minute, so the kill finds the batch mid-way. */
const PAGE_DELAY_MS = 250
const MONITORS = 4
/** Webhook attempts and monitor runs at once per worker: with four deliveries held, each worker holds exactly two. */
const PER_WORKER = 2

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
const until = async <A>(what: string, ms: number, probe: () => Promise<A | undefined>): Promise<A> => {
  const deadline = Date.now() + ms
  for (;;) {
    const value = await probe()
    if (value !== undefined) return value
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await sleep(250)
  }
}

let site: Server
let receiver: Server
let siteUrl = ""
let receiverUrl = ""
/** Monitor pages change on every read (a counter), so each run has something to compare. */
let monitorReads = 0

/** What the receiver saw: every attempt, by event id, and how it ended. */
interface Attempt {
  readonly id: string
  readonly event: string
  outcome: "held" | "answered" | "cut"
}
const attempts: Array<Attempt> = []
/** The first attempts are held open (headers sent, a byte every second, under the sender's 10 s idle timeout). */
let holdFirst = 0
const held: Array<{ attempt: Attempt; res: ServerResponse; timer: NodeJS.Timeout }> = []

let schemaUrl = ""
let dropSchema: () => Promise<unknown> = async () => undefined
let apis: Array<ServerProcess> = []
let workers: Array<ServerProcess> = []
let env: Record<string, string> = {}

const run = <A>(effect: Effect.Effect<A, unknown, SqlClient.SqlClient | Auth.Accounts.Accounts | Auth.ApiKeys.ApiKeys>) =>
  Effect.runPromise(
    Effect.provide(effect, Layer.fresh(Auth.layer).pipe(Layer.provideMerge(Sql.layerPg({ url: Redacted.make(schemaUrl) })))) as Effect.Effect<A>
  )
const query = <A extends object>(statement: (sql: SqlClient.SqlClient) => Effect.Effect<ReadonlyArray<A>, unknown>) =>
  run(Effect.flatMap(SqlClient.SqlClient, statement))

/** An organization with `credits` and one key of it. */
const account = (name: string, credits: number) =>
  run(Effect.gen(function*() {
    const accounts = yield* Auth.Accounts.Accounts
    const org = yield* accounts.createOrg({ name: `${name}-${Date.now()}`, plan: "enterprise" })
    yield* accounts.setOverrides(org.id, { credits, requestsPerMinute: 1_000_000 })
    const created = yield* (yield* Auth.ApiKeys.ApiKeys).create({ orgId: org.id, name })
    return { orgId: org.id, secret: created.secret }
  }))

const balanceOf = (orgId: string) =>
  query((sql) => sql<{ credits_remaining: string | number }>`SELECT credits_remaining FROM organizations WHERE id = ${orgId}`)
    .then((rows) => Number(rows[0]!.credits_remaining))

const onSite = (req: IncomingMessage, res: ServerResponse) => {
  const monitor = /^\/m\/(\d+)$/.exec(req.url ?? "")
  if (monitor !== null) {
    monitorReads++
    return void res.writeHead(200, { "content-type": "text/html" }).end(
      `<html><body><main><h1>Monitor ${monitor[1]}</h1><p>Read number ${monitorReads} of this page.</p></main></body></html>`
    )
  }
  const n = Number(/^\/p\/(\d+)$/.exec(req.url ?? "")?.[1] ?? -1)
  const answer = () => {
    if (res.destroyed) return
    if (n < 0 || missing(n)) return void res.writeHead(404, { "content-type": "text/html" }).end("<h1>Not found</h1>")
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(
      `<!doctype html><html lang="en"><head><title>Page ${n}</title></head><body><main><h1>Page ${n}</h1>` +
        `<p>This is page number ${n} of the fixture site, with a little text to convert.</p></main></body></html>`
    )
  }
  setTimeout(answer, PAGE_DELAY_MS)
}

const onReceiver = (req: IncomingMessage, res: ServerResponse) => {
  req.resume()
  const attempt: Attempt = { id: String(req.headers["x-service-id"]), event: String(req.headers["x-service-event"]), outcome: "held" }
  attempts.push(attempt)
  if (holdFirst > 0) {
    holdFirst--
    res.writeHead(200, { "content-type": "text/plain" })
    const timer = setInterval(() => res.write(" "), 1_000)
    res.on("close", () => {
      clearInterval(timer)
      if (!res.writableEnded) attempt.outcome = "cut"
    })
    held.push({ attempt, res, timer })
    return
  }
  attempt.outcome = "answered"
  res.writeHead(200, { "content-type": "text/plain" }).end("ok")
}

/** Ends the held answers whose connection is still open (their senders then record them delivered). */
const releaseHeld = () => {
  for (const { attempt, res, timer } of held) {
    clearInterval(timer)
    if (!res.destroyed && !res.writableEnded) {
      attempt.outcome = "answered"
      res.end("ok")
    }
  }
}

/** TCP connections a process holds to the origin of `url` (from `ss`, which names each socket's process). */
const connectionsTo = (url: string, pid: number) => {
  const port = new URL(url).port
  const out = execFileSync("ss", ["-tnpH", "state", "established", "dst", `127.0.0.1:${port}`], { encoding: "utf8" })
  return out.split("\n").filter((line) => line.includes(`pid=${pid},`)).length
}

const listen = async (server: Server) => {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`
}

beforeAll(async () => {
  if (databaseUrl === null || databaseUrl === undefined) return
  site = createServer(onSite)
  receiver = createServer(onReceiver)
  siteUrl = await listen(site)
  receiverUrl = await listen(receiver)

  const schema = `cluster_kill_${process.pid}_${Date.now()}`
  const admin = Sql.layerPg({ url: Redacted.make(databaseUrl) })
  const onAdmin = (statement: (sql: SqlClient.SqlClient) => Effect.Effect<unknown, unknown>) =>
    Effect.runPromise(Effect.provide(Effect.flatMap(SqlClient.SqlClient, statement), Layer.fresh(admin)) as Effect.Effect<unknown>)
  await onAdmin((sql) => sql`CREATE SCHEMA ${sql(schema)}`)
  dropSchema = async () => {
    await onAdmin((sql) => sql`DROP SCHEMA ${sql(schema)} CASCADE`)
    await onAdmin((sql) => sql`DROP SCHEMA IF EXISTS ${sql(`${schema}_jobs`)} CASCADE`)
  }
  const url = new URL(databaseUrl)
  url.searchParams.set("options", `-c search_path=${schema}`)
  schemaUrl = url.toString()
  env = {
    DATABASE_URL: schemaUrl,
    SIFT_DATA_DIR: "/nonexistent/never-used",
    SIFT_ALLOW_PRIVATE_TARGETS: "true",
    SIFT_JOBS_SCHEMA: `${schema}_jobs`,
    // A lapsed batch lease is looked for every second (a killed drive's lease lapses 30 s after its last renewal).
    SIFT_BATCH_SWEEP_MS: "1000",
    SIFT_BATCH_CONCURRENCY: "8",
    SIFT_BATCH_PER_HOST: "8",
    SIFT_MONITOR_TICK_MS: "1000",
    SIFT_QUEUE_CONCURRENCY: `webhook-delivery=${PER_WORKER},monitor-run=${PER_WORKER}`
  }
  const started = await Promise.all([
    startServer({ args: ["--port", "0", "--role", "api"], env, timeoutMs: 150_000 }),
    startServer({ args: ["--port", "0", "--role", "api"], env, timeoutMs: 150_000 }),
    startServer({ args: ["--port", "0", "--role", "worker"], env, timeoutMs: 150_000 }),
    startServer({ args: ["--port", "0", "--role", "worker"], env, timeoutMs: 150_000 })
  ])
  apis = started.slice(0, 2)
  workers = started.slice(2)
}, 200_000)

afterAll(async () => {
  releaseHeld()
  const exits = await Promise.all([...apis, ...workers].map((server) => stopServer(server)))
  site?.close()
  receiver?.close()
  await dropSchema()
  expect(exits.every((code) => code === 0)).toBe(true)
}, 120_000)

describe.skipIf(databaseUrl === null || databaseUrl === undefined)("kill -9 of a worker in a cluster of two api and two worker processes", () => {
  it("a 2,000-URL batch and the monitors due meanwhile each happen once; every event is delivered", async () => {
    const batchOrg = await account("cluster-kill-batch", 10_000)
    const monitorOrg = await account("cluster-kill-monitors", 1_000)
    const client = (api: ServerProcess) => new ContextDev({ apiKey: batchOrg.secret, baseURL: `${api.url}/v1`, maxRetries: 2, timeout: 60_000 })

    // The batch, through the SDK, to the first api; one of the workers takes its drive.
    const urls = Array.from({ length: PAGES }, (_, n) => ({ url: `${siteUrl}/p/${n}`, itemId: `item-${n}` }))
    const balanceBefore = await balanceOf(batchOrg.orgId)
    const submitted = await client(apis[0]!).batch.submit({ input: { mode: "scrape", data: { format: "markdown", urls } } })
    expect(submitted.input).toMatchObject({ submitted: PAGES, reserved: PAGES, duplicates: 0 })
    await until("the batch to be mid-way", 120_000, async () => {
      const batch = await client(apis[1]!).batch.retrieve(submitted.id)
      return batch.progress.succeeded + batch.progress.failed >= 200 ? batch : undefined
    })

    // Monitors, each with a webhook for every completed run; their baseline runs are queued at once. The four
    // deliveries of those runs are held by the receiver: two in each worker.
    holdFirst = MONITORS
    const monitorIds: Array<string> = []
    for (let i = 0; i < MONITORS; i++) {
      const response = await fetch(`${apis[i % 2]!.url}/v1/monitors`, {
        method: "POST",
        headers: { authorization: `Bearer ${monitorOrg.secret}`, "content-type": "application/json" },
        body: JSON.stringify({
          name: `cluster kill ${i}`,
          target: { type: "page", url: `${siteUrl}/m/${i}` },
          // The longest interval: no slot of its own falls inside the test; the test says when runs are due.
          schedule: { type: "interval", frequency: 365, unit: "days" },
          webhook: { url: `${receiverUrl}/hook`, events: ["run.completed"] }
        })
      })
      const body = (await response.json()) as { id: string }
      expect([200, 201], JSON.stringify(body)).toContain(response.status)
      monitorIds.push(body.id)
    }
    const dueAt = (at: Date) => query((sql) => sql`UPDATE monitors SET next_run_at = ${at} WHERE ${sql.in("id", monitorIds)} RETURNING id`)
    await dueAt(new Date(Date.now() + 86_400_000))
    await until("four held deliveries", 120_000, async () => (held.length === MONITORS ? true : undefined))
    const baselines = await query((sql) =>
      sql<{ status: string }>`SELECT status FROM monitor_runs WHERE ${sql.in("monitor_id", monitorIds)}`)
    expect(baselines.map((r) => r.status)).toEqual(Array(MONITORS).fill("completed"))

    // kill -9 of the worker driving the batch (the one with the pages in flight), holding two deliveries; then the
    // survivor's two are answered.
    const victimAt = await until("the worker driving the batch", 30_000, async () => {
      const readers = workers.map((worker) => connectionsTo(siteUrl, worker.child.pid!))
      const most = Math.max(...readers)
      return most >= 2 && readers.filter((n) => n > 0).length === 1 ? readers.indexOf(most) : undefined
    })
    const victim = workers[victimAt]!
    const progressAtKill = await client(apis[1]!).batch.retrieve(submitted.id).then((b) => b.progress)
    expect(progressAtKill.pending).toBeGreaterThan(PAGES / 4)
    victim.child.kill("SIGKILL")
    expect(await victim.exited).toBe("SIGKILL")
    const killedAt = new Date()
    await until("the killed worker's connections to close", 30_000, async () =>
      held.filter((h) => h.attempt.outcome === "cut").length === PER_WORKER ? true : undefined)
    releaseHeld()
    const cutIds = held.filter((h) => h.attempt.outcome === "cut").map((h) => h.attempt.id)
    expect(cutIds).toHaveLength(PER_WORKER)

    // Monitors come due in the window; the killed worker starts again.
    await dueAt(new Date(Date.now() - 100))
    workers[victimAt] = await startServer({ args: ["--port", "0", "--role", "worker"], env, timeoutMs: 150_000 })

    const settled = await until("the batch to settle", 300_000, async () => {
      const batch = await client(apis[1]!).batch.retrieve(submitted.id)
      return batch.status === "completed" || batch.status === "failed" || batch.status === "cancelled" ? batch : undefined
    })
    const delivered = () => new Set(attempts.filter((a) => a.outcome === "answered").map((a) => a.id))
    // Each monitor's window run sent one event: eight events in all, the killed worker's two sent again after expiry.
    await until("every event delivered", 240_000, async () => (delivered().size >= MONITORS * 2 ? true : undefined))
    await until("every delivery recorded", 60_000, async () => {
      const rows = await query((sql) => sql<{ status: string }>`SELECT status FROM webhook_deliveries WHERE ${sql.in("monitor_id", monitorIds)}`)
      return rows.length === MONITORS * 2 && rows.every((r) => r.status === "delivered") ? true : undefined
    })
    // A moment for anything sent twice to show.
    await sleep(3_000)
    const recovered = Date.now() - killedAt.getTime()

    // The batch: one record per URL, credits charged = pages that succeeded, NDJSON parts = JSON results.
    const failing = urls.filter((_, n) => missing(n)).length
    expect(settled.status).toBe("completed")
    expect(settled.progress).toEqual({ succeeded: PAGES - failing, failed: failing, pending: 0 })
    expect(settled.credits).toMatchObject({ reserved: PAGES, refunded: failing, ocr_charged: 0, net: PAGES - failing })
    const records: Array<Record<string, any>> = []
    let cursor: string | undefined
    for (;;) {
      const got = await client(apis[0]!).batch.getResults(submitted.id, { limit: 100, ...(cursor === undefined ? {} : { cursor }) })
      records.push(...(got.data ?? []) as unknown as Array<Record<string, any>>)
      if (got.has_more !== true) break
      cursor = got.next_cursor!
    }
    expect(records.map((r) => r.url)).toEqual(urls.map((u) => u.url))
    expect(records.map((r) => r.itemId)).toEqual(urls.map((u) => u.itemId))
    for (const [n, record] of records.entries()) {
      if (missing(n)) expect(record).toMatchObject({ status: "error", error_code: "WEBSITE_ACCESS_ERROR" })
      else expect(record.markdown).toContain(`# Page ${n}`)
    }
    expect(balanceBefore - (await balanceOf(batchOrg.orgId))).toBe(PAGES - failing)
    const lines: Array<Record<string, any>> = []
    expect(settled.results!.files.reduce((sum, f) => sum + f.items, 0)).toBe(PAGES)
    for (const file of settled.results!.files) {
      const response = await fetch(`${apis[1]!.url}${new URL(file.url).pathname}`)
      expect(response.status).toBe(200)
      const bytes = Buffer.from(await response.arrayBuffer())
      expect(bytes.length).toBe(file.bytes)
      const part = gunzipSync(bytes).toString("utf8").split("\n").filter((line) => line !== "").map((line) => JSON.parse(line))
      expect(part.length).toBe(file.items)
      lines.push(...part)
    }
    const byKey = (r: Record<string, any>) => `${r.url} ${r.itemId}`
    expect([...lines].sort((a, b) => byKey(a).localeCompare(byKey(b)))).toEqual([...records].sort((a, b) => byKey(a).localeCompare(byKey(b))))

    // Monitors: each ran once in the window (and once for its baseline), completed, one credit a run.
    const runs = await query((sql) =>
      sql<{ monitor_id: string; status: string; run_type: string; queued_at: Date }>`
        SELECT monitor_id, status, run_type, queued_at FROM monitor_runs WHERE ${sql.in("monitor_id", monitorIds)}`)
    for (const id of monitorIds) {
      const own = runs.filter((r) => r.monitor_id === id)
      expect(own.map((r) => r.status)).toEqual(["completed", "completed"])
      expect(own.filter((r) => new Date(r.queued_at) > killedAt)).toHaveLength(1)
    }
    expect(1_000 - (await balanceOf(monitorOrg.orgId))).toBe(MONITORS * 2)

    // Webhooks: one event per run, each delivered; the two the killed worker held were sent again (same id).
    const distinct = delivered()
    expect(distinct.size).toBe(MONITORS * 2)
    expect(new Set(attempts.map((a) => a.id))).toEqual(distinct)
    expect(attempts.every((a) => a.event === "run.completed")).toBe(true)
    for (const id of cutIds) expect(attempts.filter((a) => a.id === id).map((a) => a.outcome)).toEqual(["cut", "answered"])
    expect(attempts.length).toBe(MONITORS * 2 + PER_WORKER)
    console.info(
      `cluster kill: ${distinct.size} events, ${attempts.length} attempts (${cutIds.length} cut by the kill, sent again); ` +
        `batch settled and every event delivered ${Math.round(recovered / 1000)} s after the kill`
    )
  }, 600_000)
})
