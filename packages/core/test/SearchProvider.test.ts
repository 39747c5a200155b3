/**
 * The SearXNG client of `SearchProvider` against a SearXNG-format JSON responder served here (a stand-in for a SearXNG
 * instance, which cannot run in the tests): what is sent (query with domain operators, `time_range`, `pageno`), paging
 * until `numResults`, retries of a 5xx, a 429 or a dropped connection (never of a 4xx or of an answer that is not
 * SearXNG JSON), the per-attempt timeout, the caller's deadline, and `Failed` (502) / `Unavailable` (503).
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect, Either } from "effect"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import * as SearchProvider from "../src/SearchProvider.js"

/** Each request's query parameters, in order. */
const requests: Array<URLSearchParams> = []
/** How the next requests are answered (first in, first used); past the list, `fallback`. */
let replies: Array<(res: http.ServerResponse, params: URLSearchParams) => void> = []
let fallback: (res: http.ServerResponse, params: URLSearchParams) => void = (res) => json(res, [])
let server: http.Server
let baseUrl = ""

const json = (res: http.ServerResponse, results: ReadonlyArray<Record<string, unknown>>) =>
  res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ query: "q", results }))

/** A page of ten results numbered from `from`. */
const numbered = (from: number, count = 10) =>
  Array.from({ length: count }, (_, i) => ({ url: `https://r${from + i}.test/`, title: `Result ${from + i}`, content: `snippet ${from + i}` }))

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const params = new URL(req.url ?? "/", "http://x").searchParams
    requests.push(params)
    const reply = replies.shift() ?? fallback
    reply(res, params)
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})
afterAll(() => new Promise<void>((resolve) => {
  server.closeAllConnections()
  server.close(() => resolve())
}))

const reset = (rest: typeof fallback = (res) => json(res, [])) => {
  requests.length = 0
  replies = []
  fallback = rest
}

const failureOf = <A>(effect: Effect.Effect<A, SearchProvider.ProviderError>) =>
  Effect.map(Effect.either(effect), (result) => Either.isLeft(result) ? result.left : undefined)

describe("SearchProvider.searxng", () => {
  it.live("sends the query with its domain operators and time_range, keeps the engine's order and enforces the domains", () =>
    Effect.gen(function*() {
      reset()
      replies = [(res) => json(res, [
        { url: "https://news.example.com/a", title: " Widgets\n are back ", content: "Blue widgets", publishedDate: "2026-11-01T00:00:00Z" },
        { url: "https://wikipedia.org/wiki/Widget", title: "Widget", content: "" },
        { url: "ftp://files.example.com/x", title: "Not http" },
        { url: "https://shop.example.com/blue", title: "Blue widgets for sale" }
      ])]
      const engine = SearchProvider.searxng(baseUrl)
      const hits = yield* engine.search({ query: "blue widgets -site:gadgets.test", numResults: 10, freshness: "last_month", includeDomains: ["https://www.Example.com/"], excludeDomains: ["shop.example.com"] })
      expect(hits).toEqual([{ url: "https://news.example.com/a", title: "Widgets are back", description: "Blue widgets", publishedDate: "2026-11-01T00:00:00Z" }])
      expect(requests).toHaveLength(2)
      expect(requests[0]!.get("q")).toBe("blue widgets -site:gadgets.test site:example.com -site:shop.example.com")
      expect(requests[0]!.get("format")).toBe("json")
      expect(requests[0]!.get("time_range")).toBe("month")
      expect(requests.map((r) => r.get("pageno"))).toEqual(["1", "2"])
    }))

  it.live("pages until numResults distinct results, and stops at a page that brings nothing new", () =>
    Effect.gen(function*() {
      reset((res, params) => {
        const page = Number(params.get("pageno"))
        // Page 3 repeats page 2 (SearXNG does so when its engines run dry): nothing new, so the paging stops there.
        json(res, page <= 2 ? numbered((page - 1) * 10) : numbered(10))
      })
      const engine = SearchProvider.searxng(baseUrl)
      const fifteen = yield* engine.search({ query: "many", numResults: 15 })
      expect(fifteen.map((h) => h.url)).toEqual(numbered(0, 15).map((r) => r.url))
      expect(requests.map((r) => r.get("pageno"))).toEqual(["1", "2"])
      requests.length = 0
      const fifty = yield* engine.search({ query: "many", numResults: 50 })
      expect(fifty).toHaveLength(20)
      expect(requests.map((r) => r.get("pageno"))).toEqual(["1", "2", "3"])
    }))

  it.live("retries a 5xx, a 429 and a dropped connection, then answers; a 4xx or an answer that is not SearXNG JSON is not retried", () =>
    Effect.gen(function*() {
      const engine = SearchProvider.searxng(baseUrl, { maxPages: 1 })
      reset()
      replies = [
        (res) => res.writeHead(503).end("busy"),
        (res) => res.writeHead(429).end("slow down"),
        (res) => json(res, numbered(0, 3))
      ]
      expect((yield* engine.search({ query: "retry me", numResults: 10 })).map((h) => h.title)).toEqual(["Result 0", "Result 1", "Result 2"])
      expect(requests).toHaveLength(3)

      reset()
      replies = [(res) => res.socket?.destroy(), (res) => json(res, numbered(0, 1))]
      expect(yield* engine.search({ query: "dropped", numResults: 10 })).toHaveLength(1)
      expect(requests).toHaveLength(2)

      // Three 500s: the first try and two retries, then 502 naming the setting.
      reset((res) => res.writeHead(500).end("down"))
      const down = yield* failureOf(engine.search({ query: "down", numResults: 10 }))
      expect(down?.errorCode).toBe("EXTERNAL_PROVIDER_ERROR")
      expect(down?.message).toContain("SIFT_SEARXNG_URL")
      expect(down?.message).toContain("HTTP 500")
      expect(requests).toHaveLength(3)

      for (const [reply, detail] of [
        [(res: http.ServerResponse) => res.writeHead(403).end("json format disabled"), "HTTP 403"],
        [(res: http.ServerResponse) => res.writeHead(200, { "content-type": "text/html" }).end("<html>results</html>"), "not JSON"],
        [(res: http.ServerResponse) => res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ results: "none" })), "not SearXNG JSON"]
      ] as const) {
        reset(reply)
        const failed = yield* failureOf(engine.search({ query: "refused", numResults: 10 }))
        expect(failed?.errorCode).toBe("EXTERNAL_PROVIDER_ERROR")
        expect(failed?.message).toContain(detail)
        expect(requests).toHaveLength(1)
      }
    }))

  it.live("gives up an attempt that hangs after its timeout and retries it; the caller's deadline ends the whole search", () =>
    Effect.gen(function*() {
      const hang = () => {} // never answers
      reset()
      replies = [hang, (res) => json(res, numbered(0, 2))]
      const engine = SearchProvider.searxng(baseUrl, { timeoutMs: 300, maxPages: 1 })
      const started = Date.now()
      expect(yield* engine.search({ query: "slow once", numResults: 10 })).toHaveLength(2)
      expect(requests).toHaveLength(2)
      expect(Date.now() - started).toBeGreaterThanOrEqual(300)

      // Every attempt hangs: each gives up at 300 ms, three attempts, then 502.
      reset(hang)
      const timedOut = yield* failureOf(engine.search({ query: "hangs", numResults: 10 }))
      expect(timedOut?.errorCode).toBe("EXTERNAL_PROVIDER_ERROR")
      expect(requests).toHaveLength(3)

      // A deadline shorter than the attempts: the search ends at the deadline, 502, whatever the per-attempt timeout.
      reset(hang)
      const patient = SearchProvider.searxng(baseUrl, { timeoutMs: 10_000 })
      const before = Date.now()
      const ended = yield* failureOf(patient.search({ query: "deadline", numResults: 10, timeoutMs: 400 }))
      const took = Date.now() - before
      expect(ended?.errorCode).toBe("EXTERNAL_PROVIDER_ERROR")
      expect(ended?.message).toContain("deadline")
      expect(took).toBeGreaterThanOrEqual(390)
      expect(took).toBeLessThan(3_000)
      expect(requests).toHaveLength(1)
    }), 30_000)

  it.live("without an engine every search is SEARCH_UNAVAILABLE (503) naming SIFT_SEARXNG_URL", () =>
    Effect.gen(function*() {
      expect(SearchProvider.unavailable.configured).toBe(false)
      const failed = yield* failureOf(SearchProvider.unavailable.search({ query: "x", numResults: 10 }))
      expect(failed?.errorCode).toBe("SEARCH_UNAVAILABLE")
      expect(failed?.retryable).toBe(false)
      expect(failed?.message).toContain("SIFT_SEARXNG_URL")
    }))
})
