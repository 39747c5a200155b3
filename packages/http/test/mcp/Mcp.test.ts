import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import * as Auth from "@sift/auth"
import { Effect } from "effect"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest"
import * as FixtureSite from "../../../core/test/support/FixtureSite.js"
import { root } from "../server/support/process.js"
import * as TestService from "../support/TestService.js"

const page = `<!doctype html><html lang="en"><head><title>Copper kettles</title></head><body>
<nav><a href="/">Home</a></nav><main><h1>Copper kettles</h1><p>Hand-hammered copper kettles, tinned inside, made to order.</p>
<h2>Care</h2><p>Polish with lemon and salt.</p></main></body></html>`

let site: FixtureSite.Site
let service: TestService.TestService
let origin: string

const backends = [
  { name: "pglite", url: undefined as string | undefined },
  { name: "postgres", url: inject("databaseUrl") ?? undefined }
]

/** Starts the service on a backend for the describe block around it. */
const onBackend = (backend: typeof backends[number]) => {
  beforeAll(async () => {
    service = await TestService.start({ databaseUrl: backend.url })
    origin = service.baseUrl.replace(/\/v1$/, "")
  })
  afterAll(async () => {
    await service?.close()
  })
}

beforeAll(async () => {
  site = await FixtureSite.start({ "/kettles": FixtureSite.html(page) })
})
afterAll(async () => {
  await site?.close()
})

const balance = (orgId: string) => service.run(Effect.flatMap(Auth.CreditLedger.CreditLedger, (l) => l.balance(orgId)))

const httpClient = async (token: string) => {
  const client = new Client({ name: "sift-test", version: "1.0.0" })
  await client.connect(new StreamableHTTPClientTransport(new URL(`${origin}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }))
  return client
}

type ToolResult = { isError?: boolean; structuredContent?: Record<string, any>; content: Array<{ type: string; text?: string }> }

for (const backend of backends) describe.skipIf(backend.name === "postgres" && backend.url === undefined)(`MCP over Streamable HTTP (/mcp) (${backend.name})`, () => {
  onBackend(backend)

  it("answers 401 with the protected-resource metadata address when no token is sent, and serves that metadata", async () => {
    const response = await fetch(`${origin}/mcp`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" })
    })
    expect(response.status).toBe(401)
    const challenge = response.headers.get("www-authenticate") ?? ""
    expect(challenge).toContain(`resource_metadata="${origin}/.well-known/oauth-protected-resource/mcp"`)

    const invalid = await fetch(`${origin}/mcp`, { method: "POST", headers: { authorization: "Bearer sk_not_a_real_key" }, body: "{}" })
    expect(invalid.status).toBe(401)
    expect(invalid.headers.get("www-authenticate")).toContain(`error="invalid_token"`)

    // Stateless: no standalone event stream.
    const { secret } = await service.key()
    const stream = await fetch(`${origin}/mcp`, { headers: { authorization: `Bearer ${secret}`, accept: "text/event-stream" } })
    expect(stream.status).toBe(405)
    expect(stream.headers.get("allow")).toBe("POST")

    const metadata = await (await fetch(`${origin}/.well-known/oauth-protected-resource/mcp`)).json()
    expect(metadata).toMatchObject({ resource: `${origin}/mcp`, authorization_servers: [origin], scopes_supported: ["api.read", "api.write"] })
  })

  it("an SDK client lists the tools with JSON Schema inputs and scrapes a local page, charged and logged like the API", async () => {
    const { secret, orgId } = await service.key()
    const before = (await balance(orgId)).remaining
    const client = await httpClient(secret)
    try {
      const { tools } = await client.listTools()
      const names = tools.map((tool) => tool.name)
      expect(names).toEqual(expect.arrayContaining(["scrape_markdown", "scrape", "crawl", "map", "naics", "logs", "log"]))
      expect(tools.find((tool) => tool.name === "crawl")!.inputSchema.required).toEqual(["url"])
      const markdownTool = tools.find((tool) => tool.name === "scrape_markdown")!
      expect(markdownTool.inputSchema.required).toEqual(["url"])
      expect(markdownTool.inputSchema.properties).toHaveProperty("includeLinks")
      const scrapeTool = tools.find((tool) => tool.name === "scrape")!
      expect(scrapeTool.inputSchema.properties).toHaveProperty("formats")

      const result = await client.callTool({ name: "scrape_markdown", arguments: { url: `${site.url}/kettles`, tags: ["mcp"] } }) as ToolResult
      expect(result.isError).toBe(false)
      const body = result.structuredContent!
      expect(body.markdown).toContain("# Copper kettles")
      expect(body.markdown).toContain("Polish with lemon and salt.")
      expect(body.key_metadata.credits_consumed).toBe(1)
      expect(JSON.parse(result.content[0]!.text!).request_id).toBe(body.request_id)
      expect((await balance(orgId)).remaining).toBe(before - 1)

      // The same request log the HTTP API writes: visible through GET /v1/logs and through the logs tool.
      const logs = await (await fetch(`${service.baseUrl}/logs?path=/web/scrape/markdown`, { headers: { authorization: `Bearer ${secret}` } })).json()
      const entry = logs.data.find((item: any) => item.request_id === body.request_id)
      expect(entry).toMatchObject({ method: "GET", path: "/v1/web/scrape/markdown", status_code: 200, credits_used: 1, tags: ["mcp"] })
      const viaTool = await client.callTool({ name: "log", arguments: { request_id: body.request_id } }) as ToolResult
      expect(viaTool.structuredContent!.data.input.query.url).toBe(`${site.url}/kettles`)

      const unknown = await client.callTool({ name: "no_such_tool", arguments: {} }) as ToolResult
      expect(unknown.isError).toBe(true)
      expect(unknown.structuredContent!.error_code).toBe("NOT_FOUND")

      const full = await client.callTool({ name: "scrape", arguments: { url: `${site.url}/kettles`, formats: { html: true, markdown: true } } }) as ToolResult
      expect(full.isError).toBe(false)
      expect(full.structuredContent!.html.data).toContain("Hand-hammered copper kettles")
      expect(full.structuredContent!.markdown.data).toContain("## Care")

      const crawled = await client.callTool({ name: "crawl", arguments: { url: `${site.url}/kettles`, maxDepth: 0 } }) as ToolResult
      expect(crawled.isError).toBe(false)
      expect(crawled.structuredContent!.metadata).toMatchObject({ numSucceeded: 1, numUrls: 1 })
      expect(crawled.structuredContent!.results[0].markdown).toContain("## Care")
      expect(crawled.structuredContent!.key_metadata.credits_consumed).toBe(1)
    } finally {
      await client.close()
    }
  })

  it("the monitor tools create a monitor, run it, and list its changes through the API", async () => {
    const { secret } = await service.key()
    const client = await httpClient(secret)
    try {
      const { tools } = await client.listTools()
      expect(tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(["monitors_list", "monitors_create", "monitors_get", "monitors_run", "monitors_changes"]))
      expect(tools.find((tool) => tool.name === "monitors_create")!.inputSchema.required).toEqual(expect.arrayContaining(["name", "target"]))
      const created = await client.callTool({ name: "monitors_create", arguments: { name: "Kettles", target: { type: "page", url: `${site.url}/kettles` } } }) as ToolResult
      expect(created.isError).toBe(false)
      const monitorId = created.structuredContent!.id as string
      expect(monitorId).toMatch(/^mon_/)
      const initialRun = created.structuredContent!.initial_run_id as string
      const baseline = await (async () => {
        for (let i = 0; i < 150; i++) {
          const got = await client.callTool({ name: "monitors_get", arguments: { monitor_id: monitorId } }) as ToolResult
          if (got.structuredContent!.baseline !== null) return got.structuredContent!.baseline
          await new Promise((r) => setTimeout(r, 200))
        }
        throw new Error("no baseline")
      })()
      expect(baseline.text).toContain("Polish with lemon and salt.")
      const run = await client.callTool({ name: "monitors_run", arguments: { monitor_id: monitorId } }) as ToolResult
      expect(run.structuredContent).toMatchObject({ monitor_id: monitorId, queued: true })
      expect(run.structuredContent!.run_id).not.toBe(initialRun)
      const listed = await client.callTool({ name: "monitors_list", arguments: { limit: 5 } }) as ToolResult
      expect(listed.structuredContent!.data.map((m: { id: string }) => m.id)).toEqual([monitorId])
      const changes = await client.callTool({ name: "monitors_changes", arguments: { monitor_id: monitorId } }) as ToolResult
      expect(changes.structuredContent).toMatchObject({ data: [], has_more: false, next_cursor: null })
      const missing = await client.callTool({ name: "monitors_get", arguments: { monitor_id: "mon_0000000000000000" } }) as ToolResult
      expect(missing.isError).toBe(true)
      expect(missing.structuredContent!.error_code).toBe("NOT_FOUND")
    } finally {
      await client.close()
    }
  }, 60_000)

  it("the batch tools submit a batch (with an Idempotency-Key), follow it to completion and page its records", async () => {
    const { secret, orgId } = await service.key()
    const before = (await balance(orgId)).remaining
    const client = await httpClient(secret)
    try {
      const { tools } = await client.listTools()
      expect(tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(["batch_submit", "batch_status", "batch_results"]))
      expect(tools.find((tool) => tool.name === "batch_submit")!.inputSchema.required).toEqual(["input"])
      expect(tools.find((tool) => tool.name === "batch_results")!.inputSchema.required).toEqual(["batch_id"])
      const args = {
        input: { mode: "scrape", data: { format: "markdown", urls: [{ url: `${site.url}/kettles`, itemId: "k1" }, { url: `${site.url}/gone` }] } },
        tags: ["mcp"],
        idempotencyKey: "mcp-batch-1"
      }
      const submitted = await client.callTool({ name: "batch_submit", arguments: args }) as ToolResult
      expect(submitted.isError, JSON.stringify(submitted.structuredContent)).toBe(false)
      expect(submitted.structuredContent).toMatchObject({ status: "queued", input: { reserved: 2 }, credits: { reserved: 2 }, tags: ["mcp"] })
      const id = submitted.structuredContent!.id as string
      // The key went through as the header: the same submission answers the same batch.
      const replayed = await client.callTool({ name: "batch_submit", arguments: args }) as ToolResult
      expect(replayed.structuredContent!.id).toBe(id)
      const conflict = await client.callTool({ name: "batch_submit", arguments: { ...args, tags: ["other"] } }) as ToolResult
      expect(conflict.isError).toBe(true)
      expect(conflict.structuredContent!.error_code).toBe("IDEMPOTENCY_KEY_CONFLICT")

      const settled = await (async () => {
        for (let i = 0; i < 300; i++) {
          const got = await client.callTool({ name: "batch_status", arguments: { batch_id: id } }) as ToolResult
          if (["completed", "cancelled", "failed"].includes(got.structuredContent!.status)) return got.structuredContent!
          await new Promise((r) => setTimeout(r, 200))
        }
        throw new Error("the batch did not settle")
      })()
      expect(settled).toMatchObject({ status: "completed", progress: { succeeded: 1, failed: 1, pending: 0 }, credits: { reserved: 2, refunded: 1, net: 1 } })
      expect((await balance(orgId)).remaining).toBe(before - 1)

      const first = await client.callTool({ name: "batch_results", arguments: { batch_id: id, limit: 1 } }) as ToolResult
      expect(first.isError).toBe(false)
      expect(first.structuredContent!.data).toHaveLength(1)
      expect(first.structuredContent!.data[0]).toMatchObject({ status: "ok", url: `${site.url}/kettles`, itemId: "k1" })
      expect(first.structuredContent!.data[0].markdown).toContain("## Care")
      expect(first.structuredContent!.has_more).toBe(true)
      const second = await client.callTool({ name: "batch_results", arguments: { batch_id: id, limit: 1, cursor: first.structuredContent!.next_cursor } }) as ToolResult
      expect(second.structuredContent!.data[0]).toMatchObject({ status: "error", url: `${site.url}/gone` })
      expect(second.structuredContent!.has_more).toBe(false)

      const missing = await client.callTool({ name: "batch_status", arguments: { batch_id: "batch_0000000000000000" } }) as ToolResult
      expect(missing.isError).toBe(true)
      expect(missing.structuredContent!.error_code).toBe("NOT_FOUND")
    } finally {
      await client.close()
    }
  }, 90_000)

  it("bad arguments get the API's validation error and cost nothing; a key without data:execute is refused", async () => {
    const { secret, orgId } = await service.key()
    const before = (await balance(orgId)).remaining
    const client = await httpClient(secret)
    try {
      const result = await client.callTool({ name: "scrape_markdown", arguments: { url: "not a url" } }) as ToolResult
      expect(result.isError).toBe(true)
      expect(result.structuredContent!.error_code).toBe("INPUT_VALIDATION_ERROR")
      expect(result.structuredContent!.key_metadata.credits_consumed).toBe(0)
      expect((await balance(orgId)).remaining).toBe(before)
    } finally {
      await client.close()
    }

    const logsOnly = await service.key({ permissions: ["logs:read"] })
    const limited = await httpClient(logsOnly.secret)
    try {
      const refused = await limited.callTool({ name: "scrape_markdown", arguments: { url: `${site.url}/kettles` } }) as ToolResult
      expect(refused.isError).toBe(true)
      expect(refused.structuredContent).toMatchObject({ error_code: "INSUFFICIENT_PERMISSIONS", required_permission: "data:execute" })
      const listed = await limited.callTool({ name: "logs", arguments: {} }) as ToolResult
      expect(listed.isError).toBe(false)
      expect(listed.structuredContent!.data.some((item: any) => item.error_code === "INSUFFICIENT_PERMISSIONS")).toBe(true)
    } finally {
      await limited.close()
    }
  })
})

describe("MCP over stdio (sift mcp)", () => {
  onBackend(backends[0]!)

  it("a client spawning `sift mcp` lists the tools and scrapes a local page through the service", async () => {
    const { secret, orgId } = await service.key()
    const before = (await balance(orgId)).remaining
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: ["--conditions=@sift/source", "--import", "tsx", path.join(root, "packages/http/src/bin.ts"), "mcp", "--url", origin],
      cwd: root,
      env: { ...(process.env as Record<string, string>), SIFT_API_KEY: secret },
      stderr: "pipe"
    })
    let stderr = ""
    transport.stderr?.on("data", (chunk) => (stderr += chunk))
    const client = new Client({ name: "sift-stdio-test", version: "1.0.0" })
    try {
      await client.connect(transport)
      const { tools } = await client.listTools()
      expect(tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(["scrape_markdown", "scrape", "map", "naics", "logs"]))
      const result = await client.callTool({ name: "scrape_markdown", arguments: { url: `${site.url}/kettles` } }) as ToolResult
      expect(result.isError, stderr).toBe(false)
      expect(result.structuredContent!.markdown).toContain("# Copper kettles")
      expect((await balance(orgId)).remaining).toBe(before - 1)
    } finally {
      await client.close()
    }
  }, 90_000)

  it("refuses to start without SIFT_API_KEY", async () => {
    const { spawnNode } = await import("../server/support/process.js")
    const run = spawnNode([path.join(root, "packages/http/src/bin.ts"), "mcp"], { SIFT_API_KEY: "" })
    expect(await run.exited).toBe(2)
    expect(run.stderr()).toContain("SIFT_API_KEY")
  }, 60_000)
})
