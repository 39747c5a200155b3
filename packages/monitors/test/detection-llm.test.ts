import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { ConfigProvider, Effect } from "effect"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import * as ChangeDetection from "../src/ChangeDetection.js"

/**
 * A stand-in for an OpenAI-compatible chat-completions endpoint (no paid model here): it records each request and
 * answers with `answer` as the message content, or with HTTP `status` when it is not 200.
 */
const standIn = { status: 200, answer: "", requests: [] as Array<{ path: string; auth: string | undefined; body: any }> }
let server: http.Server
let baseUrl = ""

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const chunks: Array<Buffer> = []
    req.on("data", (c) => chunks.push(c))
    req.on("end", () => {
      standIn.requests.push({ path: req.url ?? "", auth: req.headers.authorization, body: JSON.parse(Buffer.concat(chunks).toString("utf8")) })
      if (standIn.status !== 200) {
        res.writeHead(standIn.status).end("overloaded")
        return
      }
      res.writeHead(200, { "content-type": "application/json" })
      res.end(JSON.stringify({ choices: [{ index: 0, message: { role: "assistant", content: standIn.answer } }] }))
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`
})
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))

const before = "## Pricing\n\n| Pro | $10 |"
const after = "## Pricing\n\n| Pro | $12 |"
const input = { instructions: "pricing", url: "https://shop.test/", before, after }

const judgeWith = (provide: (e: Effect.Effect<ChangeDetection.Judgement, never, ChangeDetection.SemanticJudge>) => Effect.Effect<ChangeDetection.Judgement>) =>
  provide(Effect.flatMap(ChangeDetection.SemanticJudge, (j) => j.judgePage(input)))

describe("LLM judge (stand-in endpoint)", () => {
  it.live("asks for JSON at /chat/completions and returns the model's verdict", () =>
    Effect.gen(function*() {
      standIn.status = 200
      standIn.requests.length = 0
      standIn.answer = JSON.stringify({
        relevant: true,
        confidence: 0.91,
        importance: "high",
        title: "Pro plan now costs $12",
        summary: "The Pro plan went from $10 to $12.",
        evidence: [{ before: "Pro $10", after: "Pro $12" }]
      })
      const verdict = yield* judgeWith(Effect.provide(ChangeDetection.layerLlm({ baseUrl, model: "test-model", apiKey: "sk-test" })))
      expect(verdict).toEqual({
        relevant: true,
        confidence: 0.91,
        importance: "high",
        title: "Pro plan now costs $12",
        summary: "The Pro plan went from $10 to $12.",
        evidence: [{ before: "Pro $10", after: "Pro $12", url: "https://shop.test/" }],
        matched_urls: ["https://shop.test/"]
      })
      expect(standIn.requests.length).toBe(1)
      expect(standIn.requests[0]!.path).toBe("/v1/chat/completions")
      expect(standIn.requests[0]!.auth).toBe("Bearer sk-test")
      expect(standIn.requests[0]!.body.model).toBe("test-model")
      expect(standIn.requests[0]!.body.response_format).toEqual({ type: "json_object" })
      const sent = JSON.parse(standIn.requests[0]!.body.messages[1].content)
      expect(sent.instructions).toBe("pricing")
      expect(sent.diff).toContain("\n-| Pro | $10 |\n+| Pro | $12 |\n")
    }))

  it.live("falls back to the deterministic verdict on HTTP 500 and on a malformed answer", () =>
    Effect.gen(function*() {
      const deterministic = yield* judgeWith(Effect.provide(ChangeDetection.layerDeterministic))
      expect(deterministic.title).toBe("Price changed from $10 to $12")
      standIn.status = 500
      standIn.requests.length = 0
      const onError = yield* judgeWith(Effect.provide(ChangeDetection.layerLlm({ baseUrl, model: "m" })))
      expect(standIn.requests.length).toBe(1)
      expect(onError).toEqual(deterministic)
      standIn.status = 200
      standIn.answer = "not json at all"
      const onGarbage = yield* judgeWith(Effect.provide(ChangeDetection.layerLlm({ baseUrl, model: "m" })))
      expect(onGarbage).toEqual(deterministic)
    }))

  it.live("layerConfig: deterministic without a model, SIFT_MONITORS_LLM_URL or the shared SIFT_LLM_URL otherwise (default model gpt-4o-mini)", () =>
    Effect.gen(function*() {
      standIn.status = 200
      standIn.answer = JSON.stringify({ relevant: false, confidence: 0.2, importance: "low", title: "t", summary: "s" })
      standIn.requests.length = 0
      const none = yield* judgeWith((e) =>
        Effect.provide(e, ChangeDetection.layerConfig).pipe(Effect.withConfigProvider(ConfigProvider.fromMap(new Map())))
      )
      expect(none.title).toBe("Price changed from $10 to $12")
      expect(standIn.requests.length).toBe(0)
      const llm = yield* judgeWith((e) =>
        Effect.provide(e, ChangeDetection.layerConfig).pipe(
          Effect.withConfigProvider(ConfigProvider.fromMap(new Map([["SIFT_MONITORS_LLM_URL", baseUrl]])))
        )
      )
      expect(llm.relevant).toBe(false)
      expect(llm.confidence).toBe(0.2)
      expect(llm.matched_urls).toEqual([])
      expect(standIn.requests[0]!.body.model).toBe("gpt-4o-mini")
      expect(standIn.requests[0]!.auth).toBeUndefined()
      // Sift's shared model settings serve monitors too; the monitors' own settings, when given, win as a whole.
      standIn.requests.length = 0
      const shared = yield* judgeWith((e) =>
        Effect.provide(e, ChangeDetection.layerConfig).pipe(
          Effect.withConfigProvider(ConfigProvider.fromMap(new Map([["SIFT_LLM_URL", baseUrl], ["SIFT_LLM_MODEL", "shared-model"], ["SIFT_LLM_API_KEY", "k1"]])))
        )
      )
      expect(shared.confidence).toBe(0.2)
      expect(standIn.requests[0]!.body.model).toBe("shared-model")
      expect(standIn.requests[0]!.auth).toBe("Bearer k1")
      standIn.requests.length = 0
      yield* judgeWith((e) =>
        Effect.provide(e, ChangeDetection.layerConfig).pipe(
          Effect.withConfigProvider(ConfigProvider.fromMap(new Map([
            ["SIFT_LLM_URL", "http://127.0.0.1:1/v1"], ["SIFT_LLM_MODEL", "shared-model"],
            ["SIFT_MONITORS_LLM_URL", baseUrl], ["SIFT_MONITORS_LLM_MODEL", "monitor-model"]
          ])))
        )
      )
      expect(standIn.requests[0]!.body.model).toBe("monitor-model")
      expect(standIn.requests[0]!.auth).toBeUndefined()
    }))

  it.live("extract through the model; the deterministic data on failure", () =>
    Effect.gen(function*() {
      const extractInput = {
        instructions: "price",
        schema: { type: "object", properties: { price: { type: "number" } } },
        pages: [{ url: "https://shop.test/", title: "Shop", text: "Price: $12" }]
      }
      standIn.status = 200
      standIn.answer = JSON.stringify({ price: 12.5 })
      const fromModel = yield* Effect.flatMap(ChangeDetection.SemanticJudge, (j) => j.extract(extractInput)).pipe(
        Effect.provide(ChangeDetection.layerLlm({ baseUrl, model: "m" }))
      )
      expect(fromModel).toEqual({ price: 12.5 })
      standIn.answer = JSON.stringify({ price: "twelve", extra: 1 })
      const mistyped = yield* Effect.flatMap(ChangeDetection.SemanticJudge, (j) => j.extract(extractInput)).pipe(
        Effect.provide(ChangeDetection.layerLlm({ baseUrl, model: "m" }))
      )
      expect(mistyped).toEqual({ price: 12 })
      standIn.status = 503
      const fallback = yield* Effect.flatMap(ChangeDetection.SemanticJudge, (j) => j.extract(extractInput)).pipe(
        Effect.provide(ChangeDetection.layerLlm({ baseUrl, model: "m" }))
      )
      expect(fallback).toEqual({ price: 12 })
    }))
})
