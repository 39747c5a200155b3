/**
 * The real `sift` executable (serve + keys/orgs) as processes, on real databases: the bootstrap key, the CLI with and
 * without a server on the data directory, a SIGKILL mid-request that must charge nothing, and two replicas on one
 * PostgreSQL keeping credits and rate limits exact.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { Sql } from "@sift/store"
import { Effect, Redacted } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest"
import * as FixtureSite from "../../../core/test/support/FixtureSite.js"
import { root, spawnNode, startServer, stopServer } from "./support/process.js"

const bin = path.join(root, "packages/http/src/bin.ts")
const base = { SIFT_ALLOW_PRIVATE_TARGETS: "true" }
const sift = async (args: ReadonlyArray<string>, env: Record<string, string | undefined>) => {
  const run = spawnNode([bin, ...args], { ...base, ...env })
  const code = await run.exited
  return { code, stdout: run.stdout(), stderr: run.stderr() }
}
const siftJson = async (args: ReadonlyArray<string>, env: Record<string, string | undefined>) => {
  const run = await sift([...args, "--json"], env)
  expect(run.code, run.stderr).toBe(0)
  return JSON.parse(run.stdout)
}
const markdown = (url: string, secret: string, target: string) =>
  fetch(`${url}/v1/web/scrape/markdown?url=${encodeURIComponent(target)}`, { headers: { authorization: `Bearer ${secret}` } })

let site: FixtureSite.Site
beforeAll(async () => {
  site = await FixtureSite.start({
    "/": FixtureSite.html("<h1>Replica page</h1><p>Served to every replica.</p>"),
    "/slow": FixtureSite.slow({ headersAfterMs: 20_000 })
  })
})
afterAll(() => site.close())

describe("sift serve (the real executable)", () => {
  it("ensures SIFT_BOOTSTRAP_KEY idempotently across restarts, and the key scrapes", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "sift-boot-"))
    const secret = "sift_sk_" + "B".repeat(20) + "c".repeat(20)
    const env = { ...base, SIFT_BOOTSTRAP_KEY: secret, SIFT_DATA_DIR: dir }
    for (let round = 0; round < 2; round++) {
      const server = await startServer({ args: ["--port", "0"], env })
      try {
        const response = await markdown(server.url, secret, `${site.url}/`)
        expect(response.status).toBe(200)
        expect(((await response.json()) as { markdown: string }).markdown).toContain("# Replica page")
      } finally {
        expect(await stopServer(server)).toBe(0)
      }
    }
    const keys = await siftJson(["keys", "list"], { SIFT_DATA_DIR: dir })
    expect(keys.filter((k: { name: string }) => k.name === "bootstrap")).toHaveLength(1)
  })

  it("keys create works without a server and with one on the same data directory; revoke bites on /v1", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "sift-cli-"))
    const offline = await siftJson(["keys", "create", "--name", "offline", "--org", "acme", "--plan", "pro"], { SIFT_DATA_DIR: dir })
    expect(offline.secret).toMatch(/^sift_sk_[A-Za-z0-9]{40}$/)
    const server = await startServer({ args: ["--port", "0"], env: { ...base, SIFT_DATA_DIR: dir } })
    try {
      const online = await siftJson(["keys", "create", "--name", "online", "--org", "acme"], { SIFT_DATA_DIR: dir })
      expect(online.org.id).toBe(offline.org.id)
      for (const secret of [offline.secret, online.secret]) expect((await markdown(server.url, secret, `${site.url}/`)).status).toBe(200)
      const revoked = await sift(["keys", "revoke", online.key.id], { SIFT_DATA_DIR: dir })
      expect(revoked.code, revoked.stderr).toBe(0)
      await new Promise((r) => setTimeout(r, 2_100)) // the authentication cache holds a key for 2 s
      expect((await markdown(server.url, online.secret, `${site.url}/`)).status).toBe(401)
    } finally {
      expect(await stopServer(server)).toBe(0)
    }
  })

  it("a SIGKILL mid-request charges nothing; the restarted server opens the same data directory cleanly", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "sift-kill-"))
    const env = { ...base, SIFT_DATA_DIR: dir }
    const created = await siftJson(["keys", "create", "--name", "k", "--org", "crash", "--plan", "starter"], env)
    const server = await startServer({ args: ["--port", "0"], env })
    const pending = markdown(server.url, created.secret, `${site.url}/slow`).then((r) => r.status, () => "aborted")
    await new Promise((r) => setTimeout(r, 1_000))
    server.child.kill("SIGKILL")
    expect(await server.exited).toBe("SIGKILL")
    expect(await pending).toBe("aborted")
    const restarted = await startServer({ args: ["--port", "0"], env })
    try {
      const orgs = await siftJson(["orgs", "list"], env)
      expect(orgs.find((o: { name: string }) => o.name === "crash").credits_remaining).toBe(30_000)
      const ok = await markdown(restarted.url, created.secret, `${site.url}/`)
      expect(ok.status).toBe(200)
      expect(((await ok.json()) as { key_metadata: { credits_remaining: number } }).key_metadata.credits_remaining).toBe(29_999)
    } finally {
      expect(await stopServer(restarted)).toBe(0)
    }
  })
})

const databaseUrl = inject("databaseUrl")

describe.skipIf(databaseUrl === null || databaseUrl === undefined)("two sift serve replicas on one PostgreSQL", () => {
  it("keep credits and rate limits exact across both: 200 scrapes on 100 credits → 100 succeed", async () => {
    const env = { ...base, DATABASE_URL: databaseUrl!, SIFT_DATA_DIR: "/nonexistent/never-used" }
    const [a, b] = await Promise.all([startServer({ args: ["--port", "0"], env }), startServer({ args: ["--port", "0"], env })])
    try {
      const orgName = `replicas-${Date.now()}`
      const created = await siftJson(["keys", "create", "--name", "k", "--org", orgName, "--plan", "enterprise"], env)
      const limited = await siftJson(["keys", "create", "--name", "l", "--org", `${orgName}-free`, "--plan", "free"], env)
      // Enterprise credits and limits are set per organization: give this one 100 credits and a high request limit.
      await Effect.runPromise(Effect.provide(
        Effect.flatMap(SqlClient.SqlClient, (sql) =>
          sql`UPDATE organizations SET credits_remaining = 100, credits_override = 100, rpm_override = 100000 WHERE id = ${created.org.id}`),
        Sql.layerPg({ url: Redacted.make(databaseUrl!) })
      ))
      const responses = await Promise.all(Array.from({ length: 200 }, (_, i) =>
        markdown(i % 2 === 0 ? a.url : b.url, created.secret, `${site.url}/?n=${i % 5}`)))
      const statuses = responses.map((r) => r.status)
      expect(statuses.filter((s) => s === 200)).toHaveLength(100)
      expect(statuses.filter((s) => s === 403)).toHaveLength(100)
      const orgs = await siftJson(["orgs", "list"], env)
      expect(orgs.find((o: { id: string }) => o.id === created.org.id).credits_remaining).toBe(0)
      const logs = (await Promise.all([1, 2].map((page) =>
        fetch(`${a.url}/v1/logs?limit=100&page=${page}&path=/web/scrape/markdown`, { headers: { authorization: `Bearer ${created.secret}` } })
          .then((r) => r.json() as Promise<{ data: Array<{ credits_used: number }> }>)))).flatMap((p) => p.data)
      expect(logs).toHaveLength(200)
      expect(logs.filter((e) => e.credits_used === 1)).toHaveLength(100)

      // The free plan's 30 requests a minute hold across both replicas together.
      const limitedStatuses = await Promise.all(Array.from({ length: 40 }, (_, i) =>
        markdown(i % 2 === 0 ? a.url : b.url, limited.secret, `${site.url}/`).then((r) => r.status)))
      expect(limitedStatuses.filter((s) => s === 200)).toHaveLength(30)
      expect(limitedStatuses.filter((s) => s === 429)).toHaveLength(10)
    } finally {
      expect(await Promise.all([stopServer(a), stopServer(b)])).toEqual([0, 0])
    }
  })
})

describe.skipIf(databaseUrl === null || databaseUrl === undefined)("monitors on two sift serve replicas on one PostgreSQL", () => {
  it("every due run is claimed and executed once: five rounds of 30 due monitors, each page read once per round", async () => {
    const { createServer } = await import("node:http")
    const hits = new Map<string, number>()
    const pages = createServer((req, res) => {
      hits.set(req.url ?? "/", (hits.get(req.url ?? "/") ?? 0) + 1)
      res.writeHead(200, { "content-type": "text/html" }).end(`<html><body><main><h1>Page ${req.url}</h1><p>Steady text of ${req.url}.</p></main></body></html>`)
    })
    await new Promise<void>((resolve) => pages.listen(0, "127.0.0.1", resolve))
    const origin = `http://127.0.0.1:${(pages.address() as import("node:net").AddressInfo).port}`
    const env = { ...base, DATABASE_URL: databaseUrl!, SIFT_DATA_DIR: "/nonexistent/never-used", SIFT_MONITOR_TICK_MS: "200" }
    const [a, b] = await Promise.all([startServer({ args: ["--port", "0"], env }), startServer({ args: ["--port", "0"], env })])
    const database = Sql.layerPg({ url: Redacted.make(databaseUrl!) })
    const query = <A>(effect: Effect.Effect<A, unknown, SqlClient.SqlClient>) => Effect.runPromise(Effect.provide(effect, database) as Effect.Effect<A>)
    try {
      const created = await siftJson(["keys", "create", "--name", "m", "--org", `monitor-replicas-${Date.now()}`, "--plan", "scale"], env)
      const call = (url: string, method: string, path: string, body?: unknown) =>
        fetch(`${url}/v1${path}`, {
          method,
          headers: { authorization: `Bearer ${created.secret}`, "content-type": "application/json" },
          ...(body === undefined ? {} : { body: JSON.stringify(body) })
        }).then((r) => r.json() as Promise<Record<string, any>>)
      const ids: Array<string> = []
      for (let i = 0; i < 30; i++) {
        const monitor = await call(i % 2 === 0 ? a.url : b.url, "POST", "/monitors", {
          name: `replica ${i}`,
          target: { type: "page", url: `${origin}/p${i}` },
          // The longest interval: a claim moves next_run_at to the monitor's next phase slot, and with 10 minutes that
          // slot fell inside a round now and then (a 181st run; CI at 1f46d78). A year makes that chance negligible.
          schedule: { type: "interval", frequency: 365, unit: "days" }
        })
        ids.push(monitor.id)
      }
      const completed = () =>
        query(Effect.flatMap(SqlClient.SqlClient, (sql) =>
          sql<{ n: string | number }>`SELECT count(*) AS n FROM monitor_runs WHERE ${sql.in("monitor_id", ids)} AND status = 'completed'`)).then((rows) => Number(rows[0]!.n))
      const waitFor = async (n: number) => {
        const until = Date.now() + 60_000
        while ((await completed()) < n) {
          if (Date.now() > until) throw new Error(`only ${await completed()} of ${n} runs completed`)
          await new Promise((r) => setTimeout(r, 200))
        }
      }
      // Between rounds no slot is due: a monitor's own phase slot could otherwise fall inside the test by chance.
      const dueAt = (at: Date) => query(Effect.flatMap(SqlClient.SqlClient, (sql) => sql`UPDATE monitors SET next_run_at = ${at} WHERE ${sql.in("id", ids)}`))
      await dueAt(new Date(Date.now() + 86_400_000))
      await waitFor(30)
      for (let round = 1; round <= 5; round++) {
        await dueAt(new Date(Date.now() - 100))
        await waitFor(30 * (round + 1))
        await dueAt(new Date(Date.now() + 86_400_000))
      }
      await new Promise((r) => setTimeout(r, 1_500))
      const runs = await query(Effect.flatMap(SqlClient.SqlClient, (sql) =>
        sql<{ monitor_id: string; status: string; run_type: string; started_at: Date; completed_at: Date }>`
          SELECT monitor_id, status, run_type, started_at, completed_at FROM monitor_runs WHERE ${sql.in("monitor_id", ids)} ORDER BY started_at`))
      expect(runs).toHaveLength(180)
      expect(runs.every((r) => r.status === "completed")).toBe(true)
      for (const id of ids) {
        const own = runs.filter((r) => r.monitor_id === id)
        expect(own.filter((r) => r.run_type === "scheduled")).toHaveLength(5)
        // Never two runs of one monitor at once.
        for (let i = 1; i < own.length; i++) expect(new Date(own[i]!.started_at).getTime()).toBeGreaterThanOrEqual(new Date(own[i - 1]!.completed_at).getTime())
      }
      for (let i = 0; i < 30; i++) expect(hits.get(`/p${i}`)).toBe(6)
      // Both replicas did work (the claims were shared, not served by one).
      const busy = [a, b].map((server) => server.lines.length)
      expect(busy.every((n) => n > 0)).toBe(true)
    } finally {
      expect(await Promise.all([stopServer(a), stopServer(b)])).toEqual([0, 0])
      pages.close()
    }
  }, 180_000)
})
