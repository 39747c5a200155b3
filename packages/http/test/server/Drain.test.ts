/**
 * Draining (issue 22, item 2): with SIFT_SHUTDOWN_DELAY_MS, a real `sift serve` (embedded PGlite) that gets SIGTERM
 * answers `/ready` 503 with its server check `stopping` while it still serves API requests and `/health`, for that
 * long; then it stops accepting and exits 0. Without the delay, the port closes at once (Cluster.test.ts).
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { startServer, stopServer } from "./support/process.js"

const KEY = "sift_sk_" + "D".repeat(40)
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "sift-drain-"))
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))

describe("SIGTERM with SIFT_SHUTDOWN_DELAY_MS", () => {
  it("/ready says stopping (503) while the API is still served; then the port closes and the process exits 0", async () => {
    const server = await startServer({
      args: ["--port", "0"],
      env: { SIFT_DATA_DIR: dir, SIFT_BOOTSTRAP_KEY: KEY, SIFT_SHUTDOWN_DELAY_MS: "8000" },
      timeoutMs: 120_000
    })
    try {
      const ready = await fetch(`${server.url}/ready`)
      expect(ready.status).toBe(200)
      const signalled = Date.now()
      server.child.kill("SIGTERM")
      // The first /ready after the signal that says so (the signal reaches the process within moments).
      let draining: { status: number; body: any } | undefined
      while (draining === undefined && Date.now() - signalled < 3_000) {
        const response = await fetch(`${server.url}/ready`)
        const body = await response.json() as any
        if (response.status === 503) draining = { status: response.status, body }
        else await new Promise((r) => setTimeout(r, 50))
      }
      expect(draining?.body.checks.server).toMatchObject({ ok: false, state: "stopping" })
      // Still serving meanwhile: liveness, and an authenticated API request.
      expect((await fetch(`${server.url}/health`)).status).toBe(200)
      const logs = await fetch(`${server.url}/v1/logs?limit=1`, { headers: { authorization: `Bearer ${KEY}` } })
      expect(logs.status, await logs.clone().text()).toBe(200)
      expect(Date.now() - signalled).toBeLessThan(8_000)
      expect(await server.exited).toBe(0)
      // It stopped only once the delay had passed.
      expect(Date.now() - signalled).toBeGreaterThanOrEqual(8_000)
      await expect(fetch(`${server.url}/ready`)).rejects.toThrow()
      expect(server.lines.some((line) => line.msg.includes("still serving for 8000 ms"))).toBe(true)
    } finally {
      await stopServer(server, "SIGKILL")
    }
  }, 180_000)
})
