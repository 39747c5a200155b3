import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startSites } from "../../../core/test/discovery/support/sites.js"
import * as Shops from "../../../core/test/products/shops.js"
import type * as FixtureSite from "../../../core/test/support/FixtureSite.js"
import * as TestService from "../support/TestService.js"

type ToolResult = { isError?: boolean; structuredContent?: Record<string, any>; content: Array<{ type: string; text?: string }> }

const names = { shop: "mcp-northwind.test", shopify: "mcp-peak.test", woo: "mcp-oliva.test" }

describe("MCP products tool", () => {
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

  it("url reads one product page (5 credits); domain lists a shop's products (10 credits); neither is the API's 400", async () => {
    const { secret } = await service.key()
    const client = new Client({ name: "sift-test", version: "1.0.0" })
    await client.connect(new StreamableHTTPClientTransport(new URL(`${service.baseUrl.replace(/\/v1$/, "")}/mcp`), { requestInit: { headers: { authorization: `Bearer ${secret}` } } }))
    try {
      const { tools } = await client.listTools()
      expect(Object.keys(tools.find((tool) => tool.name === "products")!.inputSchema.properties!)).toEqual(expect.arrayContaining(["url", "domain", "directUrl", "maxProducts"]))
      const one = await client.callTool({ name: "products", arguments: { url: `http://${names.shop}/p/trail-jacket` } }) as ToolResult
      expect(one.isError).toBe(false)
      expect(one.structuredContent!.product).toEqual(Shops.jsonLdGroupTruth(names.shop))
      expect(one.structuredContent!.key_metadata.credits_consumed).toBe(5)
      const shop = await client.callTool({ name: "products", arguments: { domain: names.shopify, maxProducts: 3 } }) as ToolResult
      expect(shop.structuredContent!.products.map((p: any) => p.name)).toEqual(["Alpine Beanie", "Wool Socks", "Trail Gloves"])
      expect(shop.structuredContent!.key_metadata.credits_consumed).toBe(10)
      const none = await client.callTool({ name: "products", arguments: {} }) as ToolResult
      expect(none.isError).toBe(true)
      expect(JSON.stringify(none.content)).toContain("domain")
    } finally {
      await client.close()
    }
  })
})
