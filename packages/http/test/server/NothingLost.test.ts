/**
 * Nothing lost on a crash (issue 16, item 12): a real `sift serve` under concurrent load of charged scrapes is killed
 * with SIGKILL mid-load and restarted on the same data. Every answer the client received with 200 must be charged
 * exactly once and logged exactly once, and whatever was made durable for requests whose answers were never received
 * must be whole: the set of charged request ids equals the set of logged, charged request ids, and the balance equals
 * the start minus the charges. On embedded PGlite, and on PostgreSQL (a fresh schema) when one is available.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as Auth from "@sift/auth"
import { Migrations, Sql } from "@sift/store"
import { Effect, Layer, Redacted } from "effect"
import * as fs from "node:fs"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import * as os from "node:os"
import * as path from "node:path"
import { Pool } from "undici"
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest"
import * as App from "../../src/App.js"
import { startServer, stopServer } from "./support/process.js"

const CREDITS = 1_000_000
const CONNECTIONS = 32

let origin: ReturnType<typeof createServer>
let pageUrl = ""
beforeAll(async () => {
  origin = createServer((_req, res) =>
    res.writeHead(200, { "content-type": "text/html" }).end("<html><body><main><h1>Kept</h1><p>Every answer counted.</p></main></body></html>"))
  await new Promise<void>((resolve) => origin.listen(0, "127.0.0.1", resolve))
  pageUrl = `http://127.0.0.1:${(origin.address() as AddressInfo).port}/`
})
afterAll(() => origin.close())

type Database = Layer.Layer<SqlClient.SqlClient | Sql.Database, unknown>

const run = <A>(database: Database, effect: Effect.Effect<A, unknown, SqlClient.SqlClient | Auth.Accounts.Accounts | Auth.ApiKeys.ApiKeys>) =>
  Effect.runPromise(Effect.provide(effect, Layer.fresh(Auth.layer).pipe(Layer.provideMerge(database))) as Effect.Effect<A>)

/** The database with every migration run (as `sift serve` would), an organization with plenty of credits, and its key. */
const prepare = (database: Database) =>
  run(
    Layer.tap(database, (context) => Effect.provide(Migrations.run({ store: Migrations.store, ...App.migrations }), context)),
    Effect.gen(function*() {
      const accounts = yield* Auth.Accounts.Accounts
      const org = yield* accounts.createOrg({ name: `nothing-lost-${Date.now()}`, plan: "enterprise" })
      yield* accounts.setOverrides(org.id, { credits: CREDITS, requestsPerMinute: 10_000_000 })
      const created = yield* (yield* Auth.ApiKeys.ApiKeys).create({ orgId: org.id, name: "load" })
      return { orgId: org.id, secret: created.secret }
    })
  )

/** Cache-hit scrapes on `CONNECTIONS` connections until the server dies (`kill` is told each answer's count). */
const load = async (url: string, secret: string, kill: (answered: number) => boolean) => {
  const received: Array<string> = []
  const pool = new Pool(url, { connections: CONNECTIONS, pipelining: 1 })
  const target = `/v1/web/scrape/markdown?url=${encodeURIComponent(pageUrl)}`
  let killed = false
  await Promise.all(Array.from({ length: CONNECTIONS }, async () => {
    while (!killed) {
      try {
        const response = await pool.request({ path: target, method: "GET", headers: { authorization: `Bearer ${secret}` } })
        const text = await response.body.text()
        if (response.statusCode !== 200) throw new Error(`unexpected ${response.statusCode}: ${text}`)
        received.push((JSON.parse(text) as { request_id: string }).request_id)
        if (!killed && kill(received.length)) killed = true
      } catch (error) {
        // Once the server is killed, requests fail (reset, refused, closed): that ends the load.
        if (!killed) throw error
        break
      }
    }
  }))
  await pool.destroy()
  return received
}

/** What the database holds for the organization after the crash. */
const stateOf = (database: Database, orgId: string) =>
  run(database, Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const charges = yield* sql<{ request_id: string; credits: string | number }>`SELECT request_id, credits FROM credit_events WHERE org_id = ${orgId}`
    const logs = yield* sql<{ request_id: string; status_code: number; credits_used: number }>`
      SELECT request_id::text AS request_id, status_code, credits_used FROM request_logs WHERE org_id = ${orgId}`
    const org = yield* sql<{ credits_remaining: string | number }>`SELECT credits_remaining FROM organizations WHERE id = ${orgId}`
    return { charges, logs, remaining: Number(org[0]!.credits_remaining) }
  }))

const crashUnderLoad = async (options: { readonly env: Record<string, string>; readonly database: () => Database }) => {
  const { orgId, secret } = await prepare(options.database())
  const env = { SIFT_ALLOW_PRIVATE_TARGETS: "true", ...options.env }
  const server = await startServer({ args: ["--port", "0"], env })
  let received: Array<string>
  try {
    // The page is fetched once; every later scrape is a cache hit, charged 1 credit and logged.
    const first = await fetch(`${server.url}/v1/web/scrape/markdown?url=${encodeURIComponent(pageUrl)}`, { headers: { authorization: `Bearer ${secret}` } })
    expect(first.status, await first.clone().text()).toBe(200)
    const firstId = ((await first.json()) as { request_id: string }).request_id
    const killAt = 600
    const loaded = load(server.url, secret, (answered) => answered >= killAt && server.child.kill("SIGKILL"))
    expect(await server.exited).toBe("SIGKILL")
    received = [firstId, ...(await loaded)]
  } finally {
    if (server.child.exitCode === null && server.child.signalCode === null) server.child.kill("SIGKILL")
  }
  expect(received.length).toBeGreaterThanOrEqual(600)

  // The restarted server recovers the same data and serves again; it is then stopped cleanly to read the database.
  const restarted = await startServer({ args: ["--port", "0"], env })
  expect(await stopServer(restarted)).toBe(0)
  const { charges, logs, remaining } = await stateOf(options.database(), orgId)

  const chargedIds = new Map<string, number>()
  for (const charge of charges) chargedIds.set(charge.request_id, (chargedIds.get(charge.request_id) ?? 0) + 1)
  const loggedIds = new Map(logs.map((log) => [log.request_id, log]))
  const unchargedAnswers = received.filter((id) => chargedIds.get(id) !== 1)
  const unloggedAnswers = received.filter((id) => loggedIds.get(id)?.status_code !== 200)
  // Every answer received: charged once, logged once as the 200 it was.
  expect({ unchargedAnswers, unloggedAnswers }).toEqual({ unchargedAnswers: [], unloggedAnswers: [] })
  expect([...chargedIds.values()].every((n) => n === 1)).toBe(true)
  expect(charges.every((charge) => Number(charge.credits) === 1)).toBe(true)
  // Nothing half-made for the answers that never arrived: charged exactly when logged as a charged 200.
  const loggedCharged = logs.filter((log) => log.status_code === 200 && log.credits_used === 1).map((log) => log.request_id).sort()
  expect([...chargedIds.keys()].sort()).toEqual(loggedCharged)
  expect(remaining).toBe(CREDITS - charges.length)
  return { received: received.length, charged: charges.length }
}

describe("a server killed with SIGKILL under load", () => {
  it("loses no charge and no log row of an answer it sent, and leaves charges and logs agreeing (PGlite)", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "sift-nothing-lost-"))
    try {
      const result = await crashUnderLoad({ env: { SIFT_DATA_DIR: dir }, database: () => Sql.layerPglite({ dir }) })
      expect(result.charged).toBeGreaterThanOrEqual(result.received)
    } finally {
      fs.rmSync(dir, { recursive: true, force: true })
    }
  }, 300_000)

  const databaseUrl = inject("databaseUrl")
  it.skipIf(databaseUrl === null || databaseUrl === undefined)(
    "loses no charge and no log row of an answer it sent, and leaves charges and logs agreeing (PostgreSQL, a fresh schema)",
    async () => {
      const schema = `nothing_lost_${process.pid}_${Date.now()}`
      const admin = Sql.layerPg({ url: Redacted.make(databaseUrl!) })
      await run(admin, Effect.flatMap(SqlClient.SqlClient, (sql) => sql`CREATE SCHEMA ${sql(schema)}`))
      const url = new URL(databaseUrl!)
      url.searchParams.set("options", `-c search_path=${schema}`)
      try {
        const result = await crashUnderLoad({
          env: { DATABASE_URL: url.toString(), SIFT_DATA_DIR: "/nonexistent/never-used" },
          database: () => Sql.layerPg({ url: Redacted.make(url.toString()) })
        })
        expect(result.charged).toBeGreaterThanOrEqual(result.received)
      } finally {
        await run(admin, Effect.flatMap(SqlClient.SqlClient, (sql) => sql`DROP SCHEMA ${sql(schema)} CASCADE`))
      }
    },
    300_000
  )
})
