import * as Auth from "@sift/auth"
import ContextDev from "context.dev"
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { requested, startSites } from "../../../core/test/discovery/support/sites.js"
import type * as FixtureSite from "../../../core/test/support/FixtureSite.js"
import * as Shops from "../../../core/test/products/shops.js"
import * as TestService from "../support/TestService.js"

const run = `p${Math.random().toString(36).slice(2, 8)}`
const names = { shop: `${run}-northwind.test`, shopify: `${run}-peak.test`, woo: `${run}-oliva.test` }
const shop = names.shop

let site: FixtureSite.Site
let service: TestService.TestService
beforeAll(async () => {
  site = await startSites(Shops.hosts(names))
  service = await TestService.start({ hostRules: `MAP *.test 127.0.0.1:${site.port}` })
})
afterAll(async () => {
  await service?.close()
  await site?.close()
})

const balance = (orgId: string) => service.run(Effect.flatMap(Auth.CreditLedger.CreditLedger, (l) => l.balance(orgId)))
const post = (secret: string, path: string, body: unknown) =>
  fetch(`${service.baseUrl}${path}`, { method: "POST", headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" }, body: JSON.stringify(body) })

describe("POST /brand/ai/product", () => {
  it("reads a JSON-LD ProductGroup with variants exactly, 5 credits; a repeat is a cache hit, maxAgeMs 0 a miss", async () => {
    const { orgId, secret } = await service.key()
    const client = new ContextDev({ apiKey: secret, baseURL: service.baseUrl, maxRetries: 0 })
    const before = (await balance(orgId)).remaining
    const result = await client.ai.extractProduct({ url: `http://${shop}/p/trail-jacket` })
    expect(result.is_product_page).toBe(true)
    expect(result.platform).toBe("generic")
    expect(result.product).toEqual(Shops.jsonLdGroupTruth(shop))
    expect(result.cache_metadata).toEqual({ status: "miss", age_ms: 0 })
    expect(result.key_metadata?.credits_consumed).toBe(5)
    expect((await balance(orgId)).remaining).toBe(before - 5)

    const again = await client.ai.extractProduct({ url: `http://${shop}/p/trail-jacket` })
    expect(again.cache_metadata.status).toBe("hit")
    expect(again.product).toEqual(result.product)
    const fresh = await client.ai.extractProduct({ url: `http://${shop}/p/trail-jacket`, maxAgeMs: 0 })
    expect(fresh.cache_metadata.status).toBe("miss")
  })

  it("microdata only, RDFa only and OpenGraph only", async () => {
    const { secret } = await service.key()
    const client = new ContextDev({ apiKey: secret, baseURL: service.baseUrl, maxRetries: 0 })
    const mug = await client.ai.extractProduct({ url: `http://${shop}/p/mug` })
    expect(mug.product).toEqual({
      name: "Ceramic Mug", description: "Hand-thrown stoneware mug, 350 ml.", features: [], images: [`http://${shop}/img/mug.jpg`], sku: "MUG-01", tags: [],
      target_audience: [], availability: "limited_availability", billing_frequency: "one_time", category: null, currency: "USD", dimensions: [],
      image_url: `http://${shop}/img/mug.jpg`, price: 18.5, pricing_model: null, regular_price: 24, url: `http://${shop}/p/mug`, variants: []
    })
    const lamp = await client.ai.extractProduct({ url: `http://${shop}/p/lamp` })
    expect(lamp.product).toMatchObject({ name: "Desk Lamp", sku: "LAMP-9", price: 45, currency: "CAD", availability: "preorder", description: "A brass desk lamp." })
    const tote = await client.ai.extractProduct({ url: `http://${shop}/p/tote` })
    expect([tote.is_product_page, tote.platform]).toEqual([true, "generic"])
    expect(tote.product).toMatchObject({ name: "Linen Tote", sku: "TOTE-7", price: 32, regular_price: null, currency: "GBP", availability: "in_stock", images: [`http://${shop}/img/tote.jpg`] })
  })

  it("a blog post and a category page are 200 with is_product_page false and product null (charged: the verdict is the answer)", async () => {
    const { secret } = await service.key()
    const client = new ContextDev({ apiKey: secret, baseURL: service.baseUrl, maxRetries: 0 })
    for (const path of ["/blog/trail-tips", "/c/jackets"]) {
      const result = await client.ai.extractProduct({ url: `http://${shop}${path}` })
      expect([path, result.is_product_page, result.product, result.platform]).toEqual([path, false, null, null])
      expect(result.key_metadata?.credits_consumed).toBe(5)
    }
  })

  it("a bot wall is 400 WEBSITE_ACCESS_ERROR and bad input 400, neither charged", async () => {
    const { orgId, secret } = await service.key()
    const before = (await balance(orgId)).remaining
    const wall = await post(secret, "/brand/ai/product", { url: `http://${shop}/wall` })
    const body = await wall.json() as Record<string, any>
    expect([wall.status, body.error_code, body.key_metadata.credits_consumed]).toEqual([400, "WEBSITE_ACCESS_ERROR", 0])
    const cases: Array<[unknown, string]> = [
      [{}, "url"],
      [{ url: "ftp://x.test/" }, "url"],
      [{ url: `http://${shop}/p/mug`, maxAgeMs: 2_592_000_001 }, "maxAgeMs"],
      [{ url: `http://${shop}/p/mug`, extra: 1 }, "extra"]
    ]
    for (const [request, field] of cases) {
      const response = await post(secret, "/brand/ai/product", request)
      const error = await response.json() as Record<string, any>
      expect([response.status, error.error_code]).toEqual([400, "INPUT_VALIDATION_ERROR"])
      expect(error.message).toContain(field)
    }
    expect((await balance(orgId)).remaining).toBe(before)
  })
})

describe("POST /brand/ai/products", () => {
  it("a Shopify store's products.json (maxProducts 2): variants, compare-at price, stock, the shop's currency; 10 credits", async () => {
    const { orgId, secret } = await service.key()
    const client = new ContextDev({ apiKey: secret, baseURL: service.baseUrl, maxRetries: 0 })
    const before = (await balance(orgId)).remaining
    const result = await client.ai.extractProducts({ domain: names.shopify, maxProducts: 2 })
    expect(result.products).toEqual([
      {
        name: "Alpine Beanie", description: "Merino beanie.", features: [], images: ["https://cdn.shopify.com/s/files/beanie.jpg", "https://cdn.shopify.com/s/files/beanie-navy.jpg"],
        sku: "BEAN-RED", tags: ["wool", "winter"], target_audience: [], availability: "in_stock", billing_frequency: "one_time", category: "Hats", currency: "USD",
        dimensions: [], image_url: "https://cdn.shopify.com/s/files/beanie.jpg", price: 24, pricing_model: null, regular_price: 30,
        url: `http://${names.shopify}/products/alpine-beanie`,
        variants: [
          { attributes: { Color: "Red" }, images: [], sku: "BEAN-RED", url: `http://${names.shopify}/products/alpine-beanie?variant=1001` },
          { attributes: { Color: "Navy" }, images: ["https://cdn.shopify.com/s/files/beanie-navy.jpg"], sku: "BEAN-NAVY", url: `http://${names.shopify}/products/alpine-beanie?variant=1002` }
        ]
      },
      {
        name: "Wool Socks", description: "Warm socks.", features: [], images: [], sku: "SOCK-1", tags: [], target_audience: [], availability: "out_of_stock",
        billing_frequency: "one_time", category: "Socks", currency: "USD", dimensions: [], image_url: null, price: 12.5, pricing_model: null, regular_price: null,
        url: `http://${names.shopify}/products/wool-socks`, variants: []
      }
    ])
    expect(result.key_metadata?.credits_consumed).toBe(10)
    expect((await balance(orgId)).remaining).toBe(before - 10)
  })

  it("a WooCommerce store through its Store API: minor units, sale and regular price", async () => {
    const { secret } = await service.key()
    const client = new ContextDev({ apiKey: secret, baseURL: service.baseUrl, maxRetries: 0 })
    const result = await client.ai.extractProducts({ domain: names.woo })
    expect(result.products).toHaveLength(2)
    expect(result.products![0]).toMatchObject({
      name: "Olive Oil 500ml", description: "Cold-pressed.", sku: "OIL-500", price: 14.5, regular_price: 18, currency: "EUR", availability: "in_stock",
      category: "Pantry", tags: ["organic"], images: [`http://${names.woo}/wp-content/uploads/oil.jpg`], url: `http://${names.woo}/product/olive-oil/`
    })
    // A product page of the store without structured data is read through the Store API by its slug.
    const page = await client.ai.extractProduct({ url: `http://${names.woo}/product/olive-oil/` })
    expect([page.is_product_page, page.product?.name, page.product?.price, page.product?.regular_price, page.product?.currency]).toEqual([true, "Olive Oil 500ml", 14.5, 18, "EUR"])
    expect(result.products![1]).toMatchObject({
      name: "Gift Box", sku: null, price: 39, regular_price: null, availability: "out_of_stock",
      variants: [{ attributes: { Size: "Large" }, images: [], sku: null, url: `http://${names.woo}/product/gift-box/?variation_id=81` }]
    })
  })

  it("a generic shop: products from a category page's ItemList and the sitemap, read page by page", async () => {
    const { secret } = await service.key()
    const client = new ContextDev({ apiKey: secret, baseURL: service.baseUrl, maxRetries: 0 })
    const result = await client.ai.extractProducts({ directUrl: `http://${shop}/c/jackets`, maxProducts: 4 })
    expect(result.products!.map((p) => [p.name, p.price, p.currency, p.availability])).toEqual([
      ["Trail Jacket", 129, "EUR", "in_stock"],
      ["Rain Shell", 149, "EUR", "in_stock"],
      ["Down Parka", 199, "EUR", "backorder"],
      // The sitemap's first product page after the list's.
      ["Ceramic Mug", 18.5, "USD", "limited_availability"]
    ])
    expect(requested(site, shop)).toContain("/sitemap.xml")
  })

  it("exactly one of domain and directUrl; maxProducts 1 to 100; a bot wall is WEBSITE_ACCESS_ERROR; nothing charged", async () => {
    const { orgId, secret } = await service.key()
    const before = (await balance(orgId)).remaining
    const cases: Array<[unknown, number, string, string]> = [
      [{}, 400, "INPUT_VALIDATION_ERROR", "domain"],
      [{ domain: names.woo, directUrl: `http://${names.woo}/` }, 400, "INPUT_VALIDATION_ERROR", "domain"],
      [{ domain: names.woo, maxProducts: 101 }, 400, "INPUT_VALIDATION_ERROR", "maxProducts"],
      [{ domain: "not a domain" }, 400, "INPUT_VALIDATION_ERROR", "domain"],
      [{ domain: names.woo, zdr: "enabled" }, 400, "INPUT_VALIDATION_ERROR", "zdr"],
      [{ directUrl: `http://${shop}/wall` }, 400, "WEBSITE_ACCESS_ERROR", "blocked"]
    ]
    for (const [request, status, code, named] of cases) {
      const response = await post(secret, "/brand/ai/products", request)
      const error = await response.json() as Record<string, any>
      expect([JSON.stringify(request), response.status, error.error_code]).toEqual([JSON.stringify(request), status, code])
      expect(error.message).toContain(named)
    }
    expect((await balance(orgId)).remaining).toBe(before)
  })
})
