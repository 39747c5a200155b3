/**
 * The web console at `/` in real Chromium against the real service (the listener `sift serve` runs, PGlite): sign in
 * with an invitation link, create a key and call the API with it, see the call in the logs and the usage, filter the
 * logs, create a monitor on a fixture page, change the page and see the diff, replay a delivery to a local receiver,
 * run the playground; a second organization's person sees none of it; mutations without the CSRF token are refused;
 * axe finds no serious or critical violation on any page. Screenshots go to docs/images/ when
 * SIFT_CONSOLE_SCREENSHOTS=docs (else to a temporary directory).
 */
import AxeBuilder from "@axe-core/playwright"
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import { createServer, get as httpGet, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import * as Auth from "@sift/auth"
import { Mailer } from "@sift/store"
import { Effect } from "effect"
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as FixtureSite from "../../../core/test/support/FixtureSite.js"
import * as Admin from "../../src/Admin.js"
import { directOperations } from "../../src/internal/admin/direct.js"
import * as TestService from "../support/TestService.js"

const root = fileURLToPath(new URL("../../../../", import.meta.url))
const shots = process.env.SIFT_CONSOLE_SCREENSHOTS === "docs" ? path.join(root, "docs/images") : fs.mkdtempSync(path.join(tmpdir(), "sift-console-shots-"))
const PASSWORD = "correct horse battery staple"

let browser: Browser
let service: TestService.TestService
let origin: string
let site: FixtureSite.Site
let pageText = "<main><h1>Prices</h1><p>Basic plan: 10 euros a month.</p></main>"
let receiver: Server
let received: Array<{ id: string; type: string }> = []
let receiverUrl: string
let heldAsked!: () => void
const heldAskedFor = new Promise<void>((resolve) => (heldAsked = resolve))
let release!: () => void
const heldRelease = new Promise<void>((resolve) => (release = resolve))

beforeAll(async () => {
  // Built when missing or older than its sources (the service serves what is built).
  const built = path.join(root, "packages/console/dist/index.html")
  const newest = (dir: string): number =>
    Math.max(...fs.readdirSync(dir, { withFileTypes: true }).map((e) => e.isDirectory() ? newest(path.join(dir, e.name)) : fs.statSync(path.join(dir, e.name)).mtimeMs))
  if (!fs.existsSync(built) || fs.statSync(built).mtimeMs < newest(path.join(root, "packages/console/src"))) {
    execFileSync("npm", ["run", "build", "-w", "@sift/console"], { cwd: root, stdio: "ignore" })
  }
  browser = await chromium.launch({ executablePath: "/usr/lib/chromium/chromium", args: ["--no-sandbox", "--disable-dev-shm-usage"] })
  // With a browser pool for the playground's screenshot (launched on first use).
  service = await TestService.start({ listener: true, browser: true, env: { SIFT_PASSWORD_SCRYPT_LN: "14" } })
  origin = service.baseUrl.replace(/\/v1$/, "")
  site = await FixtureSite.start({
    "/prices": (_req, res) => FixtureSite.html(`<!doctype html><html><head><title>Prices</title></head><body>${pageText}</body></html>`)(_req, res, undefined as never),
    "/sitemap.xml": (_req, res) =>
      FixtureSite.html(
        `<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>${site.url}/a</loc></url><url><loc>${site.url}/b</loc></url></urlset>`,
        { contentType: "application/xml" }
      )(_req, res, undefined as never),
    // Answered only when the test releases it: a request that starts before another and is logged after it.
    "/held": async (_req, res) => {
      heldAsked()
      await heldRelease
      FixtureSite.html("<!doctype html><html><head><title>Held</title></head><body><p>Answered late.</p></body></html>")(_req, res, undefined as never)
    }
  })
  receiver = createServer((req, res) => {
    let body = ""
    req.on("data", (chunk) => (body += chunk))
    req.on("end", () => {
      const event = JSON.parse(body) as { id: string; type: string }
      received.push({ id: event.id, type: event.type })
      res.writeHead(204).end()
    })
  })
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve))
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`
}, 120_000)

afterAll(async () => {
  await browser?.close()
  await service?.close()
  await site?.close()
  receiver?.close()
})

/** A new organization with a person in it (as `sift users create` makes one): the invitation link. */
const person = async (role: "owner" | "member" = "owner") => {
  const email = `ada-${Math.random().toString(36).slice(2, 8)}@lanterns.example`
  return service.run(Effect.gen(function*() {
    const org = yield* (yield* Auth.Accounts.Accounts).createOrg({ name: `console-${email}`, plan: "scale" })
    // The operation `sift users create EMAIL --org ORG --role ROLE` runs (directly or over the admin channel).
    const added = yield* Effect.flatMap(Admin.AdminOperations, (operations) => operations.createUser({ email, org: org.name, role, origin })).pipe(
      Effect.provide(directOperations),
      Effect.orDie
    )
    expect(added).toMatchObject({ email, role, org: { id: org.id } })
    return { orgId: org.id, email, link: added.link }
  }))
}

/** Follows an invitation link, chooses the password and signs in. */
const signIn = async (context: BrowserContext, invited: { email: string; link: string }, audit = false) => {
  const page = await context.newPage()
  await page.goto(invited.link)
  if (audit) {
    await page.waitForSelector("#set-password")
    expect(await violations(page)).toEqual([])
  }
  await page.fill("#set-password input[name=password]", PASSWORD)
  await page.fill("#set-password input[name=again]", PASSWORD)
  await page.click("#set-password button[type=submit]")
  await page.waitForSelector("text=Password set")
  await page.click("a.button:has-text(\"Sign in\")")
  await page.fill("#sign-in input[name=email]", invited.email)
  await page.fill("#sign-in input[name=password]", PASSWORD)
  await page.click("#sign-in button[type=submit]")
  await page.waitForSelector("nav#nav")
  return page
}

/** Every URL a context's pages request, to check that the console asks no outside host for anything. */
const recordRequests = (context: BrowserContext) => {
  const urls: Array<string> = []
  context.on("request", (request) => void urls.push(request.url()))
  return () => urls.filter((url) => !url.startsWith(`${origin}/`) && !url.startsWith("data:") && !url.startsWith("blob:"))
}

const go = async (page: Page, hash: string, ready: string) => {
  await page.goto(`${origin}/#/${hash}`)
  await page.waitForSelector(ready)
}

/** Waits until `selector` matches `n` elements (pages re-render in place after a filter changes). */
const rows = (page: Page, selector: string, n: number) =>
  page.waitForFunction(([s, count]) => document.querySelectorAll(s as string).length === count, [selector, n] as const, { timeout: 15_000 })

const shoot = (page: Page, name: string) => page.screenshot({ path: path.join(shots, `console-${name}.png`), fullPage: false })

/** axe's serious and critical violations on the page as it is now. */
const violations = async (page: Page) => {
  const result = await new AxeBuilder({ page }).analyze()
  return result.violations.filter((v) => v.impact === "serious" || v.impact === "critical").map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`)
}

/** The bytes a URL is sent as with `Accept-Encoding: gzip` (checked to be gzipped). */
const gzippedSize = (url: string) =>
  new Promise<number>((resolve, reject) => {
    httpGet(url, { headers: { "accept-encoding": "gzip" } }, (res) => {
      let bytes = 0
      res.on("data", (chunk: Buffer) => (bytes += chunk.length))
      res.on("end", () => res.headers["content-encoding"] === "gzip" ? resolve(bytes) : reject(new Error(`${url} was not sent gzipped`)))
    }).on("error", reject)
  })

/** Presses Tab (Shift+Tab: `back`) until the focused element matches `selector` (it is reachable by keyboard). */
const tabTo = async (page: Page, selector: string, back = false, max = 60) => {
  for (let i = 0; i < max; i++) {
    await page.keyboard.press(back ? "Shift+Tab" : "Tab")
    if (await page.evaluate((s) => document.activeElement?.matches(s) ?? false, selector)) return
  }
  throw new Error(`${selector} was not reached with Tab`)
}

const until = async <A>(what: string, probe: () => Promise<A | undefined>, ms = 60_000): Promise<A> => {
  const end = Date.now() + ms
  for (;;) {
    const value = await probe()
    if (value !== undefined) return value
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 500))
  }
}

describe("the web console", () => {
  it("serves the app at / with its caching, and the API stays under /v1", async () => {
    const index = await fetch(`${origin}/`, { headers: { "accept-encoding": "gzip" } })
    expect(index.status).toBe(200)
    expect(index.headers.get("cache-control")).toBe("no-cache")
    expect(index.headers.get("content-security-policy")).toContain("default-src 'self'")
    const html = await index.text()
    const asset = /src="(\/assets\/[^"]+\.js)"/.exec(html)?.[1]
    expect(asset).toBeDefined()
    const script = await fetch(`${origin}${asset}`)
    expect(script.status).toBe(200)
    expect(script.headers.get("cache-control")).toBe("public, max-age=31536000, immutable")
    // The budget: the first page loads under 250 KB of compressed JavaScript (every script it names, as served gzipped).
    const scripts = [...html.matchAll(/<(?:script|link)[^>]+(?:src|href)="(\/assets\/[^"]+\.js)"/g)].map((m) => m[1]!)
    const sizes = await Promise.all(scripts.map((src) => gzippedSize(`${origin}${src}`)))
    const compressed = sizes.reduce((a, b) => a + b, 0)
    expect(compressed).toBeGreaterThan(10_000)
    expect(compressed).toBeLessThan(250 * 1024)
    expect((await fetch(`${origin}/assets/missing-0000.js`)).status).toBe(404)
    const api = await fetch(`${service.baseUrl}/nope`)
    expect(api.status).toBe(404)
    expect((await api.json()).error_code).toBe("NOT_FOUND")
    // The console's own routes need its session; a key is not one.
    expect((await fetch(`${service.baseUrl}/console/keys`)).status).toBe(401)
  })

  it("a person signs in, makes a key, calls the API with it, and sees the call in logs and usage; another organization sees none of it", { timeout: 240_000 }, async () => {
    const owner = await person()
    const context = await browser.newContext({ viewport: { width: 1280, height: 860 } })
    const outside = recordRequests(context)
    const signInPage = await context.newPage()
    await signInPage.goto(`${origin}/`)
    await signInPage.waitForSelector("#sign-in")
    await shoot(signInPage, "sign-in")
    expect(await violations(signInPage)).toEqual([])
    // A wrong password is refused with the API's message and request id.
    await signInPage.fill("#sign-in input[name=email]", owner.email)
    await signInPage.fill("#sign-in input[name=password]", "wrong password!")
    await signInPage.click("#sign-in button[type=submit]")
    await signInPage.waitForSelector(".error")
    expect(await signInPage.textContent(".error")).toMatch(/Wrong email or password[\s\S]*UNAUTHORIZED[\s\S]*request_id/)
    await signInPage.close()

    const page = await signIn(context, owner, true)
    const cookies = await context.cookies()
    const session = cookies.find((c) => c.name === "sift_console")!
    expect(session.httpOnly).toBe(true)
    expect(session.sameSite).toBe("Lax")

    // Keys: empty state, then a key whose secret is shown once.
    await go(page, "keys", "#create-key")
    await page.waitForSelector("text=No keys yet")
    await page.fill("#create-key input[name=name]", "billing job")
    await page.click("#create-key button[type=submit]")
    await page.waitForSelector("#new-secret")
    const secret = (await page.textContent("#secret-value"))!
    expect(secret).toMatch(/^sift_sk_[A-Za-z0-9]{40}$/)
    await page.waitForSelector("#keys-table >> text=billing job")
    await shoot(page, "keys")
    expect(await violations(page)).toEqual([])

    const scraped = await fetch(`${service.baseUrl}/web/scrape/markdown?url=${encodeURIComponent(`${site.url}/prices`)}`, { headers: { authorization: `Bearer ${secret}` } })
    expect(scraped.status).toBe(200)
    const scrapedBody = await scraped.json() as { request_id: string; cache_metadata: { status: string } }
    const requestId = scrapedBody.request_id
    const refused = await fetch(`${service.baseUrl}/web/scrape/markdown?url=not-a-url`, { headers: { authorization: `Bearer ${secret}` } })
    expect(refused.status).toBe(400)

    // Logs: both calls; filters narrow them; the detail shows the redacted request.
    await go(page, "logs", "#logs-table")
    const listed = await page.textContent("#logs-table")
    expect(listed).toContain("/v1/web/scrape/markdown")
    expect(listed).toContain("400")
    await shoot(page, "logs")
    expect(await violations(page)).toEqual([])
    // Live tail: new calls appear without reloading. The page says it is waiting once its stream is open, with its
    // start fixed at the click: a call made after that is never older than the tail.
    await page.check("#live-tail")
    await page.waitForSelector("text=Waiting for requests")
    // A call that starts first and is logged last (its page is held) still appears, after a quicker later one: entries
    // are timestamped when they start and written when they end.
    const held = fetch(`${service.baseUrl}/web/scrape/markdown?url=${encodeURIComponent(`${site.url}/held`)}&tags=held`, { headers: { authorization: `Bearer ${secret}` } })
    await heldAskedFor
    const tailed = await fetch(`${service.baseUrl}/web/scrape/markdown?url=${encodeURIComponent(`${site.url}/prices`)}&tags=tailed`, { headers: { authorization: `Bearer ${secret}` } })
    expect(tailed.status).toBe(200)
    const tailedBody = await tailed.json() as { request_id: string; cache_metadata: { status: string } }
    const tailedId = tailedBody.request_id
    try {
      await page.waitForSelector(`#tail-table a[aria-label="Details of ${tailedId}"]`, { timeout: 15_000 })
      expect(await page.locator("#tail-table tbody tr").count()).toBe(1)
    } finally {
      release()
    }
    const heldAnswer = await held
    expect(heldAnswer.status).toBe(200)
    const heldBody = await heldAnswer.json() as { request_id: string; cache_metadata: { status: string } }
    const heldId = heldBody.request_id
    await page.waitForSelector(`#tail-table a[aria-label="Details of ${heldId}"]`, { timeout: 15_000 })
    expect(await page.locator("#tail-table tbody tr").count()).toBe(2)
    expect(await page.locator("#tail-table code", { hasText: "/v1/web/scrape/markdown" }).count()).toBe(2)
    await page.uncheck("#live-tail")
    await page.check("#log-filters input[name=errors_only]")
    await page.click("#log-filters button[type=submit]")
    await page.waitForFunction(() => location.hash.includes("errors_only=true"))
    await page.waitForSelector("#logs-table")
    await rows(page, "#logs-table tbody tr", 1)
    expect(await page.textContent("#logs-table tbody")).toContain("400")
    await go(page, `logs?status_code=200&path=${encodeURIComponent("/web/scrape/markdown")}`, "#logs-table")
    await rows(page, "#logs-table tbody tr", 3)
    expect(await page.textContent("#logs-table tbody")).not.toContain("400")
    await go(page, "logs?error_code=WEBSITE_BLOCKED", "text=No entries match these filters")
    await go(page, `logs/${requestId}`, "#log-detail")
    expect(await page.textContent("#log-detail")).toContain(requestId)
    expect(await page.textContent("main")).toContain("/prices")
    expect(await page.textContent("main")).not.toContain(secret)
    await shoot(page, "log-detail")
    expect(await violations(page)).toEqual([])

    // Overview: the calls counted (per hour, as they were logged).
    await go(page, "overview", "#usage-table")
    expect(await page.textContent("#requests-total")).toBe("4")
    // One error (the 400) of four, none rate limited; the cache hits the answers reported.
    const hits = [scrapedBody, heldBody, tailedBody].filter((b) => b.cache_metadata.status === "hit").length
    const stats = (await page.locator(".card.stat").allTextContents()).join(" | ")
    expect(stats).toContain("Errors · 429s25.0%0.0% rate limited")
    expect(stats).toContain(`Cache hit ratio${(100 * hits / 4).toFixed(1)}%${hits} hits`)
    expect(await page.textContent("#usage-table")).toContain("/v1/web/scrape/markdown")
    // Requests and credits over time, drawn per endpoint.
    expect(await page.locator(".chart canvas").count()).toBe(2)
    expect(await page.textContent(".chart .u-legend")).toContain("/v1/web/scrape/markdown")
    await shoot(page, "overview")
    expect(await violations(page)).toEqual([])
    // 30 days: the same calls, per day.
    await page.click("button[aria-pressed=false]:has-text(\"30 days\")")
    await page.waitForSelector("text=Credits per day")
    expect(await page.textContent("#requests-total")).toBe("4")
    expect(await page.getAttribute("button:has-text(\"30 days\")", "aria-pressed")).toBe("true")

    // Another organization's person sees none of it, and cannot read it by id.
    const other = await person()
    const otherContext = await browser.newContext()
    const otherPage = await signIn(otherContext, other)
    await go(otherPage, "logs", "text=No requests in the last 24 hours")
    await go(otherPage, "keys", "text=No keys yet")
    await go(otherPage, "overview", "text=No requests in this range yet")
    const byId = await otherPage.evaluate(async (id) => {
      const session = await (await fetch("/v1/console/session")).json()
      return (await fetch(`/v1/logs/${id}`, { headers: { "x-csrf-token": session.csrf } })).status
    }, requestId)
    expect(byId).toBe(404)
    await otherContext.close()
    // Fonts, icons, scripts and styles all come from the service: no request left for another host.
    expect(outside()).toEqual([])
    await context.close()
  })

  it("monitors: create one on a fixture page, change the page, see the diff; replay its delivery to a local receiver; the playground scrapes", { timeout: 300_000 }, async () => {
    const owner = await person()
    const context = await browser.newContext({ viewport: { width: 1280, height: 860 } })
    const outside = recordRequests(context)
    const page = await signIn(context, owner)

    // No monitors yet: the empty state carries the first monitor's form.
    await go(page, "monitors", "#monitor-form")
    await page.waitForSelector("text=No monitors yet")
    expect(await violations(page)).toEqual([])
    await page.fill("#monitor-form input[name=name]", "Prices")
    await page.fill("#monitor-form input[name=url]", `${site.url}/prices`)
    await page.fill("#monitor-form input[name=webhook]", receiverUrl)
    await page.click("#monitor-form button[type=submit]")
    await page.waitForSelector("#monitor-facts, .error")
    expect(await page.locator(".error").allTextContents()).toEqual([])
    const monitorId = decodeURIComponent(page.url().split("#/monitors/")[1]!)
    // The baseline run completes (the scheduler ticks every second).
    await until("the baseline run", async () => {
      await page.reload()
      await page.waitForSelector("#runs-table")
      return (await page.textContent("#runs-table"))!.includes("completed") ? true : undefined
    })
    // The baseline it recorded: the page's text.
    await page.click("#monitor-baseline summary")
    expect(await page.textContent("#monitor-baseline pre")).toContain("Basic plan: 10 euros a month.")
    pageText = "<main><h1>Prices</h1><p>Basic plan: 12 euros a month.</p><p>New: a yearly plan.</p></main>"
    await page.click("button:has-text(\"Run now\")")
    await page.waitForSelector("text=Run queued")
    await until("the change", async () => {
      await page.reload()
      await page.waitForSelector("#monitor-facts")
      return (await page.locator("#changes li").count()) > 0 ? true : undefined
    })
    await page.click("#changes li button.link")
    await page.waitForSelector(".diff")
    const diff = (await page.textContent(".diff"))!
    // The baseline is now the changed page.
    await page.click("#monitor-baseline summary")
    expect(await page.textContent("#monitor-baseline pre")).toContain("Basic plan: 12 euros a month.")
    expect(diff).toContain("-Basic plan: 10 euros a month.")
    expect(diff).toContain("+Basic plan: 12 euros a month.")
    expect(await page.locator(".diff .line.add").count()).toBeGreaterThanOrEqual(2)
    await shoot(page, "monitor")
    expect(await violations(page)).toEqual([])
    await go(page, "monitors", "#monitors-table")
    expect(await page.textContent("#monitors-table")).toContain("Prices")
    await shoot(page, "monitors")
    expect(await violations(page)).toEqual([])

    // Pause and resume.
    await go(page, `monitors/${monitorId}`, "#monitor-facts")
    await page.click("button:has-text(\"Pause\")")
    await page.waitForSelector("#monitor-facts >> text=paused")
    await page.click("button:has-text(\"Resume\")")
    await page.waitForSelector("#monitor-facts >> text=active")
    // Edit: its schedule changes (the form comes filled with what it has).
    await page.click("button:has-text(\"Edit\")")
    expect(await page.inputValue("#monitor-form input[name=url]")).toBe(`${site.url}/prices`)
    await page.fill("#monitor-form input[name=frequency]", "2")
    await page.selectOption("#monitor-form select[name=unit]", "hours")
    await page.click("#monitor-form button[type=submit]")
    await page.waitForSelector("#monitor-facts >> text=every 2 hours")
    expect(await page.locator("#monitor-form").count()).toBe(0)
    // Rotate the webhook secret: the new one is shown once.
    await page.click("button:has-text(\"Rotate secret\")")
    await page.waitForSelector("text=Secret rotated")
    expect(await page.textContent(".card.secret code")).toMatch(/^whsec_\S+$/)

    // Deliveries: the change reached the receiver; a replay sends the same event again (a manual attempt).
    const changeEvent = await until("the change delivery", async () => received.find((e) => e.type === "change.detected"))
    await go(page, `deliveries?monitor_id=${monitorId}`, "#deliveries")
    const delivered = page.locator("#deliveries li", { hasText: "change.detected" }).first()
    await until("delivered", async () => {
      await page.reload()
      await page.waitForSelector("#deliveries")
      return (await delivered.textContent())!.includes("delivered") ? true : undefined
    })
    expect(await violations(page)).toEqual([])
    expect(await delivered.locator(`a[href="#/deliveries?monitor_id=${monitorId}"]`).textContent()).toBe(`monitor ${monitorId}`)
    const before = received.filter((e) => e.id === changeEvent.id).length
    await delivered.locator("button:has-text(\"Replay\")").click()
    await page.waitForSelector("text=Replay queued")
    await until("the replay", async () => received.filter((e) => e.id === changeEvent.id).length > before ? true : undefined)
    await until("the manual attempt listed", async () => {
      await page.reload()
      await page.waitForSelector("#deliveries")
      await delivered.locator("button.link").click()
      await page.waitForSelector("table.attempts")
      return (await page.textContent("table.attempts"))!.includes("manual") ? true : undefined
    })
    // Each attempt with its trigger and the receiver's answer.
    const attemptRows = await page.locator("table.attempts tbody tr").allTextContents()
    expect(attemptRows.length).toBeGreaterThanOrEqual(2)
    for (const row of attemptRows) expect(row).toContain("204")
    await shoot(page, "deliveries")

    // A sitemap monitor: made from the same form, its baseline is the sitemap's URLs; then deleted.
    await go(page, "monitors", "#monitors-table")
    await page.click("a:has-text(\"New monitor\"), button:has-text(\"New monitor\")")
    await page.waitForSelector("#monitor-form")
    await page.fill("#monitor-form input[name=name]", "Site map")
    await page.selectOption("#monitor-form select[name=type]", "sitemap")
    await page.fill("#monitor-form input[name=url]", `${site.url}/sitemap.xml`)
    await page.click("#monitor-form button[type=submit]")
    await page.waitForSelector("#monitor-facts >> text=sitemap")
    await until("the sitemap's baseline", async () => {
      await page.reload()
      await page.waitForSelector("#monitor-baseline")
      await page.click("#monitor-baseline summary")
      return (await page.textContent("#monitor-baseline"))!.includes("2 URLs") ? true : undefined
    })
    expect(await page.textContent("#monitor-baseline pre")).toBe(`${site.url}/a\n${site.url}/b`)
    page.once("dialog", (dialog) => void dialog.accept())
    await page.click("button:has-text(\"Delete\")")
    await page.waitForSelector("#monitors-table")
    expect(await page.textContent("#monitors-table")).not.toContain("Site map")

    // Playground: the fixture page as Markdown, HTML, a screenshot and its metadata side by side, with the same call as
    // curl and SDK code.
    await go(page, "playground", "#playground-form")
    await page.fill("#playground-form input[name=url]", `${site.url}/prices`)
    await page.check("#playground-form input[name=html]")
    await page.check("#playground-form input[name=screenshot]")
    await page.click("#playground-form button[type=submit]")
    await page.waitForSelector("#out-markdown", { timeout: 60_000 })
    expect(await page.textContent("#out-markdown")).toContain("Basic plan: 12 euros a month.")
    expect(await page.textContent("#playground-result pre[aria-label=HTML]")).toContain("Basic plan: 12 euros a month.")
    expect(await page.textContent("#playground-result pre[aria-label=Metadata]")).toContain("Prices")
    // The screenshot is drawn (an image the browser decoded, allowed by the console's CSP).
    await page.waitForFunction(() => {
      const img = document.querySelector<HTMLImageElement>("#playground-result img.shot")
      return img !== null && img.complete && img.naturalWidth > 100
    })
    const snippets = (await page.locator(".snippet pre").allTextContents()).join("\n")
    expect(snippets).toContain(`"url":"${site.url}/prices"`)
    expect(snippets).toContain(`"screenshot":true`)
    expect(snippets).toContain(`client.post("/web/scrape"`)
    await shoot(page, "playground")
    expect(await violations(page)).toEqual([])

    // Settings and batches render, accessibly.
    await go(page, "settings", "#members-table")
    expect(await page.textContent("#members-table")).toContain(owner.email)
    const facts = (await page.textContent("#org-facts"))!
    expect(facts).toContain("Planscale")
    expect(facts).toMatch(/Credits[\d,]+ left of 2,500,000 per cycle/)
    expect(facts).toContain("Zero data retentionnot enabled")
    // An owner adds a person: Sift emails the link (outbox), which sets their password and verifies the address.
    const invitee = `bea-${Math.random().toString(36).slice(2, 8)}@lanterns.example`
    await page.fill("#invite-form input[name=email]", invitee)
    await page.click("#invite-form button[type=submit]")
    await page.waitForSelector(`text=${invitee} was emailed a link`)
    await page.waitForSelector(`#members-table >> text=${invitee}`)
    const mail = await service.run(Mailer.sentTo(invitee))
    expect(mail).toHaveLength(1)
    const link = /(http:\/\/\S+#\/set-password\?token=\S+)/.exec(mail[0]!.text)?.[1]
    expect(link).toBeDefined()
    const inviteeContext = await browser.newContext()
    const inviteePage = await signIn(inviteeContext, { email: invitee, link: link! })
    await go(inviteePage, "settings", "#members-table")
    expect(await inviteePage.textContent("#members-table")).toContain(`${invitee} (you)`)
    await inviteeContext.close()
    await shoot(page, "settings")
    expect(await violations(page)).toEqual([])
    // Batches: a list of URLs submitted, its progress followed live to the end, its results downloadable.
    await go(page, "batches", "#batch-form")
    await page.waitForSelector("text=No batches yet")
    await page.fill("#batch-form textarea[name=urls]", `${site.url}/prices\n${site.url}/missing`)
    await page.fill("#batch-form input[name=webhook]", receiverUrl)
    await page.click("#batch-form button[type=submit]")
    await page.waitForSelector("#batches-table")
    // The webhook's signing secret is shown once.
    expect(await page.textContent("#batch-webhook-secret")).toMatch(/whsec_\S+/)
    await page.waitForSelector("#batches-table >> text=completed", { timeout: 60_000 })
    expect(await page.textContent("#batches-table")).toContain("1 ok · 1 failed · 0 pending")
    const part = await page.getAttribute("#batches-table a[download]", "href")
    const download = await fetch(part!)
    expect(download.status).toBe(200)
    const records = (await import("node:zlib")).gunzipSync(Buffer.from(await download.arrayBuffer())).toString("utf8").trim().split("\n").map((line) => JSON.parse(line))
    expect(records.map((r: { status: string }) => r.status)).toEqual(["ok", "error"])
    await shoot(page, "batches")
    expect(await violations(page)).toEqual([])
    // The batch's deliveries: its end reached the receiver, and a replay sends the same event again.
    const batchId = (await page.textContent("#batches-table tbody tr td code"))!
    const batchEvent = await until("the batch delivery", async () => received.find((e) => e.type === "batch.completed"))
    await page.click(`#batches-table a[aria-label="Webhook deliveries of ${batchId}"]`)
    await page.waitForFunction((id) => location.hash === `#/deliveries?batch_id=${id}`, batchId)
    await page.waitForSelector(`text=Deliveries of batch`)
    const batchDelivered = page.locator("#deliveries li", { hasText: "batch.completed" }).first()
    await until("the batch delivery delivered", async () => {
      await page.reload()
      await page.waitForSelector("#deliveries")
      return (await batchDelivered.textContent())!.includes("delivered") ? true : undefined
    })
    expect(await page.locator("#deliveries li").count()).toBe(1)
    expect(await page.textContent("#deliveries")).not.toContain("change.detected")
    const batchBefore = received.filter((e) => e.id === batchEvent.id).length
    await batchDelivered.locator("button:has-text(\"Replay\")").click()
    await page.waitForSelector("text=Replay queued")
    await until("the batch replay", async () => received.filter((e) => e.id === batchEvent.id).length > batchBefore ? true : undefined)
    // All batches' deliveries (the tab), where it is listed with its batch.
    await go(page, "deliveries?type=batch", "a.button[aria-current=page]:has-text(\"Batches\")")
    await page.waitForSelector("text=Deliveries of batch", { state: "detached" })
    await page.waitForSelector(`#deliveries >> text=${batchId}`)
    expect(await page.textContent("#deliveries")).toContain("batch.completed")
    expect(await page.textContent("#deliveries")).not.toContain("change.detected")
    // The monitors' tab lists no batch's.
    await go(page, "deliveries", "a.button[aria-current=page]:has-text(\"Monitors\")")
    await page.waitForSelector("#deliveries >> text=change.detected")
    expect(await page.textContent("#deliveries")).not.toContain("batch.completed")
    expect(await violations(page)).toEqual([])

    // Another organization cannot see or touch the monitor.
    const other = await person()
    const otherContext = await browser.newContext()
    const otherPage = await signIn(otherContext, other)
    await go(otherPage, "monitors", "text=No monitors yet")
    await go(otherPage, "deliveries", "text=No webhook deliveries yet")
    await go(otherPage, "deliveries?type=batch", "text=Submit a batch with a webhook URL")
    await go(otherPage, "batches", "text=No batches yet")
    expect(await otherPage.evaluate(async (id) => {
      const session = await (await fetch("/v1/console/session")).json()
      return (await fetch(`/v1/monitors/${id}`, { headers: { "x-csrf-token": session.csrf } })).status
    }, monitorId)).toBe(404)
    await otherContext.close()

    // Dark theme and a phone's width stay readable (screenshots), and accessible.
    const phone = await browser.newContext({ viewport: { width: 390, height: 844 }, colorScheme: "dark" })
    await phone.addCookies(await context.cookies())
    const small = await phone.newPage()
    await go(small, "overview", "#usage-table, .empty")
    expect(await violations(small)).toEqual([])
    await shoot(small, "overview-phone-dark")
    await phone.close()
    expect(outside()).toEqual([])
    await context.close()
  })

  it("sift users create refuses a taken email, an unknown organization and a bad address; an invitation link works once", async () => {
    const first = await person()
    const create = (input: Admin.CreateUserInput) =>
      service.run(Effect.flip(Effect.flatMap(Admin.AdminOperations, (operations) => operations.createUser(input)).pipe(Effect.provide(directOperations))))
    const orgOf = (await service.run(Effect.flatMap(Auth.Accounts.Accounts, (accounts) => accounts.getOrg(first.orgId))))
    const orgName = orgOf._tag === "Some" ? orgOf.value.name : ""
    expect(await create({ email: first.email, org: orgName, origin })).toMatchObject({ code: "INPUT_VALIDATION_ERROR", message: expect.stringContaining("already has an account") })
    expect(await create({ email: "new@lanterns.example", org: "no-such-org", origin })).toMatchObject({ code: "NOT_FOUND" })
    expect(await create({ email: "not an address", org: orgName, origin })).toMatchObject({ code: "INPUT_VALIDATION_ERROR" })
    const token = new URL(first.link.replace("/#/", "/")).searchParams.get("token")
    const set = (password: string) =>
      fetch(`${service.baseUrl}/console/password`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ token, password }) })
    expect((await set("short")).status).toBe(400)
    expect((await set(PASSWORD)).status).toBe(200)
    const again = await set(PASSWORD)
    expect(again.status).toBe(400)
    expect((await again.json()).message).toContain("unknown, used or expired")
    // Five wrong passwords lock the account's sign-in, the right one too (the claim flow's lock).
    const signIn = (password: string) =>
      fetch(`${service.baseUrl}/console/session`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ email: first.email, password }) })
    for (let i = 0; i < 5; i++) expect((await signIn("wrong password")).status).toBe(401)
    const locked = await signIn(PASSWORD)
    expect(locked.status).toBe(429)
    expect((await locked.json()).error_code).toBe("RATE_LIMITED")
    // A sign-in form posted from another site cannot send JSON: refused.
    const form = await fetch(`${service.baseUrl}/console/session`, { method: "POST", body: new URLSearchParams({ email: first.email, password: PASSWORD }) })
    expect(form.status).toBe(400)
  })

  it("console requests without the session's CSRF token are refused: mutations of its own routes, every API request", async () => {
    const owner = await person()
    const context = await browser.newContext()
    const page = await signIn(context, owner)
    const statuses = await page.evaluate(async () => {
      const json = { "content-type": "application/json" }
      const session = await (await fetch("/v1/console/session")).json()
      const noToken = await fetch("/v1/console/keys", { method: "POST", headers: json, body: JSON.stringify({ name: "x" }) })
      const wrongToken = await fetch("/v1/console/keys", { method: "POST", headers: { ...json, "x-csrf-token": "nope" }, body: JSON.stringify({ name: "x" }) })
      const apiNoToken = await fetch("/v1/monitors", { method: "POST", headers: json, body: JSON.stringify({ name: "x", target: { type: "page", url: "https://example.com" } }) })
      const withToken = await fetch("/v1/console/keys", { method: "POST", headers: { ...json, "x-csrf-token": session.csrf }, body: JSON.stringify({ name: "with token" }) })
      // The API asks for the token on reads too: a GET scrape costs credits, and a link on another site sends the cookie.
      const scrapeNoToken = await fetch("/v1/web/scrape/markdown?url=https%3A%2F%2Fexample.com")
      const logsNoToken = await fetch("/v1/logs")
      const logsWithToken = await fetch("/v1/logs", { headers: { "x-csrf-token": session.csrf } })
      return {
        noToken: [noToken.status, (await noToken.json()).error_code],
        wrongToken: wrongToken.status,
        apiNoToken: [apiNoToken.status, (await apiNoToken.json()).error_code],
        withToken: withToken.status,
        reads: [scrapeNoToken.status, logsNoToken.status, logsWithToken.status]
      }
    })
    expect(statuses).toEqual({ noToken: [403, "FORBIDDEN"], wrongToken: 403, apiNoToken: [403, "FORBIDDEN"], withToken: 201, reads: [403, 403, 200] })
    // Nothing was made by the refused ones.
    const keys = await page.evaluate(async () => (await (await fetch("/v1/console/keys")).json()).keys.map((k: { name: string }) => k.name))
    expect(keys).toEqual(["with token"])
    // A member uses the console but neither creates keys nor adds people.
    const member = await person("member")
    const memberContext = await browser.newContext()
    const memberPage = await signIn(memberContext, member)
    const refusals = await memberPage.evaluate(async () => {
      const session = await (await fetch("/v1/console/session")).json()
      const headers = { "content-type": "application/json", "x-csrf-token": session.csrf }
      const key = await fetch("/v1/console/keys", { method: "POST", headers, body: JSON.stringify({ name: "x" }) })
      const invite = await fetch("/v1/console/members", { method: "POST", headers, body: JSON.stringify({ email: "z@lanterns.example", role: "owner" }) })
      return [session.user.role, key.status, (await key.json()).error_code, invite.status]
    })
    expect(refusals).toEqual(["member", 403, "FORBIDDEN", 403])
    await go(memberPage, "keys", "text=Only owners create and revoke keys.")
    await memberContext.close()
    // Signed out, the cookie no longer works.
    await page.click("text=Sign out")
    await page.waitForSelector("#sign-in")
    expect(await page.evaluate(async () => (await fetch("/v1/logs")).status)).toBe(401)
    await context.close()
  })

  it("works with the keyboard alone: sign-in, the skip link, the menu, a key made with an expiry and some permissions, then revoked; the theme chosen holds", { timeout: 120_000 }, async () => {
    const owner = await person()
    const token = new URL(owner.link.replace("/#/", "/")).searchParams.get("token")
    const set = await fetch(`${service.baseUrl}/console/password`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ token, password: PASSWORD }) })
    expect(set.status).toBe(200)
    const context = await browser.newContext({ viewport: { width: 1280, height: 860 } })
    const page = await context.newPage()
    await page.goto(`${origin}/`)
    await page.waitForSelector("#sign-in")
    await tabTo(page, "#sign-in input[name=email]")
    await page.keyboard.type(owner.email)
    await tabTo(page, "#sign-in input[name=password]")
    await page.keyboard.type(PASSWORD)
    await page.keyboard.press("Enter")
    await page.waitForSelector("nav#nav")

    // The first Tab reaches the skip link, shown when focused; it moves focus to the page, leaving the route alone.
    await go(page, "keys", "#create-key")
    await page.reload()
    await page.waitForSelector("#create-key")
    await page.keyboard.press("Tab")
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe("Skip to content")
    expect((await page.locator("a.skip").boundingBox())!.x).toBeGreaterThanOrEqual(0)
    await page.keyboard.press("Enter")
    expect(await page.evaluate(() => location.hash)).toBe("#/keys")
    expect(await page.evaluate(() => document.activeElement?.closest("main") !== null)).toBe(true)
    // The menu's links (before the page): the next page's title gets the focus.
    await tabTo(page, "nav a[href=\"#/logs\"]", true)
    await page.keyboard.press("Enter")
    await page.waitForFunction(() => location.hash === "#/logs" && document.activeElement?.id === "page-title")
    expect(await page.textContent("#page-title")).toBe("Logs")
    await tabTo(page, "nav a[href=\"#/keys\"]", true)
    await page.keyboard.press("Enter")
    await page.waitForFunction(() => location.hash === "#/keys" && document.activeElement?.id === "page-title")
    await page.waitForSelector("#create-key")

    // A key with an expiry and without one permission, made and then revoked from the keyboard.
    await tabTo(page, "#create-key input[name=name]")
    await page.keyboard.type("keyboard key")
    await tabTo(page, "#create-key input[name=expires]")
    const inAYear = new Date(Date.now() + 365 * 86_400_000)
    await page.keyboard.type(`${String(inAYear.getUTCMonth() + 1).padStart(2, "0")}${String(inAYear.getUTCDate()).padStart(2, "0")}${inAYear.getUTCFullYear()}`)
    const permission = "logs:read"
    await tabTo(page, `#create-key input[name=permissions][value="${permission}"]`)
    await page.keyboard.press("Space")
    await tabTo(page, "#create-key button[type=submit]")
    await page.keyboard.press("Enter")
    await page.waitForSelector("#new-secret")
    const secret = (await page.textContent("#secret-value"))!
    const row = page.locator("#keys-table tbody tr", { hasText: "keyboard key" })
    await row.waitFor()
    const cells = await row.locator("td").allTextContents()
    expect(cells[2]).not.toContain(permission)
    expect(cells[2]).not.toBe("all")
    expect(cells[4]).not.toBe("never")
    expect(new Date((await page.evaluate(async () => {
      const keys = (await (await fetch("/v1/console/keys")).json()).keys as Array<{ name: string; expires_at: string }>
      return keys.find((k) => k.name === "keyboard key")!.expires_at
    }))).toISOString().slice(0, 10)).toBe(inAYear.toISOString().slice(0, 10))
    // Its permissions hold: the log is refused, monitors are not.
    const call = () => fetch(`${service.baseUrl}/monitors`, { headers: { authorization: `Bearer ${secret}` } })
    expect((await call()).status).toBe(200)
    const logs = await fetch(`${service.baseUrl}/logs`, { headers: { authorization: `Bearer ${secret}` } })
    expect(await logs.json()).toMatchObject({ error_code: "INSUFFICIENT_PERMISSIONS", required_permission: "logs:read" })
    expect(logs.status).toBe(403)
    page.once("dialog", (dialog) => void dialog.accept())
    await tabTo(page, "button[aria-label=\"Revoke keyboard key\"]")
    await page.keyboard.press("Enter")
    await row.locator("text=revoked").waitFor()
    const refused = await call()
    expect(refused.status).toBe(401)

    // The theme chosen in the header holds over a reload: dark, then light, whatever the system's.
    const background = () => page.evaluate(() => getComputedStyle(document.body).backgroundColor)
    const luminance = (rgb: string) => rgb.match(/\d+/g)!.slice(0, 3).map(Number).reduce((a, b) => a + b, 0) / 3
    await page.selectOption("header select", "dark")
    // Applied and kept by the same effect: once the page is dark, the choice is stored.
    await page.waitForFunction(() => document.documentElement.dataset.theme === "dark")
    await page.reload()
    await page.waitForSelector("#create-key")
    expect(await page.evaluate(() => document.documentElement.dataset.theme)).toBe("dark")
    expect(luminance(await background())).toBeLessThan(80)
    await page.selectOption("header select", "light")
    await page.waitForFunction(() => document.documentElement.dataset.theme === "light")
    expect(luminance(await background())).toBeGreaterThan(180)

    // At a phone's width the menu is a button: opened from the keyboard, its links are reachable.
    await page.setViewportSize({ width: 390, height: 844 })
    await page.reload()
    await page.waitForSelector("#create-key")
    expect(await page.isVisible("nav#nav")).toBe(false)
    await tabTo(page, "button.menu")
    await page.keyboard.press("Enter")
    expect(await page.getAttribute("button.menu", "aria-expanded")).toBe("true")
    await tabTo(page, "nav a[href=\"#/settings\"]")
    await page.keyboard.press("Enter")
    await page.waitForSelector("#members-table")
    expect(await page.isVisible("nav#nav")).toBe(false)
    await context.close()
  })
})
