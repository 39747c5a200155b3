/**
 * The MCP `search` tool: POST /v1/web/search as a tool, its input the endpoint's own body Schema. A SearXNG-format JSON
 * responder started here stands in for a SearXNG instance (which cannot run in the tests).
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as TestService from "../support/TestService.js"

type ToolResult = { isError?: boolean; structuredContent?: Record<string, any>; content: Array<{ type: string; text?: string }> }

describe("MCP search tool", () => {
  let engine: http.Server
  let service: TestService.TestService
  const asked: Array<string> = []
  beforeAll(async () => {
    engine = http.createServer((req, res) => {
      const params = new URL(req.url ?? "/", "http://x").searchParams
      asked.push(params.get("q") ?? "")
      const results = params.get("pageno") === "1"
        ? [{ url: "https://kettles.test/copper", title: "Copper kettles", content: "Hand-made copper kettles" }, { url: "https://pans.test/", title: "Pans", content: "" }]
        : []
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ results }))
    })
    await new Promise<void>((resolve) => engine.listen(0, "127.0.0.1", resolve))
    service = await TestService.start({ env: { SIFT_SEARXNG_URL: `http://127.0.0.1:${(engine.address() as AddressInfo).port}` } })
  })
  afterAll(async () => {
    await service?.close()
    await new Promise<void>((resolve) => engine.close(() => resolve()))
  })

  it("searches through the engine (1 credit); a body the endpoint refuses is the tool's error", async () => {
    const { secret } = await service.key()
    const client = new Client({ name: "sift-test", version: "1.0.0" })
    await client.connect(new StreamableHTTPClientTransport(new URL(`${service.baseUrl.replace(/\/v1$/, "")}/mcp`), { requestInit: { headers: { authorization: `Bearer ${secret}` } } }))
    try {
      const { tools } = await client.listTools()
      const tool = tools.find((t) => t.name === "search")!
      expect(tool.inputSchema.required).toEqual(["query"])
      expect(Object.keys(tool.inputSchema.properties!)).toEqual(expect.arrayContaining(["query", "includeDomains", "markdownOptions", "numResults", "queryFanout"]))
      const found = await client.callTool({ name: "search", arguments: { query: "copper kettles", excludeDomains: ["pans.test"] } }) as ToolResult
      expect(found.isError).toBe(false)
      expect(found.structuredContent!.results.map((r: any) => [r.url, r.relevance])).toEqual([["https://kettles.test/copper", "high"]])
      expect(found.structuredContent!.key_metadata.credits_consumed).toBe(1)
      expect(asked).toContain("copper kettles -site:pans.test")
      const refused = await client.callTool({ name: "search", arguments: { query: "x", numResults: 5 } }) as ToolResult
      expect(refused.isError).toBe(true)
      expect(JSON.stringify(refused.content)).toContain("numResults")
    } finally {
      await client.close()
    }
  })
})
