/**
 * What a render fetches and how long it waits, against real origins (node:http and a silent TCP server) and real
 * Chromium: the target sees only the requests its page makes (no favicon, no icon the browser fetches on its own),
 * a third party that never answers neither holds the render to its deadline nor makes it partial, a resource of
 * the page's own site that never answers is awaited within the request's deadline only, and known trackers
 * are refused unless blocking is off (never on their own site).
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect, Exit } from "effect"
import { createServer, type Server } from "node:http"
import { createServer as createTcpServer, type AddressInfo, type Server as TcpServer, type Socket } from "node:net"
import * as BrowserPool from "../../src/BrowserPool.js"
import * as Pipeline from "../../src/Pipeline.js"
import * as ScrapeRequest from "../../src/ScrapeRequest.js"
import * as RenderRuntime from "../support/RenderRuntime.js"

/** An origin that records the path of every request it gets. */
const countingOrigin = async (pages: Record<string, string>) => {
  const seen: Array<string> = []
  const server = createServer((req, res) => {
    const path = (req.url ?? "/").split("?")[0]!
    seen.push(path)
    // A path under /hang/ is never answered (the request stays open until the server closes).
    if (path.startsWith("/hang/")) return
    const body = pages[path]
    if (body === undefined) return res.writeHead(404).end()
    res.writeHead(200, { "content-type": path.endsWith(".js") ? "text/javascript" : "text/html" }).end(body)
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  return { server, seen, port: (server.address() as AddressInfo).port }
}

let origin: Awaited<ReturnType<typeof countingOrigin>>
let tracker: Awaited<ReturnType<typeof countingOrigin>>
let silent: TcpServer
const held = new Set<Socket>()
let blocking: RenderRuntime.RenderRuntime
let open: RenderRuntime.RenderRuntime

const text = "Tide tables and ferry times for the harbour. "
const rendered = `<script>document.addEventListener("DOMContentLoaded", () => document.body.insertAdjacentHTML("beforeend", "<p>Drawn by script</p>"))</script>`

beforeAll(async () => {
  origin = await countingOrigin({
    "/shot": `<!doctype html><html><head><title>Shot</title><link rel="icon" href="/icon.png"></head><body><h1>Shot</h1><p>${text}</p></body></html>`,
    "/plain": `<!doctype html><html><head><title>Plain</title></head><body><h1>Plain</h1><p>${text}</p></body></html>`,
    "/stalled": `<!doctype html><html><head><title>Stalled</title><script async src="http://cdn.silent.test/analytics.js"></script>${rendered}</head>
<body><h1>Stalled third party</h1><p>${text}</p><img src="http://cdn.silent.test/pixel.gif" alt=""></body></html>`,
    "/own-stall": `<!doctype html><html><head><title>Own stall</title>${rendered}</head>
<body><h1>Own resource stalls</h1><p>${text}</p><img src="/hang/photo.jpg" alt=""></body></html>`,
    "/tracked": `<!doctype html><html><head><title>Tracked</title><script async src="http://tag.mmtro.com/analytics.js"></script>
<script async src="http://cdn.tracker-free.test/lib.js"></script></head><body><h1>Tracked</h1><p>${text}</p></body></html>`
  })
  // One server stands for the tracker's host (mmtro.com: on Sift's tracker list; not
  // a host Chromium upgrades to HTTPS), an ordinary CDN and the tracker's own website.
  tracker = await countingOrigin({
    "/analytics.js": "window.tracked = true",
    "/lib.js": "window.lib = true",
    "/": `<!doctype html><html><head><title>Analytics</title><script src="/analytics.js"></script></head><body><h1>Our product</h1><p>${text}</p></body></html>`
  })
  silent = createTcpServer((socket) => {
    held.add(socket)
    socket.on("error", () => undefined)
  })
  await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve))
  const hostRules = `MAP cdn.silent.test 127.0.0.1:${(silent.address() as AddressInfo).port}, ` +
    `MAP tag.mmtro.com 127.0.0.1:${tracker.port}, MAP cdn.tracker-free.test 127.0.0.1:${tracker.port}`
  blocking = RenderRuntime.make({ pool: { hostRules } })
  open = RenderRuntime.make({ pool: { hostRules, blockTrackers: false } })
})

afterAll(async () => {
  await blocking?.dispose()
  await open?.dispose()
  for (const socket of held) socket.destroy()
  silent?.close()
  origin?.server.closeAllConnections()
  origin?.server.close()
  tracker?.server.close()
})

const settle = () => new Promise((resolve) => setTimeout(resolve, 700))

describe("what a render fetches", () => {
  it("a screenshot render asks the target for its page only: no favicon, no icon of a <link rel=icon>", async () => {
    const before = origin.seen.length
    const result = await blocking.runPromise(Pipeline.scrape({ url: `http://127.0.0.1:${origin.port}/shot`, formats: { screenshot: true } }))
    expect(result.screenshot.data).toMatch(/^data:image\/png;base64,/)
    await settle()
    expect(origin.seen.slice(before)).toEqual(["/shot"])
  }, 60_000)

  it("a page without an icon link: the default /favicon.ico is not asked for either", async () => {
    const before = origin.seen.length
    await blocking.runPromise(Pipeline.scrape({ url: `http://127.0.0.1:${origin.port}/plain`, formats: { markdown: true }, sharedParams: { viewport: { width: 800 } } }))
    await settle()
    expect(origin.seen.slice(before)).toEqual(["/plain"])
    const stats = await blocking.runPromise(Effect.flatMap(BrowserPool.BrowserPool, (pool) => pool.stats))
    expect(stats.blocked.own).toBeGreaterThan(0)
  }, 60_000)
})

describe("third parties that never answer", () => {
  it("the page is read complete once its own resources are in, well inside the request's deadline", async () => {
    const exit = await blocking.runPromiseExit(Pipeline.runOutcome(await Effect.runPromise(ScrapeRequest.decode({
      url: `http://127.0.0.1:${origin.port}/stalled`,
      formats: { markdown: true },
      timeoutOpts: { milliseconds: 20_000, behavior: "fail" },
      sharedParams: { viewport: { width: 800 } }
    }))))
    // Before: the render waited for the load event, which the silent host never lets come: REQUEST_TIMEOUT at 20 s.
    expect(Exit.isSuccess(exit)).toBe(true)
    if (!Exit.isSuccess(exit)) return
    expect(exit.value.result.isPartial).toBeUndefined()
    expect(exit.value.render.rendered).toBe(true)
    expect(exit.value.render.finalDOMState).toBe("complete")
    expect(exit.value.result.markdown.data).toContain("Stalled third party")
    expect(exit.value.result.markdown.data).toContain("Drawn by script")
  }, 60_000)
})

describe("a resource of the page's own site that never answers", () => {
  it("is awaited a third of the request's timeout at most; then the page is read complete", async () => {
    const exit = await blocking.runPromiseExit(Pipeline.runOutcome(await Effect.runPromise(ScrapeRequest.decode({
      url: `http://127.0.0.1:${origin.port}/own-stall`,
      formats: { markdown: true },
      timeoutOpts: { milliseconds: 12_000, behavior: "fail" },
      sharedParams: { viewport: { width: 800 } }
    }))))
    // Before: the load event never came and the request failed with REQUEST_TIMEOUT at 12 s.
    expect(Exit.isSuccess(exit)).toBe(true)
    if (!Exit.isSuccess(exit)) return
    expect(exit.value.result.isPartial).toBeUndefined()
    expect(exit.value.render.finalDOMState).toBe("complete")
    expect(exit.value.result.markdown.data).toContain("Drawn by script")
  }, 60_000)
})

describe("trackers", () => {
  it("a known tracker is refused by default; an unknown third party is fetched", async () => {
    const before = tracker.seen.length
    await blocking.runPromise(Pipeline.scrape({ url: `http://127.0.0.1:${origin.port}/tracked`, formats: { markdown: true }, sharedParams: { viewport: { width: 800 } } }))
    await settle()
    expect(tracker.seen.slice(before)).toEqual(["/lib.js"])
    const stats = await blocking.runPromise(Effect.flatMap(BrowserPool.BrowserPool, (pool) => pool.stats))
    expect(stats.blocked.trackers).toBeGreaterThan(0)
  }, 60_000)

  it("with blocking off (SIFT_BROWSER_BLOCK_TRACKERS=false) the tracker is fetched", async () => {
    const before = tracker.seen.length
    await open.runPromise(Pipeline.scrape({ url: `http://127.0.0.1:${origin.port}/tracked`, formats: { markdown: true }, sharedParams: { viewport: { width: 800 } } }))
    await settle()
    expect(tracker.seen.slice(before).sort()).toEqual(["/analytics.js", "/lib.js"])
  }, 60_000)

  it("a tracker's own website renders with its own scripts", async () => {
    const before = tracker.seen.length
    const result = await blocking.runPromise(Pipeline.scrape({ url: "http://tag.mmtro.com/", formats: { markdown: true }, sharedParams: { viewport: { width: 800 } } }))
    expect(result.markdown.data).toContain("Our product")
    await settle()
    expect(tracker.seen.slice(before)).toEqual(["/", "/analytics.js"])
  }, 60_000)
})
