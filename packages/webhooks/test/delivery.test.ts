import { describe, expect, it } from "@effect/vitest"
import { Chunk, Deferred, Effect, Fiber, Redacted, Ref, TestClock } from "effect"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import * as Deliver from "../src/internal/deliver.js"
import { type Envelope, eventId } from "../src/internal/envelope.js"
import * as RetryPolicy from "../src/internal/retryPolicy.js"
import * as Signature from "../src/internal/signature.js"

interface Received {
  readonly headers: http.IncomingHttpHeaders
  readonly body: string
}

interface Reply {
  readonly status: number
  readonly headers?: Record<string, string>
  /** Hold the answer this long (real time). */
  readonly delayMs?: number
}

/** A real receiver on 127.0.0.1 answering with the scripted replies in turn (then 200), recording every request. */
const receiver = (replies: ReadonlyArray<Reply>) =>
  Effect.acquireRelease(
    Effect.async<{ url: string; received: Array<Received>; server: http.Server }>((resume) => {
      const received: Array<Received> = []
      const server = http.createServer((req, res) => {
        const chunks: Array<Buffer> = []
        req.on("data", (c: Buffer) => chunks.push(c))
        req.on("end", () => {
          const reply = replies[received.length] ?? { status: 200 }
          received.push({ headers: req.headers, body: Buffer.concat(chunks).toString("utf8") })
          setTimeout(() => res.writeHead(reply.status, reply.headers ?? {}).end("ok"), reply.delayMs ?? 0)
        })
      })
      server.listen(0, "127.0.0.1", () =>
        resume(Effect.succeed({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, received, server })))
    }),
    ({ server }) => Effect.sync(() => server.closeAllConnections()).pipe(Effect.zipRight(Effect.async<void>((resume) => { server.close(() => resume(Effect.void)) })))
  )

/** Waits until the delivery fiber sleeps (its wait registered on the TestClock) and returns the pending wake times. */
const pendingSleeps = Effect.gen(function*() {
  for (;;) {
    const sleeps = yield* TestClock.sleeps()
    if (Chunk.size(sleeps) > 0) return Chunk.toReadonlyArray(sleeps)
    yield* Effect.promise(() => new Promise((r) => setTimeout(r, 10)))
  }
})

const monitor = { id: "mon_123", name: "Pricing page", tags: ["pricing", "competitor"] }
const run = { id: "run_1", status: "completed" }
const change = { id: "chg_1", summary: "Price changed" }

// An envelope as a sender (monitors) makes one: the package delivers whatever kinds its sender names.
const oneEvent = (type: "change.detected" | "run.completed" = "change.detected"): Envelope =>
  ({ id: eventId(), type, created_at: new Date().toISOString(), data: type === "change.detected" ? { monitor, change } : { monitor, run, change } })

describe("webhook retry policy", () => {
  it("omitted: one quick retry after a network error, 429 or 5xx only; {} the default schedule; [] none", () => {
    expect(RetryPolicy.nextDelay(undefined, 1, { kind: "failed", httpStatus: null })).toBe(RetryPolicy.QUICK_RETRY_MS)
    expect(RetryPolicy.nextDelay(undefined, 1, { kind: "rejected", httpStatus: 503 })).toBe(RetryPolicy.QUICK_RETRY_MS)
    expect(RetryPolicy.nextDelay(undefined, 1, { kind: "rejected", httpStatus: 404 })).toBeUndefined()
    expect(RetryPolicy.nextDelay(undefined, 1, { kind: "skipped_unsafe_url", httpStatus: null })).toBeUndefined()
    expect(RetryPolicy.nextDelay(undefined, 2, { kind: "rejected", httpStatus: 503 })).toBeUndefined()
    // decisions §8: 30 s, 2 min, 10 min, 1 h, 6 h, 24 h.
    expect(RetryPolicy.nextDelay({}, 1, { kind: "rejected", httpStatus: 500 })).toBe(30_000)
    expect(RetryPolicy.nextDelay({}, 5, { kind: "rejected", httpStatus: 500 })).toBe(21_600_000)
    expect(RetryPolicy.nextDelay({}, 6, { kind: "rejected", httpStatus: 500 })).toBe(86_400_000)
    expect(RetryPolicy.nextDelay({}, 7, { kind: "rejected", httpStatus: 500 })).toBeUndefined()
    expect(RetryPolicy.nextDelay([], 1, { kind: "rejected", httpStatus: 500 })).toBeUndefined()
  })

  it("Retry-After in seconds or as a date, capped at 60 s", () => {
    expect(RetryPolicy.parseRetryAfter("30")).toBe(30_000)
    expect(RetryPolicy.parseRetryAfter("3600")).toBe(RetryPolicy.RETRY_AFTER_CAP_MS)
    expect(RetryPolicy.parseRetryAfter(new Date(10_000).toUTCString(), 0)).toBe(10_000)
    expect(RetryPolicy.parseRetryAfter("soon")).toBeUndefined()
  })
})

describe("webhook deliveries to a real receiver", () => {
  it.scoped("sends the signed event with the decisions §8 headers", () =>
    Effect.gen(function*() {
      const target = yield* receiver([])
      const secret = Signature.generateSecret()
      const event = oneEvent()
      const result = yield* Deliver.deliver({ url: target.url, event, retry: undefined, secret: Effect.succeed(secret), allowPrivateTargets: true })
      expect(result).toMatchObject({ status: "delivered", lastStatus: null })
      expect(result.attempts).toHaveLength(1)
      expect(result.attempts[0]).toMatchObject({ attempt: 1, http_status: 200, error: null, trigger: "initial", url: target.url })
      const [got] = target.received
      expect(got!.headers["x-service-id"]).toBe(event.id)
      expect(got!.headers["x-service-event"]).toBe("change.detected")
      expect(got!.headers["content-type"]).toBe("application/json")
      expect(JSON.parse(got!.body)).toEqual(event)
      expect(Signature.verify(got!.headers["x-service-signature"] as string, got!.body, secret)).toBeUndefined()
    }))

  it.scoped("a 5xx receiver is retried on the default schedule until it answers 2xx, same event id throughout", () =>
    Effect.gen(function*() {
      const target = yield* receiver([{ status: 500 }, { status: 503 }, { status: 502 }])
      const event = oneEvent("run.completed")
      const fiber = yield* Effect.fork(
        Deliver.deliver({ url: target.url, event, retry: {}, secret: Effect.succeed(Redacted.make("whsec_a")), allowPrivateTargets: true })
      )
      for (const wait of [30_000, 120_000, 600_000]) {
        const sleeps = yield* pendingSleeps
        expect(sleeps).toEqual([(yield* TestClock.currentTimeMillis) + wait])
        yield* TestClock.adjust(wait)
      }
      const result = yield* Fiber.join(fiber)
      expect(result.status).toBe("delivered")
      expect(result.attempts.map((a) => [a.attempt, a.http_status, a.trigger])).toEqual([
        [1, 500, "initial"],
        [2, 503, "automatic"],
        [3, 502, "automatic"],
        [4, 200, "automatic"]
      ])
      expect(new Set(target.received.map((r) => r.headers["x-service-id"]))).toEqual(new Set([event.id]))
      expect(new Set(target.received.map((r) => r.body)).size).toBe(1)
    }))

  it.scoped("without retry setting: one quick retry, then failed with last_status rejected", () =>
    Effect.gen(function*() {
      const target = yield* receiver([{ status: 500 }, { status: 500 }, { status: 200 }])
      const fiber = yield* Effect.fork(
        Deliver.deliver({ url: target.url, event: oneEvent(), retry: undefined, secret: Effect.succeed(Redacted.make("k")), allowPrivateTargets: true })
      )
      yield* pendingSleeps
      yield* TestClock.adjust(RetryPolicy.QUICK_RETRY_MS)
      const result = yield* Fiber.join(fiber)
      expect(result).toMatchObject({ status: "failed", lastStatus: "rejected", lastMessage: "receiver answered 500" })
      expect(target.received).toHaveLength(2)
    }))

  it.scoped("retry [] makes one attempt; a 4xx is not retried", () =>
    Effect.gen(function*() {
      const target = yield* receiver([{ status: 500 }, { status: 410 }])
      const none = yield* Deliver.deliver({ url: target.url, event: oneEvent(), retry: [], secret: Effect.succeed(Redacted.make("k")), allowPrivateTargets: true })
      expect(none.attempts).toHaveLength(1)
      const gone = yield* Deliver.deliver({ url: target.url, event: oneEvent(), retry: {}, secret: Effect.succeed(Redacted.make("k")), allowPrivateTargets: true })
      expect(gone).toMatchObject({ status: "failed", lastStatus: "rejected" })
      expect(gone.attempts.map((a) => a.http_status)).toEqual([410])
    }))

  it.scoped("a 429 waits for its Retry-After (longer than the quick retry) and a huge one is capped at 60 s", () =>
    Effect.gen(function*() {
      const target = yield* receiver([{ status: 429, headers: { "retry-after": "30" } }])
      const fiber = yield* Effect.fork(
        Deliver.deliver({ url: target.url, event: oneEvent(), retry: undefined, secret: Effect.succeed(Redacted.make("k")), allowPrivateTargets: true })
      )
      expect(yield* pendingSleeps).toEqual([30_000])
      yield* TestClock.adjust(29_999)
      expect(target.received).toHaveLength(1)
      yield* TestClock.adjust(1)
      const result = yield* Fiber.join(fiber)
      expect(result.status).toBe("delivered")
      expect(result.attempts.map((a) => a.http_status)).toEqual([429, 200])

      const capped = yield* receiver([{ status: 429, headers: { "retry-after": "86400" } }])
      const second = yield* Effect.fork(
        Deliver.deliver({ url: capped.url, event: oneEvent(), retry: undefined, secret: Effect.succeed(Redacted.make("k")), allowPrivateTargets: true })
      )
      const now = (yield* TestClock.currentTimeMillis)
      expect(yield* pendingSleeps).toEqual([now + RetryPolicy.RETRY_AFTER_CAP_MS])
      yield* TestClock.adjust(RetryPolicy.RETRY_AFTER_CAP_MS)
      expect((yield* Fiber.join(second)).status).toBe("delivered")
    }))

  it.scoped("a secret rotated between a failure and its retry: the retry is signed with the new secret only", () =>
    Effect.gen(function*() {
      const target = yield* receiver([{ status: 503 }])
      const oldSecret = Signature.generateSecret()
      const newSecret = Signature.generateSecret()
      const current = yield* Ref.make(oldSecret)
      const failed = yield* Deferred.make<void>()
      const fiber = yield* Effect.fork(Deliver.deliver({
        url: target.url,
        event: oneEvent(),
        retry: undefined,
        secret: Ref.get(current),
        allowPrivateTargets: true,
        onAttempt: (a) => a.attempt === 1 ? Deferred.succeed(failed, undefined) : Effect.void
      }))
      yield* Deferred.await(failed)
      yield* Ref.set(current, newSecret) // the rotation
      yield* pendingSleeps
      yield* TestClock.adjust(RetryPolicy.QUICK_RETRY_MS)
      expect((yield* Fiber.join(fiber)).status).toBe("delivered")
      const [first, retry] = target.received
      const sig = (r: Received) => r.headers["x-service-signature"] as string
      expect(Signature.verify(sig(first!), first!.body, oldSecret)).toBeUndefined()
      expect(Signature.verify(sig(retry!), retry!.body, newSecret)).toBeUndefined()
      expect(Signature.verify(sig(retry!), retry!.body, oldSecret)).toBe("signature mismatch")
      expect(retry!.headers["x-service-id"]).toBe(first!.headers["x-service-id"])
    }))

  it.scoped("a receiver slower than the timeout counts as failed (no response) and is retried once", () =>
    Effect.gen(function*() {
      const target = yield* receiver([{ status: 200, delayMs: 2_000 }, { status: 200 }])
      const fiber = yield* Effect.fork(Deliver.deliver({
        url: target.url,
        event: oneEvent(),
        retry: undefined,
        secret: Effect.succeed(Redacted.make("k")),
        allowPrivateTargets: true,
        timeoutMs: 300
      }))
      yield* pendingSleeps
      yield* TestClock.adjust(RetryPolicy.QUICK_RETRY_MS)
      const result = yield* Fiber.join(fiber)
      expect(result.attempts.map((a) => [a.outcome, a.http_status])).toEqual([["failed", null], ["delivered", 200]])
      expect(result.attempts[0]!.error).toMatch(/timed out/)
    }))

  it.scoped("unsafe URLs are not contacted: skipped_unsafe_url, no retry, unless private targets are allowed", () =>
    Effect.gen(function*() {
      const target = yield* receiver([])
      for (const url of [target.url, target.url.replace("127.0.0.1", "localhost"), "http://169.254.169.254/latest", "http://10.0.0.1/", "http://[::1]:9/", "ftp://example.com/"]) {
        const result = yield* Deliver.deliver({ url, event: oneEvent(), retry: {}, secret: Effect.succeed(Redacted.make("k")), allowPrivateTargets: false })
        expect(result.status, url).toBe("failed")
        expect(result.lastStatus, url).toBe("skipped_unsafe_url")
        expect(result.attempts, url).toHaveLength(1)
      }
      expect(target.received).toHaveLength(0)
      const allowed = yield* Deliver.deliver({ url: target.url, event: oneEvent(), retry: {}, secret: Effect.succeed(Redacted.make("k")), allowPrivateTargets: true })
      expect(allowed.status).toBe("delivered")
      expect(target.received).toHaveLength(1)
    }))
})
