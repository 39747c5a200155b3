/**
 * Rendered scrapes per second through Sift (Pipeline + Renderer: pool, address guard on every request, waits,
 * formatting to Markdown) against a bare Playwright loop (newContext → goto → content → close) on the same local
 * pages, the same Chromium and the same concurrency. Rounds alternate; the ratio is the median of per-round ratios.
 *
 * `npm run bench -- render [renders-per-round] [concurrency] [rounds]` (defaults 40, 4, 3). Target: ≥ 0.85.
 */
import { Effect, Layer, ManagedRuntime } from "effect"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { chromium } from "playwright-core"
import * as Cache from "../../packages/core/src/Cache.js"
import * as Fetcher from "../../packages/core/src/Fetcher.js"
import * as Pipeline from "../../packages/core/src/Pipeline.js"
import * as Renderer from "../../packages/core/src/Renderer.js"

const [perRound = 40, concurrency = 4, rounds = 3] = process.argv.slice(2).map(Number)

const paragraph = "The harbour master posts the tide tables every morning; ferries leave on the hour in summer. "
const page = (n: number) => `<!doctype html><html><head><title>Page ${n}</title><link rel="stylesheet" href="/style.css">
<script src="/app.js" defer></script></head><body><div id="root"></div><img src="/logo.svg" alt="logo">
<noscript>Enable JavaScript</noscript></body></html>`
const app = `document.getElementById("root").innerHTML = "<h1>Rendered " + document.title + "</h1>" +
  Array.from({ length: 30 }, (_, i) => "<p>" + i + " ${paragraph}</p>").join("")`
const server = createServer((req, res) => {
  const path = (req.url ?? "/").split("?")[0]!
  if (path === "/app.js") return res.writeHead(200, { "content-type": "text/javascript" }).end(app)
  if (path === "/style.css") return res.writeHead(200, { "content-type": "text/css" }).end("body{font-family:sans-serif}h1{color:#036}")
  if (path === "/logo.svg") {
    return res.writeHead(200, { "content-type": "image/svg+xml" }).end(`<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect width="10" height="10"/></svg>`)
  }
  res.writeHead(200, { "content-type": "text/html" }).end(page(Number(path.slice(1)) || 0))
})
await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
const urls = Array.from({ length: perRound }, (_, i) => `${base}/${i}`)

const pool = async (work: (url: string) => Promise<void>) => {
  const queue = [...urls]
  const started = performance.now()
  await Promise.all(Array.from({ length: concurrency }, async () => {
    for (let url = queue.shift(); url !== undefined; url = queue.shift()) await work(url)
  }))
  return urls.length / ((performance.now() - started) / 1000)
}

// Bare Playwright: one browser, a fresh context per page, as a careful hand-written loop would do.
const browser = await chromium.launch({ executablePath: "/usr/lib/chromium/chromium", args: ["--disable-dev-shm-usage", "--no-sandbox"] })
const bare = () =>
  pool(async (url) => {
    const context = await browser.newContext({ viewport: { width: 1920, height: 1080 } })
    const tab = await context.newPage()
    await tab.goto(url)
    const html = await tab.content()
    if (!html.includes("Rendered")) throw new Error("bare: not rendered")
    await context.close()
  })

const runtime = ManagedRuntime.make(Layer.mergeAll(
  Fetcher.layer({ allowPrivateTargets: true }),
  Cache.layerNone,
  // A policy function (not the allow-all setting) keeps the address guard on every request, as in production.
  Renderer.layer({ size: concurrency, addressPolicy: (ip) => ip === "127.0.0.1" })
))
const sift = () =>
  pool(async (url) => {
    // A viewport makes the request need a browser (no static fetch first); waitFor 0 as the bare loop does not wait.
    const result = await runtime.runPromise(Pipeline.scrape({
      url,
      formats: { markdown: true },
      sharedParams: { viewport: { width: 1920, height: 1080 }, waitFor: 0 }
    }))
    if (!result.markdown.data?.includes("Rendered")) throw new Error(`sift: not rendered: ${JSON.stringify(result.markdown.data?.slice(0, 300))}`)
  })

// Warm-up: launch Sift's browser and JIT both paths.
await bare()
await sift()
const ratios: Array<number> = []
for (let round = 0; round < rounds; round++) {
  const b = await bare()
  const s = await sift()
  ratios.push(s / b)
  console.log(`round ${round + 1}: bare ${b.toFixed(1)}/s, sift ${s.toFixed(1)}/s, ratio ${(s / b).toFixed(2)}`)
}
ratios.sort((a, b) => a - b)
console.log(`render: ${perRound} pages × ${rounds} rounds at concurrency ${concurrency}; median ratio sift/bare ${ratios[Math.floor(ratios.length / 2)]!.toFixed(2)} (target ≥ 0.85)`)
await runtime.dispose()
await browser.close()
server.close()
