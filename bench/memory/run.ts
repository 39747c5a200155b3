/**
 * bench/memory: 2,000 scrapes of local pages in one process. Heap and RSS after the last scrape must be within 10% of
 * what they were after the first 200 (no growth per request). Pages are real corpus pages served by a local node:http
 * server; the in-memory cache is off so every scrape fetches, parses and formats.
 *
 *   npm run bench -- memory [--scrapes 2000] [--warmup 200]
 */
import { readFileSync, readdirSync } from "node:fs"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { join } from "node:path"
import { parseArgs } from "node:util"
import { Scraper } from "@sift/core"
import { extractionCorpus } from "../corpus.js"

const { values } = parseArgs({ options: { scrapes: { type: "string", default: "2000" }, warmup: { type: "string", default: "200" } } })
const total = Number(values.scrapes)
const warmup = Number(values.warmup)

const dir = join(extractionCorpus(), "html")
const pages = readdirSync(dir).sort().slice(0, 100).map((file) => readFileSync(join(dir, file)))
const server = createServer((req, res) => {
  const index = Number((req.url ?? "/0").slice(1)) % pages.length
  res.writeHead(200, { "content-type": "text/html" })
  res.end(pages[index])
})
await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`

const scraper = Scraper.make({ fetcher: { allowPrivateTargets: true }, cache: "none" })
const gc = (globalThis as { gc?: () => void }).gc
const sample = () => {
  gc?.()
  gc?.()
  const usage = process.memoryUsage()
  return { heap: usage.heapUsed, rss: usage.rss }
}
const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(1)

let afterWarmup = { heap: 0, rss: 0 }
const started = performance.now()
for (let i = 0; i < total; i++) {
  await scraper.scrape({
    url: `${base}/${i}`,
    formats: { markdown: true, html: i % 2 === 0, images: i % 3 === 0 },
    sharedParams: { mainContentOnly: i % 2 === 1 }
  })
  if (i + 1 === warmup) afterWarmup = sample()
  if ((i + 1) % 500 === 0) process.stderr.write(`  ${i + 1}/${total} scrapes\n`)
}
const seconds = (performance.now() - started) / 1000
const end = sample()
await scraper.close()
server.close()

const heapGrowth = end.heap / afterWarmup.heap - 1
const rssGrowth = end.rss / afterWarmup.rss - 1
console.log(`scrapes: ${total} in ${seconds.toFixed(1)} s (${(total / seconds).toFixed(0)}/s)${gc ? "" : " (no --expose-gc: figures are noisier)"}`)
console.log(`after ${warmup}: heap ${mb(afterWarmup.heap)} MB, rss ${mb(afterWarmup.rss)} MB`)
console.log(`after ${total}: heap ${mb(end.heap)} MB, rss ${mb(end.rss)} MB`)
console.log(`growth: heap ${(heapGrowth * 100).toFixed(1)}%, rss ${(rssGrowth * 100).toFixed(1)}% (target: within 10%)`)
process.exitCode = heapGrowth <= 0.1 && rssGrowth <= 0.1 ? 0 : 1
