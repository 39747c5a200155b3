/**
 * `POST /v1/web/crawl` through the official SDK (`client.web.webCrawlMd`): a three-level fixture site with a PDF, a
 * redirecting start page and a slow page; credits are `maxPages` held and one per page read charged.
 */
import * as Auth from "@sift/auth"
import ContextDev from "context.dev"
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as FixtureSite from "../../../core/test/support/FixtureSite.js"
import * as TestService from "../support/TestService.js"

const doc = (title: string, links: ReadonlyArray<string>) =>
  FixtureSite.html(`<html><head><title>${title}</title></head><body><main><h1>${title}</h1><p>About ${title}.</p>${links.map((l) => `<a href="${l}">${l}</a>`).join(" ")}</main></body></html>`)

type Crawled = Awaited<ReturnType<ContextDev["web"]["webCrawlMd"]>> & { key_metadata: { credits_consumed: number }; partial?: boolean }

describe("POST /web/crawl through the official SDK", () => {
  let service: TestService.TestService
  let site: FixtureSite.Site
  let client: ContextDev
  let secret: string
  let orgId: string
  beforeAll(async () => {
    site = await FixtureSite.start({
      "/": FixtureSite.redirect("/home"),
      "/home": doc("Home", ["/a", "/b", "/doc.pdf", "/slow", "/missing"]),
      "/a": doc("A", ["/a/1", "/a/2"]),
      "/a/1": doc("A1", ["/a/1/x"]),
      "/a/2": doc("A2", []),
      "/b": doc("B", ["/home"]),
      "/doc.pdf": FixtureSite.html("%PDF-1.4 not really", { contentType: "application/pdf" }),
      "/slow": FixtureSite.slow({ headersAfterMs: 15_000 })
    })
    service = await TestService.start()
    const key = await service.key({ credits: 1_000 })
    secret = key.secret
    orgId = key.orgId
    client = new ContextDev({ apiKey: secret, baseURL: service.baseUrl, maxRetries: 0, timeout: 120_000 })
  })
  afterAll(async () => {
    await service?.close()
    site?.close()
  })
  const balance = () => service.run(Effect.flatMap(Auth.CreditLedger.CreditLedger, (l) => l.balance(orgId)))

  it("crawls within depth and pattern, skips the PDF when asked, and charges the pages read", async () => {
    const before = (await balance()).remaining
    const crawled = await client.web.webCrawlMd({
      url: `${site.url}/`,
      maxDepth: 1,
      maxPages: 10,
      urlRegex: "/(home|a|b|doc\\.pdf|missing)$",
      pdf: { shouldParse: false }
    }) as Crawled
    const byUrl = new Map(crawled.results.map((r) => [r.metadata.url, r]))
    expect(byUrl.get(`${site.url}/`)?.metadata).toMatchObject({ crawlDepth: 0, success: true, title: "Home", finalUrl: `${site.url}/home` })
    expect(byUrl.get(`${site.url}/a`)?.markdown).toContain("# A")
    expect(byUrl.get(`${site.url}/a`)?.metadata.crawlDepth).toBe(1)
    expect(byUrl.has(`${site.url}/a/1`)).toBe(false)
    expect(byUrl.has(`${site.url}/slow`)).toBe(false)
    expect(byUrl.get(`${site.url}/missing`)?.metadata).toMatchObject({ success: false, statusCode: 404 })
    expect(byUrl.get(`${site.url}/missing`)?.markdown).toBe("")
    expect(crawled.metadata).toMatchObject({ numSucceeded: 3, numFailed: 1, numUrls: 4, maxCrawlDepth: 1 })
    // The PDF (pdf.shouldParse false) and /slow (not matching) are skipped, not failures.
    expect(crawled.metadata.numSkipped).toBe(2)
    expect(crawled.key_metadata.credits_consumed).toBe(3)
    expect((await balance()).remaining).toBe(before - 3)
  }, 120_000)

  it("a soft budget returns what was read by then; a hard deadline with return-partial says partial", async () => {
    const soft = await client.web.webCrawlMd({ url: `${site.url}/home`, maxDepth: 1, stopAfterMs: 10_000 }) as Crawled
    expect(soft.results.length).toBeGreaterThan(1)
    expect(soft.partial).toBeUndefined()
    // Fresh reads (maxAgeMs 0): the slow page the soft run waited for is in the cache now.
    const hard = await client.web.webCrawlMd({ url: `${site.url}/home`, maxDepth: 1, maxAgeMs: 0, timeoutOpts: { milliseconds: 3_000, behavior: "return-partial" } }) as Crawled
    expect(hard.partial).toBe(true)
    expect(hard.results.some((r) => r.metadata.url === `${site.url}/home`)).toBe(true)
  }, 120_000)

  it("holds maxPages credits up front: a balance below it is 403 USAGE_EXCEEDED, uncharged; the unused rest is released", async () => {
    const poor = await service.key({ credits: 4 })
    const poorClient = new ContextDev({ apiKey: poor.secret, baseURL: service.baseUrl, maxRetries: 0, timeout: 120_000 })
    const poorBalance = () => service.run(Effect.flatMap(Auth.CreditLedger.CreditLedger, (l) => l.balance(poor.orgId))).then((b) => b.remaining)
    const asked = site.exchanges.length
    const refused = await poorClient.web.webCrawlMd({ url: `${site.url}/b`, maxDepth: 0, maxPages: 5 })
      .then(() => undefined, (e: { status?: number; error?: { error_code?: string } }) => e)
    expect(refused).toMatchObject({ status: 403, error: { error_code: "USAGE_EXCEEDED" } })
    expect(site.exchanges.length).toBe(asked)
    expect(await poorBalance()).toBe(4)
    // maxPages 4 is covered; one page is read and charged, the three held for the rest are released.
    const crawled = await poorClient.web.webCrawlMd({ url: `${site.url}/b`, maxDepth: 0, maxPages: 4 }) as Crawled
    expect(crawled.metadata).toMatchObject({ numSucceeded: 1, numUrls: 1 })
    expect(crawled.key_metadata.credits_consumed).toBe(1)
    expect(await poorBalance()).toBe(3)
  }, 60_000)

  it("refuses bad input and an unreadable start page, charging nothing", async () => {
    const before = (await balance()).remaining
    const post = async (body: unknown) => {
      const response = await fetch(`${service.baseUrl}/web/crawl`, {
        method: "POST",
        body: JSON.stringify(body),
        headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" }
      })
      return { status: response.status, body: await response.json() as { error_code: string; message: string } }
    }
    expect(await post({ url: `${site.url}/`, maxPages: 501 })).toMatchObject({ status: 400, body: { error_code: "INPUT_VALIDATION_ERROR" } })
    const regex = await post({ url: `${site.url}/`, urlRegex: "(a)\\1" })
    expect(regex).toMatchObject({ status: 400, body: { error_code: "INPUT_VALIDATION_ERROR" } })
    expect(regex.body.message).toContain("urlRegex")
    expect(await post({ url: "example.com" })).toMatchObject({ status: 400, body: { error_code: "INPUT_VALIDATION_ERROR" } })
    expect(await post({ url: `${site.url}/missing` })).toMatchObject({ status: 400, body: { error_code: "WEBSITE_ACCESS_ERROR" } })
    expect(await post({ url: `${site.url}/slow`, maxAgeMs: 0, timeoutOpts: { milliseconds: 2_000 } })).toMatchObject({ status: 408, body: { error_code: "REQUEST_TIMEOUT" } })
    expect((await balance()).remaining).toBe(before)
  }, 120_000)
})
