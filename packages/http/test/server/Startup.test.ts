/**
 * Start-up as an operator sees it, on the real `sift serve`: every request that connects while the service starts is
 * answered at once (503 with `Retry-After` and the error body, or the probes), `GET /health` and `GET /ready` (no key,
 * not logged), the human-readable lines saying where the API and the data are and how to make a first key, and clear
 * one-line failures for a busy port and a bad setting.
 */
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as net from "node:net"
import * as os from "node:os"
import * as path from "node:path"
import { pathToFileURL } from "node:url"
import { afterAll, describe, expect, inject, it } from "vitest"
import { jsonLines, root, spawnNode, startServer, stopServer } from "./support/process.js"
import { freePort } from "../support/freePort.js"

const bin = path.join(root, "packages/http/src/bin.ts")
const made: Array<string> = []
const tempDir = () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "sift-startup-"))
  made.push(dir)
  return dir
}
afterAll(() => made.forEach((dir) => fs.rmSync(dir, { recursive: true, force: true })))

/** The outcome of one request made while the server starts. */
type Outcome =
  | { readonly kind: "answered"; readonly path: string; readonly at: number; readonly ms: number; readonly status: number; readonly headers: Headers; readonly body: any }
  | { readonly kind: "refused"; readonly path: string; readonly at: number }
  | { readonly kind: "failed"; readonly path: string; readonly at: number; readonly ms: number; readonly error: string }

/** A request must be answered within this; anything slower counts as a hang. */
const HANG_MS = 5_000

const attempt = async (base: string, target: string): Promise<Outcome> => {
  const at = Date.now()
  try {
    const response = await fetch(`${base}${target}`, { signal: AbortSignal.timeout(HANG_MS) })
    const text = await response.text()
    let body: unknown = text
    try {
      body = JSON.parse(text)
    } catch {
      // Not JSON: kept as text for the assertion message.
    }
    return { kind: "answered", path: target, at, ms: Date.now() - at, status: response.status, headers: response.headers, body }
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause
    if (cause?.code === "ECONNREFUSED") return { kind: "refused", path: target, at }
    return { kind: "failed", path: target, at, ms: Date.now() - at, error: `${String(error)} ${cause?.code ?? ""}` }
  }
}

describe("sift serve start-up", () => {
  it("answers every request from the moment the port opens: 503 + Retry-After until ready, /health and /ready without a key, never a hang", { timeout: 180_000 }, async () => {
    const dir = tempDir()
    const port = await freePort()
    const base = `http://127.0.0.1:${port}`
    const secret = "sift_sk_" + "R".repeat(20) + "d".repeat(20)
    const server = spawnNode([bin, "serve", "--port", String(port)], { SIFT_DATA_DIR: dir, SIFT_BOOTSTRAP_KEY: secret })
    const outcomes: Array<Promise<Outcome>> = []
    try {
      // Poll like an impatient client and a load balancer together, from before the process listens until it is ready.
      const deadline = Date.now() + 150_000
      let ready: Outcome | undefined
      let listeningSince: number | undefined
      // Until /ready says so, or (a server without it) a few seconds after the start-up line.
      while (ready === undefined && (listeningSince === undefined || Date.now() - listeningSince < 3_000)) {
        if (Date.now() > deadline) throw new Error(`never ready:\n${server.stderr()}`)
        if (server.child.exitCode !== null) throw new Error(`exited ${server.child.exitCode}:\n${server.stderr()}`)
        for (const target of ["/v1/logs", "/health", "/ready"]) outcomes.push(attempt(base, target))
        const readyPoll = outcomes.at(-1)!
        const outcome = await Promise.race([readyPoll, new Promise<undefined>((r) => setTimeout(() => r(undefined), 100))])
        if (outcome?.kind === "answered" && outcome.status === 200) ready = outcome
        if (listeningSince === undefined && server.stderr().includes("listening on ")) listeningSince = Date.now()
      }
      const all = await Promise.all(outcomes)
      const failed = all.filter((o) => o.kind === "failed")
      expect(failed, JSON.stringify(failed.slice(0, 5))).toEqual([])
      if (ready === undefined) throw new Error("/ready never answered 200")
      const answered = all.filter((o): o is Extract<Outcome, { kind: "answered" }> => o.kind === "answered")

      // Before it was ready: API requests got the contract's 503, probes their own answers.
      const early = answered.filter((o) => o.at < ready!.at && !(o.path === "/ready" && o.status === 200))
      const earlyApi = early.filter((o) => o.path === "/v1/logs" && o.status !== 401)
      expect(earlyApi.length).toBeGreaterThan(0)
      for (const o of earlyApi) {
        expect(o.status).toBe(503)
        expect(o.headers.get("retry-after")).toBe("1")
        expect(o.body).toMatchObject({ error_code: "SERVICE_UNAVAILABLE" })
        expect(o.body.request_id).toBe(o.headers.get("x-request-id"))
      }
      for (const o of early.filter((o) => o.path === "/health")) expect([o.status, o.body]).toEqual([200, { status: "ok" }])
      const earlyReady = early.filter((o) => o.path === "/ready")
      expect(earlyReady.length).toBeGreaterThan(0)
      for (const o of earlyReady) {
        expect(o.status).toBe(503)
        expect(o.body.status).toBe("unavailable")
        expect(o.body.failing).toContain("server")
        expect(o.body.checks.server).toEqual({ ok: false, state: "starting" })
      }
      // Some poll saw the database connected but the application not yet serving, or the migrations pending.
      expect(earlyReady.some((o) => o.body.checks.migrations.state === "pending")).toBe(true)

      // Ready: every part named, with its state.
      expect(ready.kind === "answered" && ready.body).toMatchObject({
        status: "ready",
        checks: {
          database: { ok: true, state: "reachable", backend: "pglite" },
          migrations: { ok: true, state: "applied" },
          jobs: { ok: true, state: "started" },
          browser: { ok: true, open_contexts: 0 },
          server: { ok: true, state: "serving" }
        }
      })
      const slowest = Math.max(...answered.map((o) => o.ms))
      console.log(`start-up polls: ${all.length} requests, ${answered.length} answered, slowest answer ${slowest} ms`)

      // Probes are neither in the access log nor in the request log; a HEAD probe has no body.
      const head = await fetch(`${base}/health`, { method: "HEAD" })
      expect(head.status).toBe(200)
      expect(await head.text()).toBe("")
      const health = await fetch(`${base}/health?verbose=1`)
      expect(health.headers.get("cache-control")).toBe("no-store")
      expect(await health.json()).toEqual({ status: "ok" })
      await new Promise((r) => setTimeout(r, 500))
      const logs = await fetch(`${base}/v1/logs?limit=100`, { headers: { authorization: `Bearer ${secret}` } })
      expect(logs.status).toBe(200)
      const logged = ((await logs.json()) as { data: Array<{ path?: string; endpoint?: string }> }).data
      expect(JSON.stringify(logged)).not.toMatch(/health|ready/)
      const paths = jsonLines(server.stderr()).map((line) => line.path).filter((p) => p !== undefined)
      expect(paths).not.toContain("/health")
      expect(paths).not.toContain("/ready")

      // The web console at / (built by the install's prepare step), its script served.
      const index = await fetch(`${base}/`)
      expect(index.status).toBe(200)
      const html = await index.text()
      expect(html).toContain('<div id="app">')
      const script = /src="(\/assets\/[^"]+\.js)"/.exec(html)?.[1]
      expect(script).toBeDefined()
      expect((await fetch(`${base}${script}`)).status).toBe(200)

      // The human-readable lines: where the API is, where the data lives, the command that makes a first key.
      const text = server.stderr()
      expect(text).toContain("Sift is ready.")
      expect(text).toContain(`API        ${base}/v1`)
      expect(text).toContain(`Data       ${dir} (embedded PGlite`)
      expect(text).toContain(`SIFT_DATA_DIR=${dir} npx sift keys create --name NAME --plan scale`)
      expect(text).toContain(`Console    ${base}/   (first account: npx sift users create EMAIL --org ORG)`)
    } finally {
      await stopServer(server)
      await Promise.allSettled(outcomes)
    }
    expect(server.child.exitCode).toBe(0)
  })

  it("prints the default data directory's key command as is (run from the server's directory)", { timeout: 120_000 }, async () => {
    const cwd = tempDir()
    const server = spawnNodeIn(cwd, [bin, "serve", "--port", "0"])
    try {
      await waitFor(() => server.stderr().includes("Sift is ready."), 100_000, server.stderr)
      const text = server.stderr()
      expect(text).toContain(`Data       ${path.join(cwd, ".sift")} (embedded PGlite`)
      expect(text).toContain(`First key  npx sift keys create --name NAME --plan scale   (from ${cwd})`)
    } finally {
      await stopServer(server)
    }
  })

  it("a busy port fails at once with one line naming the port and the setting, before any data directory is made", async () => {
    const dir = path.join(tempDir(), "data")
    const blocker = net.createServer()
    await new Promise<void>((resolve) => blocker.listen(0, "127.0.0.1", resolve))
    const port = (blocker.address() as net.AddressInfo).port
    try {
      const run = spawnNode([bin, "serve", "--port", String(port)], { SIFT_DATA_DIR: dir })
      expect(await run.exited).toBe(1)
      expect(run.stderr().trim()).toBe(`error: STARTUP_FAILED: port ${port} is already in use on 127.0.0.1 (set SIFT_PORT or --port)`)
      expect(fs.existsSync(dir)).toBe(false)
    } finally {
      blocker.close()
    }
  })

  it("a bad SIFT_PORT fails with one line naming the setting", async () => {
    for (const [value, why] of [["abc", `Expected an integer value but received "abc"`], ["70000", "expected a port number, 0 to 65535"]]) {
      const run = spawnNode([bin, "serve"], { SIFT_PORT: value, SIFT_DATA_DIR: path.join(tempDir(), "data") })
      expect(await run.exited).toBe(1)
      expect(run.stderr().trim()).toBe(`error: STARTUP_FAILED: invalid setting SIFT_PORT (or --port): ${why}`)
    }
  })
})

describe("probes on a non-loopback bind (the stand-in application)", () => {
  const address = Object.values(os.networkInterfaces()).flat()
    .find((a) => a !== undefined && a.family === "IPv4" && !a.internal)?.address

  it.skipIf(address === undefined)("answer over plain HTTP where the API is refused (load balancers check them directly)", async () => {
    const server = await startServer({ entry: "standIn", args: ["--host", address!, "--port", "0", "--data-dir", tempDir()] })
    try {
      expect((await fetch(`${server.url}/v1/ping`)).status).toBe(403)
      const health = await fetch(`${server.url}/health`)
      expect([health.status, await health.json()]).toEqual([200, { status: "ok" }])
      const ready = await fetch(`${server.url}/ready`)
      expect(ready.status).toBe(200)
      expect(((await ready.json()) as { status: string }).status).toBe("ready")
    } finally {
      expect(await stopServer(server)).toBe(0)
    }
  })
})

const databaseUrl = inject("databaseUrl")

describe.skipIf(databaseUrl === null || databaseUrl === undefined)("sift serve start-up on PostgreSQL", () => {
  it("says which database it uses without its password, and /ready checks it", { timeout: 120_000 }, async () => {
    const url = new URL(databaseUrl!)
    const server = await startServer({ args: ["--port", "0"], env: { DATABASE_URL: databaseUrl!, SIFT_DATA_DIR: "/nonexistent/never-used" } })
    try {
      await waitFor(() => server.stderr().includes("Sift is ready."), 30_000, server.stderr)
      const text = server.stderr()
      expect(text).toContain(`Data       PostgreSQL ${decodeURIComponent(url.username)}@${url.host}${url.pathname} (DATABASE_URL)`)
      expect(text).toContain("(with the same DATABASE_URL)")
      if (url.password !== "") expect(text).not.toContain(`:${url.password}@`)
      const ready = await fetch(`${server.url}/ready`)
      expect(ready.status).toBe(200)
      expect(((await ready.json()) as any).checks.database).toEqual({ ok: true, state: "reachable", backend: "postgres" })
    } finally {
      expect(await stopServer(server)).toBe(0)
    }
  })
})

/** The real `sift` through tsx in another working directory (the default data directory resolves against it). */
function spawnNodeIn(cwd: string, args: ReadonlyArray<string>) {
  const env: Record<string, string | undefined> = { ...process.env, DATABASE_URL: "", SIFT_LOG_LEVEL: "info" }
  delete env.SIFT_DATA_DIR
  const child = spawn(process.execPath, ["--conditions=@sift/source", "--import", pathToFileURL(path.join(root, "node_modules/tsx/dist/loader.mjs")).href, ...args], {
    cwd,
    env,
    stdio: ["ignore", "pipe", "pipe"]
  })
  let stderr = ""
  child.stderr!.on("data", (chunk) => (stderr += chunk))
  child.stdout!.resume()
  const exited = new Promise<number | string>((resolve) => child.once("exit", (code, signal) => resolve(code ?? signal ?? "unknown")))
  return { child, exited, stderr: () => stderr }
}

async function waitFor(condition: () => boolean, timeoutMs: number, detail: () => string) {
  const until = Date.now() + timeoutMs
  while (!condition()) {
    if (Date.now() > until) throw new Error(`timed out:\n${detail()}`)
    await new Promise((r) => setTimeout(r, 100))
  }
}
