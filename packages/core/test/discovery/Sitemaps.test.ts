import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import * as UrlDiscovery from "../../src/UrlDiscovery.js"
import * as FixtureSite from "../support/FixtureSite.js"
import { gzFile, type Hosts, page, requested, run, sitemapIndex, startSites, text, urlset, xml } from "./support/sites.js"

const range = (n: number, f: (i: number) => string) => Array.from({ length: n }, (_, i) => f(i))

// Three levels of gzip indexes: root -> 2 indexes -> 2 indexes each -> 2 urlsets each (5 URLs each): 40 URLs.
const nestedGz: FixtureSite.Routes = { "/robots.txt": text("User-agent: *\nAllow: /\nSitemap: http://gz.test/root.xml.gz\n") }
nestedGz["/root.xml.gz"] = gzFile(sitemapIndex(range(2, (a) => `http://gz.test/l1-${a}.xml.gz`)))
for (let a = 0; a < 2; a++) {
  nestedGz[`/l1-${a}.xml.gz`] = gzFile(sitemapIndex(range(2, (b) => `http://gz.test/l2-${a}-${b}.xml.gz`)))
  for (let b = 0; b < 2; b++) {
    nestedGz[`/l2-${a}-${b}.xml.gz`] = gzFile(sitemapIndex(range(2, (c) => `/l3-${a}-${b}-${c}.xml.gz`)))
    for (let c = 0; c < 2; c++) {
      nestedGz[`/l3-${a}-${b}-${c}.xml.gz`] = gzFile(urlset(range(5, (d) => `http://gz.test/p/${a}${b}${c}${d}`)))
    }
  }
}

const brokenXml = urlset(range(4, (i) => `http://broken.test/b${i}`))
const big = range(60_000, (i) => `https://big.test/item/${i}`)
// 20,000 URLs, the document broken after the 15,000th.
const tailed = urlset(range(20_000, (i) => `http://tail.test/t${i}`))
const tailCut = tailed.indexOf("http://tail.test/t15000<")

const hosts: Hosts = {
  "gz.test": nestedGz,
  // Found at the common location, no robots.txt at all.
  "big.test": { "/sitemap.xml": xml(urlset(big, "2024-05-01")) },
  "links.test": {
    "/robots.txt": text("User-agent: *\nDisallow: /private\n"),
    "/": page("Home", ["/a", "/b", "/private/x", "https://elsewhere.test/", "/a#top", "/style.css"]),
    "/a": page("Page A", ["/c", "/"]),
    "/b": page("Page B", ["/d?utm_source=mail"]),
    "/c": page("Page C", []),
    "/d": page("Page D", ["/b"]),
    "/private/x": page("Secret", ["/private/y"])
  },
  "www.redir.test": { "*": (req, res) => FixtureSite.redirect(`http://redir.test${req.url}`, 301)(req, res, undefined as never) },
  "redir.test": {
    "/robots.txt": text("Sitemap: http://redir.test/sitemap.xml\n"),
    "/sitemap.xml": xml(urlset([
      "http://www.redir.test/p1",
      "http://redir.test/p1#section",
      "http://REDIR.test:80/p2?utm_source=feed&id=7",
      "http://redir.test/p3"
    ]))
  },
  "robots.test": {
    "/robots.txt": text("User-agent: *\nDisallow: /members\nSitemap: http://robots.test/sitemap.xml\nSitemap: /more/extra.xml\n"),
    "/sitemap.xml": xml(urlset(["http://robots.test/", "http://robots.test/members/area", "http://robots.test/open"])),
    "/more/extra.xml": xml(urlset(["http://robots.test/extra"]))
  },
  "loop.test": {
    "/robots.txt": text("Sitemap: http://loop.test/a.xml\n"),
    "/a.xml": xml(sitemapIndex(["http://loop.test/b.xml", "http://loop.test/a.xml"])),
    "/b.xml": xml(sitemapIndex(["http://loop.test/a.xml", "http://loop.test/c.xml", "http://loop.test/b.xml#again"])),
    "/c.xml": xml(urlset(["http://loop.test/only"]))
  },
  "broken.test": {
    "/robots.txt": text("Sitemap: http://broken.test/broken.xml\nSitemap: http://broken.test/good.xml\n"),
    // Cut off right after the text of the fourth URL: "b3" might have gone on ("b30"), so it is not an entry.
    "/broken.xml": xml(brokenXml.slice(0, brokenXml.indexOf("/b3") + 3)),
    "/good.xml": xml(urlset(["http://broken.test/g1", "http://broken.test/g2"]))
  },
  "tail.test": {
    "/robots.txt": text("Sitemap: http://tail.test/tail.xml.gz\n"),
    "/tail.xml.gz": gzFile(tailed.slice(0, tailCut) + "http://tail.test/t15000</lo" + tailed.slice(tailCut + "http://tail.test/t15000</loc>".length))
  },
  "huge.test": {
    "/robots.txt": text("Sitemap: http://huge.test/huge.xml\nSitemap: http://huge.test/small.xml\n"),
    "/huge.xml": FixtureSite.large(64 * 1024 * 1024, { contentType: "application/xml" }),
    "/small.xml": xml(urlset(["http://huge.test/s1", "http://huge.test/s2"]))
  }
}

let site: FixtureSite.Site
beforeAll(async () => {
  site = await startSites(hosts)
})
afterAll(() => site.close())

const map = (options: UrlDiscovery.DiscoverOptions) => run(site, UrlDiscovery.discover(options))
const paths = (result: UrlDiscovery.Discovery) => result.urls.map((u) => new URL(u.url).pathname).sort()

describe("UrlDiscovery on fixture sites", () => {
  it("follows gzip sitemap indexes three levels deep", async () => {
    const result = await map({ domain: "gz.test" })
    expect(result.urls).toHaveLength(40)
    expect(result.urls.map((u) => u.url)).toContain("http://gz.test/p/1111")
    expect(result.urls.map((u) => u.url)).toContain("http://gz.test/p/0000")
    // root + 2 + 4 indexes + 8 urlsets
    expect(result.meta.sitemapsFetched).toBe(15)
    expect(result.meta.sitemapsDiscovered).toBe(15)
    expect(result.meta.errors).toEqual([])
    expect(result.partial).toBe(false)
  })

  it("returns all 60,000 URLs of one sitemap, with lastmod, and no more than maxLinks", async () => {
    const all = await map({ domain: "big.test", maxLinks: 100_000 })
    expect(all.urls).toHaveLength(60_000)
    expect(all.urls[0]).toEqual({ url: "https://big.test/item/0", lastmod: "2024-05-01" })
    expect(all.urls[59_999]!.url).toBe("https://big.test/item/59999")
    const capped = await map({ domain: "big.test" })
    expect(capped.urls).toHaveLength(10_000)
  }, 30_000)

  it("crawls links when there is no sitemap, respecting robots.txt for fetching only", async () => {
    const result = await map({ domain: "links.test" })
    expect(paths(result)).toEqual(["/", "/a", "/b", "/c", "/d", "/private/x"])
    const byPath = new Map(result.urls.map((u) => [new URL(u.url).pathname, u]))
    expect(byPath.get("/a")!.title).toBe("Page A")
    expect(byPath.get("/")!.language).toBe("en")
    // Listed (it is linked) but never fetched: robots.txt disallows it.
    expect(requested(site, "links.test")).not.toContain("/private/x")
    expect(result.urls.some((u) => u.url.includes("elsewhere"))).toBe(false)
    expect(result.meta.pagesCrawled).toBe(5)
  })

  it("folds www redirecting to the apex, fragments, default ports, host case and tracking parameters", async () => {
    for (const domain of ["redir.test", "www.redir.test"]) {
      const result = await map({ domain })
      expect(result.urls.map((u) => u.url)).toEqual([
        "http://www.redir.test/p1",
        "http://redir.test/p2?id=7",
        "http://redir.test/p3"
      ])
      // The fragment spelling of p1 repeats an entry (what a sitemap batch reports as input.duplicates); p2 is listed once.
      expect(result.meta.duplicates).toBe(1)
    }
  })

  it("keeps URLs a sitemap lists even where robots.txt disallows crawling", async () => {
    const result = await map({ domain: "robots.test" })
    expect(result.urls.map((u) => u.url)).toContain("http://robots.test/members/area")
    // A relative `Sitemap:` line is resolved against robots.txt.
    expect(result.urls.map((u) => u.url)).toContain("http://robots.test/extra")
  })

  it("reads each sitemap of a loop once", async () => {
    const result = await map({ domain: "loop.test" })
    expect(result.urls.map((u) => u.url)).toEqual(["http://loop.test/only"])
    expect(result.meta.sitemapsFetched).toBe(3)
    expect(requested(site, "loop.test").filter((p) => p === "/a.xml")).toHaveLength(1)
  })

  it("uses the entries of malformed XML before the damage, and the other sitemaps", async () => {
    const result = await map({ domain: "broken.test" })
    expect(paths(result)).toEqual(["/b0", "/b1", "/b2", "/g1", "/g2"])
    expect(result.meta.errors).toHaveLength(1)
    expect(result.meta.errors[0]).toMatch(/^http:\/\/broken\.test\/broken\.xml: malformed XML/)
    expect(result.meta.sitemapsFetched).toBe(2)
  })

  it("stops reading a sitemap once maxLinks is met: what follows is neither kept nor read (its damage unmet)", async () => {
    const capped = await map({ domain: "tail.test", maxLinks: 1_000 })
    expect(capped.urls.map((u) => u.url)).toEqual(range(1_000, (i) => `http://tail.test/t${i}`))
    expect(capped.meta.errors).toEqual([])
    expect(capped.meta.sitemapsFetched).toBe(1)
    // A map that needs the whole document reads it to the damage and says so.
    const whole = await map({ domain: "tail.test", maxLinks: 20_000 })
    expect(whole.urls).toHaveLength(15_000)
    expect(whole.meta.errors).toEqual([expect.stringMatching(/^http:\/\/tail\.test\/tail\.xml\.gz: malformed XML.*used the 15000 entries before it$/)])
  }, 30_000)

  it("skips a sitemap over 50 MB with a warning and still uses the others", async () => {
    const result = await map({ domain: "huge.test" })
    expect(paths(result)).toEqual(["/s1", "/s2"])
    expect(result.meta.sitemapsSkipped).toBe(1)
    expect(result.meta.errors).toEqual([expect.stringMatching(/^http:\/\/huge\.test\/huge\.xml: larger than the sitemap limit/)])
    // It stopped reading soon after the limit rather than downloading everything.
    expect(site.last("/huge.xml")!.bytesSent).toBeLessThan(60 * 1024 * 1024)
  }, 30_000)
})
