import { describe, expect, it } from "@effect/vitest"
import { Effect, Redacted } from "effect"
import { createHmac } from "node:crypto"
import * as fs from "node:fs"
import type * as http from "node:http"
import type { AddressInfo } from "node:net"
import * as os from "node:os"
import * as path from "node:path"
import { pathToFileURL } from "node:url"
import * as Attempt from "../src/internal/attempt.js"
import { type Envelope, eventId } from "../src/internal/envelope.js"
import * as Signature from "../src/internal/signature.js"

const docs = fs.readFileSync(new URL("../../../docs/monitors.md", import.meta.url), "utf8")

/** The receiver example of docs/monitors.md, written out and imported as a module (the exact block users copy). */
const loadReceiverExample = async () => {
  const block = /## Receiver example[\s\S]*?```js\n([\s\S]*?)```/.exec(docs)?.[1]
  if (block === undefined) throw new Error("no receiver example in docs/monitors.md")
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "sift-receiver-"))
  const file = path.join(dir, "receiver.mjs")
  fs.writeFileSync(file, block)
  return (await import(pathToFileURL(file).href)) as {
    verifySignature: (header: unknown, rawBody: string, secret: string, nowSeconds?: number) => boolean
    createReceiver: (secret: string, onEvent?: (event: Envelope) => void) => http.Server
  }
}

describe("webhook signatures", () => {
  it("signs t.<raw body> with HMAC-SHA256 of the secret (decisions §8 header format)", () => {
    const secret = "whsec_test"
    const body = JSON.stringify({ id: "evt_1", type: "run.completed" })
    const header = Signature.header(Redacted.make(secret), 1_700_000_000, body)
    // Computed independently with: printf '1700000000.<body>' | openssl dgst -sha256 -hmac whsec_test
    const expected = createHmac("sha256", secret).update(`1700000000.${body}`).digest("hex")
    expect(header).toBe(`t=1700000000,v1=${expected}`)
    expect(Signature.verify(header, body, secret, 1_700_000_100)).toBeUndefined()
    expect(Signature.verify(header, body + " ", secret, 1_700_000_100)).toBe("signature mismatch")
    expect(Signature.verify(header, body, "whsec_other", 1_700_000_100)).toBe("signature mismatch")
    expect(Signature.verify(header, body, secret, 1_700_000_301)).toBe("timestamp outside the tolerance")
    expect(Signature.verify("t=abc,v1=00", body, secret)).toBe("malformed signature")
    expect(Signature.verify(undefined, body, secret)).toBe("missing signature")
  })

  it("generates distinct whsec_ secrets with 256 bits", () => {
    const a = Redacted.value(Signature.generateSecret())
    const b = Redacted.value(Signature.generateSecret())
    expect(a).toMatch(/^whsec_[A-Za-z0-9]{32}$/)
    expect(a).not.toBe(b)
  })

  it("the docs receiver example accepts what Sift signs and refuses the rest", async () => {
    const example = await loadReceiverExample()
    const redacted = Signature.generateSecret()
    const secret = Redacted.value(redacted)
    const body = JSON.stringify({ id: "evt_x", type: "change.detected", created_at: "2026-01-01T00:00:00.000Z", data: {} })
    const now = Math.floor(Date.now() / 1000)
    expect(example.verifySignature(Signature.header(redacted, now, body), body, secret)).toBe(true)
    expect(example.verifySignature(Signature.header(redacted, now, body), body.replace("x", "y"), secret)).toBe(false)
    expect(example.verifySignature(Signature.header(Redacted.make("whsec_wrong"), now, body), body, secret)).toBe(false)
    expect(example.verifySignature(Signature.header(redacted, now - 301, body), body, secret)).toBe(false)
    expect(example.verifySignature(undefined, body, secret)).toBe(false)
  })

  it.effect("the docs receiver server takes a real delivery once, and answers 400 to a wrong secret", () =>
    Effect.gen(function*() {
      const example = yield* Effect.promise(loadReceiverExample)
      const redacted = Signature.generateSecret()
      const secret = Redacted.value(redacted)
      const received: Array<Envelope> = []
      const server = example.createReceiver(secret, (event) => received.push(event))
      yield* Effect.async<void>((resume) => { server.listen(0, "127.0.0.1", () => resume(Effect.void)) })
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`
      const event: Envelope = {
        id: eventId(),
        type: "change.detected",
        created_at: new Date().toISOString(),
        data: { monitor: { id: "mon_1", name: "Pricing", tags: ["prices"] }, change: { id: "chg_1", summary: "price went up" } }
      }
      const send = (key: Redacted.Redacted<string>) =>
        Attempt.send({
          url,
          eventId: event!.id,
          eventType: event!.type,
          body: JSON.stringify(event),
          secret: key,
          allowPrivateTargets: true
        })
      expect((yield* send(redacted)).httpStatus).toBe(204)
      expect((yield* send(redacted)).httpStatus).toBe(204) // a retry of the same event: acknowledged, handled once
      const wrong = yield* send(Signature.generateSecret())
      expect(wrong).toMatchObject({ kind: "rejected", httpStatus: 400 })
      expect(received).toEqual([JSON.parse(JSON.stringify(event))])
      yield* Effect.async<void>((resume) => { server.close(() => resume(Effect.void)) })
    }))
})
