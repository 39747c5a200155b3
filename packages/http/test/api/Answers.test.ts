/**
 * `POST /v1/web/answers` through the official SDK (`client.web.answers`). A SearXNG-format JSON responder stands in for
 * a SearXNG instance and an OpenAI-format chat-completions responder for a model server (neither can run in the
 * tests); the result pages are fixture "domains" (`*.test`) served by one local server through host rules and read
 * through the real scrape pipeline.
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

const page = (title: string, body: string) =>
  FixtureSite.html(`<!doctype html><html lang="en"><head><title>${title}</title></head><body><nav>Home | Docs | Blog</nav><main><h1>${title}</h1><p>${body}</p></main></body></html>`)

const hosts: Hosts = {
  "acme.test": {
    "/pricing": page("Acme pricing", "The Starter plan costs 19 dollars a month and the Team plan 49 dollars a month."),
    "/about": page("About Acme", "Acme was founded in 2011 in Lyon."),
    "/": page("Acme", "Acme sells shared inboxes to small teams.")
  },
  "review.test": { "/acme": page("Acme reviewed", "We liked the Team plan's shared inboxes.") },
  "gone.test": { "/acme": FixtureSite.status(404) },
  "slow.test": { "/acme": FixtureSite.slow({ headersAfterMs: 30_000 }) }
}

/** The SearXNG stand-in: answers `/search?format=json` from `answers` by query. */
const startEngine = async () => {
  const answers: Record<string, ReadonlyArray<{ url: string; title: string; content: string }>> = {}
  const server = http.createServer((req, res) => {
    const params = new URL(req.url ?? "/", "http://x").searchParams
    const results = (params.get("pageno") ?? "1") === "1" ? answers[params.get("q") ?? ""] ?? [] : []
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ query: params.get("q"), results }))
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, answers, close: () => new Promise<void>((resolve) => server.close(() => resolve())) }
}

/** The OpenAI-format stand-in: each completion answers what `respond` gives for the nth call (`undefined`: never answers). */
const startModel = async () => {
  const state = { bodies: [] as Array<any>, respond: (_n: number): string | undefined => "{}" }
  const server = http.createServer((req, res) => {
    const chunks: Array<Buffer> = []
    req.on("data", (c) => chunks.push(c))
    req.on("end", () => {
      state.bodies.push(JSON.parse(Buffer.concat(chunks).toString("utf8")))
      const content = state.respond(state.bodies.length)
      if (content === undefined) return
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

type Answered = Awaited<ReturnType<ContextDev["web"]["answers"]>> & { key_metadata: { credits_consumed: number } }

let site: FixtureSite.Site
let engine: Awaited<ReturnType<typeof startEngine>>
let model: Awaited<ReturnType<typeof startModel>>
let full: TestService.TestService
let bare: TestService.TestService
let modelOnly: TestService.TestService

const task = "What do Acme's plans cost per month?"
const pricingAnswer = JSON.stringify({ plans: [{ name: "Starter", price: 19 }, { name: "Team", price: 49 }], currency: "USD" })

beforeAll(async () => {
  site = await startSites(hosts)
  engine = await startEngine()
  model = await startModel()
  const hostRules = `MAP *.test 127.0.0.1:${site.port}`
  delete process.env.SIFT_SEARXNG_URL
  delete process.env.SIFT_LLM_URL
  full = await TestService.start({ hostRules, env: { SIFT_SEARXNG_URL: engine.url, SIFT_LLM_URL: model.url, SIFT_LLM_MODEL: "stand-in" } })
  bare = await TestService.start({ hostRules, env: { SIFT_SEARXNG_URL: engine.url } })
  modelOnly = await TestService.start({ hostRules, env: { SIFT_LLM_URL: model.url, SIFT_LLM_MODEL: "stand-in" } })
  engine.answers[task] = [
    { url: "http://acme.test/pricing", title: "Acme pricing", content: "Plans and prices" },
    { url: "http://gone.test/acme", title: "Acme (removed)", content: "A page that is gone" },
    { url: "http://review.test/acme", title: "Acme reviewed", content: "A review" },
    { url: "http://acme.test/about", title: "About Acme", content: "Founded in 2011" }
  ]
}, 180_000)
afterAll(async () => {
  await full?.close()
  await bare?.close()
  await modelOnly?.close()
  await engine?.close()
  await model?.close()
  await site?.close()
})
beforeEach(() => {
  model.bodies.length = 0
  model.respond = () => pricingAnswer
})

const balance = (service: TestService.TestService, orgId: string) =>
  service.run(Effect.flatMap(Auth.CreditLedger.CreditLedger, (l) => l.balance(orgId))).then((b) => b.remaining)

const clientOf = (service: TestService.TestService, secret: string) =>
  new ContextDev({ apiKey: secret, baseURL: service.baseUrl, maxRetries: 0, timeout: 120_000 })

const format = { plans: [{ name: "", price: 0 }], currency: "" }

describe("POST /web/answers through the official SDK (SearXNG and model stand-ins)", () => {
  it("fast: reads the top results, answers in the json_format shape, sources in first-seen order without the unreadable page; 10 credits", async () => {
    const { orgId, secret } = await full.key({ credits: 500 })
    const answered = await clientOf(full, secret).web.answers({ task, json_format: format, mode: "fast" }) as Answered
    expect(answered.json_content).toEqual({ plans: [{ name: "Starter", price: 19 }, { name: "Team", price: 49 }], currency: "USD" })
    // fast reads the top three: the 404 is left out, the fourth (not read) still supplied a result.
    expect(answered.sources).toEqual(["http://acme.test/pricing", "http://review.test/acme", "http://acme.test/about"])
    expect(answered.partial).toBeUndefined()
    expect(answered.key_metadata.credits_consumed).toBe(10)
    expect(await balance(full, orgId)).toBe(490)
    // The model was asked once, with the pages' text and a schema made from json_format.
    expect(model.bodies).toHaveLength(1)
    const prompt = model.bodies[0].messages.map((m: { content: string }) => m.content).join("\n")
    expect(prompt).toContain("The Starter plan costs 19 dollars a month")
    expect(prompt).toContain("shared inboxes")
    expect(prompt).not.toContain("founded in 2011 in Lyon")
    const schema = model.bodies[0].response_format.json_schema.schema
    expect(schema.required).toEqual(["plans", "currency"])
    expect(schema.properties.plans.items.properties.price.type).toEqual(["number", "null"])
  })

  it("ultra (the default) reads deeper and charges 100", async () => {
    const { orgId, secret } = await full.key({ credits: 500 })
    const answered = await clientOf(full, secret).web.answers({ task, json_format: format }) as Answered
    expect(answered.key_metadata.credits_consumed).toBe(100)
    expect(await balance(full, orgId)).toBe(400)
    const prompt = model.bodies[0].messages.map((m: { content: string }) => m.content).join("\n")
    expect(prompt).toContain("founded in 2011 in Lyon")
  })

  it("without json_format answers {result}; an answer breaking the shape is repaired once", async () => {
    const { secret } = await full.key({ credits: 500 })
    model.respond = (n) => n === 1 ? JSON.stringify({ answer: "19 and 49" }) : JSON.stringify({ result: "19 and 49 dollars" })
    const answered = await clientOf(full, secret).web.answers({ task, mode: "fast" }) as Answered
    expect(answered.json_content).toEqual({ result: "19 and 49 dollars" })
    expect(model.bodies).toHaveLength(2)
    expect(model.bodies[1].messages.at(-1).content).toContain("cannot be used")
    expect(answered.key_metadata.credits_consumed).toBe(10)
  })

  it("an answer that still breaks the shape after the repair is 502, uncharged", async () => {
    const { orgId, secret } = await full.key({ credits: 500 })
    model.respond = () => JSON.stringify({ plans: "two of them" })
    const failed = await apiError(clientOf(full, secret).web.answers({ task, json_format: format, mode: "fast" }))
    expect(failed).toMatchObject({ status: 502, code: "EXTERNAL_PROVIDER_ERROR" })
    expect(failed.message).toContain("SIFT_LLM_URL")
    expect(model.bodies).toHaveLength(2)
    expect(await balance(full, orgId)).toBe(500)
  })

  it("a model that never answers is bounded by the deadline: 408, uncharged", async () => {
    const { orgId, secret } = await full.key({ credits: 500 })
    model.respond = () => undefined
    const started = Date.now()
    const failed = await apiError(clientOf(full, secret).web.answers({ task, mode: "fast", timeoutOpts: { milliseconds: 5_000 } }))
    expect(failed).toMatchObject({ status: 408, code: "REQUEST_TIMEOUT" })
    expect(Date.now() - started).toBeLessThan(12_000)
    expect(await balance(full, orgId)).toBe(500)
  })

  it("a result not read by the end of the research budget is left out and the answer is partial, charged", async () => {
    const { secret } = await full.key({ credits: 500 })
    engine.answers["Acme prices, slowly"] = [
      { url: "http://acme.test/pricing", title: "Acme pricing", content: "Plans and prices" },
      { url: "http://slow.test/acme", title: "Acme, slowly", content: "A page that takes its time" }
    ]
    const started = Date.now()
    const answered = await clientOf(full, secret).web.answers({ task: "Acme prices, slowly", json_format: format, mode: "fast", timeoutOpts: { milliseconds: 8_000 } }) as Answered
    expect(Date.now() - started).toBeLessThan(8_000)
    expect(answered.partial).toBe(true)
    expect(answered.sources).toEqual(["http://acme.test/pricing"])
    expect(answered.json_content).toEqual(JSON.parse(pricingAnswer))
    expect(answered.key_metadata.credits_consumed).toBe(10)
  })

  it("a domain the task names is read first (over HTTP when it has no HTTPS) and leads the sources", async () => {
    const { secret } = await full.key({ credits: 500 })
    engine.answers["What does acme.test sell?"] = [{ url: "http://review.test/acme", title: "Acme reviewed", content: "A review" }]
    model.respond = () => JSON.stringify({ result: "shared inboxes" })
    const answered = await clientOf(full, secret).web.answers({ task: "What does acme.test sell?", mode: "fast" }) as Answered
    expect(answered.sources).toEqual(["http://acme.test/", "http://review.test/acme"])
    const prompt = model.bodies[0].messages.map((m: { content: string }) => m.content).join("\n")
    expect(prompt).toContain("Acme sells shared inboxes to small teams")
  })

  it("json_format deeper than 8 levels is 400 INPUT_VALIDATION_ERROR, uncharged; 8 levels are accepted", async () => {
    const { orgId, secret } = await full.key({ credits: 500 })
    const nested = (levels: number): Record<string, unknown> => levels === 1 ? { leaf: "" } : { next: nested(levels - 1) }
    const failed = await apiError(clientOf(full, secret).web.answers({ task, json_format: nested(9), mode: "fast" }))
    expect(failed).toMatchObject({ status: 400, code: "INPUT_VALIDATION_ERROR" })
    expect(failed.message).toContain("json_format")
    expect(model.bodies).toHaveLength(0)
    expect(await balance(full, orgId)).toBe(500)
    model.respond = () => JSON.stringify(nested(8))
    const answered = await clientOf(full, secret).web.answers({ task, json_format: nested(8), mode: "fast" }) as Answered
    expect(answered.json_content).toEqual(nested(8))
  })

  it("no model configured: 502 EXTERNAL_PROVIDER_ERROR naming SIFT_LLM_URL; no engine: 503 SEARCH_UNAVAILABLE; both uncharged", async () => {
    const noModel = await bare.key({ credits: 500 })
    const failed = await apiError(clientOf(bare, noModel.secret).web.answers({ task, mode: "fast" }))
    expect(failed).toMatchObject({ status: 502, code: "EXTERNAL_PROVIDER_ERROR" })
    expect(failed.message).toContain("SIFT_LLM_URL")
    expect(await balance(bare, noModel.orgId)).toBe(500)
    const noEngine = await modelOnly.key({ credits: 500 })
    const unavailable = await apiError(clientOf(modelOnly, noEngine.secret).web.answers({ task, mode: "fast" }))
    expect(unavailable).toMatchObject({ status: 503, code: "SEARCH_UNAVAILABLE" })
    expect(unavailable.message).toContain("SIFT_SEARXNG_URL")
    expect(await balance(modelOnly, noEngine.orgId)).toBe(500)
    expect(model.bodies).toHaveLength(0)
  })
})
