/**
 * What the screenshot cache saves: `GET /v1/web/scrape/screenshot` through the whole service (PGlite, store-backed
 * cache, one Chromium page at a time), the first request of each URL (a render, the baseline) against the repeat of
 * the same request (a cache hit), measured in the same run on the same local pages. Sequential requests; each round
 * uses fresh URLs so its first requests really render.
 *
 * `npm run bench -- screenshot-cache [urls-per-round] [rounds]` (defaults 10, 3). Target: a hit takes at most a tenth
 * of a render (and the origin sees exactly one request per URL: the bench stops otherwise).
 */
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { startService } from "../support/service.js"

const [perRound = 10, rounds = 3] = process.argv.slice(2).map(Number)

const page = (path: string) => `<!doctype html><html><head><title>${path}</title><style>
body { margin: 0; font-family: sans-serif; } header { height: 120px; background: #036; color: #fff; padding: 20px; }
.card { display: inline-block; width: 280px; height: 180px; margin: 20px; background: linear-gradient(#fc6, #f63); }
</style></head><body><header><h1>Page ${path}</h1></header>${"<div class=card></div>".repeat(12)}</body></html>`
let served = 0
const origin = createServer((req, res) => {
  served++
  res.writeHead(200, { "content-type": "text/html" }).end(page(req.url ?? "/"))
})
await new Promise<void>((resolve) => origin.listen(0, "127.0.0.1", resolve))
const base = `http://127.0.0.1:${(origin.address() as AddressInfo).port}`

const service = await startService("screenshot-cache", { browser: true })
const headers = { authorization: `Bearer ${service.secret}` }
const shot = async (url: string) => {
  const started = performance.now()
  const response = await fetch(`${service.origin}/v1/web/scrape/screenshot?url=${encodeURIComponent(url)}&viewport[width]=1280&viewport[height]=800&waitForMs=0`, { headers })
  const body = await response.json() as { screenshot?: string; cache_metadata?: { status: string }; error_code?: string }
  const ms = performance.now() - started
  if (response.status !== 200) throw new Error(`status ${response.status}: ${body.error_code}`)
  return { ms, status: body.cache_metadata!.status, screenshot: body.screenshot! }
}
const median = (values: ReadonlyArray<number>) => {
  const sorted = [...values].sort((a, b) => a - b)
  const middle = sorted.length >> 1
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2
}

// Warm-up: launch Chromium and fill the service's lazy paths outside the measurement.
await shot(`${base}/warm`)
await shot(`${base}/warm`)

console.log(`screenshot-cache: ${perRound} URLs per round, ${rounds} rounds, sequential, 1280x800 PNG`)
const renders: Array<number> = []
const hits: Array<number> = []
let bytes = 0
for (let round = 0; round < rounds; round++) {
  const urls = Array.from({ length: perRound }, (_, i) => `${base}/r${round}-${i}`)
  const before = served
  const first: Array<Awaited<ReturnType<typeof shot>>> = []
  for (const url of urls) first.push(await shot(url))
  const second: Array<Awaited<ReturnType<typeof shot>>> = []
  for (const url of urls) second.push(await shot(url))
  if (first.some((answer) => answer.status !== "miss") || second.some((answer) => answer.status !== "hit")) {
    throw new Error(`round ${round}: expected misses then hits, got ${first.map((a) => a.status)} / ${second.map((a) => a.status)}`)
  }
  if (second.some((answer, i) => answer.screenshot !== first[i]!.screenshot)) throw new Error(`round ${round}: a hit returned other bytes`)
  if (served - before !== perRound) throw new Error(`round ${round}: the origin saw ${served - before} requests, expected ${perRound}`)
  // A hosted URL names the PNG by its hash (the same URL is the same bytes); its size is the PNG's.
  const answer = first[0]!.screenshot
  bytes = answer.startsWith("data:") ? answer.length : (await (await fetch(answer)).arrayBuffer()).byteLength
  const render = median(first.map((answer) => answer.ms))
  const hit = median(second.map((answer) => answer.ms))
  renders.push(render)
  hits.push(hit)
  console.log(`round ${round + 1}: render (miss) median ${render.toFixed(1)} ms, hit median ${hit.toFixed(1)} ms, hit/render ${(hit / render).toFixed(3)}`)
}
console.log(`screenshot ${(bytes / 1024).toFixed(0)} KiB (hosted at /v1/files/, the same URL for a hit); the origin saw one request per URL (hits never reached it)`)
const hitRatio = median(hits) / median(renders)
console.log(`median over rounds: render ${median(renders).toFixed(1)} ms, hit ${median(hits).toFixed(1)} ms, ${(median(renders) / median(hits)).toFixed(1)}x faster; hit/render ${hitRatio.toFixed(3)} (target <= 0.1)`)

await service.close()
origin.close()
process.exit(0)
