import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as Acme from "../../../core/test/brand/support/acme.js"
import { startSites } from "../../../core/test/discovery/support/sites.js"
import type * as FixtureSite from "../../../core/test/support/FixtureSite.js"
import * as TestService from "../support/TestService.js"

type ToolResult = { isError?: boolean; structuredContent?: Record<string, any>; content: Array<{ type: string; text?: string }> }

describe("MCP brand tool", () => {
  let site: FixtureSite.Site
  let service: TestService.TestService
  beforeAll(async () => {
    site = await startSites({ "acme.test": await Acme.routes("acme.test") })
    service = await TestService.start({ hostRules: `MAP *.test 127.0.0.1:${site.port}` })
  })
  afterAll(async () => {
    await service?.close()
    await site?.close()
  })

  it("retrieves a brand by domain or company email through POST /v1/brand/retrieve; no identifier is the API's 400", async () => {
    const { secret } = await service.key()
    const client = new Client({ name: "sift-test", version: "1.0.0" })
    await client.connect(new StreamableHTTPClientTransport(new URL(`${service.baseUrl.replace(/\/v1$/, "")}/mcp`), { requestInit: { headers: { authorization: `Bearer ${secret}` } } }))
    try {
      const { tools } = await client.listTools()
      expect(tools.find((tool) => tool.name === "brand")!.inputSchema.properties).toHaveProperty("domain")
      const byDomain = await client.callTool({ name: "brand", arguments: { domain: "acme.test" } }) as ToolResult
      expect(byDomain.isError).toBe(false)
      expect(byDomain.structuredContent!.brand.title).toBe("Acme Rockets")
      expect(byDomain.structuredContent!.brand.logos[0].url).toMatch(/\/v1\/assets\/[0-9a-f]{64}\.svg$/)
      expect(byDomain.structuredContent!.key_metadata.credits_consumed).toBe(10)
      const byEmail = await client.callTool({ name: "brand", arguments: { email: "jane@acme.test" } }) as ToolResult
      expect(byEmail.structuredContent!.cache_metadata.status).toBe("hit")
      const free = await client.callTool({ name: "brand", arguments: { email: "jane@gmail.com" } }) as ToolResult
      expect(free.isError).toBe(true)
      expect(JSON.stringify(free.content)).toContain("FREE_EMAIL_DETECTED")
      const none = await client.callTool({ name: "brand", arguments: {} }) as ToolResult
      expect(none.isError).toBe(true)
      expect(JSON.stringify(none.content)).toContain("domain")
    } finally {
      await client.close()
    }
  })
})
