/**
 * bench/http: cache-hit `GET /v1/web/scrape/markdown` through the whole request pipeline (authentication, rate limit,
 * credit reservation and charge, request log) on embedded PGlite, against a bare `node:http` server returning the same
 * bytes. Same load generator (an undici pool with N requests in flight, in this process), same concurrency, same run.
 * Every answer is sent only after its charge and its log row are durable (a line of the redo journal in the data
 * directory; the database is written behind), as `sift serve` does.
 * Sift runs on the listener `sift serve` uses (`Server.layerListener`: HTTPS rule, access log, and the API front that
 * answers `/v1/` without `@effect/platform`'s Node handler); logging at warning, so the access log is skipped.
 * Target: Sift's requests/s at least 1/5 of the bare server's. The figures swing with the machine's load (the load
 * generator, the server and PGlite's worker thread share its cores): report `uptime` with them.
 *
 * With `--postgres` the service runs on PostgreSQL (DATABASE_URL, a schema of its own): every answer waits for its
 * charge and log row to commit in a group commit there.
 *
 *   npm run bench -- http [--seconds 5] [--rounds 3] [--warmup 3] [--concurrency 32] [--postgres]
 */
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { parseArgs } from "node:util"
import * as SqlClient from "@effect/sql/SqlClient"
import * as Auth from "@sift/auth"
import { Effect } from "effect"
import { Pool } from "undici"
import { startOrigin, startService } from "../support/service.js"

const { values } = parseArgs({
  options: {
    seconds: { type: "string", default: "5" },
    rounds: { type: "string", default: "3" },
    warmup: { type: "string", default: "3" },
    concurrency: { type: "string", default: "32" },
    // On PostgreSQL (DATABASE_URL, a fresh schema) instead of PGlite: the same target must hold there (issue 22).
    postgres: { type: "boolean", default: false }
  }
})
const seconds = Number(values.seconds)
const rounds = Number(values.rounds)
const warmup = Number(values.warmup)
const concurrency = Number(values.concurrency)

// The page Sift scrapes (once; then every request is a cache hit).
const originSite = await startOrigin()
const target = originSite.url
if (values.postgres && !process.env.DATABASE_URL) throw new Error("--postgres needs DATABASE_URL")
const service = await startService("http", values.postgres ? { postgres: process.env.DATABASE_URL! } : {})
const { orgId, runtime, secret } = service
const port = Number(new URL(service.origin).port)
const path = `/v1/web/scrape/markdown?url=${encodeURIComponent(target)}`
const headers = { authorization: `Bearer ${secret}` }

const warm = await fetch(`http://127.0.0.1:${port}${path}`, { headers })
const warmBody = await warm.text()
if (warm.status !== 200) throw new Error(`warm-up failed: ${warm.status} ${warmBody}`)
const second = await (await fetch(`http://127.0.0.1:${port}${path}`, { headers })).json() as { cache_metadata: { status: string } }
if (second.cache_metadata.status !== "hit") throw new Error("expected a cache hit")

// The bare server answers with the same bytes Sift returns.
const bare = createServer((_req, res) => res.writeHead(200, { "content-type": "application/json" }).end(warmBody))
await new Promise<void>((resolve) => bare.listen(0, "127.0.0.1", resolve))
const barePort = (bare.address() as AddressInfo).port

// Requests answered after the balance below was read (the two first ones are logged too).
let siftRequests = 0
const load = async (url: string, requestHeaders: Record<string, string>, durationS: number) => {
  const pool = new Pool(url, { connections: concurrency, pipelining: 1 })
  const latencies: Array<number> = []
  let errors = 0
  const end = performance.now() + durationS * 1000
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (performance.now() < end) {
      const started = performance.now()
      const response = await pool.request({ path, method: "GET", headers: requestHeaders })
      await response.body.arrayBuffer()
      if (response.statusCode !== 200) errors++
      latencies.push(performance.now() - started)
    }
  }))
  await pool.close()
  latencies.sort((a, b) => a - b)
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))]!
  return { rps: latencies.length / durationS, p50: at(0.5), p99: at(0.99), errors, count: latencies.length }
}
type Figures = Awaited<ReturnType<typeof load>>
const bareUrl = `http://127.0.0.1:${barePort}`
const siftUrl = `http://127.0.0.1:${port}`
const show = (name: string, f: Figures) =>
  console.log(`  ${name.padEnd(38)} ${f.rps.toFixed(0).padStart(7)} req/s   p50 ${f.p50.toFixed(2)} ms   p99 ${f.p99.toFixed(2)} ms   errors ${f.errors}`)

const before = await runtime.runPromise(Effect.flatMap(Auth.CreditLedger.CreditLedger, (ledger) => ledger.balance(orgId)))
console.log(`cache-hit GET /v1/web/scrape/markdown, ${concurrency} in flight, ${rounds} rounds of ${seconds} s per server, after ${warmup} s warm-up each (${values.postgres ? "PostgreSQL" : "PGlite"}), load ${(await import("node:os")).loadavg().map((l) => l.toFixed(1)).join(" ")}`)
// Both servers warm up first (JIT), then take turns, so a busy neighbour on the machine hits both alike.
await load(bareUrl, {}, warmup)
siftRequests += (await load(siftUrl, headers, warmup)).count
const ratios: Array<number> = []
const results: Array<{ bare: Figures; sift: Figures }> = []
for (let round = 1; round <= rounds; round++) {
  const bareFigures = await load(bareUrl, {}, seconds)
  const siftFigures = await load(siftUrl, headers, seconds)
  siftRequests += siftFigures.count
  console.log(`round ${round}: ratio ${(siftFigures.rps / bareFigures.rps).toFixed(3)}`)
  show("bare node:http (same bytes)", bareFigures)
  show("Sift (auth, rate limit, credits, log)", siftFigures)
  ratios.push(siftFigures.rps / bareFigures.rps)
  results.push({ bare: bareFigures, sift: siftFigures })
}
const median = [...ratios].sort((a, b) => a - b)[Math.floor(ratios.length / 2)]!
console.log(`ratio Sift / bare, median of ${rounds} rounds: ${median.toFixed(3)} (target >= 0.2)`)

// Nothing may be lost on the way: one log row and one credit per request Sift answered. Both are durable (journaled)
// before the answer is sent; the database is written behind, so wait for it to catch up (25 ms per batch).
const { charged, logged } = await runtime.runPromise(Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const count = Effect.map(sql<{ n: string }>`SELECT count(*) AS n FROM request_logs`, (rows) => Number(rows[0]!.n))
  let rows = yield* count
  for (let i = 0; i < 50 && rows < siftRequests + 2; i++) rows = yield* Effect.zipRight(Effect.sleep("100 millis"), count)
  const after = yield* (yield* Auth.CreditLedger.CreditLedger).balance(orgId)
  return { logged: rows, charged: before.remaining - after.remaining }
}))
console.log(`requests answered by Sift: ${siftRequests + 2}; request log rows: ${logged}; credits charged: ${charged + 2}`)
if (logged !== siftRequests + 2 || charged !== siftRequests) console.log("MISMATCH: a log row or a charge was lost")
await service.close()
bare.close()
originSite.close()
