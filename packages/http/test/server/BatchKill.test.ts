/**
 * A batch survives `kill -9` of the real `sift serve` (issue 18): a 2,000-URL batch submitted through the official SDK
 * to a child server process, the process killed with SIGKILL mid-batch, a new one started on the same data directory
 * (and on PostgreSQL when DATABASE_URL is set). After restart the batch completes with exactly one record per URL,
 * the credits charged equal the pages that succeeded, and the NDJSON parts downloaded from their file URLs hold
 * exactly the JSON results.
 */
import ContextDev from "context.dev"
import * as fs from "node:fs"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import * as os from "node:os"
import * as path from "node:path"
import { gunzipSync } from "node:zlib"
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest"
import { root, spawnNode, type ServerProcess, startServer, stopServer } from "./support/process.js"

const PAGES = 2_000
/** Every 97th page answers 404: failures are recorded once too, and refunded. */
const missing = (n: number) => n % 97 === 0

let site: { url: string; close: () => Promise<void> }
let served = 0
beforeAll(async () => {
  // The fixture site: 2,000 small pages, each after a few ms, so the batch runs for a while.
  const server = createServer((req, res) => {
    served++
    const n = Number(/^\/p\/(\d+)$/.exec(req.url ?? "")?.[1] ?? -1)
    setTimeout(() => {
      if (n < 0 || missing(n)) return void res.writeHead(404, { "content-type": "text/html" }).end("<h1>Not found</h1>")
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(
        `<!doctype html><html lang="en"><head><title>Page ${n}</title></head><body><main><h1>Page ${n}</h1>` +
          `<p>This is page number ${n} of the fixture site, with a little text to convert.</p></main></body></html>`
      )
    }, 5)
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  site = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve()))
  }
})
afterAll(async () => {
  await site?.close()
})

const bin = path.join(root, "packages/http/src/bin.ts")

const backends = [
  { name: "data directory (PGlite)", url: undefined as string | undefined },
  { name: "PostgreSQL", url: inject("databaseUrl") ?? undefined }
]

for (const backend of backends) {
  describe.skipIf(backend.name === "PostgreSQL" && backend.url === undefined)(`kill -9 of sift serve mid-batch (${backend.name})`, () => {
    it("restarts and completes the batch: one record per URL, credits = pages succeeded, NDJSON parts = JSON results", async () => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "sift-batch-kill-"))
      const env = {
        SIFT_ALLOW_PRIVATE_TARGETS: "true",
        SIFT_DATA_DIR: dir,
        DATABASE_URL: backend.url ?? "",
        // A lapsed lease is looked for every second (a killed drive's lease lapses 30 s after its last renewal).
        SIFT_BATCH_SWEEP_MS: "1000",
        SIFT_BATCH_CONCURRENCY: "16",
        SIFT_BATCH_PER_HOST: "16"
      }
      // A key of a new organization (its balance this test's alone, also on a shared PostgreSQL), made by the CLI.
      const keys = spawnNode([bin, "keys", "create", "--name", "kill", "--org", `kill-${Date.now().toString(36)}`, "--plan", "scale", "--json"], env)
      expect(await keys.exited, keys.stderr()).toBe(0)
      const { secret } = JSON.parse(keys.stdout()) as { secret: string }
      const clientOf = (server: ServerProcess) => new ContextDev({ apiKey: secret, baseURL: `${server.url}/v1`, maxRetries: 2, timeout: 60_000 })

      let server = await startServer({ args: ["--port", "0"], env })
      try {
        const urls = Array.from({ length: PAGES }, (_, n) => ({ url: `${site.url}/p/${n}`, itemId: `item-${n}` }))
        const submitted = await clientOf(server).batch.submit({ input: { mode: "scrape", data: { format: "markdown", urls } } }) as
          Awaited<ReturnType<ContextDev["batch"]["submit"]>> & { key_metadata: { credits_consumed: number; credits_remaining: number } }
        expect(submitted.input).toMatchObject({ submitted: PAGES, reserved: PAGES, duplicates: 0 })
        expect(submitted.key_metadata.credits_consumed).toBe(PAGES)
        const balanceBefore = submitted.key_metadata.credits_remaining + PAGES

        // Mid-batch: some pages recorded, most not.
        const deadline = Date.now() + 180_000
        for (;;) {
          const batch = await clientOf(server).batch.retrieve(submitted.id)
          const done = batch.progress.succeeded + batch.progress.failed
          if (done >= 200) {
            expect(done).toBeLessThan(PAGES * 0.75)
            break
          }
          if (Date.now() > deadline) throw new Error(`the batch did not start: ${JSON.stringify(batch.progress)}`)
          await new Promise((r) => setTimeout(r, 100))
        }
        server.child.kill("SIGKILL")
        expect(await server.exited).toBe("SIGKILL")
        const servedAtKill = served

        server = await startServer({ args: ["--port", "0"], env })
        const client = clientOf(server)
        const settled = await (async () => {
          const until = Date.now() + 300_000
          for (;;) {
            const batch = await client.batch.retrieve(submitted.id)
            if (batch.status === "completed" || batch.status === "failed" || batch.status === "cancelled") return batch
            if (Date.now() > until) throw new Error(`the batch did not complete after the restart: ${JSON.stringify(batch.progress)}`)
            await new Promise((r) => setTimeout(r, 500))
          }
        })()
        // The new process read the rest.
        expect(served).toBeGreaterThan(servedAtKill)
        const failing = urls.filter((_, n) => missing(n)).length
        expect(settled.status).toBe("completed")
        expect(settled.progress).toEqual({ succeeded: PAGES - failing, failed: failing, pending: 0 })
        expect(settled.credits).toMatchObject({ reserved: PAGES, refunded: failing, ocr_charged: 0, net: PAGES - failing })

        // Exactly one record per URL (and itemId), in submission order.
        const records: Array<Record<string, any>> = []
        let cursor: string | undefined
        for (;;) {
          const got = await client.batch.getResults(submitted.id, { limit: 100, ...(cursor === undefined ? {} : { cursor }) })
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

        // Credits charged = pages that succeeded (the refund of the rest settled once).
        const after = await client.batch.retrieve(submitted.id) as typeof settled & { key_metadata: { credits_remaining: number } }
        expect(balanceBefore - after.key_metadata.credits_remaining).toBe(PAGES - failing)

        // The NDJSON parts hold exactly the JSON results.
        const lines: Array<Record<string, any>> = []
        expect(settled.results!.files.reduce((sum, f) => sum + f.items, 0)).toBe(PAGES)
        for (const file of [...settled.results!.files].sort((a, b) => a.url.localeCompare(b.url))) {
          // The path on the server now running (the origin in the URL is the one the batch was submitted to).
          const response = await fetch(`${server.url}${new URL(file.url).pathname}`)
          expect(response.status).toBe(200)
          const bytes = Buffer.from(await response.arrayBuffer())
          expect(bytes.length).toBe(file.bytes)
          const part = gunzipSync(bytes).toString("utf8").split("\n").filter((line) => line !== "").map((line) => JSON.parse(line))
          expect(part.length).toBe(file.items)
          lines.push(...part)
        }
        const byKey = (r: Record<string, any>) => `${r.url} ${r.itemId}`
        expect([...lines].sort((a, b) => byKey(a).localeCompare(byKey(b)))).toEqual([...records].sort((a, b) => byKey(a).localeCompare(byKey(b))))
      } finally {
        await stopServer(server)
        fs.rmSync(dir, { recursive: true, force: true })
      }
    }, 600_000)
  })
}
