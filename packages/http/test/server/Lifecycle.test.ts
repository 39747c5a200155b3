/**
 * Graceful lifecycle of a worker (issue 22, item 2), real processes on PostgreSQL (a fresh schema): a worker running a
 * job that cannot finish gets SIGTERM, waits its shutdown time, hands the job back to the queue (pg-boss: failed while
 * active -> retry) and exits 0; another worker then runs that same job to completion.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { Sql } from "@sift/store"
import { Effect, Layer, Redacted } from "effect"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest"
import { startServer, stopServer } from "./support/process.js"

const databaseUrl = inject("databaseUrl")
const KEY = "sift_sk_" + "L".repeat(40)

let origin: Server
let site = ""
let hang = true
beforeAll(async () => {
  origin = createServer((req, res) => {
    if (req.url === "/sitemap.xml") {
      const urls = ["/one", "/two"].map((p) => `<url><loc>${site}${p}</loc></url>`).join("")
      return res.writeHead(200, { "content-type": "application/xml" }).end(`<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${urls}</urlset>`)
    }
    if (req.url === "/robots.txt") return res.writeHead(404).end()
    // While `hang`, the pages never answer: the enrichment job that reads them cannot finish.
    if (hang && (req.url === "/one" || req.url === "/two")) return
    res.writeHead(200, { "content-type": "text/html" }).end(`<html><head><title>Page ${req.url}</title></head><body><p>Now answered.</p></body></html>`)
  })
  await new Promise<void>((resolve) => origin.listen(0, "127.0.0.1", resolve))
  site = `http://127.0.0.1:${(origin.address() as AddressInfo).port}`
})
afterAll(() => {
  origin.closeAllConnections()
  origin.close()
})

describe.skipIf(databaseUrl === null || databaseUrl === undefined)("a worker stopped while a job runs", () => {
  it("hands the job back on SIGTERM (exit 0), and another worker completes it", async () => {
    const schema = `lifecycle_${process.pid}_${Date.now()}`
    const admin = Sql.layerPg({ url: Redacted.make(databaseUrl!) })
    const query = <A>(statement: (sql: SqlClient.SqlClient) => Effect.Effect<A, unknown>) =>
      Effect.runPromise(Effect.provide(Effect.flatMap(SqlClient.SqlClient, statement), Layer.fresh(admin)) as Effect.Effect<A>)
    await query((sql) => sql`CREATE SCHEMA ${sql(schema)}`)
    const url = new URL(databaseUrl!)
    url.searchParams.set("options", `-c search_path=${schema}`)
    const env = {
      DATABASE_URL: url.toString(),
      SIFT_DATA_DIR: "/nonexistent/never-used",
      SIFT_ALLOW_PRIVATE_TARGETS: "true",
      SIFT_BOOTSTRAP_KEY: KEY,
      SIFT_SHUTDOWN_TIMEOUT_MS: "1500",
      // A job queue of this test's own: workers of other tests on the same database never take its job.
      SIFT_JOBS_SCHEMA: `${schema}_jobs`,
      SIFT_METRICS: "true"
    }
    const jobOf = () =>
      query((sql) => sql<{ id: string; state: string; output: unknown }>`
        SELECT id::text AS id, state, output FROM ${sql(`${schema}_jobs`)}.job WHERE name = 'url-enrichment'
        ORDER BY created_on DESC LIMIT 1`).then((rows) => rows[0])
    const until = async (what: string, check: () => Promise<boolean>, ms = 60_000) => {
      const deadline = Date.now() + ms
      while (!(await check())) {
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(await jobOf())}`)
        await new Promise((r) => setTimeout(r, 200))
      }
    }
    const api = await startServer({ args: ["--port", "0", "--role", "api"], env })
    const first = await startServer({ args: ["--port", "0", "--role", "worker"], env })
    let second: Awaited<ReturnType<typeof startServer>> | undefined
    try {
      const mapped = await fetch(`${api.url}/v1/web/urls?domain=${encodeURIComponent(site)}`, { headers: { authorization: `Bearer ${KEY}` } })
      expect(mapped.status, await mapped.clone().text()).toBe(200)
      await until("the first worker to run the job", async () => (await jobOf())?.state === "active")

      const stoppedAt = Date.now()
      expect(await stopServer(first)).toBe(0)
      // It waited for the job (its shutdown time), not forever.
      expect(Date.now() - stoppedAt).toBeLessThan(30_000)
      const handedBack = await jobOf()
      expect(handedBack?.state).toBe("retry")
      expect(JSON.stringify(handedBack?.output)).toContain("shut down while active")
      expect(first.lines.some((line) => line.msg === "stopped")).toBe(true)

      hang = false
      second = await startServer({ args: ["--port", "0", "--role", "worker"], env })
      // The same job, handed back, is run to completion (the new worker also queues its own resume job for the site).
      const stateOf = (id: string) =>
        query((sql) => sql<{ state: string }>`SELECT state FROM ${sql(`${schema}_jobs`)}.job WHERE id = ${id}::uuid`).then((rows) => rows[0]?.state)
      await until("the second worker to complete the job", async () => (await stateOf(handedBack!.id)) === "completed", 90_000)
      const metrics = await (await fetch(`${second.url}/metrics`)).text()
      expect(metrics).toMatch(/^sift_jobs_total\{queue="url-enrichment",outcome="completed"\} [1-9]/m)
    } finally {
      const exits = await Promise.all([api, first, ...(second === undefined ? [] : [second])].map((server) => stopServer(server)))
      await query((sql) => sql`DROP SCHEMA ${sql(schema)} CASCADE`)
      await query((sql) => sql`DROP SCHEMA IF EXISTS ${sql(`${schema}_jobs`)} CASCADE`)
      expect(exits.every((code) => code === 0)).toBe(true)
    }
  }, 240_000)
})
