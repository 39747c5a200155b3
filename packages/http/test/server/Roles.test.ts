/**
 * Process roles (issue 22, item 1) with the real `sift serve`: an `api` process answers the API and runs no job, a
 * `worker` process runs the jobs the api queued and answers only its probes and metrics; both on one PostgreSQL (a
 * fresh schema). Roles other than `all` on the embedded database are refused at start-up. `/metrics` needs its token.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { Sql } from "@sift/store"
import { Effect, Layer, Redacted } from "effect"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest"
import { spawnNode, startServer, stopServer, root } from "./support/process.js"
import * as path from "node:path"

const databaseUrl = inject("databaseUrl")
const TOKEN = "metrics-token-for-the-test"
const BOOTSTRAP = "sift_sk_" + "R".repeat(40)

let origin: Server
let site = ""
beforeAll(async () => {
  origin = createServer((req, res) => {
    if (req.url === "/sitemap.xml") {
      const urls = ["/a", "/b", "/c"].map((p) => `<url><loc>${site}${p}</loc></url>`).join("")
      return res.writeHead(200, { "content-type": "application/xml" }).end(`<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${urls}</urlset>`)
    }
    if (req.url === "/robots.txt") return res.writeHead(404).end()
    res.writeHead(200, { "content-type": "text/html" }).end(`<html><head><title>Page ${req.url}</title></head><body><main><h1>Roles</h1><p>Page ${req.url}.</p></main></body></html>`)
  })
  await new Promise<void>((resolve) => origin.listen(0, "127.0.0.1", resolve))
  site = `http://127.0.0.1:${(origin.address() as AddressInfo).port}`
})
afterAll(() => origin.close())

const sift = path.join(root, "packages/http/src/bin.ts")

describe("roles on the embedded database", () => {
  it.each(["api", "worker"])("--role %s without DATABASE_URL is refused with a message naming it (exit 1)", async (role) => {
    const run = spawnNode([sift, "serve", "--port", "0", "--role", role], { SIFT_DATA_DIR: "/nonexistent/never-created" })
    expect(await run.exited).toBe(1)
    expect(run.stderr()).toContain(`error: STARTUP_FAILED: SIFT_ROLE=${role} (or --role ${role}) needs DATABASE_URL`)
  })

  it("SIFT_ROLE=worker is refused the same way, and an unknown role names the setting", async () => {
    const worker = spawnNode([sift, "serve", "--port", "0"], { SIFT_ROLE: "worker", SIFT_DATA_DIR: "/nonexistent/never-created" })
    expect(await worker.exited).toBe(1)
    expect(worker.stderr()).toContain("needs DATABASE_URL")
    const bad = spawnNode([sift, "serve", "--port", "0"], { SIFT_ROLE: "scheduler", SIFT_DATA_DIR: "/nonexistent/never-created" })
    expect(await bad.exited).toBe(1)
    expect(bad.stderr()).toContain("invalid setting SIFT_ROLE (or --role)")
  })
})

/** A fresh schema on the test database for one test; its URL, and a clean-up. */
export const freshSchema = async (prefix: string) => {
  const schema = `${prefix}_${process.pid}_${Date.now()}`
  const admin = Sql.layerPg({ url: Redacted.make(databaseUrl!) })
  const onAdmin = (statement: (sql: SqlClient.SqlClient) => Effect.Effect<unknown, unknown>) =>
    Effect.runPromise(Effect.provide(Effect.flatMap(SqlClient.SqlClient, statement), Layer.fresh(admin)) as Effect.Effect<unknown>)
  await onAdmin((sql) => sql`CREATE SCHEMA ${sql(schema)}`)
  const url = new URL(databaseUrl!)
  url.searchParams.set("options", `-c search_path=${schema}`)
  return {
    url: url.toString(),
    // A job queue of the test's own: workers of other tests on the same database never take its jobs.
    jobsSchema: `${schema}_jobs`,
    drop: async () => {
      await onAdmin((sql) => sql`DROP SCHEMA ${sql(schema)} CASCADE`)
      await onAdmin((sql) => sql`DROP SCHEMA IF EXISTS ${sql(`${schema}_jobs`)} CASCADE`)
    }
  }
}

const metricsOf = async (url: string) => {
  const response = await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } })
  expect(response.status).toBe(200)
  return response.text()
}

/** The value of one sample line (`name{labels} value`) whose text contains every fragment, or undefined. */
const sample = (text: string, name: string, ...fragments: Array<string>) => {
  const line = text.split("\n").find((l) => l.startsWith(name) && fragments.every((f) => l.includes(f)))
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(" ") + 1))
}

describe.skipIf(databaseUrl === null || databaseUrl === undefined)("an api and a worker process on one PostgreSQL", () => {
  it("the api answers and queues, the worker runs the job; the worker answers only probes and metrics", async () => {
    const { url, jobsSchema, drop } = await freshSchema("roles")
    const env = {
      DATABASE_URL: url,
      SIFT_DATA_DIR: "/nonexistent/never-used",
      SIFT_ALLOW_PRIVATE_TARGETS: "true",
      SIFT_BOOTSTRAP_KEY: BOOTSTRAP,
      SIFT_METRICS_TOKEN: TOKEN,
      SIFT_JOBS_SCHEMA: jobsSchema
    }
    const api = await startServer({ args: ["--port", "0", "--role", "api"], env })
    const worker = await startServer({ args: ["--port", "0"], env: { ...env, SIFT_ROLE: "worker" } })
    try {
      expect(api.startLine).toMatchObject({ role: "api", backend: "postgres" })
      expect(worker.startLine).toMatchObject({ role: "worker", backend: "postgres" })
      const auth = { authorization: `Bearer ${BOOTSTRAP}` }

      // The worker: probes and metrics, nothing else.
      expect((await fetch(`${worker.url}/health`)).status).toBe(200)
      const ready = await fetch(`${worker.url}/ready`)
      expect(ready.status).toBe(200)
      expect(((await ready.json()) as any).checks.server).toMatchObject({ ok: true, role: "worker" })
      const refused = await fetch(`${worker.url}/v1/web/scrape/markdown?url=${encodeURIComponent(site + "/a")}`, { headers: auth })
      expect(refused.status).toBe(404)
      expect(((await refused.json()) as any).message).toContain("SIFT_ROLE=worker")

      // The api: metrics need the token.
      expect((await fetch(`${api.url}/metrics`)).status).toBe(401)
      expect((await fetch(`${api.url}/metrics`, { headers: { authorization: "Bearer wrong" } })).status).toBe(401)

      // A scrape is answered and charged; the same page again is a cache hit.
      for (let i = 0; i < 2; i++) {
        const scraped = await fetch(`${api.url}/v1/web/scrape/markdown?url=${encodeURIComponent(site + "/a")}`, { headers: auth })
        expect(scraped.status, await scraped.clone().text()).toBe(200)
        expect(await scraped.text()).toContain("Roles")
      }
      // The access log line of each answer names its request, organization and key.
      // (written after the answer: it may reach stderr a moment later)
      const accessLines = () => api.lines.filter((line) => line.msg === "GET /v1/web/scrape/markdown 200")
      for (let i = 0; i < 50 && accessLines().length < 2; i++) await new Promise((r) => setTimeout(r, 100))
      const access = accessLines()
      expect(access.length).toBe(2)
      for (const line of access) {
        expect(line).toMatchObject({ request_id: expect.any(String), org_id: expect.stringMatching(/.+/), key_id: expect.stringMatching(/.+/) })
      }
      // A map finds URLs the index has not read yet: the api queues their enrichment, the worker runs it.
      const mapped = await fetch(`${api.url}/v1/web/urls?domain=${encodeURIComponent(site)}`, { headers: auth })
      expect(mapped.status, await mapped.clone().text()).toBe(200)
      const deadline = Date.now() + 60_000
      let workerMetrics = await metricsOf(worker.url)
      while ((sample(workerMetrics, "sift_jobs_total", 'queue="url-enrichment"', 'outcome="completed"') ?? 0) < 1 && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 500))
        workerMetrics = await metricsOf(worker.url)
      }
      expect(sample(workerMetrics, "sift_jobs_total", 'queue="url-enrichment"', 'outcome="completed"')).toBeGreaterThanOrEqual(1)
      expect(sample(workerMetrics, "sift_job_duration_seconds_count", 'queue="url-enrichment"')).toBeGreaterThanOrEqual(1)

      const apiMetrics = await metricsOf(api.url)
      // The api ran no job at all.
      expect(apiMetrics).not.toMatch(/^sift_jobs_total\{/m)
      expect(sample(apiMetrics, "sift_http_requests_total", 'route="/v1/web/scrape/markdown"', 'status="200"')).toBe(2)
      expect(sample(apiMetrics, "sift_http_request_duration_seconds_count", 'route="/v1/web/scrape/markdown"')).toBe(2)
      expect(sample(apiMetrics, "sift_credits_charged_total")).toBeGreaterThanOrEqual(2)
      expect(sample(apiMetrics, "sift_cache_lookups_total", 'result="hit"')).toBeGreaterThanOrEqual(1)
      expect(sample(apiMetrics, "sift_queue_jobs", 'queue="url-enrichment"')).toBeGreaterThanOrEqual(0)
      expect(apiMetrics).toContain("sift_browser_contexts_open 0")
      expect(apiMetrics).toContain("sift_process_resident_memory_bytes")
    } finally {
      expect(await Promise.all([stopServer(api), stopServer(worker)])).toEqual([0, 0])
      await drop()
    }
  }, 180_000)
})
