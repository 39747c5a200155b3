import ContextDev from "context.dev"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startSites } from "../../../core/test/discovery/support/sites.js"
import * as FixtureSite from "../../../core/test/support/FixtureSite.js"
import * as TestService from "../support/TestService.js"

// A stand-in for an OpenAI-compatible model server (the real client speaks to it over HTTP); it answers the product
// prose schema, or fails when told to.
let failing = false
let hanging = false
const asked: Array<string> = []
const model = http.createServer((req, res) => {
  let body = ""
  req.on("data", (chunk) => (body += chunk))
  req.on("end", () => {
    asked.push(body)
    if (hanging) return
    if (failing) return void res.writeHead(500).end("down")
    const content = JSON.stringify({ pricing_model: "per_seat", target_audience: ["design teams", "agencies"], features: ["Real-time collaboration", "Version history"] })
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ choices: [{ message: { role: "assistant", content } }], usage: { total_tokens: 50 } }))
  })
})

const saas = `<!doctype html><html><head><title>Canvasly — collaborative design</title>
<script type="application/ld+json">{"@context":"https://schema.org","@type":"Product","name":"Canvasly","description":"A whiteboard for design teams.",
"offers":{"@type":"Offer","price":"15","priceCurrency":"USD","priceSpecification":{"@type":"UnitPriceSpecification","price":"15","priceCurrency":"USD","billingDuration":"P1M","referenceQuantity":{"@type":"QuantitativeValue","value":1,"unitCode":"MON"}}}}</script>
</head><body><main><h1>Canvasly</h1><p>Design together in real time, with every version kept. Built for design teams and agencies.</p></main></body></html>`

let site: FixtureSite.Site
let service: TestService.TestService
beforeAll(async () => {
  await new Promise<void>((resolve) => model.listen(0, "127.0.0.1", resolve))
  site = await startSites({ "canvasly.test": { "/product": FixtureSite.html(saas) } })
  service = await TestService.start({
    hostRules: `MAP *.test 127.0.0.1:${site.port}`,
    env: { SIFT_LLM_URL: `http://127.0.0.1:${(model.address() as AddressInfo).port}/v1`, SIFT_LLM_MODEL: "stand-in" }
  })
})
afterAll(async () => {
  await service?.close()
  await site?.close()
  model.closeAllConnections()
  model.close()
})

describe("POST /brand/ai/product with a language model configured", () => {
  it("the model fills pricing_model, target_audience and features; structured facts stay; a failing model leaves the deterministic answer", async () => {
    const { secret } = await service.key()
    const client = new ContextDev({ apiKey: secret, baseURL: service.baseUrl, maxRetries: 0 })
    const result = await client.ai.extractProduct({ url: "http://canvasly.test/product" })
    expect(result.product).toMatchObject({
      name: "Canvasly", price: 15, currency: "USD", billing_frequency: "monthly",
      pricing_model: "per_seat", target_audience: ["design teams", "agencies"], features: ["Real-time collaboration", "Version history"]
    })
    expect(asked).toHaveLength(1)
    expect(asked[0]).toContain("Design together in real time")
    expect(JSON.parse(asked[0]!).model).toBe("stand-in")

    failing = true
    const fallback = await client.ai.extractProduct({ url: "http://canvasly.test/product", maxAgeMs: 0 })
    expect(fallback.product).toMatchObject({ name: "Canvasly", price: 15, billing_frequency: "monthly", target_audience: [], features: [] })
    expect(fallback.key_metadata?.credits_consumed).toBe(5)

    // A model that never answers gets what is left of the deadline, not the answer's place in it.
    failing = false
    hanging = true
    const started = Date.now()
    const late = await client.ai.extractProduct({ url: "http://canvasly.test/product", maxAgeMs: 0, timeoutOpts: { milliseconds: 5_000 } })
    expect(Date.now() - started).toBeLessThan(5_000)
    expect(late.product).toMatchObject({ name: "Canvasly", price: 15, target_audience: [], features: [] })
    expect(late.key_metadata?.credits_consumed).toBe(5)
  })
})
