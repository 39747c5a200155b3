/**
 * Rendered scrapes of a page whose third parties never answer, against the same page whose third parties answer at
 * once, through Sift (Pipeline + Renderer, address guard on every request) on local pages. The third-party host is a
 * TCP server that accepts connections and never responds (reached by name through the host rules, as a CDN or an
 * analytics host would be); the page also references known tracker hosts (an analytics script, an ad frame), mapped to
 * the same silent server; the baseline page's third parties and trackers all answer. Rounds
 * alternate; each request has the default deadline (30 s, `fail`), so a page held by its `load` event would wait for it.
 *
 * `npm run bench -- render-third-party [renders-per-round] [rounds]` (defaults 10, 3).
 * Target: the median render with silent third parties within 3x the median with answering ones (same run).
 */
import { Effect, Layer, ManagedRuntime } from "effect"
import { createServer } from "node:http"
import { createServer as createTcpServer, type Socket } from "node:net"
import type { AddressInfo } from "node:net"
import * as Cache from "../../packages/core/src/Cache.js"
import * as Fetcher from "../../packages/core/src/Fetcher.js"
import * as Pipeline from "../../packages/core/src/Pipeline.js"
import * as Renderer from "../../packages/core/src/Renderer.js"

const [perRound = 10, rounds = 3] = process.argv.slice(2).map(Number)
const TARGET = 3

// The silent host: accepts and never answers (closes nothing until the bench ends).
const held = new Set<Socket>()
const silent = createTcpServer((socket) => {
  held.add(socket)
  socket.on("close", () => held.delete(socket))
  socket.on("error", () => undefined)
})
await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve))
const silentPort = (silent.address() as AddressInfo).port

// The answering third party, for the baseline.
const answering = createServer((req, res) => {
  if ((req.url ?? "").endsWith(".js")) return res.writeHead(200, { "content-type": "text/javascript" }).end("window.thirdParty = 1")
  res.writeHead(200, { "content-type": "image/svg+xml" }).end(`<svg xmlns="http://www.w3.org/2000/svg" width="1" height="1"/>`)
})
await new Promise<void>((resolve) => answering.listen(0, "127.0.0.1", resolve))
const answeringPort = (answering.address() as AddressInfo).port

const paragraph = "The harbour master posts the tide tables every morning; ferries leave on the hour in summer. "
const page = (third: string, tracker: string) => `<!doctype html><html><head><title>Harbour</title><link rel="stylesheet" href="/style.css">
<script async src="http://${third}/analytics.js"></script><script async src="http://${tracker}.google-analytics.com/analytics.js"></script>
<script src="/app.js" defer></script></head><body><div id="root"></div><img src="/logo.svg" alt="logo">
<img src="http://${third}/pixel.gif" alt=""><iframe src="http://${tracker}.googletagservices.com/ad.html" width="300" height="250"></iframe></body></html>`
const app = `document.getElementById("root").innerHTML = "<h1>Rendered " + document.title + "</h1>" +
  Array.from({ length: 30 }, (_, i) => "<p>" + i + " ${paragraph}</p>").join("")`
const origin = createServer((req, res) => {
  const path = (req.url ?? "/").split("?")[0]!
  if (path === "/app.js") return res.writeHead(200, { "content-type": "text/javascript" }).end(app)
  if (path === "/style.css") return res.writeHead(200, { "content-type": "text/css" }).end("body{font-family:sans-serif}")
  if (path === "/logo.svg") return res.writeHead(200, { "content-type": "image/svg+xml" }).end(`<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"/>`)
  res.writeHead(200, { "content-type": "text/html" }).end(path.startsWith("/silent") ? page("cdn.silent.test", "www") : page("cdn.answering.test", "ssl"))
})
await new Promise<void>((resolve) => origin.listen(0, "127.0.0.1", resolve))
const base = `http://site.test:${(origin.address() as AddressInfo).port}`

const runtime = ManagedRuntime.make(Layer.mergeAll(
  Fetcher.layer({ allowPrivateTargets: true }),
  Cache.layerNone,
  Renderer.layer({
    size: 1,
    addressPolicy: (ip) => ip === "127.0.0.1",
    hostRules: `MAP site.test 127.0.0.1, MAP cdn.silent.test 127.0.0.1:${silentPort}, MAP cdn.answering.test 127.0.0.1:${answeringPort}, ` +
      `MAP www.google-analytics.com 127.0.0.1:${silentPort}, MAP www.googletagservices.com 127.0.0.1:${silentPort}, ` +
      `MAP ssl.google-analytics.com 127.0.0.1:${answeringPort}, MAP ssl.googletagservices.com 127.0.0.1:${answeringPort}`
  })
))

const median = (values: ReadonlyArray<number>) => [...values].sort((a, b) => a - b)[values.length >> 1]!
let n = 0
const render = async (kind: "silent" | "answering") => {
  const started = performance.now()
  const result = await runtime.runPromise(Pipeline.scrape({
    url: `${base}/${kind}/${n++}`,
    formats: { markdown: true },
    sharedParams: { viewport: { width: 1280, height: 800 }, waitFor: 0 }
  }).pipe(Effect.either))
  const ms = performance.now() - started
  const text = result._tag === "Right" ? result.right.markdown.data ?? "" : ""
  return { ms, ok: text.includes("Rendered Harbour"), error: result._tag === "Left" ? String((result.left as { errorCode?: string }).errorCode ?? result.left) : undefined }
}

await render("answering")
await render("silent")
console.log(`render-third-party: ${perRound} renders per kind and round, ${rounds} rounds, sequential`)
const silentAll: Array<number> = []
const answeringAll: Array<number> = []
let failures = 0
for (let round = 0; round < rounds; round++) {
  const a: Array<number> = []
  const s: Array<number> = []
  for (let i = 0; i < perRound; i++) {
    const good = await render("answering")
    const bad = await render("silent")
    if (!good.ok || !bad.ok) failures++
    if (!bad.ok && bad.error !== undefined && failures <= 3) console.log(`  silent render failed: ${bad.error}`)
    a.push(good.ms)
    s.push(bad.ms)
  }
  answeringAll.push(...a)
  silentAll.push(...s)
  console.log(`round ${round + 1}: answering p50 ${median(a).toFixed(0)} ms, silent p50 ${median(s).toFixed(0)} ms`)
}
const ratio = median(silentAll) / median(answeringAll)
console.log(`renders without the page's text: ${failures}`)
console.log(`rendered p50 with silent third parties ${median(silentAll).toFixed(0)} ms, with answering ones ${median(answeringAll).toFixed(0)} ms: ` +
  `ratio ${ratio.toFixed(2)} (target <= ${TARGET}) ${ratio <= TARGET && failures === 0 ? "MET" : "MISSED"}`)
await runtime.dispose()
for (const socket of held) socket.destroy()
silent.close()
answering.close()
origin.close()
process.exit(0)
