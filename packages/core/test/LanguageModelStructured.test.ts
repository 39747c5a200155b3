/**
 * Structured output of the one language-model client, against an OpenAI-format chat-completions responder served here
 * (a stand-in for a model server, which cannot run in the tests): an answer that breaks the requested JSON Schema is
 * repaired once or rejected, a model that hangs is bounded by the budget, and tokens are budgeted across both calls.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect, Either } from "effect"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import * as LanguageModel from "../src/LanguageModel.js"

const requests: Array<any> = []
let replies: Array<(res: http.ServerResponse) => void> = []
let server: http.Server
let baseUrl = ""

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const chunks: Array<Buffer> = []
    req.on("data", (c) => chunks.push(c))
    req.on("end", () => {
      requests.push(JSON.parse(Buffer.concat(chunks).toString("utf8")))
      const reply = replies.shift()
      if (reply !== undefined) reply(res)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`
})
afterAll(() => new Promise<void>((resolve) => {
  server.closeAllConnections()
  server.close(() => resolve())
}))

const answer = (content: string, tokens = 10) => (res: http.ServerResponse) =>
  res.writeHead(200, { "content-type": "application/json" })
    .end(JSON.stringify({ choices: [{ message: { role: "assistant", content } }], usage: { total_tokens: tokens } }))

const schema = {
  type: "object",
  properties: { name: { type: "string" }, employees: { type: "integer", minimum: 0 } },
  required: ["name", "employees"],
  additionalProperties: false
}
const messages = [{ role: "user" as const, content: "Describe Acme as JSON" }]

const reasonOf = <A>(effect: Effect.Effect<A, LanguageModel.LanguageModelError>) =>
  Effect.map(Effect.either(effect), (result) => Either.isLeft(result) ? result.left.reason : "succeeded")

describe("LanguageModel.completeStructured", () => {
  it.live("asks with the schema, accepts a valid answer, and repairs one that breaks it", () =>
    Effect.gen(function*() {
      const endpoint = { baseUrl, model: "m" }
      requests.length = 0
      replies = [answer(JSON.stringify({ name: "Acme", employees: 12 }))]
      expect(yield* LanguageModel.completeStructured(endpoint, messages, schema, { timeoutMs: 5_000 })).toEqual({ name: "Acme", employees: 12 })
      expect(requests[0].response_format).toEqual({ type: "json_schema", json_schema: { name: "answer", schema } })

      requests.length = 0
      replies = [answer(JSON.stringify({ name: "Acme", employees: "twelve" })), answer("```json\n{\"name\":\"Acme\",\"employees\":12}\n```")]
      expect(yield* LanguageModel.completeStructured(endpoint, messages, schema, { timeoutMs: 5_000 })).toEqual({ name: "Acme", employees: 12 })
      expect(requests).toHaveLength(2)
      // The repair names the problem and carries the broken answer.
      expect(requests[1].messages[1]).toEqual({ role: "assistant", content: JSON.stringify({ name: "Acme", employees: "twelve" }) })
      expect(requests[1].messages[2].content).toContain("/employees must be integer")
    }))

  it.live("rejects an answer still broken after one repair, and a schema that cannot be compiled", () =>
    Effect.gen(function*() {
      const endpoint = { baseUrl, model: "m" }
      requests.length = 0
      replies = [answer("not json at all"), answer(JSON.stringify({ name: "Acme" }))]
      const result = yield* Effect.either(LanguageModel.completeStructured(endpoint, messages, schema, { timeoutMs: 5_000 }))
      expect(Either.isLeft(result) && result.left.reason).toBe("Answer")
      expect(Either.isLeft(result) && result.left.detail).toContain("must have required property 'employees'")
      expect(requests).toHaveLength(2)
      requests.length = 0
      expect(yield* reasonOf(LanguageModel.completeStructured(endpoint, messages, { type: "no-such-type" }, { timeoutMs: 5_000 }))).toBe("Schema")
      expect(requests).toHaveLength(0)
    }))

  it.live("ends a model that hangs at the time budget, and stops when the token budget is spent", () =>
    Effect.gen(function*() {
      const endpoint = { baseUrl, model: "m" }
      replies = [() => {}]
      const started = Date.now()
      expect(yield* reasonOf(LanguageModel.completeStructured(endpoint, messages, schema, { timeoutMs: 300 }))).toBe("Budget")
      expect(Date.now() - started).toBeLessThan(2_000)

      requests.length = 0
      replies = [answer(JSON.stringify({ name: 1 }), 500)]
      expect(yield* reasonOf(LanguageModel.completeStructured(endpoint, messages, schema, { timeoutMs: 5_000, maxTokens: 400 }))).toBe("Budget")
      expect(requests).toHaveLength(1)
      expect(requests[0].max_tokens).toBe(400)
    }))
})
