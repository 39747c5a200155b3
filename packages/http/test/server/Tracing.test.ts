/**
 * Traces and metrics of one request (issue 22, item 3): the whole service (`Server.run` with the Sift application, on
 * PGlite in a temporary directory) records its spans in an in-memory exporter. A scrape is one server span with the
 * request pipeline's stages as its children, all in its trace; the enrichment job a map queues runs in a span of its
 * own, linked to the map request's trace; `/metrics` counts the same request.
 */
import { InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base"
import { ConfigProvider, Deferred, Effect, Exit, Fiber, FiberId } from "effect"
import * as fs from "node:fs"
import { createServer, type Server as HttpServer } from "node:http"
import type { AddressInfo } from "node:net"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as App from "../../src/App.js"
import * as Server from "../../src/Server.js"

const KEY = "sift_sk_" + "T".repeat(40)
const exporter = new InMemorySpanExporter()
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "sift-tracing-"))
let origin: HttpServer
let site = ""
let url = ""
let stop: Deferred.Deferred<void>
let fiber: Fiber.RuntimeFiber<void, unknown>

const freePort = () =>
  new Promise<number>((resolve) => {
    const probe = createServer()
    probe.listen(0, "127.0.0.1", () => {
      const port = (probe.address() as AddressInfo).port
      probe.close(() => resolve(port))
    })
  })

beforeAll(async () => {
  origin = createServer((req, res) => {
    if (req.url === "/sitemap.xml") {
      return res.writeHead(200, { "content-type": "application/xml" }).end(
        `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">` +
          ["/a", "/b"].map((p) => `<url><loc>${site}${p}</loc></url>`).join("") + `</urlset>`
      )
    }
    if (req.url === "/robots.txt") return res.writeHead(404).end()
    res.writeHead(200, { "content-type": "text/html" }).end(`<html><head><title>Traced ${req.url}</title></head><body><main><h1>Traced</h1><p>Page ${req.url}.</p></main></body></html>`)
  })
  await new Promise<void>((resolve) => origin.listen(0, "127.0.0.1", resolve))
  site = `http://127.0.0.1:${(origin.address() as AddressInfo).port}`
  const port = await freePort()
  url = `http://127.0.0.1:${port}`
  stop = Deferred.unsafeMake<void>(FiberId.none)
  const env = new Map([
    ["SIFT_PORT", String(port)],
    ["SIFT_DATA_DIR", dir],
    ["SIFT_BOOTSTRAP_KEY", KEY],
    ["SIFT_ALLOW_PRIVATE_TARGETS", "true"],
    ["SIFT_METRICS", "true"],
    ["SIFT_LOG_LEVEL", "warn"],
    ["SIFT_PASSWORD_SCRYPT_LN", "14"]
  ])
  fiber = Effect.runFork(
    Server.run(App.application, { until: Deferred.await(stop), spanProcessor: new SimpleSpanProcessor(exporter) }).pipe(
      Effect.withConfigProvider(ConfigProvider.fromMap(env))
    )
  )
  const deadline = Date.now() + 60_000
  while (!(await fetch(`${url}/ready`).then((r) => r.status === 200, () => false))) {
    if (Date.now() > deadline) throw new Error("service did not become ready")
    const exited = fiber.unsafePoll()
    if (exited !== null) throw new Error(`service stopped: ${Exit.isFailure(exited) ? String(exited.cause) : "done"}`)
    await new Promise((r) => setTimeout(r, 100))
  }
}, 90_000)

afterAll(async () => {
  if (stop !== undefined) Deferred.unsafeDone(stop, Exit.void)
  if (fiber !== undefined) await Effect.runPromise(Fiber.await(fiber))
  origin?.close()
  fs.rmSync(dir, { recursive: true, force: true })
}, 60_000)

const spans = () => exporter.getFinishedSpans()
const idOf = (span: ReadableSpan) => span.spanContext().spanId
const traceOf = (span: ReadableSpan) => span.spanContext().traceId
const parentOf = (span: ReadableSpan) => span.parentSpanContext?.spanId

describe("tracing and metrics of sift serve", () => {
  it("a scrape is one server span whose children are the pipeline's stages; /metrics counts it", async () => {
    const response = await fetch(`${url}/v1/web/scrape/markdown?url=${encodeURIComponent(`${site}/a`)}`, { headers: { authorization: `Bearer ${KEY}` } })
    expect(response.status, await response.clone().text()).toBe(200)
    const requestId = ((await response.json()) as { request_id: string }).request_id
    expect(requestId).toMatch(/.+/)
    const request = spans().find((span) => span.name === "GET /v1/web/scrape/markdown")
    expect(request).toBeDefined()
    expect(request!.attributes["http.response.status_code"]).toBe(200)
    const children = spans().filter((span) => parentOf(span) === idOf(request!))
    expect(children.map((span) => span.name).sort()).toEqual(
      ["authenticate", "charge and log", "handler", "rate limit", "reserve credits", "validate"].sort()
    )
    for (const child of children) expect(traceOf(child)).toBe(traceOf(request!))
    // In the order the pipeline runs them.
    const started = (name: string) => children.find((span) => span.name === name)!.startTime
    const order = ["authenticate", "rate limit", "validate", "reserve credits", "handler", "charge and log"]
    const times = order.map((name) => started(name)[0] * 1e9 + started(name)[1])
    expect([...times].sort((a, b) => a - b)).toEqual(times)

    const metrics = await (await fetch(`${url}/metrics`)).text()
    expect(metrics).toMatch(/^sift_http_requests_total\{route="\/v1\/web\/scrape\/markdown",method="GET",status="200"\} 1$/m)
    expect(metrics).toMatch(/^sift_credits_charged_total 1$/m)
  }, 60_000)

  it("the job a request queues runs in its own span, linked to the request's trace", async () => {
    const response = await fetch(`${url}/v1/web/urls?domain=${encodeURIComponent(site)}`, { headers: { authorization: `Bearer ${KEY}` } })
    expect(response.status, await response.clone().text()).toBe(200)
    const request = spans().find((span) => span.name === "GET /v1/web/urls")
    expect(request).toBeDefined()
    const deadline = Date.now() + 30_000
    let job: ReadableSpan | undefined
    while (job === undefined && Date.now() < deadline) {
      job = spans().find((span) => span.name === "job url-enrichment" && span.links.some((link) => link.context.traceId === traceOf(request!)))
      if (job === undefined) await new Promise((r) => setTimeout(r, 200))
    }
    expect(job).toBeDefined()
    // Its own trace (it may run long after the request), not a child of the request.
    expect(traceOf(job!)).not.toBe(traceOf(request!))
    expect(job!.attributes["sift.queue"]).toBe("url-enrichment")
  }, 60_000)
})

describe("OTEL_EXPORTER_OTLP_ENDPOINT", () => {
  it("a sift serve process sends its spans to the OTLP/HTTP endpoint (flushed by the time it has stopped)", async () => {
    const posts: Array<{ path: string; body: string }> = []
    const collector = createServer((req, res) => {
      let body = ""
      req.on("data", (chunk) => (body += chunk))
      req.on("end", () => {
        posts.push({ path: req.url ?? "", body })
        res.writeHead(200, { "content-type": "application/json" }).end("{}")
      })
    })
    await new Promise<void>((resolve) => collector.listen(0, "127.0.0.1", resolve))
    const { startServer, stopServer } = await import("./support/process.js")
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "sift-otlp-"))
    try {
      const server = await startServer({
        args: ["--port", "0", "--data-dir", dataDir],
        env: {
          OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${(collector.address() as AddressInfo).port}`,
          SIFT_BOOTSTRAP_KEY: KEY,
          SIFT_ALLOW_PRIVATE_TARGETS: "true"
        }
      })
      const response = await fetch(`${server.url}/v1/web/scrape/markdown?url=${encodeURIComponent(`${site}/b`)}`, { headers: { authorization: `Bearer ${KEY}` } })
      expect(response.status).toBe(200)
      expect(await stopServer(server)).toBe(0)
      const traces = posts.filter((post) => post.path === "/v1/traces")
      expect(traces.length).toBeGreaterThanOrEqual(1)
      const sent = traces.map((post) => post.body).join("\n")
      expect(sent).toContain("GET /v1/web/scrape/markdown")
      expect(sent).toContain("reserve credits")
    } finally {
      collector.close()
      fs.rmSync(dataDir, { recursive: true, force: true })
    }
  }, 180_000)
})
