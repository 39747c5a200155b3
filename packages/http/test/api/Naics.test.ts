import * as Auth from "@sift/auth"
import ContextDev from "context.dev"
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest"
import { type Hosts, startSites, text, urlset, xml } from "../../../core/test/discovery/support/sites.js"
import * as FixtureSite from "../../../core/test/support/FixtureSite.js"
import * as TestService from "../support/TestService.js"

// Host names unique to this run: the PostgreSQL database (and its URL index) outlives a test run.
const run = `n${Math.random().toString(36).slice(2, 8)}`
const brewery = `${run}-stonecut.test`
const brand = `Stonecut${run} Brewing`

const home = `<!doctype html><html lang="en"><head><title>${brand} Company | Craft beer brewed in Portland</title>
<meta name="description" content="Independent craft brewery: we brew ales and lagers on site, can and keg them, and pour them in our taproom.">
</head><body><nav><a href="/about">About</a><a href="/beers">Our beers</a></nav>
<h1>Brewed here since 2011</h1><p>We brew our beers on site in a 20-barrel brewhouse, ferment and condition them in our cellar,
and package them in cans and kegs for bars and shops across the state. Our taproom pours them fresh.</p>
<h2>Our beers</h2><p>IPA, pilsner, stout and seasonal sours, brewed and canned by our brewers.</p></body></html>`

const hosts: Hosts = {
  [brewery]: {
    "/sitemap.xml": xml(urlset([`http://${brewery}/`, `http://${brewery}/about`, `http://${brewery}/beers`])),
    "/robots.txt": text("User-agent: *\nAllow: /\n"),
    "/": FixtureSite.html(home),
    "/about": FixtureSite.html(`<html><head><title>About | ${brand}</title></head><body><h1>About us</h1><p>A brewery founded by two homebrewers who brew every batch of beer we sell.</p></body></html>`),
    "/beers": FixtureSite.html(`<html><head><title>Beers | ${brand}</title></head><body><h1>Our beers</h1><p>Ales and lagers brewed on site.</p></body></html>`)
  }
}

const backends = [
  { name: "pglite", url: undefined as string | undefined },
  { name: "postgres", url: inject("databaseUrl") ?? undefined }
]

let site: FixtureSite.Site
beforeAll(async () => {
  site = await startSites(hosts)
})
afterAll(async () => {
  await site?.close()
})

for (const backend of backends) {
  describe.skipIf(backend.name === "postgres" && backend.url === undefined)(`GET /web/naics (${backend.name})`, () => {
    let service: TestService.TestService
    beforeAll(async () => {
      delete process.env.SIFT_SEARXNG_URL
      service = await TestService.start({ databaseUrl: backend.url, hostRules: `MAP *.test 127.0.0.1:${site.port}` })
    })
    afterAll(async () => {
      await service?.close()
    })
    const balance = (orgId: string) => service.run(Effect.flatMap(Auth.CreditLedger.CreditLedger, (l) => l.balance(orgId)))
    const get = (secret: string, path: string) => fetch(`${service.baseUrl}${path}`, { headers: { authorization: `Bearer ${secret}` } })

    it("the official SDK classifies a brewery by domain and by URL, 1 credit each", async () => {
      const { orgId, secret } = await service.key()
      const before = (await balance(orgId)).remaining
      const client = new ContextDev({ apiKey: secret, baseURL: service.baseUrl, maxRetries: 0 })
      const result = await client.industry.retrieveNaics({ input: brewery, maxResults: 3, tags: ["naics"] }) as unknown as Record<string, any>
      expect(result.status).toBe("ok")
      expect(result.type).toBe("naics")
      expect(result.domain).toBe(brewery)
      expect(result.codes.length).toBeGreaterThanOrEqual(1)
      expect(result.codes.length).toBeLessThanOrEqual(3)
      expect(result.codes[0]).toMatchObject({ code: "312120", name: "Breweries" })
      for (const code of result.codes) {
        expect(code.code).toMatch(/^\d{6}$/)
        expect(["high", "medium", "low"]).toContain(code.confidence)
      }
      expect(result.partial).toBeUndefined()
      expect(result.key_metadata.credits_consumed).toBe(1)

      const byUrl = await client.industry.retrieveNaics({ input: `http://${brewery}/about` }) as unknown as Record<string, any>
      expect(byUrl.domain).toBe(brewery)
      expect(byUrl.codes[0].code).toBe("312120")
      expect((await balance(orgId)).remaining).toBe(before - 2)
    })

    it("resolves a company name through the URL index; an unknown name without a search provider is 503", async () => {
      const { orgId, secret } = await service.key()
      // Not indexed yet, and no SearXNG configured: the name cannot be resolved.
      const unknown = await get(secret, `/web/naics?input=${encodeURIComponent(brand)}`)
      expect(unknown.status).toBe(503)
      expect((await unknown.json() as Record<string, any>).error_code).toBe("SEARCH_UNAVAILABLE")

      expect((await get(secret, `/web/urls?domain=${brewery}`)).status).toBe(200)
      const named = await get(secret, `/web/naics?input=${encodeURIComponent(brand.toLowerCase())}&minResults=2&maxResults=4`)
      const body = await named.json() as Record<string, any>
      expect(named.status).toBe(200)
      expect(body.domain).toBe(brewery)
      expect(body.codes[0].code).toBe("312120")
      expect(body.codes.length).toBeGreaterThanOrEqual(2)
      expect(body.codes.length).toBeLessThanOrEqual(4)
      const before = (await balance(orgId)).remaining

      const cases: Array<[string, number, string, string]> = [
        ["/web/naics?input=abc", 400, "INPUT_VALIDATION_ERROR", "input"],
        ["/web/naics", 400, "INPUT_VALIDATION_ERROR", "input"],
        [`/web/naics?input=${brewery}&maxResults=11`, 400, "INPUT_VALIDATION_ERROR", "maxResults"],
        [`/web/naics?input=${brewery}&minResults=0`, 400, "INPUT_VALIDATION_ERROR", "minResults"],
        [`/web/naics?input=${brewery}&minResults=6&maxResults=3`, 400, "INPUT_VALIDATION_ERROR", "minResults"],
        [`/web/naics?input=${brewery}&timeoutOpts[milliseconds]=300001`, 400, "TIMEOUT_EXCEEDS_MAXIMUM", "timeoutOpts"],
        [`/web/naics?input=${brewery}&tags=${"x".repeat(51)}`, 400, "INPUT_VALIDATION_ERROR", "tags"],
        [`/web/naics?input=${brewery}&zdr=enabled`, 403, "ZDR_NOT_ENABLED", "Zero data retention"]
      ]
      for (const [path, status, code, named] of cases) {
        const response = await get(secret, path)
        const error = await response.json() as Record<string, any>
        expect([path, response.status, error.error_code]).toEqual([path, status, code])
        expect(error.message).toContain(named)
      }
      expect((await balance(orgId)).remaining).toBe(before)
    })

    it("reads a URL whose host is an IP with a port as given, path kept (it was taken for a name: 503 without search)", async () => {
      const { orgId, secret } = await service.key()
      // The root says dentist, only the given path says brewery: the answer shows which page was read.
      const acme = await FixtureSite.start({
        "/": FixtureSite.html("<html><head><title>Greenfield Dental</title></head><body><h1>Family dentistry</h1><p>Our dentists clean and fill teeth.</p></body></html>"),
        "/acme/": FixtureSite.html(home)
      })
      try {
        const before = (await balance(orgId)).remaining
        const response = await get(secret, `/web/naics?input=${encodeURIComponent(`${acme.url}/acme/`)}`)
        const body = await response.json() as Record<string, any>
        expect([response.status, body.domain, body.codes?.[0]?.code]).toEqual([200, `127.0.0.1:${acme.port}`, "312120"])
        expect(acme.exchanges.map((e) => e.path)).toContain("/acme/")
        expect(acme.exchanges.map((e) => e.path)).not.toContain("/")
        expect((await balance(orgId)).remaining).toBe(before - 1)
      } finally {
        await acme.close()
      }
    })

    it("zdr=enabled classifies with X-Service-ZDR; a dead site is an error without charge", async () => {
      const { orgId, secret } = await service.key({ zdr: true })
      const zdr = await get(secret, `/web/naics?input=${brewery}&zdr=enabled`)
      expect(zdr.status).toBe(200)
      expect(zdr.headers.get("x-service-zdr")).toBe("true")
      expect((await zdr.json() as Record<string, any>).codes[0].code).toBe("312120")
      const before = (await balance(orgId)).remaining
      const dead = await get(secret, `/web/naics?input=${run}-nothing-here.test`)
      expect(dead.status).toBeGreaterThanOrEqual(400)
      expect((await dead.json() as Record<string, any>).key_metadata.credits_consumed).toBe(0)
      expect((await balance(orgId)).remaining).toBe(before)
    })
  })
}

describe("GET /web/naics with a search provider (a SearXNG stand-in served by node:http)", () => {
  // SearXNG itself cannot run here: this server answers its JSON API (`/search?format=json&q=...`) from a table.
  let searxng: FixtureSite.Site
  let service: TestService.TestService
  const answers: Record<string, { status: number; urls: ReadonlyArray<string> }> = {
    [`Hoppy Meadow ${run}`]: { status: 200, urls: [`https://www.linkedin.com/company/hoppy-meadow`, `http://${brewery}/about`] },
    [`Nobody ${run} Anywhere`]: { status: 200, urls: ["https://en.wikipedia.org/wiki/Nobody", "https://www.yelp.com/biz/nobody"] },
    [`Broken ${run} Search`]: { status: 500, urls: [] }
  }
  beforeAll(async () => {
    searxng = await FixtureSite.start({
      "/search": (req, res) => {
        const q = new URL(req.url ?? "/", "http://searxng.local").searchParams.get("q") ?? ""
        const answer = answers[q] ?? { status: 200, urls: [] }
        res.writeHead(answer.status, { "content-type": "application/json" })
        res.end(JSON.stringify({ query: q, results: answer.urls.map((url) => ({ url, title: url })) }))
      }
    })
    process.env.SIFT_SEARXNG_URL = searxng.url
    try {
      service = await TestService.start({ hostRules: `MAP *.test 127.0.0.1:${site.port}` })
    } finally {
      delete process.env.SIFT_SEARXNG_URL
    }
  })
  afterAll(async () => {
    await service?.close()
    await searxng?.close()
  })

  it("resolves a name to the first company site among the results; no company site is 400, a failing provider 503", async () => {
    const { secret } = await service.key()
    const get = (input: string) => fetch(`${service.baseUrl}/web/naics?input=${encodeURIComponent(input)}`, { headers: { authorization: `Bearer ${secret}` } })
    const found = await get(`Hoppy Meadow ${run}`)
    const body = await found.json() as Record<string, any>
    expect(found.status).toBe(200)
    expect(body.domain).toBe(brewery)
    expect(body.codes[0].code).toBe("312120")
    expect(searxng.exchanges.some((e) => e.path.includes("format=json"))).toBe(true)

    const none = await get(`Nobody ${run} Anywhere`)
    expect([none.status, (await none.json() as Record<string, any>).error_code]).toEqual([400, "WEBSITE_NOT_FOUND"])
    const broken = await get(`Broken ${run} Search`)
    const error = await broken.json() as Record<string, any>
    expect([broken.status, error.error_code]).toEqual([503, "SEARCH_UNAVAILABLE"])
    expect(error.key_metadata.credits_consumed).toBe(0)
  })
})
