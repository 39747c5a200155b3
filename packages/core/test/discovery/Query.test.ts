import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import * as UrlDiscovery from "../../src/UrlDiscovery.js"
import * as UrlIndex from "../../src/UrlIndex.js"
import * as FixtureSite from "../support/FixtureSite.js"
import { fetcherFor, type Hosts, page, requested, run, runFailure, sitemapIndex, startSites, text, urlset, xml } from "./support/sites.js"

const rss = (links: ReadonlyArray<string>) =>
  `<?xml version="1.0"?><rss version="2.0"><channel><title>News</title><link>http://q.test/</link>` +
  links.map((l) => `<item><title>t</title><link>${l}</link><pubDate>Mon, 01 Jan 2024 00:00:00 GMT</pubDate></item>`).join("") +
  `</channel></rss>`
const atom = (links: ReadonlyArray<string>) =>
  `<?xml version="1.0"?><feed xmlns="http://www.w3.org/2005/Atom"><title>A</title><link href="http://q.test/"/>` +
  links.map((l) => `<entry><title>t</title><link rel="alternate" href="${l}"/><updated>2024-02-02</updated></entry>`).join("") +
  `</feed>`

const hosts: Hosts = {
  "q.test": {
    "/robots.txt": text("Sitemap: http://q.test/pages.xml\nSitemap: http://q.test/list.txt\nSitemap: http://q.test/news.rss\n"),
    "/pages.xml": xml(urlset([
      ...Array.from({ length: 30 }, (_, i) => `http://q.test/products/item-${i}`),
      "http://q.test/blog/pricing-plans-explained",
      "http://q.test/pricing",
      "http://q.test/about",
      "http://blog.q.test/hello",
      "http://other.test/not-ours"
    ])),
    "/list.txt": text("http://q.test/from-text-1\n\n  http://q.test/from-text-2  \nnot a url\n"),
    "/news.rss": xml(rss(["http://q.test/news/one", "http://q.test/news/two"])),
    "/atom.xml": xml(atom(["http://q.test/posts/atom-entry"])),
    // Found by nothing but `sitemapUrl`.
    "/pinned.xml": xml(urlset(["http://q.test/pinned-only"])),
    "/mixed-index.xml": xml(sitemapIndex(["http://q.test/pinned.xml", "http://127.0.0.1:1/part.xml"]))
  },
  "slow.test": {
    "/robots.txt": text("Sitemap: http://slow.test/fast.xml\nSitemap: http://slow.test/slow.xml\n"),
    "/fast.xml": xml(urlset(["http://slow.test/quick"])),
    "/slow.xml": FixtureSite.slow({ headersAfterMs: 20_000 })
  },
  "feeds.test": {
    "/": FixtureSite.html(
      `<html><head><title>Feeds home</title><link rel="alternate" type="application/rss+xml" href="/blog/feed/">` +
        `</head><body><p>No links here.</p></body></html>`
    ),
    "/blog/feed/": xml(rss(Array.from({ length: 120 }, (_, i) => `http://feeds.test/blog/post-${i}`)))
  },
  "half.test": { "/sitemap.xml": xml(urlset(["http://half.test/a"])) },
  "www.half.test": { "*": FixtureSite.slow({ headersAfterMs: 20_000 }) },
  "many.test": {
    "/sitemap_index.xml": xml(sitemapIndex(Array.from({ length: 40 }, (_, p) => `http://many.test/part-${p}.xml`))),
    ...Object.fromEntries(Array.from({ length: 40 }, (_, p) => [
      `/part-${p}.xml`,
      xml(urlset(Array.from({ length: 100 }, (_, i) => `http://many.test/p${p}/u${i}`)))
    ]))
  },
  "stall.test": { "*": FixtureSite.slow({ headersAfterMs: 20_000 }) },
  "rank.test": {
    "/": page("Rank home", ["/pricing", "/blog/pricing-plans-explained", "/about", "/careers"]),
    "/pricing": page("Pricing", [], "Plans and prices for teams"),
    "/blog/pricing-plans-explained": page("How our pricing plans work", [], "A guide to plans"),
    "/about": page("About us", [], "Who we are"),
    "/careers": page("Careers", [], "Jobs at Rank, no plans")
  }
}

let site: FixtureSite.Site
beforeAll(async () => {
  site = await startSites(hosts)
  // Reached as `127.0.0.1:<port>`, the site's own address: its sitemap lists URLs with that port.
  hosts["127.0.0.1"] = {
    "/robots.txt": text(`Sitemap: http://127.0.0.1:${site.port}/ported.xml\n`),
    "/ported.xml": xml(urlset([`http://127.0.0.1:${site.port}/ported/a`, `http://127.0.0.1:${site.port}/ported/b`]))
  }
})
afterAll(() => site.close())

const map = (options: UrlDiscovery.DiscoverOptions) => run(site, UrlDiscovery.discover(options))
const fail = (options: UrlDiscovery.DiscoverOptions) => runFailure(site, UrlDiscovery.discover(options))
const urlsOf = (result: UrlDiscovery.Discovery) => result.urls.map((u) => u.url)

describe("UrlDiscovery query semantics", () => {
  it("reads XML, text and RSS sitemaps from robots.txt and the Atom feed at a common location", async () => {
    const result = await map({ domain: "q.test" })
    const urls = urlsOf(result)
    expect(urls).toEqual(expect.arrayContaining([
      "http://q.test/from-text-1",
      "http://q.test/from-text-2",
      "http://q.test/news/one",
      "http://q.test/posts/atom-entry"
    ]))
    expect(urls).toHaveLength(30 + 3 + 2 + 2 + 1)
    expect(urls).not.toContain("http://other.test/not-ours")
    expect(urls).not.toContain("http://blog.q.test/hello")
    expect(result.urls.find((u) => u.url === "http://q.test/news/one")!.lastmod).toBe("Mon, 01 Jan 2024 00:00:00 GMT")
  })

  it("reads the feeds a home page announces, and lists the home page with its title", async () => {
    const result = await map({ domain: "feeds.test" })
    expect(result.urls).toHaveLength(121)
    expect(result.urls.find((u) => u.url === "http://feeds.test/")!.title).toBe("Feeds home")
    expect(urlsOf(result)).toContain("http://feeds.test/blog/post-119")
    expect(result.meta.sitemapsFetched).toBe(1)
  })

  it("includes subdomains only when asked", async () => {
    expect(urlsOf(await map({ domain: "q.test", includeSubdomains: true }))).toContain("http://blog.q.test/hello")
  })

  it("applies urlRegex before maxLinks, so maxLinks counts matching URLs", async () => {
    const result = await map({ domain: "q.test", urlRegex: "/products/item-[0-9]+$", maxLinks: 5 })
    expect(urlsOf(result)).toEqual(Array.from({ length: 5 }, (_, i) => `http://q.test/products/item-${i}`))
    const all = await map({ domain: "q.test", urlRegex: "item-2[0-9]" })
    expect(all.urls).toHaveLength(10)
  })

  it("stops reading sitemaps once maxLinks URLs are in hand, and has no cap of its own", async () => {
    const few = await map({ domain: "many.test", maxLinks: 150 })
    expect(few.urls).toHaveLength(150)
    const parts = requested(site, "many.test").filter((p) => p.startsWith("/part-"))
    expect(parts.length).toBeLessThan(20)
    expect(few.meta.sitemapsSkipped).toBe(40 - parts.length)
    const all = await map({ domain: "many.test", maxLinks: 100_000 })
    expect(all.urls).toHaveLength(4_000)
  })

  it("refuses invalid queries with InvalidRequest naming the field", async () => {
    const badRegex = await fail({ domain: "q.test", urlRegex: "(unclosed" })
    expect(badRegex).toMatchObject({ _tag: "InvalidRequest", field: "urlRegex" })
    expect(badRegex.message).toContain("(unclosed")
    expect(await fail({ domain: "q.test", urlRegex: "(?=lookahead)" })).toMatchObject({ field: "urlRegex" })
    expect(await fail({ domain: "q.test", urlRegex: "a".repeat(257) })).toMatchObject({ field: "urlRegex" })
    expect(await fail({ domain: "q.test", maxLinks: 0 })).toMatchObject({ field: "maxLinks" })
    expect(await fail({ domain: "q.test", maxLinks: 100_001 })).toMatchObject({ field: "maxLinks" })
    expect(await fail({ domain: "q.test", search: "x" })).toMatchObject({ field: "search" })
    expect(await fail({ domain: "ab" })).toMatchObject({ field: "domain" })
    expect(await fail({ domain: "q.test", sitemapUrl: "ftp://q.test/x.xml" })).toMatchObject({ field: "sitemapUrl" })
    expect((await fail({ domain: "q.test", maxLinks: 0 })).errorCode).toBe("INPUT_VALIDATION_ERROR")
  })

  it("reads only the given sitemapUrl", async () => {
    const result = await map({ domain: "q.test", sitemapUrl: "http://q.test/pinned.xml" })
    expect(urlsOf(result)).toEqual(["http://q.test/pinned-only"])
    expect(result.meta).toMatchObject({ sitemapsDiscovered: 1, sitemapsFetched: 1, sitemapsSkipped: 0, errors: [] })
  })

  it("fails with the fetch error when the given sitemapUrl cannot be fetched, as when no host answers", async () => {
    // Nothing listens on port 1 of loopback: the connection is refused.
    const refused = await fail({ domain: "q.test", sitemapUrl: "http://127.0.0.1:1/sitemap.xml" })
    expect(refused).toMatchObject({ _tag: "WebsiteError", reason: "Unreachable", errorCode: "WEBSITE_ACCESS_ERROR" })
    const unresolved = await fail({ domain: "q.test", sitemapUrl: "http://nowhere.invalid/sitemap.xml" })
    expect(unresolved).toMatchObject({ _tag: "WebsiteError", errorCode: "WEBSITE_NOT_FOUND" })
    const missing = await fail({ domain: "q.test", sitemapUrl: "http://q.test/no-such-sitemap.xml" })
    expect(missing).toMatchObject({ _tag: "WebsiteError", reason: "HttpStatus", status: 404 })
    // The domain alone (no sitemapUrl) still maps: only the given sitemap is the request.
    expect(urlsOf(await map({ domain: "q.test" }))).toContain("http://q.test/pricing")
  })

  it("keeps a sitemapUrl index whose parts fail: their errors are reported, the others' URLs returned", async () => {
    const result = await map({ domain: "q.test", sitemapUrl: "http://q.test/mixed-index.xml" })
    expect(urlsOf(result)).toEqual(["http://q.test/pinned-only"])
    expect(result.meta.errors).toHaveLength(1)
    expect(result.meta.errors[0]).toMatch(/^http:\/\/127\.0\.0\.1:1\/part\.xml: /)
  })

  it("keeps the port of a domain: the site on that port is mapped, and the answer names it", async () => {
    const address = `127.0.0.1:${site.port}`
    const result = await map({ domain: address })
    expect(result.domain).toBe(address)
    expect(urlsOf(result)).toEqual(expect.arrayContaining([`http://${address}/ported/a`, `http://${address}/ported/b`]))
    expect(requested(site, "127.0.0.1")).toContain("/ported.xml")
    // A URL with the port means the same.
    expect((await map({ domain: `http://${address}/some/page` })).domain).toBe(address)
  })

  it("ranks by relevance for search, most relevant first, dropping unrelated pages", async () => {
    const result = await map({ domain: "rank.test", search: "pricing plans" })
    const paths = result.urls.map((u) => new URL(u.url).pathname)
    expect(paths[0]).toBe("/blog/pricing-plans-explained")
    expect(paths).toContain("/pricing")
    expect(paths).not.toContain("/about")
    expect(result.urls[0]!.title).toBe("How our pricing plans work")
  })

  it("returns what was found when the deadline passes with return-partial, and fails without results", async () => {
    const partial = await map({ domain: "slow.test", timeout: { milliseconds: 1_500, behavior: "return-partial" } })
    expect(partial.partial).toBe(true)
    expect(urlsOf(partial)).toEqual(["http://slow.test/quick"])
    const failed = await fail({ domain: "slow.test", timeout: { milliseconds: 1_000 } })
    expect(failed).toMatchObject({ _tag: "RequestTimeout" })
    const empty = await fail({ domain: "stall.test", timeout: { milliseconds: 1_000, behavior: "return-partial" } })
    expect(empty).toMatchObject({ _tag: "RequestTimeout" })
  }, 15_000)

  it("does not wait for a host variant that hangs once another has answered", async () => {
    const started = Date.now()
    const result = await map({ domain: "half.test" })
    expect(urlsOf(result)).toEqual(["http://half.test/a"])
    expect(Date.now() - started).toBeLessThan(8_000)
  }, 15_000)

  it("fails with a WebsiteError when no host variant answers", async () => {
    const error = await fail({ domain: "nowhere.invalid" })
    expect(error).toMatchObject({ _tag: "WebsiteError" })
  })

  it("reports progress and ends with the final count", async () => {
    const seen: Array<UrlDiscovery.Progress> = []
    const result = await map({ domain: "q.test", onProgress: (p) => seen.push(p) })
    expect(seen.length).toBeGreaterThan(0)
    expect(seen[seen.length - 1]!.urls).toBe(result.urls.length)
  })

  it("records URLs in the UrlIndex and answers with the metadata it holds", async () => {
    const program = Effect.gen(function*() {
      const index = yield* UrlIndex.UrlIndex
      yield* index.enrich("q.test", [{ url: "http://q.test/pricing", title: "Pricing", language: "en" }])
      const result = yield* UrlDiscovery.discover({ domain: "q.test" })
      const stored = yield* index.list("q.test")
      const queued = yield* index.unenriched("q.test", 1000)
      const without = yield* UrlDiscovery.discover({ domain: "q.test", useIndex: false })
      return { result, stored, queued, without }
    })
    const { queued, result, stored, without } = await Effect.runPromise(
      program.pipe(Effect.provide(UrlIndex.layerMemory), Effect.provide(fetcherFor(site)))
    )
    expect(result.urls.find((u) => u.url === "http://q.test/pricing")).toMatchObject({ title: "Pricing", language: "en" })
    expect(stored).toHaveLength(result.urls.length)
    expect(queued).toHaveLength(result.urls.length - 1)
    expect(without.urls.find((u) => u.url === "http://q.test/pricing")!.title).toBeUndefined()
  })
})

describe("UrlDiscovery.enrich", () => {
  it("reads queued pages into the index, and marks failures so they are not retried forever", async () => {
    const program = Effect.gen(function*() {
      const index = yield* UrlIndex.UrlIndex
      yield* index.record("rank.test", [{ url: "http://rank.test/pricing" }, { url: "http://rank.test/missing" }])
      const queued = yield* index.unenriched("rank.test", 10)
      const read = yield* UrlDiscovery.enrich("rank.test", queued)
      const stored = yield* index.lookup("rank.test", queued)
      return { queued, read, stored, after: yield* index.unenriched("rank.test", 10) }
    })
    const { after, queued, read, stored } = await Effect.runPromise(
      program.pipe(Effect.provide(UrlIndex.layerMemory), Effect.provide(fetcherFor(site)))
    )
    expect(queued).toEqual(["http://rank.test/pricing", "http://rank.test/missing"])
    expect(read[0]).toMatchObject({ url: "http://rank.test/pricing", title: "Pricing", description: "Plans and prices for teams", language: "en" })
    expect(stored.get("http://rank.test/pricing")!.title).toBe("Pricing")
    expect(stored.get("http://rank.test/missing")!.title).toBeUndefined()
    expect(after).toEqual([])
  })
})

// Kept apart: a sitemap index that points at itself through a relative URL must not loop either.
describe("sitemap index edge cases", () => {
  it("resolves relative index entries and reads each once", async () => {
    const local = await startSites({
      "idx.test": {
        "/sitemap_index.xml": xml(sitemapIndex(["sitemap_index.xml", "./part.xml", "/part.xml#dup"])),
        "/part.xml": xml(urlset(["http://idx.test/p"]))
      }
    })
    try {
      const result = await run(local, UrlDiscovery.discover({ domain: "idx.test", crawl: "never" }))
      expect(urlsOf(result)).toEqual(["http://idx.test/p"])
      expect(result.meta.sitemapsFetched).toBe(2)
    } finally {
      await local.close()
    }
  })
})
