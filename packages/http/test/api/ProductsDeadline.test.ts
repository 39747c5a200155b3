import * as Auth from "@sift/auth"
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startSites } from "../../../core/test/discovery/support/sites.js"
import * as FixtureSite from "../../../core/test/support/FixtureSite.js"
import * as TestService from "../support/TestService.js"

const host = "slowshop.test"
const product = (name: string, price: string) =>
  `<!doctype html><html><head><title>${name}</title><script type="application/ld+json">${JSON.stringify({ "@type": "Product", name, sku: name, offers: { "@type": "Offer", price, priceCurrency: "EUR" } })}</script></head><body><h1>${name}</h1></body></html>`
const list = `<!doctype html><html><head><title>All</title><script type="application/ld+json">${JSON.stringify({
  "@type": "CollectionPage",
  mainEntity: { "@type": "ItemList", itemListElement: ["a", "b", "c"].map((s, i) => ({ "@type": "ListItem", position: i + 1, url: `http://${host}/p/${s}` })) }
})}</script></head><body><h1>All</h1></body></html>`

let site: FixtureSite.Site
let service: TestService.TestService
beforeAll(async () => {
  site = await startSites({
    [host]: {
      "/c/all": FixtureSite.html(list),
      "/p/a": FixtureSite.html(product("Anchor", "10.00")),
      "/p/b": FixtureSite.slow({ headersAfterMs: 15_000, chunks: [product("Buoy", "20.00")] }),
      "/p/c": FixtureSite.html(product("Compass", "30.00"))
    }
  })
  service = await TestService.start({ hostRules: `MAP *.test 127.0.0.1:${site.port}` })
})
afterAll(async () => {
  await service?.close()
  await site?.close()
})

const post = (secret: string, path: string, body: unknown) =>
  fetch(`${service.baseUrl}${path}`, { method: "POST", headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" }, body: JSON.stringify(body) })
    .then(async (response) => ({ status: response.status, body: await response.json() as Record<string, any> }))

describe("product extraction deadlines", () => {
  it("a product page not read in time is 408, uncharged, with either behavior", async () => {
    const { orgId, secret } = await service.key()
    const before = (await service.run(Effect.flatMap(Auth.CreditLedger.CreditLedger, (l) => l.balance(orgId)))).remaining
    for (const behavior of ["fail", "return-partial"]) {
      const answer = await post(secret, "/brand/ai/product", { url: `http://${host}/p/b`, timeoutOpts: { milliseconds: 1_500, behavior } })
      expect([behavior, answer.status, answer.body.error_code, answer.body.key_metadata.credits_consumed]).toEqual([behavior, 408, "REQUEST_TIMEOUT", 0])
    }
    expect((await service.run(Effect.flatMap(Auth.CreditLedger.CreditLedger, (l) => l.balance(orgId)))).remaining).toBe(before)
  })

  it("products with return-partial: the pages read by the deadline, in list order, partial and charged; fail is 408 uncharged", async () => {
    const { secret } = await service.key()
    const partial = await post(secret, "/brand/ai/products", { directUrl: `http://${host}/c/all`, maxProducts: 3, timeoutOpts: { milliseconds: 3_000, behavior: "return-partial" } })
    expect(partial.status).toBe(200)
    expect(partial.body.partial).toBe(true)
    expect(partial.body.products.map((p: any) => [p.name, p.price])).toEqual([["Anchor", 10], ["Compass", 30]])
    expect(partial.body.key_metadata.credits_consumed).toBe(10)
    const failed = await post(secret, "/brand/ai/products", { directUrl: `http://${host}/c/all`, maxProducts: 3, timeoutOpts: { milliseconds: 3_000 } })
    expect([failed.status, failed.body.error_code, failed.body.key_metadata.credits_consumed]).toEqual([408, "REQUEST_TIMEOUT", 0])
  })
})
