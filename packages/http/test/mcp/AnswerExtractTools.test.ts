/**
 * The MCP `answer` and `extract` tools: POST /v1/web/answers and POST /v1/web/extract as tools, their inputs the
 * endpoints' own body Schemas. No model is configured here: extract answers from the fixture page's structured data,
 * answer is the endpoint's 502 naming SIFT_LLM_URL.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startSites } from "../../../core/test/discovery/support/sites.js"
import * as FixtureSite from "../../../core/test/support/FixtureSite.js"
import * as TestService from "../support/TestService.js"

type ToolResult = { isError?: boolean; structuredContent?: Record<string, any>; content: Array<{ type: string; text?: string }> }

describe("MCP answer and extract tools", () => {
  let site: FixtureSite.Site
  let service: TestService.TestService
  beforeAll(async () => {
    const organization = { "@context": "https://schema.org", "@type": "Organization", name: "Kettle Works", email: "sales@kettles.test" }
    site = await startSites({
      "kettles.test": {
        "/": FixtureSite.html(`<!doctype html><html><head><title>Kettle Works</title><script type="application/ld+json">${JSON.stringify(organization)}</script></head><body><main><h1>Kettle Works</h1><p>Copper kettles.</p></main></body></html>`)
      }
    })
    delete process.env.SIFT_LLM_URL
    service = await TestService.start({ hostRules: `MAP *.test 127.0.0.1:${site.port}` })
  }, 120_000)
  afterAll(async () => {
    await service?.close()
    await site?.close()
  })

  it("extract fills the schema from structured data (10 credits); answer without a model is the tool's error", async () => {
    const { secret } = await service.key({ credits: 100 })
    const client = new Client({ name: "sift-test", version: "1.0.0" })
    await client.connect(new StreamableHTTPClientTransport(new URL(`${service.baseUrl.replace(/\/v1$/, "")}/mcp`), { requestInit: { headers: { authorization: `Bearer ${secret}` } } }))
    try {
      const { tools } = await client.listTools()
      expect(tools.find((t) => t.name === "answer")!.inputSchema.required).toEqual(["task"])
      expect([...tools.find((t) => t.name === "extract")!.inputSchema.required!].sort()).toEqual(["schema", "url"])
      const extracted = await client.callTool({
        name: "extract",
        arguments: { url: "http://kettles.test/", maxPages: 1, schema: { type: "object", properties: { name: { type: "string" }, email: { type: "string" }, ceo: { type: "string" } } } }
      }) as ToolResult
      expect(extracted.isError).toBe(false)
      expect(extracted.structuredContent!.data).toEqual({ name: "Kettle Works", email: "sales@kettles.test", ceo: null })
      expect(extracted.structuredContent!.key_metadata.credits_consumed).toBe(10)
      const refused = await client.callTool({ name: "answer", arguments: { task: "Who makes copper kettles?", mode: "fast" } }) as ToolResult
      expect(refused.isError).toBe(true)
      expect(JSON.stringify(refused.content)).toContain("SIFT_LLM_URL")
    } finally {
      await client.close()
    }
  })
})
