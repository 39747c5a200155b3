/**
 * Batches over a fixture site with the faults issue 18 lists, through the official SDK on the real service (PGlite,
 * real worker, real Chromium): a sitemap source whose sitemap repeats pages (`input.duplicates`), slow pages, a 429
 * with `Retry-After`, a redirect loop, a PDF, a page drawn by JavaScript, robots.txt in a link-following crawl, a crawl
 * whose start URL reads nothing (400, uncharged), private targets refused by the address guard (never fetched,
 * refunded, a private crawl start refused uncharged), results pages closing under ~8 MB, and batch.failed and
 * batch.cancelled deliveries.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as Auth from "@sift/auth"
import ContextDev from "context.dev"
import { Effect } from "effect"
import { createHmac } from "node:crypto"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as Pdf from "../../../core/test/convert/support/pdfFixtures.js"
import * as FixtureSite from "../../../core/test/support/FixtureSite.js"
import { eventually } from "../support/eventually.js"
import * as TestService from "../support/TestService.js"

const page = (title: string, links: ReadonlyArray<string> = []) =>
  FixtureSite.html(`<!doctype html><html lang="en"><head><title>${title}</title></head><body><main><h1>${title}</h1>` +
    `<p>About ${title}, in a few words.</p>${links.map((l) => `<p><a href="${l}">${l}</a></p>`).join("")}</main></body></html>`)

// When each path was asked for (the 429's retry must wait for its Retry-After).
const askedAt = new Map<string, Array<number>>()
const timed = (path: string, handler: FixtureSite.Handler): FixtureSite.Handler => (req, res, exchange) => {
  askedAt.set(path, [...askedAt.get(path) ?? [], Date.now()])
  return handler(req, res, exchange)
}

const big = (n: number): FixtureSite.Handler => {
  const paragraph = `<p>Big page ${n}: ${"the tide tables of the harbour, measured every morning at four stations. ".repeat(40)}</p>`
  return FixtureSite.html(
    `<!doctype html><html><head><title>Big ${n}</title></head><body><main><h1>Big ${n}</h1>${paragraph.repeat(1_200)}</main></body></html>`
  )
}
const held: Array<() => void> = []
const HELD = 12

// A webhook receiver: every event body with its headers.
let receiver: { url: string; received: Array<{ headers: { [key: string]: unknown }; body: string }>; close: () => Promise<void> }

let site: FixtureSite.Site
const requested = (path: string) => site.exchanges.filter((e) => e.path.split("?")[0] === path).length

beforeAll(async () => {
  const pdf = await Pdf.simple(["Harbour tide table for the spring quarter"])
  let throttled = 0
  site = await FixtureSite.start({
    "/robots.txt": FixtureSite.html("User-agent: *\nDisallow: /private/\n", { contentType: "text/plain" }),
    "/": page("Home", ["/a", "/a#top", "/b", "/private/secret", "/app", "/loop", "/report.pdf"]),
    "/a": page("Page A", ["/not-listed"]),
    "/b": page("Page B"),
    "/not-listed": page("Not listed"),
    "/private/secret": page("Secret"),
    "/app": FixtureSite.html(`<html><head><title>App</title><script src="/app.js"></script></head><body><div id="root"></div></body></html>`),
    "/app.js": FixtureSite.html(
      `document.addEventListener("DOMContentLoaded", () => document.getElementById("root").innerHTML = "<h1>Drawn in the browser</h1><p>Rendered by a script, with enough words to be a page of its own.</p>")`,
      { contentType: "text/javascript" }
    ),
    "/report.pdf": FixtureSite.html(pdf, { contentType: "application/pdf" }),
    "/slow": timed("/slow", (_req, res) => void setTimeout(() => page("Slow")(_req, res, undefined as never), 1_500)),
    "/throttled": timed("/throttled", (req, res, exchange) => {
      if (throttled++ === 0) return void res.writeHead(429, { "retry-after": "1", "content-type": "text/html" }).end("<h1>slow down</h1>")
      return page("Throttled once")(req, res, exchange)
    }),
    "/loop": FixtureSite.redirect("/loop2"),
    "/loop2": FixtureSite.redirect("/loop"),
    // About 3.4 MB of Markdown each: two fill a results page (~8 MB).
    "/big/1": big(1),
    "/big/2": big(2),
    "/big/3": big(3),
    // Answered only once released, so a batch of them is still running when it is cancelled.
    ...Object.fromEntries(Array.from({ length: HELD }, (_, i) => [`/held/${i}`, ((_req, res) => void held.push(() => page(`Held ${i}`)(_req, res, undefined as never))) as FixtureSite.Handler]))
  })
  const loc = (path: string) => `<url><loc>${site.url}${path}</loc></url>`
  // Three entries name a page listed before them: /a again, with a fragment, and with a tracking parameter. The home
  // page is not listed, so it is not the batch's.
  site.route("/sitemap.xml", FixtureSite.html(
    `<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">` +
      ["/a", "/b", "/a", "/a#top", "/a?utm_source=news", "/app", "/report.pdf", "/slow", "/throttled", "/loop"].map(loc).join("") +
      `</urlset>`,
    { contentType: "application/xml" }
  ))
})
beforeAll(async () => {
  const received: Array<{ headers: { [key: string]: unknown }; body: string }> = []
  const server = createServer((req, res) => {
    let body = ""
    req.on("data", (chunk) => (body += chunk))
    req.on("end", () => {
      received.push({ headers: req.headers, body })
      res.writeHead(200).end()
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  receiver = { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, received, close: () => new Promise((r) => server.close(() => r())) }
})
afterAll(async () => {
  held.splice(0).forEach((release) => release())
  await site?.close()
  await receiver?.close()
})

type Row = { readonly [key: string]: unknown }

const helpers = (service: () => TestService.TestService) => {
  const clientOf = (secret: string) => new ContextDev({ apiKey: secret, baseURL: service().baseUrl, maxRetries: 0, timeout: 60_000 })
  const balance = (orgId: string) => service().run(Effect.flatMap(Auth.CreditLedger.CreditLedger, (l) => l.balance(orgId))).then((b) => b.remaining)
  const stored = (orgId: string) =>
    service().run(Effect.flatMap(SqlClient.SqlClient, (sql) => sql<{ n: number | string }>`SELECT count(*) AS n FROM batches WHERE org_id = ${orgId}`))
      .then((rows) => Number(rows[0]!.n))
  const refusal = async (call: Promise<unknown>) => {
    const error = await call.then(() => undefined, (e: { status?: number; error?: { [key: string]: unknown } }) => e)
    expect(error, "the call should have failed").toBeDefined()
    return { status: error!.status, code: error!.error?.["error_code"], message: String(error!.error?.["message"] ?? "") }
  }
  const settled = (client: ContextDev, id: string) =>
    eventually(async () => {
      const batch = await client.batch.retrieve(id)
      return batch.status === "completed" || batch.status === "cancelled" || batch.status === "failed" ? batch : undefined
    }, 90_000)
  const records = async (client: ContextDev, id: string) => {
    const got = await client.batch.getResults(id, { limit: 100 })
    expect(got.has_more).toBe(false)
    return (got.data ?? []) as unknown as Array<Row>
  }
  return { clientOf, balance, stored, refusal, settled, records }
}

describe("batches over a site with faults (PGlite, Chromium)", () => {
  let service: TestService.TestService
  beforeAll(async () => {
    service = await TestService.start({ browser: true, env: { SIFT_BATCH_SWEEP_MS: "1000" } })
  }, 60_000)
  afterAll(async () => {
    await service?.close()
  })
  const { balance, clientOf, records, refusal, settled, stored } = helpers(() => service)

  it("a sitemap source: its listed pages only, repeats counted in input.duplicates, links not followed; slow, 429, loop, PDF and script-drawn pages each recorded once", async () => {
    const key = await service.key({ credits: 100 })
    const client = clientOf(key.secret)
    const made = await client.batch.submit({
      input: { mode: "crawl", data: { format: "markdown", source: { type: "sitemap", domain: site.url } } }
    })
    // Seven distinct pages of ten entries; a sitemap crawl's reservation is no ceiling.
    expect(made.input).toEqual({ duplicates: 3, invalid: null, reserved: 7, reserved_is_ceiling: false, submitted: null })
    expect(made.crawl).toEqual({
      follow_subdomains: false,
      max_depth: 0,
      max_pages: 1_000,
      source: { type: "sitemap", domain: new URL(site.url).host },
      url_pattern: null
    })
    expect(await balance(key.orgId)).toBe(93)

    const batch = await settled(client, made.id)
    expect(batch.status).toBe("completed")
    const byPath = new Map((await records(client, made.id)).map((r) => [new URL(String(r["url"])).pathname, r]))
    expect([...byPath.keys()].sort()).toEqual(["/a", "/app", "/b", "/loop", "/report.pdf", "/slow", "/throttled"])
    // Links on listed pages are not followed.
    expect(requested("/not-listed")).toBe(0)
    expect(requested("/a")).toBe(1)
    // A page only a browser can draw is rendered there.
    expect(byPath.get("/app")).toMatchObject({ status: "ok", markdown: expect.stringContaining("Drawn in the browser") })
    // The PDF is read to Markdown.
    expect(byPath.get("/report.pdf")).toMatchObject({ status: "ok", markdown: expect.stringContaining("Harbour tide table for the spring quarter") })
    expect(byPath.get("/slow")).toMatchObject({ status: "ok", markdown: expect.stringContaining("# Slow") })
    // 429 with Retry-After: 1: read on the retry, which waited for it.
    expect(byPath.get("/throttled")).toMatchObject({ status: "ok", markdown: expect.stringContaining("Throttled once") })
    const [first, second] = askedAt.get("/throttled")!
    expect(second! - first!).toBeGreaterThanOrEqual(900)
    // A redirect loop is that page's error, grouped in page_errors.
    expect(byPath.get("/loop")).toMatchObject({ status: "error", error_code: "WEBSITE_ACCESS_ERROR", message: expect.stringMatching(/redirect/i) })
    expect(batch.page_errors).toEqual([{ code: "WEBSITE_ACCESS_ERROR", count: 1 }])
    expect(batch.progress).toEqual({ succeeded: 6, failed: 1, pending: 0 })
    expect(batch.credits).toMatchObject({ reserved: 7, refunded: 1, net: 6 })
    expect(await balance(key.orgId)).toBe(94)
  }, 120_000)

  it("a start_url crawl honours robots.txt, reads each page once and renders the script-drawn page", async () => {
    const key = await service.key({ credits: 100 })
    const client = clientOf(key.secret)
    const readsOfA = requested("/a")
    const made = await client.batch.submit({
      input: {
        mode: "crawl",
        data: { format: "markdown", source: { type: "start_url", url: `${site.url}/`, controls: { maxDepth: 1, maxUrls: 20 } }, options: { maxAgeMs: 0 } }
      }
    })
    expect(made.input).toMatchObject({ reserved: 20, reserved_is_ceiling: true })
    const batch = await settled(client, made.id)
    const all = await records(client, made.id)
    const paths = all.map((r) => new URL(String(r["url"])).pathname)
    // /a#top is /a; robots.txt keeps /private/secret out (never fetched); depth 1 keeps /not-listed out.
    expect([...paths].sort()).toEqual(["/", "/a", "/app", "/b", "/loop", "/report.pdf"])
    expect(requested("/private/secret")).toBe(0)
    expect(requested("/not-listed")).toBe(0)
    expect(requested("/a")).toBe(readsOfA + 1)
    expect(all.find((r) => String(r["url"]).endsWith("/app"))).toMatchObject({ status: "ok", markdown: expect.stringContaining("Drawn in the browser") })
    expect(batch.progress).toEqual({ succeeded: 5, failed: 1, pending: 0 })
    expect(batch.credits).toMatchObject({ reserved: 20, refunded: 15, net: 5 })
    expect(await balance(key.orgId)).toBe(95)
  }, 120_000)

  it("an Idempotency-Key belongs to its organization and is forgotten after 24 hours", async () => {
    const one = await service.key({ credits: 100 })
    const other = await service.key({ credits: 100 })
    const body = { input: { mode: "scrape" as const, data: { format: "markdown" as const, urls: [{ url: `${site.url}/b` }] } } }
    const first = await clientOf(one.secret).batch.submit({ ...body, "Idempotency-Key": "shared-key" })
    // Another organization's same key and body is its own batch, charged to it.
    const theirs = await clientOf(other.secret).batch.submit({ ...body, "Idempotency-Key": "shared-key" })
    expect(theirs.id).not.toBe(first.id)
    expect(await balance(other.orgId)).toBe(99)
    await settled(clientOf(one.secret), first.id)
    await settled(clientOf(other.secret), theirs.id)
    // 25 hours later the key is free: another body is a new batch, not a conflict.
    const changed = { input: { mode: "scrape" as const, data: { format: "markdown" as const, urls: [{ url: `${site.url}/a` }] } } }
    expect(await refusal(clientOf(one.secret).batch.submit({ ...changed, "Idempotency-Key": "shared-key" })))
      .toMatchObject({ status: 409, code: "IDEMPOTENCY_KEY_CONFLICT" })
    await service.run(Effect.flatMap(SqlClient.SqlClient, (sql) =>
      sql`UPDATE batch_idempotency SET created_at = created_at - interval '25 hours' WHERE org_id = ${one.orgId}`))
    const later = await clientOf(one.secret).batch.submit({ ...changed, "Idempotency-Key": "shared-key" })
    expect(later.id).not.toBe(first.id)
    expect(later.input).toMatchObject({ reserved: 1 })
    await settled(clientOf(one.secret), later.id)
    expect(await stored(one.orgId)).toBe(2)
  }, 60_000)

  it("a results page closes early to stay under ~8 MB, and the cursor reads the rest", async () => {
    const key = await service.key({ credits: 100 })
    const client = clientOf(key.secret)
    const made = await client.batch.submit({
      input: { mode: "scrape", data: { format: "markdown", urls: [1, 2, 3].map((n) => ({ url: `${site.url}/big/${n}` })) } }
    })
    expect((await settled(client, made.id)).progress).toEqual({ succeeded: 3, failed: 0, pending: 0 })
    const first = await client.batch.getResults(made.id, { limit: 10 })
    const firstData = (first.data ?? []) as unknown as Array<Row>
    // Three records of ~3.5 MB: the first page holds two (under 8 MB), although the limit allows ten.
    expect(firstData.map((r) => new URL(String(r["url"])).pathname)).toEqual(["/big/1", "/big/2"])
    expect(Buffer.byteLength(JSON.stringify(firstData))).toBeLessThan(8 * 1024 * 1024)
    expect(Buffer.byteLength(JSON.stringify(firstData[0]))).toBeGreaterThan(3_000_000)
    expect(first.has_more).toBe(true)
    const rest = await client.batch.getResults(made.id, { limit: 10, cursor: first.next_cursor! })
    expect(((rest.data ?? []) as unknown as Array<Row>).map((r) => new URL(String(r["url"])).pathname)).toEqual(["/big/3"])
    expect(rest.has_more).toBe(false)
  }, 120_000)

  it("batch.failed and batch.cancelled are signed deliveries listed with the batch as source", async () => {
    const key = await service.key({ credits: 100 })
    const client = clientOf(key.secret)
    const eventOf = (id: string) =>
      eventually(async () => receiver.received.find((r) => JSON.parse(r.body).data?.batch?.id === id), 30_000)
    const verify = (header: string, body: string, secret: string) => {
      const parts = Object.fromEntries(header.split(",").map((p) => p.split("=") as [string, string]))
      return createHmac("sha256", secret).update(`${parts["t"]}.${body}`).digest("hex") === parts["v1"]
    }

    // Every page fails: batch.failed.
    const failing = await client.batch.submit({
      input: { mode: "scrape", data: { format: "markdown", urls: [{ url: `${site.url}/loop` }] } },
      webhook: { url: receiver.url, retry: {} }
    })
    expect((await settled(client, failing.id)).status).toBe("failed")
    const failed = await eventOf(failing.id)
    expect(failed.headers["x-service-event"]).toBe("batch.failed")
    expect(verify(String(failed.headers["x-service-signature"]), failed.body, failing.webhook_secret!)).toBe(true)
    expect(JSON.parse(failed.body)).toMatchObject({
      type: "batch.failed",
      data: { batch: { id: failing.id, status: "failed", failure: { code: "WEBSITE_ACCESS_ERROR" }, credits: { reserved: 1, refunded: 1 } } }
    })

    // Cancelled while its first pages are held (the drive reads 8 at once, 4 of a host): batch.cancelled, the pages it
    // never started skipped and refunded. Released once the drive has had time to see the cancel (it looks every 0.5 s).
    const cancelled = await client.batch.submit({
      input: { mode: "scrape", data: { format: "markdown", urls: Array.from({ length: HELD }, (_, i) => ({ url: `${site.url}/held/${i}` })) } },
      webhook: { url: receiver.url, retry: {} }
    })
    await eventually(async () => held.length >= 4 ? true : undefined, 30_000)
    expect((await client.batch.cancel(cancelled.id)).status).toBe("cancelling")
    await new Promise((r) => setTimeout(r, 2_000))
    const releasing = setInterval(() => held.splice(0).forEach((release) => release()), 50)
    const view = await settled(client, cancelled.id).finally(() => clearInterval(releasing))
    expect(view.status).toBe("cancelled")
    const read = view.progress.succeeded + view.progress.failed
    expect(read).toBe(new Set(site.exchanges.filter((e) => e.path.startsWith("/held/")).map((e) => e.path)).size)
    expect(view.progress.pending).toBe(HELD - read)
    expect(view.progress.pending).toBeGreaterThan(0)
    const event = await eventOf(cancelled.id)
    expect(event.headers["x-service-event"]).toBe("batch.cancelled")
    expect(verify(String(event.headers["x-service-signature"]), event.body, cancelled.webhook_secret!)).toBe(true)
    const payload = JSON.parse(event.body)
    expect(payload).toMatchObject({ type: "batch.cancelled", data: { batch: { id: cancelled.id, status: "cancelled" } } })
    expect(payload.data.batch.progress).toEqual(view.progress)
    expect(payload.data.batch.credits.refunded).toBe(HELD - view.progress.succeeded)

    for (const [id, type] of [[failing.id, "batch.failed"], [cancelled.id, "batch.cancelled"]] as const) {
      const listed = await client.webhooks.deliveries.list({ type: "batch", batch_id: id })
      expect(listed.data).toHaveLength(1)
      expect(listed.data[0]).toMatchObject({ event: type, source: { type: "batch", batch_id: id } })
    }
  }, 120_000)

  it("a crawl whose start URL reads nothing is refused with 400, nothing stored, nothing charged", async () => {
    const key = await service.key({ credits: 100 })
    const client = clientOf(key.secret)
    const missing = await refusal(client.batch.submit({
      input: { mode: "crawl", data: { format: "markdown", source: { type: "start_url", url: `${site.url}/nothing-here` } } }
    }))
    expect(missing).toMatchObject({ status: 400, code: "WEBSITE_ACCESS_ERROR" })
    expect(missing.message).toContain("404")
    const unresolved = await refusal(client.batch.submit({
      input: { mode: "crawl", data: { format: "markdown", source: { type: "start_url", url: "no-such-host.invalid" } } }
    }))
    expect(unresolved).toMatchObject({ status: 400, code: "WEBSITE_NOT_FOUND" })
    expect(await balance(key.orgId)).toBe(100)
    expect(await stored(key.orgId)).toBe(0)
  }, 60_000)
})

describe("private targets with the address guard on (PGlite)", () => {
  let service: TestService.TestService
  beforeAll(async () => {
    service = await TestService.start({ allowPrivateTargets: false, env: { SIFT_BATCH_SWEEP_MS: "1000" } })
  }, 60_000)
  afterAll(async () => {
    await service?.close()
  })
  const { balance, clientOf, records, refusal, settled, stored } = helpers(() => service)

  it("a scrape batch of private addresses: each an error record, none fetched, everything refunded", async () => {
    const key = await service.key({ credits: 100 })
    const client = clientOf(key.secret)
    const before = site.exchanges.length
    const urls = [`${site.url}/a`, `http://localhost:${site.port}/b`, "http://10.0.0.1/", "http://169.254.169.254/latest/meta-data/", `http://[::1]:${site.port}/`]
    const made = await client.batch.submit({ input: { mode: "scrape", data: { format: "markdown", urls: urls.map((url) => ({ url })) } } })
    expect(made.input).toMatchObject({ reserved: 5, invalid: 0 })
    const batch = await settled(client, made.id)
    // No page succeeded: the batch failed, naming the guard's refusal.
    expect(batch.status).toBe("failed")
    expect(batch.failure).toMatchObject({ code: "WEBSITE_ACCESS_ERROR" })
    const all = await records(client, made.id)
    expect(all).toHaveLength(5)
    for (const record of all) {
      expect(record).toMatchObject({ status: "error", error_code: "WEBSITE_ACCESS_ERROR", message: expect.stringContaining("private, loopback, link-local or metadata address") })
    }
    expect(site.exchanges.length).toBe(before)
    expect(batch.credits).toMatchObject({ reserved: 5, refunded: 5, net: 0 })
    expect(await balance(key.orgId)).toBe(100)
  }, 60_000)

  it("a crawl starting at a private address is refused uncharged, as a batch and as POST /web/crawl", async () => {
    const key = await service.key({ credits: 100 })
    const client = clientOf(key.secret)
    const before = site.exchanges.length
    const batch = await refusal(client.batch.submit({
      input: { mode: "crawl", data: { format: "markdown", source: { type: "start_url", url: `${site.url}/` } } }
    }))
    expect(batch).toMatchObject({ status: 400, code: "WEBSITE_ACCESS_ERROR" })
    expect(batch.message).toContain("private")
    const sync = await refusal(client.web.webCrawlMd({ url: `http://169.254.169.254/latest/` }))
    expect(sync).toMatchObject({ status: 400, code: "WEBSITE_ACCESS_ERROR" })
    expect(site.exchanges.length).toBe(before)
    expect(await balance(key.orgId)).toBe(100)
    expect(await stored(key.orgId)).toBe(0)
  }, 60_000)
})
