/**
 * `POST /v1/web/extract` through the official SDK (`client.web.extract`). A fixture company site (`shop.test`, served
 * by one local server through host rules) is crawled through the real scrape pipeline; an OpenAI-format
 * chat-completions responder stands in for a model server (which cannot run in the tests).
 */
import * as Auth from "@sift/auth"
import ContextDev from "context.dev"
import { Effect } from "effect"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import { type Hosts, startSites } from "../../../core/test/discovery/support/sites.js"
import * as FixtureSite from "../../../core/test/support/FixtureSite.js"
import * as TestService from "../support/TestService.js"

const organization = {
  "@context": "https://schema.org",
  "@type": "Organization",
  name: "Acme Widgets",
  url: "http://shop.test/",
  logo: { "@type": "ImageObject", url: "http://shop.test/logo.png" },
  email: "hello@acme-widgets.test",
  telephone: "+33 4 00 00 00 00",
  address: { "@type": "PostalAddress", streetAddress: "1 Rue du Port", addressLocality: "Lyon", postalCode: "69001", addressCountry: "FR" }
}

const page = (title: string, body: string, head = "") =>
  FixtureSite.html(`<!doctype html><html lang="en"><head><title>${title}</title>${head}</head><body><main><h1>${title}</h1>${body}</main></body></html>`)

const hosts: Hosts = {
  "shop.test": {
    "/": page("Acme Widgets", `<p>We make widgets in Lyon.</p><img src="/img/blue-widget.jpg" alt="A blue widget"><ul>
      <li><a href="/blog/first-post">Our first post</a></li><li><a href="/blog/second-post">Another story</a></li>
      <li><a href="/careers">Jobs</a></li><li><a href="/about">About us</a></li><li><a href="/pricing">Plans</a></li></ul>`,
      `<meta property="og:description" content="Widgets made in Lyon"><script type="application/ld+json">${JSON.stringify(organization)}</script>`),
    "/store": page("Our Lyon store", `<div itemscope itemtype="https://schema.org/Store"><span itemprop="name">Acme Widgets Lyon</span>
      <span itemprop="telephone">+33 4 11 11 11 11</span><div itemprop="address" itemscope itemtype="https://schema.org/PostalAddress">
      <span itemprop="streetAddress">5 Quai Rambaud</span>, <span itemprop="addressLocality">Lyon</span></div>
      <span itemprop="priceRange">EUR</span></div>`),
    "/pricing": page("Pricing", "<p>The Starter plan is 19 euros a month. The Team plan is 49 euros a month.</p>"),
    "/about": page("About", "<p>Founded by two engineers.</p>"),
    "/careers": page("Careers", "<p>No openings.</p>"),
    "/blog/first-post": page("First post", "<p>Hello.</p>"),
    "/blog/second-post": page("Second post", "<p>Again.</p>")
  }
}

/** The OpenAI-format stand-in: every completion answers `respond()`. */
const startModel = async () => {
  const state = { bodies: [] as Array<any>, respond: (): string | undefined => "{}" }
  const server = http.createServer((req, res) => {
    const chunks: Array<Buffer> = []
    req.on("data", (c) => chunks.push(c))
    req.on("end", () => {
      state.bodies.push(JSON.parse(Buffer.concat(chunks).toString("utf8")))
      const content = state.respond()
      if (content === undefined) return // never answers
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ choices: [{ message: { role: "assistant", content } }], usage: { total_tokens: 50 } }))
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  return Object.assign(state, {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()) })
  })
}

const apiError = async (promise: Promise<unknown>) => {
  try {
    await promise
  } catch (error) {
    const e = error as { status?: number; error?: { error_code?: string; message?: string } }
    return { status: e.status, code: e.error?.error_code, message: e.error?.message ?? "" }
  }
  throw new Error("expected the call to fail")
}

type Extracted = Awaited<ReturnType<ContextDev["web"]["extract"]>> & { key_metadata: { credits_consumed: number } }

let site: FixtureSite.Site
let model: Awaited<ReturnType<typeof startModel>>
let withModel: TestService.TestService
let noModel: TestService.TestService

beforeAll(async () => {
  site = await startSites(hosts)
  model = await startModel()
  const hostRules = `MAP *.test 127.0.0.1:${site.port}`
  delete process.env.SIFT_LLM_URL
  withModel = await TestService.start({ hostRules, env: { SIFT_LLM_URL: model.url, SIFT_LLM_MODEL: "stand-in" } })
  noModel = await TestService.start({ hostRules })
}, 180_000)
afterAll(async () => {
  await withModel?.close()
  await noModel?.close()
  await model?.close()
  await site?.close()
})
beforeEach(() => {
  model.bodies.length = 0
})

const balance = (service: TestService.TestService, orgId: string) =>
  service.run(Effect.flatMap(Auth.CreditLedger.CreditLedger, (l) => l.balance(orgId))).then((b) => b.remaining)

const clientOf = (service: TestService.TestService, secret: string) =>
  new ContextDev({ apiKey: secret, baseURL: service.baseUrl, maxRetries: 0, timeout: 120_000 })

const plansSchema = {
  type: "object",
  properties: { plans: { type: "array", items: { type: "object", properties: { name: { type: "string" }, price: { type: "number" } }, required: ["name", "price"] } } },
  required: ["plans"]
}

describe("POST /web/extract through the official SDK", () => {
  it("without a model fills the fields the structured data states and nulls the rest; 10 credits", async () => {
    const { orgId, secret } = await noModel.key({ credits: 100 })
    const extracted = await clientOf(noModel, secret).web.extract({
      url: "http://shop.test/",
      maxPages: 1,
      schema: {
        type: "object",
        properties: {
          name: { type: "string" },
          description: { type: "string" },
          email: { type: "string" },
          phone: { type: "string" },
          address: { type: "string" },
          logo: { type: "string" },
          founder: { type: "string" },
          revenue: { type: "number" }
        }
      }
    }) as Extracted
    expect(extracted.data).toEqual({
      name: "Acme Widgets",
      description: "Widgets made in Lyon",
      email: "hello@acme-widgets.test",
      phone: "+33 4 00 00 00 00",
      address: "1 Rue du Port, Lyon, 69001, FR",
      logo: "http://shop.test/logo.png",
      founder: null,
      revenue: null
    })
    expect(extracted.urls_analyzed).toEqual(["http://shop.test/"])
    expect(extracted.metadata).toMatchObject({ numSucceeded: 1, numFailed: 0, maxCrawlDepth: 0 })
    expect(extracted.key_metadata.credits_consumed).toBe(10)
    expect(await balance(noModel, orgId)).toBe(90)
  })

  it("without a model reads microdata too", async () => {
    const { secret } = await noModel.key({ credits: 100 })
    const extracted = await clientOf(noModel, secret).web.extract({
      url: "http://shop.test/store",
      maxPages: 1,
      schema: { type: "object", properties: { name: { type: "string" }, phone: { type: "string" }, address: { type: "object", properties: { streetAddress: { type: "string" }, addressLocality: { type: "string" } } }, email: { type: "string" } } }
    }) as Extracted
    expect(extracted.data).toEqual({ name: "Acme Widgets Lyon", phone: "+33 4 11 11 11 11", address: { streetAddress: "5 Quai Rambaud", addressLocality: "Lyon" }, email: null })
  })

  it("reads the links the schema is about first (pricing before the blog) and fills the schema with the model", async () => {
    const { secret } = await withModel.key({ credits: 100 })
    model.respond = () => JSON.stringify({ plans: [{ name: "Starter", price: 19 }, { name: "Team", price: 49 }] })
    const extracted = await clientOf(withModel, secret).web.extract({ url: "http://shop.test/", maxPages: 2, schema: plansSchema }) as Extracted
    expect(extracted.urls_analyzed).toEqual(["http://shop.test/", "http://shop.test/pricing"])
    expect(extracted.data).toEqual({ plans: [{ name: "Starter", price: 19 }, { name: "Team", price: 49 }] })
    const prompt = model.bodies[0].messages.map((m: { content: string }) => m.content).join("\n")
    expect(prompt).toContain("The Team plan is 49 euros a month")
    expect(prompt).not.toContain("Founded by two engineers")
    expect(extracted.key_metadata.credits_consumed).toBe(10)
  })

  it("instructions steer the crawl too: the about page for who founded the company", async () => {
    const { secret } = await withModel.key({ credits: 100 })
    model.respond = () => JSON.stringify({ founders: "two engineers" })
    const extracted = await clientOf(withModel, secret).web.extract({
      url: "http://shop.test/",
      maxPages: 2,
      instructions: "Look at the about page",
      schema: { type: "object", properties: { founders: { type: "string" } } }
    }) as Extracted
    expect(extracted.urls_analyzed).toEqual(["http://shop.test/", "http://shop.test/about"])
  })

  it("image fields make the pages' image references available to the model", async () => {
    const { secret } = await withModel.key({ credits: 100 })
    model.respond = () => JSON.stringify({ product_photos: ["http://shop.test/img/blue-widget.jpg"] })
    const schema = { type: "object", properties: { product_photos: { type: "array", items: { type: "string" } } } }
    const extracted = await clientOf(withModel, secret).web.extract({ url: "http://shop.test/", maxPages: 1, schema }) as Extracted
    expect(extracted.data).toEqual({ product_photos: ["http://shop.test/img/blue-widget.jpg"] })
    const prompt = model.bodies[0].messages.map((m: { content: string }) => m.content).join("\n")
    expect(prompt).toContain("Images on this page:\nhttp://shop.test/img/blue-widget.jpg")
  })

  it("factCheck nulls a value the pages do not state; without it the model's value stays", async () => {
    const { secret } = await withModel.key({ credits: 100 })
    model.respond = () => JSON.stringify({ name: "Acme Widgets", founder: "Invented Person", employees: 5000, city: "Lyon" })
    const schema = { type: "object", properties: { name: { type: "string" }, founder: { type: "string" }, employees: { type: "number" }, city: { type: "string" } } }
    const client = clientOf(withModel, secret)
    const checked = await client.web.extract({ url: "http://shop.test/", maxPages: 1, schema, factCheck: true }) as Extracted
    expect(checked.data).toEqual({ name: "Acme Widgets", founder: null, employees: null, city: "Lyon" })
    const unchecked = await client.web.extract({ url: "http://shop.test/", maxPages: 1, schema }) as Extracted
    expect(unchecked.data).toEqual({ name: "Acme Widgets", founder: "Invented Person", employees: 5000, city: "Lyon" })
  })

  it("a model answer that breaks the schema twice falls back to the structured data", async () => {
    const { secret } = await withModel.key({ credits: 100 })
    model.respond = () => JSON.stringify({ name: 42 })
    const extracted = await clientOf(withModel, secret).web.extract({
      url: "http://shop.test/",
      maxPages: 1,
      schema: { type: "object", properties: { name: { type: "string" }, email: { type: "string" } } }
    }) as Extracted
    expect(model.bodies).toHaveLength(2)
    expect(extracted.data).toEqual({ name: "Acme Widgets", email: "hello@acme-widgets.test" })
  })

  it("a model that never answers is bounded by the deadline: the structured data within it, charged", async () => {
    const { secret } = await withModel.key({ credits: 100 })
    model.respond = () => undefined
    const started = Date.now()
    const extracted = await clientOf(withModel, secret).web.extract({
      url: "http://shop.test/",
      maxPages: 1,
      timeoutOpts: { milliseconds: 10_000 },
      schema: { type: "object", properties: { name: { type: "string" }, email: { type: "string" } } }
    }) as Extracted
    expect(Date.now() - started).toBeLessThan(10_000)
    expect(model.bodies).toHaveLength(1)
    expect(extracted.data).toEqual({ name: "Acme Widgets", email: "hello@acme-widgets.test" })
    expect(extracted.key_metadata.credits_consumed).toBe(10)
  })

  it("actions on the free plan are 403 PAID_PLAN_REQUIRED; an unreadable start page fails; both uncharged", async () => {
    const { orgId, secret } = await noModel.key({ credits: 100, plan: "free" })
    const client = clientOf(noModel, secret)
    const refused = await apiError(client.web.extract({ url: "http://shop.test/", schema: plansSchema, actions: [{ do: "wait", timeMs: 100 }] }))
    expect(refused).toMatchObject({ status: 403, code: "PAID_PLAN_REQUIRED" })
    const missing = await apiError(client.web.extract({ url: "http://shop.test/nowhere", schema: plansSchema }))
    expect(missing.status).toBeGreaterThanOrEqual(400)
    expect(missing.code).toMatch(/^WEBSITE_/)
    const invalid = await apiError(client.web.extract({ url: "shop.test", schema: plansSchema }))
    expect(invalid).toMatchObject({ status: 400, code: "INPUT_VALIDATION_ERROR" })
    expect(await balance(noModel, orgId)).toBe(100)
  })
})
