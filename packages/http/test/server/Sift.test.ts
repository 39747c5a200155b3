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
