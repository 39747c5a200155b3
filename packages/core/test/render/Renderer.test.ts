import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect, Exit } from "effect"
import { execFileSync } from "node:child_process"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import * as BrowserPool from "../../src/BrowserPool.js"
import * as Cache from "../../src/Cache.js"
import * as Fetcher from "../../src/Fetcher.js"
import * as Pipeline from "../../src/Pipeline.js"
import * as Renderer from "../../src/Renderer.js"
import * as ScrapeRequest from "../../src/ScrapeRequest.js"
import * as FixtureSite from "../support/FixtureSite.js"
import * as RenderRuntime from "../support/RenderRuntime.js"

const fixture = (name: string) => readFileSync(join(import.meta.dirname, "fixtures", name), "utf8")

// Loopback is allowed for the fixture site, refused for the host "blocked.test" (mapped onto the same server).
const addressPolicy = (_ip: string, host: string) => host !== "blocked.test"

const appPage = `<!doctype html><html><head><title>App</title><script src="/app.js"></script></head><body><div id="root"></div></body></html>`
const appJs = `document.addEventListener("DOMContentLoaded", () => {
  document.getElementById("root").innerHTML = "<h1>Drawn by script</h1><p>Rendered paragraph about the harbour.</p>"
  setTimeout(() => { const p = document.createElement("p"); p.id = "late"; p.textContent = "Late arrival"; document.body.append(p) }, 300)
})`

const actionsPage = `<!doctype html><html><head><title>List</title></head><body>
<ul id="list"><li>First item</li></ul>
<button id="more" onclick="document.getElementById('list').insertAdjacentHTML('beforeend','<li>Second item</li>')">Load more</button>
<button id="inert">Does nothing</button>
<label>Search <input id="q" name="q"></label>
<div style="height:4000px">tall</div><p id="end">Bottom of the page</p>
</body></html>`

let site: FixtureSite.Site
let runtime: RenderRuntime.RenderRuntime

const run = <A, E>(effect: Effect.Effect<A, E, Fetcher.Fetcher | Cache.Cache | Renderer.Renderer | BrowserPool.BrowserPool>) =>
  runtime.runPromise(effect)
const scrape = (input: Record<string, unknown>) => run(Pipeline.scrape({ formats: { markdown: true }, ...input }))
/** The result and what the browser did for it. */
const scrapeOutcome = (input: Record<string, unknown>) =>
  run(Effect.flatMap(ScrapeRequest.decode({ formats: { markdown: true }, ...input }), (request) => Pipeline.runOutcome(request)))
const scrapeExit = (input: Record<string, unknown>) =>
  runtime.runPromiseExit(Pipeline.scrape({ formats: { markdown: true }, ...input }))
const failure = (exit: Exit.Exit<unknown, unknown>) =>
  Exit.isFailure(exit) && exit.cause._tag === "Fail" ? exit.cause.error as { _tag: string; errorCode: string; reason?: string } : undefined
const stats = () => run(Effect.flatMap(BrowserPool.BrowserPool, (pool) => pool.stats))

beforeAll(async () => {
  site = await FixtureSite.start({
    "/static": FixtureSite.html("<html><body><h1>Static</h1><p>" + "Plain words about tides and ferries. ".repeat(20) + "</p></body></html>"),
    "/app": FixtureSite.html(appPage),
    "/app.js": FixtureSite.html(appJs, { contentType: "text/javascript" }),
    "/actions": FixtureSite.html(actionsPage),
    "/frames": FixtureSite.html(`<html><body><h1>Outer</h1><iframe src="/inner"></iframe></body></html>`),
    "/inner": FixtureSite.html(`<html><body><p>Inside the frame: berth prices</p></body></html>`),
    "/onetrust": FixtureSite.html(fixture("onetrust.html")),
    "/cookiebot": FixtureSite.html(fixture("cookiebot.html")),
    "/generic": FixtureSite.html(fixture("generic-banner.html")),
    "/popup": FixtureSite.html(fixture("newsletter-popup.html")),
    "/challenge": FixtureSite.html(fixture("cloudflare-challenge.html"), { status: 200 }),
    "/soft404": FixtureSite.html(fixture("soft-404.html")),
    "/theme": FixtureSite.html(`<html><body><p id="t"></p><script>document.getElementById("t").textContent =
      "scheme " + (matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light") + " width " + innerWidth</script></body></html>`),
    "/never-ends": (_req, res) => {
      res.writeHead(200, { "content-type": "text/html" })
      res.write(`<html><head><title>Slow</title></head><body><h1>Partial heading</h1><p>Already visible text.</p>`)
      // Never ends: the load event never fires.
    },
    "/hang": (_req, _res) => {
      // Never answers.
    },
    "/leaky": FixtureSite.html(`<html><body><p>Has a private image</p><img src="http://blocked.test:PORT/secret.png"></body></html>`)
  })
  site.route("/leaky", FixtureSite.html(`<html><body><p>Has a private image</p><img src="http://blocked.test:${site.port}/secret.png"></body></html>`))
  const hostRules = `MAP blocked.test 127.0.0.1`
  runtime = RenderRuntime.make({ pool: { size: 2, addressPolicy, hostRules }, fetcher: { addressPolicy, hostRules } })
}, 30_000)

afterAll(async () => {
  await runtime?.dispose()
  await site?.close()
})

describe("rendering", { timeout: 60_000 }, () => {
  it("a static page never launches the browser", async () => {
    const { render, result } = await scrapeOutcome({ url: `${site.url}/static` })
    expect(result.markdown.data).toContain("Plain words about tides")
    expect((await stats()).launches).toBe(0)
    expect(render.rendered).toBe(false)
  })

  it("a page drawn by script is rendered because of its own signals", async () => {
    const { render, result } = await scrapeOutcome({ url: `${site.url}/app` })
    expect(result.markdown.data).toContain("Drawn by script")
    expect(result.markdown.data).toContain("Rendered paragraph about the harbour.")
    expect(render).toMatchObject({ rendered: true, finalDOMState: "complete" })
    expect((await stats()).launches).toBe(1)
  })

  it("waitFor a selector waits for content added later", async () => {
    const result = await scrape({ url: `${site.url}/app`, sharedParams: { waitFor: "#late" } })
    expect(result.markdown.data).toContain("Late arrival")
  })

  it("theme and viewport reach the page", async () => {
    const result = await scrape({ url: `${site.url}/theme`, sharedParams: { theme: "dark", viewport: { width: 800, height: 600 } } })
    expect(result.markdown.data).toContain("scheme dark width 800")
  })

  it("includeFrames inlines iframe documents into the HTML and the Markdown", async () => {
    const result = await scrape({ url: `${site.url}/frames`, formats: { markdown: true, html: true }, sharedParams: { includeFrames: true, waitFor: 0 } })
    expect(result.markdown.data).toContain("Inside the frame: berth prices")
    expect(result.html.data).toContain("Inside the frame: berth prices")
    expect(result.html.data).not.toContain("<iframe")
  })

  it("dismissCookies clicks away OneTrust, Cookiebot and a generic banner", async () => {
    for (const [path, kept, banner] of [
      ["/onetrust", "first ferry leaves", "We value your privacy"],
      ["/cookiebot", "High water at the harbour", "This website uses cookies"],
      ["/generic", "Rowing boats can be hired", "This site uses cookies"]
    ] as const) {
      const result = await scrape({ url: `${site.url}${path}`, sharedParams: { dismissCookies: true, waitFor: 0 } })
      expect(result.markdown.data, path).toContain(kept)
      expect(result.markdown.data, path).not.toContain(banner)
    }
    const without = await scrape({ url: `${site.url}/cookiebot`, sharedParams: { viewport: { width: 1000 }, waitFor: 0 } })
    expect(without.markdown.data).toContain("This website uses cookies")
  })

  it("dismissPopups closes a newsletter modal", async () => {
    const result = await scrape({ url: `${site.url}/popup`, sharedParams: { dismissPopups: true, waitFor: 0 } })
    expect(result.markdown.data).toContain("The lighthouse reopens")
    expect(result.markdown.data).not.toContain("Subscribe to our newsletter")
  })

  it("actions run in order with verified outcomes", async () => {
    const { render, result } = await scrapeOutcome({
      url: `${site.url}/actions`,
      sharedParams: {
        waitFor: 0,
        actions: [
          { type: "perform", action: `click "Load more"` },
          { type: "perform", action: `click #inert` },
          { type: "perform", action: `type "ferries" into label "Search"` },
          { type: "scroll", direction: "down", amount: "max" },
          { type: "waitFor", selector: "#nowhere-to-be-found" }
        ]
      },
      timeoutOpts: { milliseconds: 40_000 }
    })
    expect(result.markdown.data).toContain("Second item")
    const applied = render.actionsApplied!
    expect(applied.map((a) => a.status)).toEqual(["applied", "failed", "applied", "applied", "failed"])
    expect(applied[0]).toMatchObject({ instruction: `click "Load more"`, method: "text" })
    expect(applied[1]!.error).toMatch(/changed nothing/)
    expect(render.actionsHtmlStale).toBe(false)
  })

  it("return-partial on a page that never finishes loading gives the current DOM", async () => {
    const { render, result } = await scrapeOutcome({
      url: `${site.url}/never-ends`,
      sharedParams: { viewport: { width: 1200 } },
      timeoutOpts: { milliseconds: 3_000, behavior: "return-partial" }
    })
    expect(result.isPartial).toBe(true)
    expect(result.markdown.data).toContain("Partial heading")
    expect(render.finalDOMState).toBe("still-loading")
    const failed = failure(await scrapeExit({
      url: `${site.url}/never-ends`,
      sharedParams: { viewport: { width: 1200 } },
      timeoutOpts: { milliseconds: 2_000 }
    }))
    expect(failed?._tag).toBe("RequestTimeout")
  })

  it("every request the page makes passes the address guard", async () => {
    const result = await scrape({ url: `${site.url}/leaky`, sharedParams: { viewport: { width: 1200 }, waitFor: 0 } })
    expect(result.markdown.data).toContain("Has a private image")
    expect(site.exchanges.some((e) => e.path === "/secret.png")).toBe(false)
    const refused = failure(await scrapeExit({ url: `http://blocked.test:${site.port}/static`, sharedParams: { viewport: { width: 1200 } } }))
    expect(refused?.errorCode).toBe("WEBSITE_ACCESS_ERROR")
    expect(refused?.reason).toBe("PrivateAddress")
    expect(site.exchanges.some((e) => e.headers.host?.startsWith("blocked.test"))).toBe(false)
  })

  it("challenge pages and soft 404s fail honestly, rendered or not", async () => {
    expect(failure(await scrapeExit({ url: `${site.url}/challenge` }))?.errorCode).toBe("WEBSITE_BLOCKED")
    expect(failure(await scrapeExit({ url: `${site.url}/challenge`, sharedParams: { viewport: { width: 900 } } }))?.errorCode).toBe("WEBSITE_BLOCKED")
    expect(failure(await scrapeExit({ url: `${site.url}/soft404` }))?.errorCode).toBe("WEBSITE_ACCESS_ERROR")
  })

  it("the pool bounds concurrency by queueing, and closes every context", async () => {
    const results = await Promise.all(Array.from({ length: 5 }, () =>
      scrape({ url: `${site.url}/app`, sharedParams: { viewport: { width: 1000 }, waitFor: 0 } })))
    expect(results.every((r) => r.markdown.data?.includes("Drawn by script"))).toBe(true)
    expect(await stats()).toMatchObject({ openContexts: 0, openPages: 0, openGuardProxies: 0 })
  })

  it("screenshots and rendered images come from the open page", async () => {
    const out = await run(Effect.scoped(Effect.gen(function*() {
      const renderer = yield* Renderer.Renderer
      const session = yield* renderer.open({ url: `${site.url}/actions`, viewport: { width: 640, height: 480 }, waitFor: 0 })
      yield* session.load
      const viewport = yield* session.screenshot({ kind: "viewport" })
      const element = yield* session.screenshot({ kind: "selector", selector: "#more" })
      const missing = yield* Effect.flip(session.screenshot({ kind: "selector", selector: "#absent" }))
      return { viewport, element, missing }
    })))
    expect([...out.viewport.png.subarray(1, 4)]).toEqual([0x50, 0x4e, 0x47])
    expect(out.viewport).toMatchObject({ width: 640, height: 480 })
    expect(out.element.width).toBeGreaterThan(10)
    expect(out.missing._tag).toBe("InvalidRequest")
  })

  it("after repeated page crashes the browser is replaced, and the old Chromium (with its crashed renderers) exits", async () => {
    const chromiumChildren = () =>
      execFileSync("ps", ["-o", "pid=,comm=", "--ppid", String(process.pid)], { encoding: "utf8" })
        .split("\n").map((line) => line.trim().split(/\s+/)).filter(([, comm]) => comm !== undefined && /chrom/i.test(comm)).map(([pid]) => pid)
    await scrape({ url: `${site.url}/app`, sharedParams: { viewport: { width: 1000 }, waitFor: 0 } })
    const before = await stats()
    const [first] = chromiumChildren()
    for (let i = 0; i < BrowserPool.RECYCLE_AFTER_CRASHES; i++) {
      await run(Effect.scoped(Effect.gen(function*() {
        const lease = yield* (yield* BrowserPool.BrowserPool).context({ viewport: { width: 800, height: 600 } })
        const page = yield* Effect.promise(() => lease.context.newPage())
        const crashed = page.waitForEvent("crash", { timeout: 5_000 })
        yield* Effect.promise(() => page.goto("chrome://crash").catch(() => undefined))
        yield* Effect.promise(() => crashed)
      })))
    }
    const next = await scrape({ url: `${site.url}/app`, sharedParams: { viewport: { width: 1000 }, waitFor: 0 } })
    expect(next.markdown.data).toContain("Drawn by script")
    expect((await stats()).launches).toBe(before.launches + 1)
    await new Promise((resolve) => setTimeout(resolve, 1_000))
    const now = chromiumChildren()
    expect(now).toHaveLength(1)
    expect(now[0]).not.toBe(first)
    expect((await stats()).openContexts).toBe(0)
  })

  it("killing Chromium mid-request fails that request cleanly and the next one succeeds", async () => {
    const launchesBefore = (await stats()).launches
    const pending = scrapeExit({ url: `${site.url}/hang`, sharedParams: { viewport: { width: 1000 } }, timeoutOpts: { milliseconds: 20_000 } })
    await new Promise((resolve) => setTimeout(resolve, 1_000))
    const children = execFileSync("ps", ["-o", "pid=,comm=", "--ppid", String(process.pid)], { encoding: "utf8" })
      .split("\n").map((line) => line.trim().split(/\s+/)).filter(([, comm]) => comm !== undefined && /chrom/i.test(comm))
    expect(children.length).toBe(1)
    process.kill(Number(children[0]![0]), "SIGKILL")
    const failed = failure(await pending)
    expect(failed?.errorCode).toBe("WEBSITE_ACCESS_ERROR")
    const next = await scrape({ url: `${site.url}/app`, sharedParams: { viewport: { width: 1000 }, waitFor: 0 } })
    expect(next.markdown.data).toContain("Drawn by script")
    expect((await stats()).launches).toBe(launchesBefore + 1)
  })
})
