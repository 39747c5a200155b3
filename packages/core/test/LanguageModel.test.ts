/**
 * The OpenAI-compatible client the NAICS re-ranker and the monitors' judge share, against a stand-in endpoint served
 * here: what it sends, what it takes from the answer, and each way a call fails (status, timeout, oversized or
 * malformed answers) as one error with its reason.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect, Either } from "effect"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import * as LanguageModel from "../src/LanguageModel.js"

const requests: Array<{ path: string; auth: string | undefined; body: any }> = []
let reply: (res: http.ServerResponse) => void = () => {}
let server: http.Server
let baseUrl = ""

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const chunks: Array<Buffer> = []
    req.on("data", (c) => chunks.push(c))
    req.on("end", () => {
      requests.push({ path: req.url ?? "", auth: req.headers.authorization, body: JSON.parse(Buffer.concat(chunks).toString("utf8")) })
      reply(res)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/`
})
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))

const answer = (content: unknown) => (res: http.ServerResponse) =>
  res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ choices: [{ message: { role: "assistant", content } }] }))

const failure = <A>(effect: Effect.Effect<A, LanguageModel.LanguageModelError>) =>
  Effect.map(Effect.either(effect), (result) => Either.isLeft(result) ? result.left.reason : "succeeded")

describe("LanguageModel", () => {
  it.live("sends one completion at temperature 0 (JSON mode when asked) and returns the first choice's content", () =>
    Effect.gen(function*() {
      requests.length = 0
      reply = answer("722410, 312120")
      const endpoint = { baseUrl, model: "m-1", apiKey: "sk-test" }
      expect(yield* LanguageModel.complete(endpoint, [{ role: "user", content: "codes?" }])).toBe("722410, 312120")
      reply = answer(JSON.stringify({ relevant: true }))
      expect(yield* LanguageModel.completeJson(endpoint, [{ role: "system", content: "judge" }, { role: "user", content: "{}" }]))
        .toEqual({ relevant: true })
      expect(requests.map((r) => r.path)).toEqual(["/v1/chat/completions", "/v1/chat/completions"])
      expect(requests[0]).toMatchObject({ auth: "Bearer sk-test", body: { model: "m-1", temperature: 0, messages: [{ role: "user", content: "codes?" }] } })
      expect(requests[0]!.body.response_format).toBeUndefined()
      expect(requests[1]!.body.response_format).toEqual({ type: "json_object" })
    }))

  it.live("fails with a reason: HTTP status, timeout, an answer too large, not JSON, not an object, no content", () =>
    Effect.gen(function*() {
      const endpoint = { baseUrl, model: "m" }
      const ask = LanguageModel.complete(endpoint, [{ role: "user", content: "x" }])
      reply = (res) => res.writeHead(503).end("overloaded")
      expect(yield* failure(ask)).toBe("Status")
      reply = () => {}
      expect(yield* failure(LanguageModel.complete({ ...endpoint, timeoutMs: 200 }, [{ role: "user", content: "x" }]))).toBe("Transport")
      reply = (res) => {
        res.writeHead(200, { "content-type": "application/json" })
        const block = Buffer.alloc(1024 * 1024, 0x20)
        for (let i = 0; i < 5; i++) res.write(block)
        res.end("{}")
      }
      expect(yield* failure(ask)).toBe("Answer")
      reply = (res) => res.writeHead(200).end("<html>not json</html>")
      expect(yield* failure(ask)).toBe("Answer")
      reply = answer("[1, 2]")
      expect(yield* failure(LanguageModel.completeJson(endpoint, [{ role: "user", content: "x" }]))).toBe("Answer")
      reply = answer(null)
      expect(yield* failure(ask)).toBe("Answer")
    }))
})
