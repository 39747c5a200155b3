/**
 * bench/mcp: the cost of the MCP layer. A cache-hit `scrape_markdown` tool call (SDK client over Streamable HTTP to
 * `/mcp`, which dispatches the internal request through the API pipeline) against the same `GET
 * /v1/web/scrape/markdown` sent directly with `fetch` (the transport the SDK client uses), same service, same
 * concurrency, rounds alternating. Prints calls/s of each and the ratio MCP / direct (1.0 = no overhead).
 *
 *   npm run bench -- mcp [--seconds 3] [--rounds 3] [--concurrency 8]
 */
import { parseArgs } from "node:util"
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { startOrigin, startService } from "../support/service.js"

const { values } = parseArgs({
  options: {
    seconds: { type: "string", default: "3" },
    rounds: { type: "string", default: "3" },
    concurrency: { type: "string", default: "8" }
  }
})
const seconds = Number(values.seconds)
const rounds = Number(values.rounds)
const concurrency = Number(values.concurrency)

const site = await startOrigin()
const target = site.url
const service = await startService("mcp", { requestsPerMinute: 1_000_000 })
const { secret } = service
const origin = service.origin
const headers = { authorization: `Bearer ${secret}` }

const direct = async () => {
  const response = await fetch(`${origin}/v1/web/scrape/markdown?url=${encodeURIComponent(target)}`, { headers })
  const body = await response.json() as { markdown?: string }
  if (response.status !== 200 || !body.markdown?.includes("Benchmark page")) throw new Error(`direct call failed: ${response.status}`)
}
const client = new Client({ name: "bench", version: "1.0.0" })
await client.connect(new StreamableHTTPClientTransport(new URL(`${origin}/mcp`), { requestInit: { headers } }))
const viaMcp = async () => {
  const result = await client.callTool({ name: "scrape_markdown", arguments: { url: target } }) as { isError?: boolean; structuredContent?: { markdown?: string } }
  if (result.isError === true || !result.structuredContent?.markdown?.includes("Benchmark page")) throw new Error("MCP call failed")
}

// The same tool call as one plain JSON-RPC POST: separates the server's cost from the SDK client's.
const rawBody = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "scrape_markdown", arguments: { url: target } } })
const raw = async () => {
  const response = await fetch(`${origin}/mcp`, {
    method: "POST",
    headers: { ...headers, "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-protocol-version": "2025-06-18" },
    body: rawBody
  })
  const body = await response.json() as { result?: { structuredContent?: { markdown?: string } } }
  if (!body.result?.structuredContent?.markdown?.includes("Benchmark page")) throw new Error(`raw MCP call failed: ${response.status}`)
}

/** Calls per second of `call` with `concurrency` in flight for `seconds`. */
const measure = async (call: () => Promise<void>): Promise<number> => {
  const until = performance.now() + seconds * 1000
  let done = 0
  const started = performance.now()
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (performance.now() < until) {
      await call()
      done++
    }
  }))
  return done / ((performance.now() - started) / 1000)
}

await direct() // fills the cache: every later call is a hit
await measure(direct)
await measure(viaMcp)
const ratios: Array<number> = []
for (let round = 1; round <= rounds; round++) {
  const d = await measure(direct)
  const m = await measure(viaMcp)
  const r = await measure(raw)
  ratios.push(m / d)
  console.log(`round ${round}: direct ${d.toFixed(1)} calls/s, MCP (SDK client) ${m.toFixed(1)} calls/s, ratio ${(m / d).toFixed(3)}; ` +
    `MCP (plain JSON-RPC POST) ${r.toFixed(1)} calls/s, ratio ${(r / d).toFixed(3)}`)
}
const sorted = [...ratios].sort((a, b) => a - b)
console.log(`median ratio MCP / direct: ${sorted[Math.floor(sorted.length / 2)]!.toFixed(3)} (concurrency ${concurrency}, ${seconds} s per measurement)`)

await client.close()
await service.close()
site.close()
