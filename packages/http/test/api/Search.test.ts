/**
 * `POST /v1/web/search` and `GET /v1/web/competitors` through the official SDK (`client.web.search`,
 * `client.web.extractCompetitors`). A SearXNG-format JSON responder started here stands in for a SearXNG instance (which
 * cannot run in the tests), and an OpenAI-format chat-completions responder for a model server; fixture "domains"
 * (`*.test`) are served by one local server through host rules. Sift's own page index is fed by real crawls and
 * scrapes and searched per organization.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as Auth from "@sift/auth"
import ContextDev from "context.dev"
import { Effect } from "effect"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type Hosts, startSites } from "../../../core/test/discovery/support/sites.js"
import * as FixtureSite from "../../../core/test/support/FixtureSite.js"
import { deterministicVariants } from "../../src/Search/Http.js"
import { eventually } from "../support/eventually.js"
import * as TestService from "../support/TestService.js"

const page = (title: string, body: string, lang = "en") =>
  FixtureSite.html(`<!doctype html><html lang="${lang}"><head><title>${title}</title><meta name="description" content="${title}: ${body.slice(0, 60)}"></head><body><main><h1>${title}</h1><p>${body}</p></main></body></html>`)

const brewery = (name: string) =>
  page(`${name} | Craft beer brewed on site`, `Independent craft brewery: we brew ales and lagers in our brewhouse, ferment them in our cellar, can and keg them, and pour our IPA, pilsner and stout in our taproom.`)

const hosts: Hosts = {
  "docs.acme.test": {
    "/": page("Acme docs", "Welcome. See <a href=\"/install\">install</a> and <a href=\"/tuning\">tuning</a>."),
    "/install": page("Installing Acme", "Acme installs with one command; the flux capacitor calibration takes ninety seconds."),
    "/tuning": page("Tuning Acme", "Raise the worker count when queues grow.")
  },
  "news.test": {
    "/widgets": page("Widgets are back", "A report on blue widgets and their makers."),
    "/gadgets": page("Gadgets", "Gadgets and widgets compared."),
    "/pdf": FixtureSite.html("%PDF-1.4 not really", { contentType: "application/pdf" }),
    "/slow": FixtureSite.slow({ headersAfterMs: 20_000 })
  },
  "private.test": { "/": page("Private notes", "The flux capacitor calibration secret of a ZDR request.") },
  "other.test": { "/": page("Other org", "Their own flux capacitor calibration notes.") },
  "batch.test": { "/": page("Marmalade", "A quantum marmalade recipe read by a batch.") },
  "stonecut.test": { "/": brewery("Stonecut Brewing") },
  "hopworks.test": { "/": brewery("Hopworks Brewery") },
  "maltmill.test": { "/": brewery("Maltmill Beer Company") },
  "vinewood.test": {
    "/": page("Vinewood Winery | Estate wines", "Family winery and vineyard: we grow grapes, crush and ferment them in our winery, age our red and white wines in oak barrels and bottle them on the estate; wine tasting room open daily.")
  },
  "crumb.test": {
    "/": page("Crumb Bakery | Fresh bread daily", "Our bakery bakes sourdough bread, baguettes, croissants and cakes every morning in our ovens; pastries and pies to order.")
  }
}

/** The SearXNG stand-in: answers `/search?format=json` from `answers` by query; records every request. */
interface Engine {
  readonly url: string
  readonly requests: Array<URLSearchParams>
  answers: Record<string, ReadonlyArray<{ url: string; title: string; content?: string }>>
  failing: boolean
  close: () => Promise<void>
}

const startEngine = async (): Promise<Engine> => {
  const engine: Omit<Engine, "url" | "close"> = { requests: [], answers: {}, failing: false }
  const server = http.createServer((req, res) => {
    const params = new URL(req.url ?? "/", "http://x").searchParams
    engine.requests.push(params)
    if (engine.failing) return void res.writeHead(500).end("engine down")
    const q = (params.get("q") ?? "").replace(/\s+-site:\S+/g, "").replace(/\s+site:\S+$/, "").trim()
    const results = (params.get("pageno") ?? "1") === "1" ? engine.answers[q] ?? [] : []
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ query: q, results }))
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  return Object.assign(engine, {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve()))
  })
}

/** The OpenAI-format stand-in: every completion answers `content`. */
const startModel = async (content: () => string) => {
  const bodies: Array<any> = []
  const server = http.createServer((req, res) => {
    const chunks: Array<Buffer> = []
    req.on("data", (c) => chunks.push(c))
    req.on("end", () => {
      bodies.push(JSON.parse(Buffer.concat(chunks).toString("utf8")))
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ choices: [{ message: { role: "assistant", content: content() } }], usage: { total_tokens: 20 } }))
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, bodies, close: () => new Promise<void>((resolve) => server.close(() => resolve())) }
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

type Searched = Awaited<ReturnType<ContextDev["web"]["search"]>> & { key_metadata: { credits_consumed: number } }

let site: FixtureSite.Site
let engine: Engine
let model: Awaited<ReturnType<typeof startModel>>
let withEngine: TestService.TestService
let noEngine: TestService.TestService
let engineOnly: TestService.TestService
let rules = ""

beforeAll(async () => {
  site = await startSites(hosts)
  engine = await startEngine()
  model = await startModel(() => JSON.stringify({ queries: ["blue widget makers"] }))
  rules = `MAP *.test 127.0.0.1:${site.port}`
  delete process.env.SIFT_SEARXNG_URL
  withEngine = await TestService.start({ hostRules: rules, env: { SIFT_SEARXNG_URL: engine.url, SIFT_LLM_URL: model.url, SIFT_LLM_MODEL: "stand-in" } })
  noEngine = await TestService.start({ hostRules: rules })
  engineOnly = await TestService.start({ hostRules: rules, env: { SIFT_SEARXNG_URL: engine.url } })
}, 120_000)
afterAll(async () => {
  await withEngine?.close()
  await noEngine?.close()
  await engineOnly?.close()
  await engine?.close()
  await model?.close()
  await site?.close()
})

const balance = (service: TestService.TestService, orgId: string) =>
  service.run(Effect.flatMap(Auth.CreditLedger.CreditLedger, (l) => l.balance(orgId))).then((b) => b.remaining)

/**
 * Each of the organization's index rows with what its transaction also wrote (rows of one transaction share `xmin`):
 * page-cache entries and batch records.
 */
const writtenWith = (service: TestService.TestService, orgId: string) =>
  service.run(Effect.flatMap(SqlClient.SqlClient, (sql) => sql<{ url: string; cached: number; records: number }>`
    SELECT p.url,
      (SELECT count(*)::int FROM cache_entries c WHERE c.xmin::text = p.xmin::text) AS cached,
      (SELECT count(*)::int FROM batch_pages b WHERE b.xmin::text = p.xmin::text AND b.record IS NOT NULL) AS records
    FROM page_index p WHERE p.org_id = ${orgId} ORDER BY p.url`))

const clientOf = (service: TestService.TestService, secret: string) =>
  new ContextDev({ apiKey: secret, baseURL: service.baseUrl, maxRetries: 0, timeout: 120_000 })

describe("POST /web/search through the official SDK (SearXNG stand-in)", () => {
  it("answers in the engine's order, filtered by domains, with relevance tiers and the engine's options; 1 credit", async () => {
    const { orgId, secret } = await withEngine.key({ credits: 100 })
    const client = clientOf(withEngine, secret)
    engine.answers["blue widgets"] = [
      { url: "http://news.test/widgets", title: "Widgets are back", content: "Blue widgets and their makers" },
      { url: "https://en.wikipedia.org/wiki/Widget", title: "Widget", content: "An encyclopedia entry" },
      { url: "http://news.test/gadgets", title: "Gadgets", content: "Gadgets compared" },
      { url: "http://shop.test/blue", title: "Blue widgets for sale", content: "Buy blue widgets" }
    ]
    engine.requests.length = 0
    const before = await balance(withEngine, orgId)
    const { data, response } = await client.web.search({ query: "blue widgets", freshness: "last_week", excludeDomains: ["wikipedia.org"] }).withResponse()
    const searched = data as Searched
    expect(response.headers.get("x-sift-search-source")).toBe("searxng")
    expect(searched.query).toBe("blue widgets")
    expect(searched.results.map((r) => r.url)).toEqual(["http://news.test/widgets", "http://news.test/gadgets", "http://shop.test/blue"])
    expect(searched.results[0]).toMatchObject({ title: "Widgets are back", description: "Blue widgets and their makers", markdown: { code: "NOT_REQUESTED", markdown: null } })
    // Tertiles of BM25 over title and snippet: the result with the most of both words is high; one sharing none is low.
    expect(searched.results.map((r) => r.relevance)).toEqual(["medium", "low", "high"])
    expect(searched.key_metadata.credits_consumed).toBe(1)
    expect(await balance(withEngine, orgId)).toBe(before - 1)
    const sent = engine.requests[0]!
    expect(sent.get("format")).toBe("json")
    expect(sent.get("time_range")).toBe("week")
    expect(sent.get("q")).toBe("blue widgets -site:wikipedia.org")

    const only = await client.web.search({ query: "blue widgets", includeDomains: ["shop.test"] }) as Searched
    expect(only.results.map((r) => r.url)).toEqual(["http://shop.test/blue"])
    expect(engine.requests.at(-1)!.get("q")).toBe("blue widgets site:shop.test")
    expect(engine.requests.at(-1)!.get("language")).toBeNull()
    // country: the engine searches in the country's main language (best effort); one it does not know, in its default.
    await client.web.search({ query: "blue widgets", country: "de" } as never)
    expect(engine.requests.at(-1)!.get("language")).toBe("de-DE")
    await client.web.search({ query: "blue widgets", country: "aq" } as never)
    expect(engine.requests.at(-1)!.get("language")).toBeNull()
  }, 60_000)

  it("reads each result to Markdown when asked: SUCCESS, or a code for a dead or skipped result; 1 + 1 per page read", async () => {
    const { orgId, secret } = await withEngine.key({ credits: 100 })
    const client = clientOf(withEngine, secret)
    engine.answers["widget report"] = [
      { url: "http://news.test/widgets", title: "Widgets are back" },
      { url: "http://news.test/gone", title: "A dead page" },
      { url: "http://news.test/pdf", title: "A PDF" }
    ]
    const before = await balance(withEngine, orgId)
    const searched = await client.web.search({ query: "widget report", markdownOptions: { enabled: true, pdf: { shouldParse: false } } }) as Searched
    expect(searched.results.map((r) => [r.url, r.markdown.code])).toEqual([
      ["http://news.test/widgets", "SUCCESS"],
      ["http://news.test/gone", "WEBSITE_ACCESS_ERROR"],
      ["http://news.test/pdf", "WEBSITE_ACCESS_ERROR"]
    ])
    expect(searched.results[0]!.markdown.markdown).toContain("# Widgets are back")
    expect(searched.results[1]!.markdown.markdown).toBeNull()
    expect(searched.key_metadata.credits_consumed).toBe(2)
    expect(await balance(withEngine, orgId)).toBe(before - 2)
  }, 60_000)

  it("a deadline keeps the results read by then (return-partial: the rest TIMEOUT, partial) or fails uncharged (fail)", async () => {
    const { orgId, secret } = await withEngine.key({ credits: 100 })
    const client = clientOf(withEngine, secret)
    engine.answers["slow widgets"] = [{ url: "http://news.test/widgets", title: "Widgets are back" }, { url: "http://news.test/slow", title: "Slow" }]
    const before = await balance(withEngine, orgId)
    const partial = await client.web.search({ query: "slow widgets", markdownOptions: { enabled: true }, timeoutOpts: { milliseconds: 10_000, behavior: "return-partial" } }) as Searched & { partial?: boolean }
    expect(partial.partial).toBe(true)
    expect(partial.results.map((r) => r.markdown.code)).toEqual(["SUCCESS", "TIMEOUT"])
    expect(partial.key_metadata.credits_consumed).toBe(2)
    const failed = await apiError(client.web.search({ query: "slow widgets", markdownOptions: { enabled: true, maxAgeMs: 0 }, timeoutOpts: { milliseconds: 3_000 } }))
    expect(failed).toMatchObject({ status: 408, code: "REQUEST_TIMEOUT" })
    expect(await balance(withEngine, orgId)).toBe(before - 2)
  }, 60_000)

  it("fans the query out into the model's variants and merges them by URL", async () => {
    const { secret } = await withEngine.key({ credits: 100 })
    engine.answers["widget makers"] = [{ url: "http://news.test/widgets", title: "Widgets are back" }]
    engine.answers["blue widget makers"] = [{ url: "http://news.test/widgets", title: "Widgets are back" }, { url: "http://shop.test/makers", title: "Makers" }]
    model.bodies.length = 0
    const searched = await clientOf(withEngine, secret).web.search({ query: "widget makers", queryFanout: true }) as Searched
    expect(searched.query).toBe("widget makers")
    expect(searched.results.map((r) => r.url)).toEqual(["http://news.test/widgets", "http://shop.test/makers"])
    expect(model.bodies[0].response_format.type).toBe("json_schema")
  }, 60_000)

  it("without a model, fans the query out into deterministic variants (the phrase, the words without stop words), merged by URL", async () => {
    expect(deterministicVariants("how to tune the widget")).toEqual(["\"how to tune the widget\"", "tune widget"])
    expect(deterministicVariants("site:news.test widget makers -site:shop.test")).toEqual(["\"widget makers\" site:news.test -site:shop.test"])
    expect(deterministicVariants("widgets")).toEqual([])
    const { secret } = await engineOnly.key({ credits: 100 })
    engine.answers["how to tune the widget"] = [{ url: "http://news.test/widgets", title: "Widgets are back" }]
    engine.answers["\"how to tune the widget\""] = [{ url: "http://news.test/widgets", title: "Widgets are back" }, { url: "http://news.test/gadgets", title: "Gadgets" }]
    engine.answers["tune widget"] = [{ url: "http://shop.test/tuning", title: "Widget tuning" }]
    engine.requests.length = 0
    const searched = await clientOf(engineOnly, secret).web.search({ query: "how to tune the widget", queryFanout: true }) as Searched
    expect(searched.query).toBe("how to tune the widget")
    // Each query's first page (a second page is asked for while fewer than numResults came back).
    expect(engine.requests.filter((r) => r.get("pageno") === "1").map((r) => r.get("q")).sort()).toEqual(["\"how to tune the widget\"", "how to tune the widget", "tune widget"])
    // Each list's next result in turn, the original query's first; a URL found twice is kept once.
    expect(searched.results.map((r) => r.url)).toEqual(["http://news.test/widgets", "http://shop.test/tuning", "http://news.test/gadgets"])
    expect(searched.key_metadata.credits_consumed).toBe(1)
  }, 60_000)

  it("refuses bad input (numResults 5) and answers 502 when the engine fails, charging nothing", async () => {
    const { orgId, secret } = await withEngine.key({ credits: 100 })
    const client = clientOf(withEngine, secret)
    const before = await balance(withEngine, orgId)
    expect(await apiError(client.web.search({ query: "x", numResults: 5 }))).toMatchObject({ status: 400, code: "INPUT_VALIDATION_ERROR" })
    engine.failing = true
    try {
      const failed = await apiError(client.web.search({ query: "anything at all" }))
      expect(failed).toMatchObject({ status: 502, code: "EXTERNAL_PROVIDER_ERROR" })
      expect(failed.message).toContain("SIFT_SEARXNG_URL")
    } finally {
      engine.failing = false
    }
    expect(await balance(withEngine, orgId)).toBe(before)
  }, 60_000)
})

describe("Sift's own page index behind POST /web/search", () => {
  it("without an engine: 503 naming SIFT_SEARXNG_URL while nothing is indexed, uncharged", async () => {
    const { orgId, secret } = await noEngine.key({ credits: 100 })
    const failed = await apiError(clientOf(noEngine, secret).web.search({ query: "flux capacitor calibration" }))
    expect(failed).toMatchObject({ status: 503, code: "SEARCH_UNAVAILABLE" })
    expect(failed.message).toContain("SIFT_SEARXNG_URL")
    expect(await balance(noEngine, orgId)).toBe(100)
  }, 60_000)

  it("finds a crawled page by a phrase in its body; never a ZDR page nor another organization's", async () => {
    const mine = await noEngine.key({ credits: 1_000, zdr: true })
    const theirs = await noEngine.key({ credits: 1_000 })
    const client = clientOf(noEngine, mine.secret)
    await client.web.webCrawlMd({ url: "http://docs.acme.test/", maxDepth: 1 })
    await client.web.webScrapeMd({ url: "http://private.test/", zdr: "enabled" } as never)
    await clientOf(noEngine, theirs.secret).web.webScrapeMd({ url: "http://other.test/" })

    const { data, response } = await client.web.search({ query: "\"flux capacitor calibration\"" }).withResponse()
    const found = data as Searched
    expect(response.headers.get("x-sift-search-source")).toBe("index")
    expect(found.results.map((r) => r.url)).toEqual(["http://docs.acme.test/install"])
    expect(found.results[0]).toMatchObject({ title: "Installing Acme", relevance: "high" })
    expect(found.results[0]!.description).toContain("flux capacitor")
    expect(found.key_metadata.credits_consumed).toBe(1)
    // Scoped to a site the index covers; the other organization sees only its own page.
    const scoped = await client.web.search({ query: "site:docs.acme.test workers" }) as Searched
    expect(scoped.results.map((r) => r.url)).toEqual(["http://docs.acme.test/tuning"])
    const other = await clientOf(noEngine, theirs.secret).web.search({ query: "flux capacitor calibration" }) as Searched
    expect(other.results.map((r) => r.url)).toEqual(["http://other.test/"])
    // Each page crawled or scraped was indexed by the transaction that stored its page-cache entry.
    const mineWritten = await writtenWith(noEngine, mine.orgId)
    expect(mineWritten.map((row) => row.url)).toContain("http://docs.acme.test/install")
    for (const row of [...mineWritten, ...await writtenWith(noEngine, theirs.orgId)]) expect(row.cached, row.url).toBeGreaterThanOrEqual(1)
  }, 120_000)

  it("finds a page a batch read", async () => {
    const { secret, orgId } = await noEngine.key({ credits: 1_000 })
    const client = clientOf(noEngine, secret)
    const submitted = await client.batch.submit({ input: { mode: "scrape", data: { format: "markdown", urls: [{ url: "http://batch.test/" }] } } } as never) as unknown as { id: string }
    await eventually(async () => {
      const batch = await client.batch.retrieve(submitted.id)
      return batch.status === "completed" ? batch : undefined
    }, 60_000)
    const found = await client.web.search({ query: "quantum marmalade" }) as Searched
    expect(found.results.map((r) => r.url)).toEqual(["http://batch.test/"])
    // Indexed by the statement that wrote the page's record and its cache entry.
    expect(await writtenWith(noEngine, orgId)).toEqual([{ url: "http://batch.test/", cached: 1, records: 1 }])
  }, 120_000)

  it("with an engine, a query scoped to indexed sites is answered by the index without asking the engine", async () => {
    const { secret } = await withEngine.key({ credits: 1_000 })
    const client = clientOf(withEngine, secret)
    await client.web.webCrawlMd({ url: "http://docs.acme.test/", maxDepth: 1 })
    engine.requests.length = 0
    const { data, response } = await client.web.search({ query: "calibration", includeDomains: ["acme.test"] }).withResponse()
    expect(response.headers.get("x-sift-search-source")).toBe("index")
    expect((data as Searched).results.map((r) => r.url)).toEqual(["http://docs.acme.test/install"])
    // The same domain named twice (site: and includeDomains) is one scope, still the index's.
    const twice = await client.web.search({ query: "site:docs.acme.test calibration", includeDomains: ["docs.acme.test"] }).withResponse()
    expect(twice.response.headers.get("x-sift-search-source")).toBe("index")
    expect((twice.data as Searched).results.map((r) => r.url)).toEqual(["http://docs.acme.test/install"])
    expect(engine.requests).toHaveLength(0)
  }, 120_000)
})

describe("GET /web/competitors through the official SDK", () => {
  it("keeps candidates whose home page is in the target's industry; 10 credits", async () => {
    const { orgId, secret } = await withEngine.key({ credits: 100 })
    engine.answers["Stonecut Brewing competitors"] = [
      { url: "http://hopworks.test/", title: "Hopworks Brewery" },
      { url: "http://crumb.test/", title: "Crumb Bakery" },
      { url: "https://en.wikipedia.org/wiki/Brewery", title: "Brewery" }
    ]
    engine.answers["Stonecut Brewing alternatives"] = [
      { url: "http://hopworks.test/beers", title: "Hopworks beers" },
      { url: "http://maltmill.test/", title: "Maltmill" },
      { url: "http://vinewood.test/", title: "Vinewood Winery" }
    ]
    const before = await balance(withEngine, orgId)
    const result = await clientOf(withEngine, secret).web.extractCompetitors({ domain: "http://stonecut.test/" }) as unknown as Record<string, any>
    expect(result.status).toBe("ok")
    expect(result.domain).toBe("stonecut.test")
    expect(result.target).toMatchObject({ companyName: "Stonecut Brewing", field: "Breweries" })
    expect(result.target.fieldDescription).toContain("Craft beer")
    // Same 6-digit code (Breweries) named by two searches: high; named once: medium; a winery (another code in the same
    // 4-digit group, beverage manufacturing): medium; a bakery (another industry) is dropped.
    expect(result.competitors.map((c: any) => [c.domain, c.confidence])).toEqual([["hopworks.test", "high"], ["maltmill.test", "medium"], ["vinewood.test", "medium"]])
    expect(result.competitors[0].sourceUrls).toEqual(["http://hopworks.test/", "http://hopworks.test/beers"])
    expect(result.competitors[0].name).toBe("Hopworks Brewery")
    expect(result.key_metadata.credits_consumed).toBe(10)
    expect(await balance(withEngine, orgId)).toBe(before - 10)
  }, 120_000)

  it("without an engine: 503 SEARCH_UNAVAILABLE, uncharged", async () => {
    const { orgId, secret } = await noEngine.key({ credits: 100 })
    const failed = await apiError(clientOf(noEngine, secret).web.extractCompetitors({ domain: "stonecut.test" }))
    expect(failed).toMatchObject({ status: 503, code: "SEARCH_UNAVAILABLE" })
    expect(failed.message).toContain("SIFT_SEARXNG_URL")
    expect(await balance(noEngine, orgId)).toBe(100)
  }, 60_000)
})
