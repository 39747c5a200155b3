/**
 * `GET /web/urls` and `GET /web/scrape/sitemap` with inputs that used to be answered wrongly (issue 16): a `sitemapUrl`
 * that cannot be fetched fails uncharged with the fetch's error (as a site none of whose hosts answers does), and a
 * `domain` with a port maps the site on that port.
 */
import * as Auth from "@sift/auth"
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest"
import * as FixtureSite from "../../../core/test/support/FixtureSite.js"
import * as TestService from "../support/TestService.js"

const backends = [
  { name: "pglite", url: undefined as string | undefined },
  { name: "postgres", url: inject("databaseUrl") ?? undefined }
]

const urlset = (urls: ReadonlyArray<string>) =>
  `<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">` +
  urls.map((u) => `<url><loc>${u}</loc></url>`).join("") + "</urlset>"

let site: FixtureSite.Site
let address: string
beforeAll(async () => {
  site = await FixtureSite.start({
    "/robots.txt": (req, res) => {
      res.writeHead(200, { "content-type": "text/plain" }).end(`Sitemap: http://${req.headers.host}/ported.xml\n`)
    },
    "/ported.xml": (req, res) => {
      const origin = `http://${req.headers.host}`
      res.writeHead(200, { "content-type": "application/xml" }).end(urlset([`${origin}/ported/a`, `${origin}/ported/b`]))
    }
  })
  address = `127.0.0.1:${site.port}`
})
afterAll(async () => {
  await site?.close()
})

for (const backend of backends) {
  describe.skipIf(backend.name === "postgres" && backend.url === undefined)(`map inputs (${backend.name})`, () => {
    let service: TestService.TestService
    beforeAll(async () => {
      service = await TestService.start({ databaseUrl: backend.url })
    })
    afterAll(async () => {
      await service?.close()
    })
    const balance = (orgId: string) => service.run(Effect.flatMap(Auth.CreditLedger.CreditLedger, (ledger) => ledger.balance(orgId)))
    const get = async (secret: string, path: string) => {
      const response = await fetch(`${service.baseUrl}${path}`, { headers: { authorization: `Bearer ${secret}` } })
      return { status: response.status, body: await response.json() as Record<string, any> }
    }

    it("a sitemapUrl that refuses the connection or is missing fails with the fetch error, uncharged and logged", async () => {
      const { orgId, secret } = await service.key({ credits: 100 })
      const cases: Array<[string, string]> = [
        [`/web/urls?domain=example.com&sitemapUrl=${encodeURIComponent("http://127.0.0.1:1/sitemap.xml")}`, "WEBSITE_ACCESS_ERROR"],
        [`/web/scrape/sitemap?domain=example.com&sitemapUrl=${encodeURIComponent("http://127.0.0.1:1/sitemap.xml")}`, "WEBSITE_ACCESS_ERROR"],
        [`/web/urls?domain=${address}&sitemapUrl=${encodeURIComponent(`http://${address}/gone.xml`)}`, "WEBSITE_ACCESS_ERROR"]
      ]
      for (const [path, code] of cases) {
        const answer = await get(secret, path)
        expect([path, answer.status, answer.body.error_code]).toEqual([path, 400, code])
        expect(answer.body.key_metadata).toEqual({ credits_consumed: 0, credits_remaining: 100 })
        const logged = await get(secret, `/logs/${answer.body.request_id}`)
        expect(logged.body.data).toMatchObject({ status_code: 400, error_code: code, credits_used: 0 })
      }
      expect((await balance(orgId)).remaining).toBe(100)
    })

    it("a domain with a port maps the site on that port, and names it with its port", async () => {
      const { orgId, secret } = await service.key({ credits: 100 })
      const mapped = await get(secret, `/web/urls?domain=${address}`)
      expect(mapped.status).toBe(200)
      expect(mapped.body.domain).toBe(address)
      expect(mapped.body.urls.map((u: { url: string }) => u.url)).toEqual(expect.arrayContaining([`http://${address}/ported/a`, `http://${address}/ported/b`]))
      expect(mapped.body.key_metadata.credits_consumed).toBe(1)
      const sitemap = await get(secret, `/web/scrape/sitemap?domain=${encodeURIComponent(`http://${address}/`)}`)
      expect(sitemap.status).toBe(200)
      expect(sitemap.body.domain).toBe(address)
      expect(sitemap.body.urls).toEqual([`http://${address}/ported/a`, `http://${address}/ported/b`])
      expect((await balance(orgId)).remaining).toBe(98)
    })
  })
}
