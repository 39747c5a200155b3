/**
 * Scale-out (issue 22, tests): two `api` and two `worker` processes of the real `sift serve`, started by the test on one
 * PostgreSQL (a fresh schema). Credits and per-key rate limits hold across both api processes, the request log has every
 * answer once, and SIGTERM to an api under load drops no request it accepted. Skipped without PostgreSQL.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as Auth from "@sift/auth"
import { Migrations, Sql } from "@sift/store"
import { Effect, Layer, Redacted } from "effect"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { Pool } from "undici"
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest"
import * as App from "../../src/App.js"
import { type ServerProcess, startServer, stopServer } from "./support/process.js"

const databaseUrl = inject("databaseUrl")

let origin: Server
let page = ""
let schemaUrl = ""
let dropSchema: () => Promise<unknown> = async () => undefined
let apis: Array<ServerProcess> = []
let workers: Array<ServerProcess> = []

const database = () => Sql.layerPg({ url: Redacted.make(schemaUrl) })

const run = <A>(effect: Effect.Effect<A, unknown, SqlClient.SqlClient | Auth.Accounts.Accounts | Auth.ApiKeys.ApiKeys>) =>
  Effect.runPromise(Effect.provide(effect, Layer.fresh(Auth.layer).pipe(Layer.provideMerge(database()))) as Effect.Effect<A>)

/** An organization with `credits` and `rpm` requests a minute per key, and one key of it. */
const account = (name: string, credits: number, rpm: number) =>
  run(Effect.gen(function*() {
    const accounts = yield* Auth.Accounts.Accounts
    const org = yield* accounts.createOrg({ name: `${name}-${Date.now()}`, plan: "enterprise" })
    yield* accounts.setOverrides(org.id, { credits, requestsPerMinute: rpm })
    const created = yield* (yield* Auth.ApiKeys.ApiKeys).create({ orgId: org.id, name })
    return { orgId: org.id, secret: created.secret }
  }))

/** What the database holds for an organization: its log rows, its charges and its balance. */
const stateOf = (orgId: string) =>
  run(Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const logs = yield* sql<{ request_id: string; status_code: number }>`
      SELECT request_id::text AS request_id, status_code FROM request_logs WHERE org_id = ${orgId}`
    const charges = yield* sql<{ request_id: string }>`SELECT request_id FROM credit_events WHERE org_id = ${orgId} AND credits > 0`
    const [org] = yield* sql<{ credits_remaining: string | number }>`SELECT credits_remaining FROM organizations WHERE id = ${orgId}`
    return { logs, charges, remaining: Number(org!.credits_remaining) }
  }))

const scrapePath = (n: number | string) => `/v1/web/scrape/markdown?url=${encodeURIComponent(`${page}?n=${n}`)}`

/** Waits until at least `seconds` of the current rate-limit minute are left (windows are fixed minutes). */
const awaitFreshMinute = async (seconds: number) => {
  const left = 60_000 - (Date.now() % 60_000)
  if (left < seconds * 1000) await new Promise((r) => setTimeout(r, left + 200))
}

beforeAll(async () => {
  if (databaseUrl === null || databaseUrl === undefined) return
  origin = createServer((req, res) =>
    res.writeHead(200, { "content-type": "text/html" }).end(`<html><body><main><h1>Cluster</h1><p>Page ${req.url} of the cluster test.</p></main></body></html>`))
  await new Promise<void>((resolve) => origin.listen(0, "127.0.0.1", resolve))
  page = `http://127.0.0.1:${(origin.address() as AddressInfo).port}/page`

  const schema = `cluster_${process.pid}_${Date.now()}`
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

  // Four processes starting at once on an empty schema: the migrations run once, under the advisory lock.
  // A job queue of the test's own (SIFT_JOBS_SCHEMA): workers of other tests on the same database never take its jobs.
  const env = {
    DATABASE_URL: schemaUrl,
    SIFT_DATA_DIR: "/nonexistent/never-used",
    SIFT_ALLOW_PRIVATE_TARGETS: "true",
    SIFT_METRICS: "true",
    SIFT_JOBS_SCHEMA: `${schema}_jobs`
  }
  const started = await Promise.all([
    startServer({ args: ["--port", "0", "--role", "api"], env, timeoutMs: 120_000 }),
    startServer({ args: ["--port", "0", "--role", "api"], env, timeoutMs: 120_000 }),
    startServer({ args: ["--port", "0", "--role", "worker"], env, timeoutMs: 120_000 }),
    startServer({ args: ["--port", "0", "--role", "worker"], env, timeoutMs: 120_000 })
  ])
  apis = started.slice(0, 2)
  workers = started.slice(2)
  // The schema is migrated by now; the test's own connections read and write it.
  await run(Effect.asVoid(Migrations.applied()))
}, 180_000)

afterAll(async () => {
  const exits = await Promise.all([...apis, ...workers].map((server) => stopServer(server)))
  origin?.close()
  await dropSchema()
  expect(exits.every((code) => code === 0)).toBe(true)
}, 120_000)

describe.skipIf(databaseUrl === null || databaseUrl === undefined)("two api and two worker processes on one PostgreSQL", () => {
  it("migrations ran once although four processes started together", async () => {
    const rows = await run(Effect.flatMap(SqlClient.SqlClient, (sql) =>
      sql<{ package: string; id: string; n: number }>`SELECT package, id, count(*)::int AS n FROM sift_migrations GROUP BY package, id`))
    expect(rows.length).toBeGreaterThan(5)
    expect(rows.filter((row) => row.n !== 1)).toEqual([])
    const planned = Migrations.plan({ store: Migrations.store, ...App.migrations }).length
    expect(rows.length).toBe(planned)
  })

  it("200 concurrent scrapes over both api processes against 100 credits: exactly 100 succeed, each answer logged once", async () => {
    const { orgId, secret } = await account("credits", 100, 1_000_000)
    const answers = await Promise.all(Array.from({ length: 200 }, async (_, i) => {
      const response = await fetch(`${apis[i % 2]!.url}${scrapePath(i % 10)}`, { headers: { authorization: `Bearer ${secret}` } })
      const body = (await response.json()) as { request_id: string; error_code?: string }
      return { status: response.status, id: body.request_id, code: body.error_code }
    }))
    const ok = answers.filter((a) => a.status === 200)
    expect(ok.length).toBe(100)
    const refused = answers.filter((a) => a.status !== 200)
    expect(new Set(refused.map((a) => `${a.status} ${a.code}`))).toEqual(new Set(["403 USAGE_EXCEEDED"]))
    const { logs, charges, remaining } = await stateOf(orgId)
    expect(remaining).toBe(0)
    expect(charges.map((c) => c.request_id).sort()).toEqual(ok.map((a) => a.id).sort())
    // Every answer once in the log, with the status it was sent with.
    expect(logs.length).toBe(200)
    const logged = new Map(logs.map((row) => [row.request_id, row.status_code]))
    expect(logged.size).toBe(200)
    expect(answers.every((a) => logged.get(a.id) === a.status)).toBe(true)
  }, 120_000)

  it("a large balance and limit (floats and leases): 400 scrapes over both api processes, each charged once, nothing left held once idle", async () => {
    const credits = Auth.CreditLedger.FLOAT_FROM * 4
    const { orgId, secret } = await account("floats", credits, Auth.RateLimiter.LEASE_FROM * 10)
    const scrape = async (i: number) => {
      const response = await fetch(`${apis[i % 2]!.url}${scrapePath(i % 10)}`, { headers: { authorization: `Bearer ${secret}` } })
      const body = (await response.json()) as { request_id: string; key_metadata?: { credits_consumed: number; credits_remaining: number } }
      return { status: response.status, id: body.request_id, meta: body.key_metadata, limitLeft: Number(response.headers.get("x-ratelimit-remaining")) }
    }
    // One charge per process first: the balance each process has seen decides whether it takes floats.
    const first = await Promise.all([0, 1].map(scrape))
    const answers = [...first, ...await Promise.all(Array.from({ length: 398 }, (_, i) => scrape(i + 2)))]
    expect(answers.map((a) => a.status)).toEqual(Array(400).fill(200))
    expect(answers.every((a) => a.meta?.credits_consumed === 1)).toBe(true)
    expect(answers.every((a) => a.limitLeft >= Auth.RateLimiter.LEASE_FROM * 10 - 400 - 2 * Auth.RateLimiter.LEASE_MAX && a.limitLeft < Auth.RateLimiter.LEASE_FROM * 10)).toBe(true)
    const { logs, charges, remaining } = await stateOf(orgId)
    expect(remaining).toBe(credits - 400)
    expect(charges.map((c) => c.request_id).sort()).toEqual(answers.map((a) => a.id).sort())
    expect(logs.length).toBe(400)
    // An idle process gives its float back: no reservation row and nothing held is left.
    await new Promise((r) => setTimeout(r, Auth.CreditLedger.FLOAT_IDLE_MS * 2 + 500))
    const held = await run(Effect.flatMap(SqlClient.SqlClient, (sql) => sql<{ rows: string | number; held: string | number | null }>`
      SELECT (SELECT count(*) FROM credit_reservations WHERE org_id = ${orgId}) AS rows,
        (SELECT h.reserved - (o.credits_settled - h.settled_base) FROM credit_holds h JOIN organizations o ON o.id = h.org_id WHERE h.org_id = ${orgId}) AS held`))
    expect(held.map((h) => [Number(h.rows), Number(h.held ?? 0)])).toEqual([[0, 0]])
  }, 120_000)

  it("a key's requests-per-minute limit holds across both api processes", async () => {
    await awaitFreshMinute(20)
    const { orgId, secret } = await account("rpm", 1_000, 20)
    const statuses = await Promise.all(Array.from({ length: 60 }, async (_, i) => {
      const response = await fetch(`${apis[i % 2]!.url}${scrapePath("rpm")}`, { headers: { authorization: `Bearer ${secret}` } })
      await response.arrayBuffer()
      return response.status
    }))
    expect(statuses.filter((s) => s === 200).length).toBe(20)
    expect(statuses.filter((s) => s === 429).length).toBe(40)
    const { logs } = await stateOf(orgId)
    expect(logs.length).toBe(60)
    // Both processes refused some (the count is shared, not per process).
    const metrics = await Promise.all(apis.map((api) => fetch(`${api.url}/metrics`).then((r) => r.text())))
    for (const text of metrics) expect(text).toMatch(/^sift_rate_limit_refusals_total\{route="\/v1\/web\/scrape\/markdown"\} [1-9]/m)
  }, 120_000)

  it("SIGTERM to an api under load: every request it accepted is answered, then it exits 0", async () => {
    const { orgId, secret } = await account("drain", 1_000_000, 1_000_000)
    const victim = apis[1]!
    // Warm the page into the cache (the load is cache hits).
    const warm = await fetch(`${victim.url}${scrapePath("drain")}`, { headers: { authorization: `Bearer ${secret}` } })
    expect(warm.status).toBe(200)
    const pool = new Pool(victim.url, { connections: 16, pipelining: 1 })
    const received: Array<string> = [((await warm.json()) as { request_id: string }).request_id]
    const failures: Array<string> = []
    let refusedAfterStop = false
    let signalled = false
    const load = Promise.all(Array.from({ length: 16 }, async () => {
      while (!refusedAfterStop) {
        try {
          const response = await pool.request({ path: scrapePath("drain"), method: "GET", headers: { authorization: `Bearer ${secret}` } })
          const text = await response.body.text()
          if (response.statusCode === 200) received.push((JSON.parse(text) as { request_id: string }).request_id)
          else failures.push(`${response.statusCode} ${text.slice(0, 200)}`)
        } catch (error) {
          // Once the process stops accepting, new connections are refused: the load ends there.
          const code = (error as { code?: string }).code ?? String(error)
          if (signalled && (code === "ECONNREFUSED" || code === "UND_ERR_SOCKET" || code === "ECONNRESET")) {
            refusedAfterStop = true
          } else {
            failures.push(code)
            refusedAfterStop = true
          }
        }
      }
    }))
    while (received.length < 300) await new Promise((r) => setTimeout(r, 20))
    signalled = true
    victim.child.kill("SIGTERM")
    const exit = await victim.exited
    await load
    await pool.destroy()
    expect(exit).toBe(0)
    expect(failures).toEqual([])
    // Every request the process answered (its log row is written before its answer) reached the client.
    const { logs } = await stateOf(orgId)
    const receivedIds = new Set(received)
    const lost = logs.filter((row) => row.status_code === 200 && !receivedIds.has(row.request_id)).map((row) => row.request_id)
    expect(lost).toEqual([])
    expect(logs.length).toBeGreaterThanOrEqual(received.length)
    // The other api and the workers still serve.
    expect((await fetch(`${apis[0]!.url}/ready`)).status).toBe(200)
    for (const worker of workers) expect((await fetch(`${worker.url}/ready`)).status).toBe(200)
  }, 120_000)
})
