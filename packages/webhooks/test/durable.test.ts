import { describe, expect, it } from "@effect/vitest"
import { afterAll } from "vitest"
import * as Mailer from "@sift/store/Mailer"
import * as Migrations from "@sift/store/Migrations"
import * as JobQueue from "@sift/store/JobQueue"
import * as Sql from "@sift/store/Sql"
import { Duration, Effect, Either, Layer, Redacted, Schedule } from "effect"
import * as fs from "node:fs"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import * as os from "node:os"
import * as path from "node:path"
import * as Durable from "../src/internal/durable.js"
import { type Envelope, eventId } from "../src/internal/envelope.js"
import * as Signature from "../src/internal/signature.js"
import { migrations } from "../src/Migrations.js"

const made: Array<string> = []
afterAll(() => made.forEach((dir) => fs.rmSync(dir, { recursive: true, force: true })))

/** A real receiver answering the scripted statuses in turn (then 200), recording each request. */
const receiver = (statuses: ReadonlyArray<number>) =>
  Effect.acquireRelease(
    Effect.async<{ url: string; received: Array<{ headers: http.IncomingHttpHeaders; body: string }>; server: http.Server }>((resume) => {
      const received: Array<{ headers: http.IncomingHttpHeaders; body: string }> = []
      const server = http.createServer((req, res) => {
        const chunks: Array<Buffer> = []
        req.on("data", (c: Buffer) => chunks.push(c))
        req.on("end", () => {
          const status = statuses[received.length] ?? 200
          received.push({ headers: req.headers, body: Buffer.concat(chunks).toString("utf8") })
          res.writeHead(status).end()
        })
      })
      server.listen(0, "127.0.0.1", () =>
        resume(Effect.succeed({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, received, server })))
    }),
    ({ server }) => Effect.async<void>((resume) => { server.close(() => resume(Effect.void)) })
  )

const eventually = <A, E, R>(check: Effect.Effect<A, E, R>) =>
  check.pipe(
    Effect.retry(Schedule.spaced("200 millis")),
    Effect.timeoutFail({ duration: Duration.seconds(40), onTimeout: () => new Error("condition not reached in time") })
  )

const stack = (dir: string) =>
  Layer.provideMerge(
    JobQueue.layer({ queues: [Durable.QUEUE] }),
    Layer.tap(Sql.layerPglite({ dir }), (ctx) => Effect.provide(Migrations.run({ mailer: Mailer.migrations, webhooks: migrations }), ctx))
  )

const newDir = () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "sift-webhooks-"))
  made.push(dir)
  return dir
}

const event = (): Envelope =>
  ({ id: eventId(), type: "change.detected", created_at: new Date().toISOString(), data: { monitor: { id: "mon_1", name: "Docs", tags: [] }, change: { id: "chg_1" } } })

const statusIs = (id: string, status: string) =>
  Effect.flatMap(Durable.get(id), (row) => row?.status === status ? Effect.succeed(row) : Effect.fail(`status ${row?.status}`))

const work = { allowPrivateTargets: true, pollingIntervalSeconds: 0.5 }

describe("durable webhook deliveries (pg-boss on PGlite)", () => {
  it.live("secrets: kept for the same URL, new for a new URL, replaced by rotation", () =>
    Effect.gen(function*() {
      // Secrets are Redacted in memory: compared here by their values.
      const secretFor = (owner: string, url: string) => Effect.map(Durable.secretFor(owner, url), Redacted.value)
      const first = yield* secretFor("mon_s", "https://a.example/hook")
      expect(first).toMatch(/^whsec_/)
      expect(yield* secretFor("mon_s", "https://a.example/hook")).toBe(first)
      const moved = yield* secretFor("mon_s", "https://b.example/hook")
      expect(moved).not.toBe(first)
      const rotated = Redacted.value((yield* Durable.rotateSecret("mon_s"))!)
      expect(rotated).not.toBe(moved)
      expect(yield* secretFor("mon_s", "https://b.example/hook")).toBe(rotated)
      expect(yield* Durable.rotateSecret("mon_none")).toBeUndefined()
      // Reading many at once writes nothing and answers each owner's URL with its secret.
      const read = yield* Durable.secretsOf(["mon_s", "mon_none"])
      expect([...read.keys()]).toEqual(["mon_s"])
      expect(read.get("mon_s")!.url).toBe("https://b.example/hook")
      expect(Redacted.value(read.get("mon_s")!.secret)).toBe(rotated)
      expect(String(read.get("mon_s")!.secret)).not.toContain("whsec_")
      expect(JSON.stringify({ secret: read.get("mon_s")!.secret })).not.toContain("whsec_")
    }).pipe(Effect.provide(stack(newDir()))), 120_000)

  it.live("a 503 is retried as a new job and delivered; attempts recorded and their outcomes told; rotation before the retry signs it", () =>
    Effect.gen(function*() {
      const target = yield* receiver([503])
      const oldSecret = yield* Durable.secretFor("mon_r", target.url)
      // The worker tells each attempt's outcome to whoever provides AttemptOutcomes (the server's metrics).
      const outcomes: Array<Durable.AttemptOutcome> = []
      yield* Durable.worker(work).pipe(Effect.provideService(Durable.AttemptOutcomes, (outcome) => void outcomes.push(outcome)))
      const e = event()
      const id = yield* Durable.enqueue({ ownerId: "mon_r", runId: "run_1", url: target.url, retry: undefined, event: e })
      yield* eventually(statusIs(id, "retrying"))
      const newSecret = (yield* Durable.rotateSecret("mon_r"))!
      const done = yield* eventually(statusIs(id, "delivered"))
      expect(done.attempts).toBe(2)
      const attempts = yield* Durable.attempts(id)
      expect(attempts.map((a) => [a.attempt, a.http_status, a.trigger])).toEqual([[1, 503, "initial"], [2, 200, "automatic"]])
      // Told just after the record commits: wait for the second.
      yield* eventually(Effect.suspend(() => outcomes.length >= 2 ? Effect.void : Effect.fail("outcome not told yet")))
      expect(outcomes).toEqual(["retrying", "delivered"])
      expect(target.received).toHaveLength(2)
      const [first, retry] = target.received
      expect(first!.headers["x-service-id"]).toBe(e.id)
      expect(retry!.headers["x-service-id"]).toBe(e.id)
      expect(Signature.verify(first!.headers["x-service-signature"] as string, first!.body, oldSecret)).toBeUndefined()
      expect(Signature.verify(retry!.headers["x-service-signature"] as string, retry!.body, newSecret)).toBeUndefined()
    }).pipe(Effect.scoped, Effect.provide(stack(newDir()))), 120_000)

  it.live("a restart between the run and its delivery, and another mid-retry: each attempt sent once, same event id", () =>
    Effect.gen(function*() {
      const dir = newDir()
      const target = yield* receiver([500])
      const e = event()
      // Process 1: the run records its delivery, then the process stops before any worker picks it up.
      const id = yield* Effect.gen(function*() {
        yield* Durable.secretFor("mon_x", target.url)
        return yield* Durable.enqueue({ ownerId: "mon_x", runId: "run_1", url: target.url, retry: undefined, event: e })
      }).pipe(Effect.provide(stack(dir)))
      expect(target.received).toHaveLength(0)
      // Process 2: sends the first attempt (500) and stops while the retry waits.
      yield* Effect.gen(function*() {
        yield* Durable.worker(work)
        yield* eventually(statusIs(id, "retrying"))
      }).pipe(Effect.scoped, Effect.provide(stack(dir)))
      expect(target.received).toHaveLength(1)
      // Process 3: picks up the queued retry.
      yield* Effect.gen(function*() {
        yield* Durable.worker(work)
        yield* eventually(statusIs(id, "delivered"))
        yield* Effect.sleep("1500 millis") // room for any duplicate to show up
      }).pipe(Effect.scoped, Effect.provide(stack(dir)))
      expect(target.received.map((r) => r.headers["x-service-id"])).toEqual([e.id, e.id])
      expect(new Set(target.received.map((r) => r.body)).size).toBe(1)
      const attempts = yield* Durable.attempts(id).pipe(Effect.provide(Sql.layerPglite({ dir })))
      expect(attempts.map((a) => a.http_status)).toEqual([500, 200])
    }).pipe(Effect.scoped), 180_000)

  it.live("an unsafe URL is never contacted: failed with last_status skipped_unsafe_url", () =>
    Effect.gen(function*() {
      const target = yield* receiver([])
      yield* Durable.secretFor("mon_u", target.url)
      yield* Durable.worker({ ...work, allowPrivateTargets: false })
      const id = yield* Durable.enqueue({ ownerId: "mon_u", runId: null, url: target.url, retry: {}, event: event() })
      const row = yield* eventually(statusIs(id, "failed"))
      expect(row.last_status).toBe("skipped_unsafe_url")
      expect(row.attempts).toBe(1)
      expect(target.received).toHaveLength(0)
    }).pipe(Effect.scoped, Effect.provide(stack(newDir()))), 120_000)

  it.live("failure email: after 3 failed deliveries in a row, once per streak, once a day per shared receiver", () =>
    Effect.gen(function*() {
      const failing = yield* receiver(Array.from({ length: 50 }, () => 500))
      const mailer = yield* Mailer.Mailer
      const owner = "owner@example.com"
      yield* Durable.worker({
        ...work,
        onFailureStreak: ({ failure, ownerId: monitorId, url }) =>
          mailer.send({
            to: owner,
            subject: `Webhook failing for monitor ${monitorId}`,
            text: `${failure.consecutive_failures} deliveries to ${url} failed in a row (${failure.last_status}: ${failure.last_message}).`
          }).pipe(Effect.orDie, Effect.asVoid)
      })
      const failOnce = (monitorId: string) =>
        Effect.gen(function*() {
          yield* Durable.secretFor(monitorId, failing.url)
          const id = yield* Durable.enqueue({ ownerId: monitorId, runId: null, url: failing.url, retry: [], event: event() })
          yield* eventually(statusIs(id, "failed"))
        })
      yield* failOnce("mon_a")
      yield* failOnce("mon_a")
      expect(yield* Mailer.sentTo(owner)).toHaveLength(0)
      yield* failOnce("mon_a")
      const failure = yield* Durable.failureOf("mon_a")
      expect(failure).toMatchObject({ consecutive_failures: 3, last_status: "rejected", last_message: "receiver answered 500" })
      yield* failOnce("mon_a")
      // The email follows the attempt's commit: wait for it, then make sure no second one comes.
      yield* eventually(Effect.flatMap(Mailer.sentTo(owner), (m) => m.length > 0 ? Effect.void : Effect.fail("no mail yet")))
      yield* Effect.sleep("1 second")
      const mails = yield* Mailer.sentTo(owner)
      expect(mails).toHaveLength(1)
      expect(mails[0]!.subject).toBe("Webhook failing for monitor mon_a")
      expect(mails[0]!.text).toContain("3 deliveries to " + failing.url)
      // A second monitor on the same receiver reaches its own streak the same day: no second email.
      for (let i = 0; i < 3; i++) yield* failOnce("mon_b")
      expect((yield* Durable.failureOf("mon_b"))?.consecutive_failures).toBe(3)
      yield* Effect.sleep("1 second")
      expect(yield* Mailer.sentTo(owner)).toHaveLength(1)
      // A success ends the streak: webhook_failure back to null.
      const healthy = yield* receiver([])
      yield* Durable.secretFor("mon_a", healthy.url)
      const ok = yield* Durable.enqueue({ ownerId: "mon_a", runId: null, url: healthy.url, retry: [], event: event() })
      yield* eventually(statusIs(ok, "delivered"))
      expect(yield* Durable.failureOf("mon_a")).toBeUndefined()
    }).pipe(Effect.scoped, Effect.provide(Layer.provideMerge(Mailer.layer(), stack(newDir())))), 180_000)

  it.live("manual retry: idempotent per Idempotency-Key, DELIVERY_* refusals, force re-sends a delivered one", () =>
    Effect.gen(function*() {
      const target = yield* receiver([500])
      yield* Durable.secretFor("mon_m", target.url)
      yield* Durable.worker(work)
      const id = yield* Durable.enqueue({ ownerId: "mon_m", runId: null, url: target.url, retry: [], event: event() })
      const early = yield* Effect.either(Durable.retryByHand(id, {}))
      const code = (e: Either.Either<unknown, Durable.DeliveryRetryRefused | unknown>) =>
        Either.isLeft(e) ? (e.left as Durable.DeliveryRetryRefused).error_code : "ok"
      expect(code(early)).toBe("DELIVERY_IN_PROGRESS")
      yield* eventually(statusIs(id, "failed"))
      expect(yield* Durable.retryByHand(id, { idempotencyKey: "key-1" })).toEqual({ attempt: 2, replayed: false })
      expect(yield* Durable.retryByHand(id, { idempotencyKey: "key-1" })).toEqual({ attempt: 2, replayed: true })
      yield* eventually(statusIs(id, "delivered"))
      expect(yield* Durable.retryByHand(id, { idempotencyKey: "key-1" })).toEqual({ attempt: 2, replayed: true })
      expect(code(yield* Effect.either(Durable.retryByHand(id, { idempotencyKey: "key-2" })))).toBe("DELIVERY_ALREADY_DELIVERED")
      expect(code(yield* Effect.either(Durable.retryByHand("whd_missing", {})))).toBe("NOT_FOUND")
      expect(yield* Durable.retryByHand(id, { force: true, idempotencyKey: "key-3" })).toEqual({ attempt: 3, replayed: false })
      yield* eventually(Effect.flatMap(Durable.attempts(id), (a) => a.length === 3 ? Effect.succeed(a) : Effect.fail("pending")))
      yield* Effect.sleep("1500 millis")
      const attempts = yield* Durable.attempts(id)
      expect(attempts.map((a) => [a.attempt, a.http_status, a.trigger])).toEqual([[1, 500, "initial"], [2, 200, "manual"], [3, 200, "manual"]])
      expect(target.received).toHaveLength(3)
    }).pipe(Effect.scoped, Effect.provide(stack(newDir()))), 180_000)
})
