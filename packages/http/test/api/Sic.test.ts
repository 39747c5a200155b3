import * as Auth from "@sift/auth"
import ContextDev from "context.dev"
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest"
import { type Hosts, startSites, text, urlset, xml } from "../../../core/test/discovery/support/sites.js"
import * as FixtureSite from "../../../core/test/support/FixtureSite.js"
import * as TestService from "../support/TestService.js"

// Host names unique to this run: the PostgreSQL database (and its URL index) outlives a test run.
const run = `s${Math.random().toString(36).slice(2, 8)}`
const brewery = `${run}-hopyard.test`
const brand = `Hopyard${run} Brewing`

const home = `<!doctype html><html lang="en"><head><title>${brand} Company | Craft beer brewed in Portland</title>
<meta name="description" content="Independent craft brewery: we brew ales and lagers on site, can and keg them, and pour them in our taproom.">
</head><body><nav><a href="/about">About</a></nav>
<h1>Brewed here since 2011</h1><p>We brew our beers on site in a 20-barrel brewhouse, ferment and condition them in our cellar,
and package them in cans and kegs for bars and shops across the state. Our taproom pours them fresh.</p>
<h2>Our beers</h2><p>IPA, pilsner, stout and seasonal sours, brewed and canned by our brewers.</p></body></html>`

const hosts: Hosts = {
  [brewery]: {
    "/sitemap.xml": xml(urlset([`http://${brewery}/`, `http://${brewery}/about`])),
    "/robots.txt": text("User-agent: *\nAllow: /\n"),
    "/": FixtureSite.html(home),
    "/about": FixtureSite.html(`<html><head><title>About | ${brand}</title></head><body><h1>About us</h1><p>A brewery founded by two homebrewers who brew every batch of beer we sell.</p></body></html>`)
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
  describe.skipIf(backend.name === "postgres" && backend.url === undefined)(`GET /web/sic (${backend.name})`, () => {
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

    it("the official SDK classifies a brewery into SIC 2082 (1987 manual, major group 20), 1 credit", async () => {
      const { orgId, secret } = await service.key()
      const before = (await balance(orgId)).remaining
      const client = new ContextDev({ apiKey: secret, baseURL: service.baseUrl, maxRetries: 0 })
      const result = await client.industry.retrieveSic({ input: brewery, maxResults: 3 })
      expect(result).toMatchObject({ status: "ok", type: "sic", classification: "original_sic", domain: brewery })
      expect(result.codes![0]).toEqual({
        code: "2082",
        name: "Malt Beverages",
        confidence: expect.stringMatching(/^(high|medium)$/),
        majorGroup: "20",
        majorGroupName: "Food and Kindred Products"
      })
      expect(result.codes!.length).toBeLessThanOrEqual(3)
      for (const code of result.codes!) {
        expect(code.code).toMatch(/^\d{4}$/)
        expect(code.majorGroup).toBe(code.code.slice(0, 2))
        expect(code.office).toBeUndefined()
      }
      expect(new Set(result.codes!.map((c) => c.code)).size).toBe(result.codes!.length)
      expect(result.key_metadata?.credits_consumed).toBe(1)
      expect((await balance(orgId)).remaining).toBe(before - 1)
    })

    it("type=latest_sec answers the SEC's code, title and office, without major groups", async () => {
      const { secret } = await service.key()
      const client = new ContextDev({ apiKey: secret, baseURL: service.baseUrl, maxRetries: 0 })
      const result = await client.industry.retrieveSic({ input: `http://${brewery}/about`, type: "latest_sec", maxResults: 2 })
      expect(result.classification).toBe("latest_sec")
      expect(result.codes![0]).toEqual({ code: "2082", name: "MALT BEVERAGES", confidence: expect.any(String), office: "Office of Manufacturing" })
      for (const code of result.codes!) {
        expect(code.majorGroup).toBeUndefined()
        expect(code.majorGroupName).toBeUndefined()
        expect(typeof code.office).toBe("string")
      }
    })

    it("bad input and a dead site charge nothing", async () => {
      const { orgId, secret } = await service.key()
      const before = (await balance(orgId)).remaining
      const cases: Array<[string, number, string, string]> = [
        ["/web/sic?input=abc", 400, "INPUT_VALIDATION_ERROR", "input"],
        [`/web/sic?input=${brewery}&type=naics`, 400, "INPUT_VALIDATION_ERROR", "type"],
        [`/web/sic?input=${brewery}&maxResults=11`, 400, "INPUT_VALIDATION_ERROR", "maxResults"],
        [`/web/sic?input=${brewery}&minResults=6&maxResults=3`, 400, "INPUT_VALIDATION_ERROR", "minResults"],
        [`/web/sic?input=${brewery}&timeoutOpts[milliseconds]=300001`, 400, "TIMEOUT_EXCEEDS_MAXIMUM", "timeoutOpts"]
      ]
      for (const [path, status, code, named] of cases) {
        const response = await get(secret, path)
        const error = await response.json() as Record<string, any>
        expect([path, response.status, error.error_code]).toEqual([path, status, code])
        expect(error.message).toContain(named)
      }
      const dead = await get(secret, `/web/sic?input=${run}-nothing-here.test`)
      expect(dead.status).toBeGreaterThanOrEqual(400)
      expect((await dead.json() as Record<string, any>).key_metadata.credits_consumed).toBe(0)
      expect((await balance(orgId)).remaining).toBe(before)
    })
  })
}
