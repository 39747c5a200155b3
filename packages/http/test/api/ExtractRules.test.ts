import * as Auth from "@sift/auth"
import ContextDev from "context.dev"
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as FixtureSite from "../../../core/test/support/FixtureSite.js"
import * as TestService from "../support/TestService.js"

const page = `<!doctype html><html><head><title>Catalogue</title></head><body>
<nav><a href="/home">Home</a></nav>
<main><h1>  Spring   catalogue </h1>
<ul><li class="i" data-sku="A1"><span class="n">Mug</span> <a href="/p/mug">see</a> <b class="p">18.50</b></li>
<li class="i"><span class="n">Lamp</span> <a href="/p/lamp" title="Lamp &amp; shade">see</a></li></ul>
<p class="note">Prices <em>include</em> VAT.</p></main></body></html>`

let site: FixtureSite.Site
let service: TestService.TestService
beforeAll(async () => {
  site = await FixtureSite.start({ "/": FixtureSite.html(page) })
  service = await TestService.start()
})
afterAll(async () => {
  await service?.close()
  await site?.close()
})

describe("GET /web/scrape/html extractRules", () => {
  it("the SDK's nested rules (deep-object query) give `extracted`: text, @attributes, html, lists, nested items, nulls; 1 credit", async () => {
    const { orgId, secret } = await service.key()
    const before = (await service.run(Effect.flatMap(Auth.CreditLedger.CreditLedger, (l) => l.balance(orgId)))).remaining
    const client = new ContextDev({ apiKey: secret, baseURL: service.baseUrl, maxRetries: 0 })
    const result = await client.web.webScrapeHTML({
      url: `${site.url}/`,
      extractRules: {
        title: "h1",
        home: "nav a@href",
        missing: ".nothing",
        note: { selector: ".note", output: "html" },
        links: { selector: "li a", type: "list", output: "@href" },
        titles: { selector: "li a", type: "list", output: "@title" },
        items: { selector: ".i", type: "list", output: { name: ".n", price: ".p", sku: { selector: "span", output: "@class" } } },
        none: { selector: ".nothing", type: "list" }
      }
    })
    expect(result.extracted).toEqual({
      title: "Spring catalogue",
      home: `${site.url}/home`,
      missing: null,
      note: "<p class=\"note\">Prices <em>include</em> VAT.</p>",
      links: [`${site.url}/p/mug`, `${site.url}/p/lamp`],
      titles: [null, "Lamp & shade"],
      items: [{ name: "Mug", price: "18.50", sku: "n" }, { name: "Lamp", price: null, sku: "n" }],
      none: []
    })
    expect(result.html).toContain("Spring")
    expect(result.key_metadata?.credits_consumed).toBe(1)
    expect((await service.run(Effect.flatMap(Auth.CreditLedger.CreditLedger, (l) => l.balance(orgId)))).remaining).toBe(before - 1)

    // A JSON-encoded extractRules reads the same; rules run after includeSelectors.
    const url = `${service.baseUrl}/web/scrape/html?url=${encodeURIComponent(`${site.url}/`)}&includeSelectors=main&extractRules=${encodeURIComponent(JSON.stringify({ home: "nav a@href", first: ".n" }))}`
    const json = await (await fetch(url, { headers: { authorization: `Bearer ${secret}` } })).json() as Record<string, any>
    expect(json.extracted).toEqual({ home: null, first: "Mug" })
    // Without rules there is no `extracted`.
    const plain = await client.web.webScrapeHTML({ url: `${site.url}/` })
    expect(plain.extracted).toBeUndefined()
  })

  it("bad rules are 400 naming the rule, before any fetch, uncharged", async () => {
    const { secret } = await service.key()
    const deep = { a: { selector: "p", output: { b: { selector: "p", output: { c: { selector: "p", output: { d: { selector: "p", output: { e: { selector: "p", output: { f: "p" } } } } } } } } } } }
    const many = Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`f${i}`, "p"]))
    const cases: Array<[unknown, string]> = [
      [{ a: "p[" }, "extractRules.a"],
      [{ a: { selector: "p", type: "grid" } }, "extractRules.a.type"],
      [{ a: { selector: "p", output: "href" } }, "extractRules.a.output"],
      [{ a: { selector: "p", extra: 1 } }, "extractRules.a.extra"],
      [{ a: { selector: "p", output: { b: { output: "text" } } } }, "extractRules.a.output.b.selector"],
      [deep, "5 levels"],
      [many, "100 fields"]
    ]
    const before = site.exchanges.length
    for (const [rules, named] of cases) {
      const response = await fetch(`${service.baseUrl}/web/scrape/html?url=${encodeURIComponent(`${site.url}/`)}&extractRules=${encodeURIComponent(JSON.stringify(rules))}`, {
        headers: { authorization: `Bearer ${secret}` }
      })
      const error = await response.json() as Record<string, any>
      expect([named, response.status, error.error_code]).toEqual([named, 400, "INPUT_VALIDATION_ERROR"])
      expect(error.message).toContain(named)
      expect(error.key_metadata.credits_consumed).toBe(0)
    }
    expect(site.exchanges.length).toBe(before)
  })
})
