import * as Auth from "@sift/auth"
import ContextDev from "context.dev"
import { Effect } from "effect"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest"
import { gzFile, type Hosts, page, requested, sitemapIndex, startSites, text, urlset, xml } from "../../../core/test/discovery/support/sites.js"
import * as FixtureSite from "../../../core/test/support/FixtureSite.js"
import { eventually } from "../support/eventually.js"
import * as TestService from "../support/TestService.js"

/** A page that answers after `ms` (so enrichment takes long enough to be stopped midway). */
const slowPage = (title: string, ms: number): FixtureSite.Handler => (req, res, exchange) =>
  new Promise<void>((resolve) =>
    setTimeout(() => {
      void Promise.resolve(page(title, [], `About ${title}`)(req, res, exchange)).then(() => resolve())
    }, ms))

// Host names unique to this run: the PostgreSQL database (and its URL index) outlives a test run.
const run = `r${Math.random().toString(36).slice(2, 8)}`
const d = (name: string) => `${run}-${name}`
const nestedHost = d("nested.test")
const partialHost = d("partial.test")
const stallHost = d("stall.test")
const zdrHost = d("zdr.test")
const headersHost = d("headers.test")
const restartHost = d("restart.test")

const hosts: Hosts = {
  // Nested gzip indexes three levels deep.
  [nestedHost]: {
    "/robots.txt": text(`User-agent: *\nDisallow: /private/\nSitemap: http://${nestedHost}/index.xml.gz\n`),
    "/index.xml.gz": gzFile(sitemapIndex([`http://${nestedHost}/level2.xml.gz`])),
    "/level2.xml.gz": gzFile(sitemapIndex([`http://${nestedHost}/a.xml.gz`, `http://${nestedHost}/b.xml`])),
    "/a.xml.gz": gzFile(urlset([`http://${nestedHost}/`, `http://${nestedHost}/pricing`, `http://${nestedHost}/private/listed`])),
    "/b.xml": xml(urlset(Array.from({ length: 120 }, (_, i) => `http://${nestedHost}/docs/page-${i}`))),
    "/": page("Nested home", []),
    "/pricing": page("Pricing plans", [], "Plans and prices for every team"),
    "/private/listed": page("Listed though disallowed", []),
    "*": (req, res, exchange) => {
      const n = /^\/docs\/page-(\d+)$/.exec(req.url ?? "")?.[1]
      return n === undefined ? FixtureSite.status(404)(req, res, exchange) : page(`Docs page ${n}`, [], `Documentation ${n}`)(req, res, exchange)
    }
  },
  [partialHost]: {
    "/robots.txt": text(`Sitemap: http://${partialHost}/fast.xml\nSitemap: http://${partialHost}/slow.xml\n`),
    "/fast.xml": xml(urlset([`http://${partialHost}/quick`])),
    "/slow.xml": FixtureSite.slow({ headersAfterMs: 20_000 }),
    "/": page("Partial", [])
  },
  [stallHost]: { "*": FixtureSite.slow({ headersAfterMs: 20_000 }) },
  [zdrHost]: {
    "/sitemap.xml": xml(urlset(Array.from({ length: 150 }, (_, i) => `http://${zdrHost}/p/${i}`))),
    "*": (req, res, exchange) => page(`ZDR ${req.url}`, [])(req, res, exchange)
  },
  [headersHost]: {
    "/sitemap.xml": xml(urlset(Array.from({ length: 150 }, (_, i) => `http://${headersHost}/p/${i}`))),
    "*": (req, res, exchange) => page(`Headers ${req.url}`, [])(req, res, exchange)
  },
  // 150 pages of 60 ms each: enrichment runs for seconds, long enough to stop the service midway.
  [restartHost]: {
    "/sitemap.xml": xml(urlset(Array.from({ length: 150 }, (_, i) => `http://${restartHost}/p/${i}`))),
    "/": page("Restart home", []),
    "*": (req, res, exchange) => slowPage(`Restart ${req.url}`, 60)(req, res, exchange)
  }
}

// Per backend: robots.txt asks for 1 s between fetches and disallows /secret; the pinned sitemap lists four pages.
const politeHost = (backend: string) => d(`${backend}-polite.test`)
const fetchedAt = new Map<string, number>()
for (const backend of ["pglite", "postgres"]) {
  const host = politeHost(backend)
  hosts[host] = {
    "/robots.txt": text("User-agent: *\nCrawl-delay: 1\nDisallow: /secret\n"),
    "/pinned.xml": xml(urlset(["/a", "/b", "/c", "/secret"].map((p) => `http://${host}${p}`))),
    "*": (req, res, exchange) => {
      fetchedAt.set(`${host}${req.url}`, Date.now())
      return page(`Polite ${req.url}`, [])(req, res, exchange)
    }
  }
}

const backends = [
  { name: "pglite", url: undefined as string | undefined },
  { name: "postgres", url: inject("databaseUrl") ?? undefined }
]

let site: FixtureSite.Site
let hostRules: string
beforeAll(async () => {
  site = await startSites(hosts)
  hostRules = `MAP *.test 127.0.0.1:${site.port}`
})
afterAll(async () => {
  await site?.close()
})

const get = (service: TestService.TestService, secret: string, path: string) =>
  fetch(`${service.baseUrl}${path}`, { headers: { authorization: `Bearer ${secret}` } })


for (const backend of backends) {
  describe.skipIf(backend.name === "postgres" && backend.url === undefined)(`maps over HTTP (${backend.name})`, () => {
    let service: TestService.TestService
    beforeAll(async () => {
      service = await TestService.start({ databaseUrl: backend.url, hostRules })
    })
    afterAll(async () => {
      await service?.close()
    })
    const balance = (orgId: string) => service.run(Effect.flatMap(Auth.CreditLedger.CreditLedger, (l) => l.balance(orgId)))

    it("the official SDK crawls nested gzip sitemap indexes (1 credit; 2 with search), robots never dropping listed URLs", async () => {
      const { secret } = await service.key()
      const client = new ContextDev({ apiKey: secret, baseURL: service.baseUrl, maxRetries: 0 })
      const crawled = await client.web.webScrapeSitemap({ domain: nestedHost, tags: ["maps"] }) as unknown as Record<string, any>
      expect(crawled.success).toBe(true)
      expect(crawled.domain).toBe(nestedHost)
      expect(crawled.urls).toHaveLength(123)
      expect(crawled.urls).toContain(`http://${nestedHost}/private/listed`)
      expect(crawled.urls).toContain(`http://${nestedHost}/docs/page-119`)
      expect(crawled.meta).toEqual({ sitemapsDiscovered: expect.any(Number), sitemapsFetched: 4, sitemapsSkipped: expect.any(Number), errors: expect.any(Number) })
      expect(crawled.key_metadata.credits_consumed).toBe(1)

      const searched = await client.web.webScrapeSitemap({ domain: nestedHost, search: "pricing", maxLinks: 5 }) as unknown as Record<string, any>
      expect(searched.urls[0]).toBe(`http://${nestedHost}/pricing`)
      expect(searched.urls.length).toBeLessThanOrEqual(5)
      expect(searched.key_metadata.credits_consumed).toBe(2)

      const regex = await client.web.webScrapeSitemap({ domain: nestedHost, urlRegex: "page-1[0-9]$", maxLinks: 4 }) as unknown as Record<string, any>
      expect(regex.urls).toEqual([`http://${nestedHost}/docs/page-10`, `http://${nestedHost}/docs/page-11`, `http://${nestedHost}/docs/page-12`, `http://${nestedHost}/docs/page-13`])
    })

    it("GET /web/urls answers from the index at once, enriches in the background, and returns the metadata later", async () => {
      const { orgId, secret } = await service.key()
      const before = (await balance(orgId)).remaining
      const first = await get(service, secret, `/web/urls?domain=${nestedHost}`)
      expect(first.status).toBe(200)
      expect(first.headers.get("cache-control")).toBe("no-store")
      const body = await first.json() as Record<string, any>
      expect(body.success).toBe(true)
      expect(body.urls).toHaveLength(123)
      expect(body.key_metadata.credits_consumed).toBe(1)
      expect((await balance(orgId)).remaining).toBe(before - 1)
      const pricing = body.urls.find((u: { url: string }) => u.url === `http://${nestedHost}/pricing`)
      expect(pricing).toEqual({ url: `http://${nestedHost}/pricing` })

      const later = await eventually(async () => {
        const again = await (await get(service, secret, `/web/urls?domain=${nestedHost}`)).json() as Record<string, any>
        const enriched = again.urls.filter((u: { title?: string }) => u.title !== undefined)
        return enriched.length >= 122 ? again : undefined
      }, 60_000)
      // robots.txt disallows /private/: enrichment never fetches it, yet the sitemap's URL stays listed.
      expect(later.urls).toHaveLength(123)
      expect(later.urls.find((u: { url: string }) => u.url === `http://${nestedHost}/private/listed`)).toEqual({ url: `http://${nestedHost}/private/listed` })
      expect(requested(site, nestedHost)).not.toContain("/private/listed")
      expect(later.urls.find((u: { url: string }) => u.url === `http://${nestedHost}/pricing`)).toEqual({
        url: `http://${nestedHost}/pricing`,
        title: "Pricing plans",
        description: "Plans and prices for every team",
        language: "en"
      })
      expect(later.urls.find((u: { url: string }) => u.url === `http://${nestedHost}/docs/page-7`).title).toBe("Docs page 7")

      const searched = await (await get(service, secret, `/web/urls?domain=${nestedHost}&search=pricing%20plans&maxLinks=3`)).json() as Record<string, any>
      expect(searched.urls[0].url).toBe(`http://${nestedHost}/pricing`)
      expect(searched.urls.length).toBeLessThanOrEqual(3)
      expect(searched.key_metadata.credits_consumed).toBe(2)
    }, 90_000)

    it("refuses bad queries with the field named, charging nothing", async () => {
      const { orgId, secret } = await service.key()
      const before = (await balance(orgId)).remaining
      const cases: Array<[string, number, string, string]> = [
        [`/web/urls?domain=${nestedHost}&urlRegex=(unclosed`, 400, "INPUT_VALIDATION_ERROR", "urlRegex"],
        [`/web/urls?domain=${nestedHost}&maxLinks=0`, 400, "INPUT_VALIDATION_ERROR", "maxLinks"],
        [`/web/urls?domain=${nestedHost}&maxLinks=100001`, 400, "INPUT_VALIDATION_ERROR", "maxLinks"],
        [`/web/urls?domain=${nestedHost}&search=a`, 400, "INPUT_VALIDATION_ERROR", "search"],
        ["/web/urls?domain=ab", 400, "INPUT_VALIDATION_ERROR", "domain"],
        ["/web/urls", 400, "INPUT_VALIDATION_ERROR", "domain"],
        [`/web/urls?domain=${nestedHost}&includeSubdomains=maybe`, 400, "INPUT_VALIDATION_ERROR", "includeSubdomains"],
        [`/web/urls?domain=${nestedHost}&timeoutOpts[milliseconds]=400000`, 400, "TIMEOUT_EXCEEDS_MAXIMUM", "timeoutOpts"],
        [`/web/urls?domain=${nestedHost}&zdr=sometimes`, 400, "INPUT_VALIDATION_ERROR", "zdr"],
        [`/web/urls?domain=${nestedHost}&headers[X-A]=a%0Db`, 400, "INPUT_VALIDATION_ERROR", "headers"],
        [`/web/scrape/sitemap?domain=${nestedHost}&sitemapUrl=ftp://x`, 400, "INPUT_VALIDATION_ERROR", "sitemapUrl"],
        [`/web/urls?domain=${nestedHost}&zdr=enabled`, 403, "ZDR_NOT_ENABLED", "Zero data retention"]
      ]
      for (const [path, status, code, named] of cases) {
        const response = await get(service, secret, path)
        const body = await response.json() as Record<string, any>
        expect([path, response.status, body.error_code]).toEqual([path, status, code])
        expect(body.message).toContain(named)
        expect(body.key_metadata.credits_consumed).toBe(0)
      }
      expect((await balance(orgId)).remaining).toBe(before)
    })

    it("return-partial returns what was found by the deadline; with nothing found it is a 408 without charge", async () => {
      const { orgId, secret } = await service.key()
      const before = (await balance(orgId)).remaining
      const partial = await get(service, secret, `/web/urls?domain=${partialHost}&timeoutOpts[milliseconds]=2500&timeoutOpts[behavior]=return-partial`)
      const body = await partial.json() as Record<string, any>
      expect(partial.status).toBe(200)
      expect(body.partial).toBe(true)
      expect(body.urls.map((u: { url: string }) => u.url)).toContain(`http://${partialHost}/quick`)
      expect(body.key_metadata.credits_consumed).toBe(1)

      const stalled = await get(service, secret, `/web/urls?domain=${stallHost}&timeoutOpts=` +
        encodeURIComponent(JSON.stringify({ milliseconds: 1500, behavior: "return-partial" })))
      expect(stalled.status).toBe(408)
      expect((await stalled.json() as Record<string, any>).error_code).toBe("REQUEST_TIMEOUT")
      expect((await balance(orgId)).remaining).toBe(before - 1)
    })

    it("enrichment keeps to robots.txt: Crawl-delay between fetches, disallowed pages listed but never fetched", async () => {
      const { secret } = await service.key()
      const host = politeHost(backend.name)
      const mapped = await get(service, secret, `/web/urls?domain=${host}&sitemapUrl=${encodeURIComponent(`http://${host}/pinned.xml`)}`)
      expect(((await mapped.json()) as Record<string, any>).urls.map((u: { url: string }) => u.url).sort()).toEqual(
        ["/a", "/b", "/c", "/secret"].map((p) => `http://${host}${p}`)
      )
      await eventually(async () => (["/a", "/b", "/c"].every((p) => fetchedAt.has(`${host}${p}`)) ? true : undefined), 60_000)
      const times = ["/a", "/b", "/c"].map((p) => fetchedAt.get(`${host}${p}`)!).sort((x, y) => x - y)
      expect(times[1]! - times[0]!).toBeGreaterThanOrEqual(900)
      expect(times[2]! - times[1]!).toBeGreaterThanOrEqual(900)
      const later = await eventually(async () => {
        const again = (await (await get(service, secret, `/web/urls?domain=${host}&sitemapUrl=${encodeURIComponent(`http://${host}/pinned.xml`)}`)).json()) as Record<string, any>
        return again.urls.filter((u: { title?: string }) => u.title !== undefined).length === 3 ? again : undefined
      })
      expect(later.urls.find((u: { url: string }) => u.url.endsWith("/secret"))).toEqual({ url: `http://${host}/secret` })
      expect(fetchedAt.has(`${host}/secret`)).toBe(false)
    })

    it("zdr=enabled and forwarded headers return URLs only and leave the index alone (no enrichment)", async () => {
      const { secret } = await service.key({ zdr: true })
      const zdr = await get(service, secret, `/web/urls?domain=${zdrHost}&zdr=enabled`)
      expect(zdr.status).toBe(200)
      expect(zdr.headers.get("x-service-zdr")).toBe("true")
      expect(((await zdr.json()) as Record<string, any>).urls).toHaveLength(151)

      const forwarded = await get(service, secret, `/web/urls?domain=${headersHost}&headers[X-Probe]=sift-test`)
      expect(forwarded.status).toBe(200)
      expect(forwarded.headers.get("x-service-zdr")).toBeNull()
      expect(((await forwarded.json()) as Record<string, any>).urls).toHaveLength(151)
      expect(site.exchanges.find((e) => e.path === "/sitemap.xml" && e.headers.host?.startsWith(headersHost))?.headers["x-probe"]).toBe("sift-test")

      // Nothing was recorded, so nothing is enriched: no page of either site is ever fetched.
      await new Promise((r) => setTimeout(r, 3_000))
      expect(requested(site, zdrHost).filter((p) => p.startsWith("/p/"))).toEqual([])
      expect(requested(site, headersHost).filter((p) => p.startsWith("/p/"))).toEqual([])
    })
  })
}

describe("enrichment across a restart (PGlite data directory)", () => {
  it("a stopped service resumes enrichment when started again, fetching every page exactly once", async () => {
    const dir = mkdtempSync(join(tmpdir(), "sift-maps-"))
    try {
      const pages = () => requested(site, restartHost).filter((p) => p.startsWith("/p/"))
      let service = await TestService.start({ dataDir: dir, hostRules })
      let key: { secret: string }
      try {
        key = await service.key()
        const first = await get(service, key.secret, `/web/urls?domain=${restartHost}`)
        expect(first.status).toBe(200)
        expect(((await first.json()) as Record<string, any>).urls).toHaveLength(151)
        await eventually(async () => (pages().length >= 10 ? true : undefined))
      } finally {
        await service.close()
      }
      const atStop = pages().length
      expect(atStop).toBeGreaterThanOrEqual(10)
      expect(atStop).toBeLessThan(150)

      service = await TestService.start({ dataDir: dir, hostRules })
      try {
        await eventually(async () => (pages().length >= 150 ? true : undefined), 120_000)
        // Let any duplicate fetch surface before counting.
        await new Promise((r) => setTimeout(r, 1_500))
        const fetched = pages()
        expect(fetched).toHaveLength(150)
        expect(new Set(fetched).size).toBe(150)
        const after = await (await get(service, key!.secret, `/web/urls?domain=${restartHost}`)).json() as Record<string, any>
        const titled = after.urls.filter((u: { url: string; title?: string }) => u.url.includes("/p/") && u.title === `Restart ${new URL(u.url).pathname}`)
        expect(titled).toHaveLength(150)
      } finally {
        await service.close()
      }
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  }, 240_000)
})
