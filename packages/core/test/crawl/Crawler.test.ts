import { Chunk, Effect, Layer, Stream } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { readFileSync } from "node:fs"
import * as Cache from "../../src/Cache.js"
import * as Crawler from "../../src/Crawler.js"
import * as ScrapeRequest from "../../src/ScrapeRequest.js"
import { retryAfter } from "../../src/internal/fetch/hop.js"
import * as FixtureSite from "../support/FixtureSite.js"
import { fetcherFor, type Hosts, requested, startSites, text } from "../discovery/support/sites.js"

const doc = (title: string, body: string) =>
  FixtureSite.html(`<!doctype html><html lang="en"><head><title>${title}</title></head><body><h1>${title}</h1>${body}</body></html>`)
const links = (...hrefs: Array<string>) => hrefs.map((h) => `<p><a href="${h}">${h}</a></p>`).join("")

let throttled = 0
const pdf = readFileSync(new URL("../fixtures/documents/scanned.pdf", import.meta.url))
const hosts: Hosts = {
  "site.test": {
    "/robots.txt": text("User-agent: *\nDisallow: /private/\n"),
    "/": FixtureSite.redirect("http://www.site.test/en/"),
    "*": FixtureSite.status(404)
  },
  "www.site.test": {
    "/robots.txt": text("User-agent: *\nDisallow: /private/\n"),
    "/en/": doc("Home", links("/en/a", "/en/b", "/en/a#again", "http://site.test/en/b?utm_source=x", "/private/secret", "/style.css", "/en/file.pdf", "http://other.test/", "http://blog.site.test/post")),
    "/en/a": doc("Page A", links("/en/a/deep", "/en/throttled", "/en/loop")),
    "/en/b": doc("Page B", links("/en/", "/en/missing")),
    "/en/a/deep": doc("Deep", links("/en/a/deeper")),
    "/en/a/deeper": doc("Deeper", ""),
    "/en/throttled": (req, res, exchange) => {
      if (throttled++ === 0) {
        res.writeHead(429, { "retry-after": "1", "content-type": "text/html" })
        res.end("<h1>slow down</h1>")
        return
      }
      return doc("Throttled once", "")(req, res, exchange)
    },
    "/en/loop": FixtureSite.redirect("/en/loop2"),
    "/en/loop2": FixtureSite.redirect("/en/loop"),
    "/en/file.pdf": FixtureSite.html(pdf, { contentType: "application/pdf" }),
    "/private/secret": doc("Secret", ""),
    "*": FixtureSite.status(404)
  },
  "blog.site.test": { "/robots.txt": text(""), "/post": doc("Blog post", "") }
}

let site: FixtureSite.Site
beforeAll(async () => {
  site = await startSites(hosts)
})
afterAll(() => site.close())

const provide = <A, E>(effect: Effect.Effect<A, E, any>) =>
  effect.pipe(Effect.provide(Layer.merge(fetcherFor(site), Cache.layerMemory()))) as Effect.Effect<A, E>

describe("crawl", () => {
  it.live("follows links breadth first within the site after the start redirect, politely and once per page", () =>
    provide(Effect.gen(function*() {
      const { pages, summary } = yield* Crawler.collect({ url: "http://site.test/", maxDepth: 2, maxPages: 20, pdfShouldParse: false })
      const byUrl = new Map(pages.map((p) => [p.url, p]))
      const scraped = pages.filter((p) => p.outcome._tag === "Scraped").map((p) => p.url)
      expect(scraped).toEqual(expect.arrayContaining([
        "http://site.test/", "http://www.site.test/en/a", "http://www.site.test/en/b", "http://www.site.test/en/a/deep", "http://www.site.test/en/throttled"
      ]))
      // Depth 2 is the last read; its links are not followed.
      expect(byUrl.has("http://www.site.test/en/a/deeper")).toBe(false)
      expect(byUrl.get("http://www.site.test/en/a/deep")?.depth).toBe(2)
      // Each page once, whatever its spelling; furniture, other sites and subdomains never fetched.
      expect(new Set(pages.map((p) => p.url)).size).toBe(pages.length)
      expect(requested(site, "www.site.test").filter((p) => p === "/en/b").length).toBe(1)
      expect(requested(site, "www.site.test")).not.toContain("/style.css")
      expect(requested(site, "blog.site.test")).toEqual([])
      // robots.txt Disallow: skipped, never fetched; the PDF is skipped (pdf.shouldParse false), not a failure.
      expect(byUrl.get("http://www.site.test/private/secret")?.outcome).toEqual({ _tag: "Skipped", reason: "robots" })
      expect(requested(site, "www.site.test")).not.toContain("/private/secret")
      expect(byUrl.get("http://www.site.test/en/file.pdf")?.outcome).toEqual({ _tag: "Skipped", reason: "pdf" })
      // 429 with Retry-After: retried after the pause and read.
      const throttledPage = byUrl.get("http://www.site.test/en/throttled")!
      expect(throttledPage.outcome._tag).toBe("Scraped")
      // A redirect loop and a 404 are failures with their codes.
      const loop = byUrl.get("http://www.site.test/en/loop")!.outcome
      expect(loop._tag === "Failed" && loop.error.errorCode).toBe("WEBSITE_ACCESS_ERROR")
      const missing = byUrl.get("http://www.site.test/en/missing")!.outcome
      expect(missing._tag === "Failed" && missing.error.errorCode).toBe("WEBSITE_ACCESS_ERROR")
      expect(summary).toMatchObject({ numSucceeded: scraped.length, numFailed: 2, maxCrawlDepth: 2 })
      expect(summary.numSkipped).toBe(2)
      const markdown = pages.find((p) => p.url === "http://www.site.test/en/a")!.outcome
      expect(markdown._tag === "Scraped" && markdown.result.markdown.data).toContain("# Page A")
    })))

  it.live("follows subdomains when asked, keeps to maxPages and to an RE2 pattern (never excluding the start)", () =>
    provide(Effect.gen(function*() {
      const { pages, summary } = yield* Crawler.collect({
        url: "http://www.site.test/en/",
        followSubdomains: true,
        maxPages: 3,
        urlRegex: "/en/(a|b)$|/post"
      })
      expect(pages.map((p) => p.url).sort()).toEqual(["http://www.site.test/en/", "http://www.site.test/en/a", "http://www.site.test/en/b"])
      expect(summary.numSkipped).toBeGreaterThan(0)
      const wider = yield* Crawler.collect({ url: "http://www.site.test/en/", followSubdomains: true, maxDepth: 1, maxPages: 50 })
      expect(wider.pages.map((p) => p.url)).toContain("http://blog.site.test/post")
    })))

  it.live("refuses an unusable start or pattern, and stops starting pages after the soft budget", () =>
    provide(Effect.gen(function*() {
      const bad = yield* Effect.flip(Crawler.collect({ url: "http://www.site.test/", urlRegex: "(?<=x)" }))
      expect(bad.errorCode).toBe("INPUT_VALIDATION_ERROR")
      expect(bad.message).toContain("urlRegex")
      const none = yield* Effect.flip(Crawler.collect({ url: "not a url" }))
      expect(none.errorCode).toBe("INPUT_VALIDATION_ERROR")
      const stopped = yield* Crawler.collect({ url: "http://www.site.test/en/", maxPages: 50, stopAfterMs: 1, concurrency: 1 })
      expect(stopped.pages.length).toBe(1)
      expect(stopped.summary.unread).toBeGreaterThan(0)
    })))

  it.live("streams pages as they are read", () =>
    provide(Effect.gen(function*() {
      const first = yield* Stream.runCollect(Crawler.crawl({ url: "http://www.site.test/en/", maxDepth: 1 }).pipe(Stream.take(2)))
      expect(Chunk.size(first)).toBe(2)
      expect(Chunk.unsafeHead(first).url).toBe("http://www.site.test/en/")
    })))
})

describe("batch", () => {
  it.live("reads the listed URLs (robots.txt does not apply to URLs asked for by name) and carries itemId and meta", () =>
    provide(Effect.gen(function*() {
      const pages = Chunk.toArray(yield* Stream.runCollect(Crawler.batch([
        { url: "http://www.site.test/private/secret", itemId: "s", meta: { n: 1 } },
        { url: "http://www.site.test/en/missing", itemId: "m" },
        { url: "ftp://nope" }
      ])))
      const byItem = new Map(pages.map((p) => [p.itemId, p]))
      expect(byItem.get("s")?.outcome._tag).toBe("Scraped")
      expect(byItem.get("s")?.meta).toEqual({ n: 1 })
      expect(byItem.get("m")?.outcome._tag).toBe("Failed")
      const invalid = byItem.get(undefined)!.outcome
      expect(invalid._tag === "Failed" && invalid.error.errorCode).toBe("INPUT_VALIDATION_ERROR")
    })))
})

describe("Retry-After", () => {
  it("reads delta seconds and HTTP dates", () => {
    expect(retryAfter("120")).toBe(120_000)
    expect(retryAfter("Wed, 21 Oct 2015 07:28:10 GMT", Date.parse("Wed, 21 Oct 2015 07:28:00 GMT"))).toBe(10_000)
    expect(retryAfter("soon")).toBeUndefined()
    expect(retryAfter(undefined)).toBeUndefined()
  })
})

describe("Crawler.pageRequest", () => {
  it("maps page options as crawl and batch bodies spell them to one scrape request, which decodes", () => {
    const request = Crawler.pageRequest("markdown", {
      country: "de",
      includeSelectors: ["main"],
      excludeSelectors: null,
      useMainContentOnly: true,
      includeFrames: true,
      waitForMs: 0,
      pdf: { start: 2, end: 3, ocr: true },
      includeImages: true,
      shortenBase64Images: false,
      maxAgeMs: null,
      zdr: "enabled"
    })
    expect(request).toEqual({
      formats: { markdown: true, html: false },
      sharedParams: {
        country: "de",
        includeSelectors: ["main"],
        mainContentOnly: true,
        includeFrames: true,
        parsers: { pdf: { startPage: 2, endPage: 3, ocr: "auto" } }
      },
      markdownParams: { includeLinks: true, includeImages: true, inlineImages: "preserve" },
      zdr: "enabled"
    })
    expect(Crawler.pageRequest("markdown", { includeHTML: true, waitForMs: 1500, maxAgeMs: 0 })).toMatchObject({
      formats: { markdown: true, html: true },
      sharedParams: { waitFor: 1500 },
      maxAgeMs: 0
    })
    // HTML pages take no Markdown parameters (the request schema refuses them without formats.markdown).
    expect(Crawler.pageRequest("html", { includeLinks: false })).toEqual({ formats: { markdown: false, html: true }, sharedParams: {} })
    for (const format of ["markdown", "html"] as const) {
      expect(Effect.runSync(Effect.either(ScrapeRequest.decode({ ...Crawler.pageRequest(format, { pdf: { ocr: false } }), url: "https://example.com/" })))._tag).toBe("Right")
    }
  })
})
