/**
 * The MCP `news_search` and `people_enrich` tools: POST /v1/news/search and POST /v1/people/enrich as tools, their
 * inputs the endpoints' own body Schemas, against a fixture company site (its RSS feed and team page) through host rules.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type Hosts, startSites, xml } from "../../../core/test/discovery/support/sites.js"
import * as FixtureSite from "../../../core/test/support/FixtureSite.js"
import * as TestService from "../support/TestService.js"

type ToolResult = { isError?: boolean; structuredContent?: Record<string, any>; content: Array<{ type: string; text?: string }> }

const published = new Date(Date.now() - 3 * 86_400_000).toUTCString()
const hosts: Hosts = {
  "kettle.test": {
    "/": FixtureSite.html(`<!doctype html><html><head><title>Kettle Works | Copper kettles</title><meta property="og:site_name" content="Kettle Works"><link rel="alternate" type="application/rss+xml" href="/feed"></head><body><a href="/team">Team</a></body></html>`),
    "/feed": xml(`<?xml version="1.0"?><rss version="2.0"><channel><title>Kettle Works news</title><language>en</language><item><title>Kettle Works opens a second forge</title><link>http://kettle.test/news/forge</link><description>A second forge in Sheffield.</description><pubDate>${published}</pubDate></item></channel></rss>`),
    "/team": FixtureSite.html(`<!doctype html><html><body><div class="team"><div class="member"><h3>Ada Smith</h3><p class="title">Master Smith</p></div></div></body></html>`)
  }
}

describe("MCP news_search and people_enrich tools", () => {
  let site: FixtureSite.Site
  let service: TestService.TestService
  beforeAll(async () => {
    site = await startSites(hosts)
    service = await TestService.start({ hostRules: `MAP *.test 127.0.0.1:${site.port}` })
  }, 120_000)
  afterAll(async () => {
    await service?.close()
    await site?.close()
  })

  it("searches a company's news and enriches a person; a refused body is the tool's error", async () => {
    const { secret } = await service.key()
    const client = new Client({ name: "sift-test", version: "1.0.0" })
    await client.connect(new StreamableHTTPClientTransport(new URL(`${service.baseUrl.replace(/\/v1$/, "")}/mcp`), { requestInit: { headers: { authorization: `Bearer ${secret}` } } }))
    try {
      const { tools } = await client.listTools()
      expect(tools.find((t) => t.name === "news_search")!.inputSchema.required).toEqual(["searchBy"])
      expect(Object.keys(tools.find((t) => t.name === "people_enrich")!.inputSchema.properties!)).toEqual(expect.arrayContaining(["company", "email", "name", "social_urls"]))

      const news = await client.callTool({ name: "news_search", arguments: { searchBy: { type: "entity", entity: { type: "domain", domain: "kettle.test" } } } }) as ToolResult
      expect(news.isError).toBe(false)
      expect(news.structuredContent!.data.map((a: any) => [a.title, a.type, a.source.direct])).toEqual([["Kettle Works opens a second forge", "press_release", true]])
      expect(news.structuredContent!.key_metadata.credits_consumed).toBe(1)

      const person = await client.callTool({ name: "people_enrich", arguments: { company: { domain: "kettle.test" }, name: { first: "Ada", last: "Smith" } } }) as ToolResult
      expect(person.isError).toBe(false)
      expect(person.structuredContent!.match).toMatchObject({ status: "candidate", score: 70, person: { current_role: { title: "Master Smith", organization: { name: "Kettle Works" } } } })
      expect(person.structuredContent!.key_metadata.credits_consumed).toBe(20)

      const refused = await client.callTool({ name: "news_search", arguments: { searchBy: { type: "entity", entity: { type: "domain", domain: "kettle.test" } }, filterBy: { articleLanguage: ["en", "de", "fr", "it"] } } }) as ToolResult
      expect(refused.isError).toBe(true)
      expect(JSON.stringify(refused.content)).toContain("articleLanguage")
    } finally {
      await client.close()
    }
  }, 60_000)
})
