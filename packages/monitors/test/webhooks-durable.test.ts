import { describe, expect, it } from "@effect/vitest"
import { afterAll } from "vitest"
import * as Migrations from "@sift/store/Migrations"
import * as JobQueue from "@sift/store/JobQueue"
import * as Sql from "@sift/store/Sql"
import { Duration, Effect, Layer, Schedule } from "effect"
import * as fs from "node:fs"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import * as os from "node:os"
import * as path from "node:path"
import * as Durable from "../src/internal/webhooks/Durable.js"
import * as Events from "../src/internal/webhooks/Events.js"
import * as Signature from "../src/internal/webhooks/Signature.js"

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
    Layer.tap(Sql.layerPglite({ dir }), (ctx) => Effect.provide(Migrations.run({ monitors: { "0002_webhooks": Durable.migration } }), ctx))
  )

const newDir = () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "sift-webhooks-"))
  made.push(dir)
  return dir
}

const event = () =>
  Events.forRun({ monitor: { id: "mon_1", name: "Docs", tags: [] }, run: { id: "run_1" }, change: { id: "chg_1" }, events: ["change.detected"] })[0]!

const statusIs = (id: string, status: string) =>
  Effect.flatMap(Durable.get(id), (row) => row?.status === status ? Effect.succeed(row) : Effect.fail(`status ${row?.status}`))

const work = { allowPrivateTargets: true, pollingIntervalSeconds: 0.5 }

describe("durable webhook deliveries (pg-boss on PGlite)", () => {
  it.live("secrets: kept for the same URL, new for a new URL, replaced by rotation", () =>
    Effect.gen(function*() {
      const first = yield* Durable.secretFor("mon_s", "https://a.example/hook")
      expect(first).toMatch(/^whsec_/)
      expect(yield* Durable.secretFor("mon_s", "https://a.example/hook")).toBe(first)
      const moved = yield* Durable.secretFor("mon_s", "https://b.example/hook")
      expect(moved).not.toBe(first)
      const rotated = yield* Durable.rotateSecret("mon_s")
      expect(rotated).not.toBe(moved)
      expect(yield* Durable.secretFor("mon_s", "https://b.example/hook")).toBe(rotated)
      expect(yield* Durable.rotateSecret("mon_none")).toBeUndefined()
    }).pipe(Effect.provide(stack(newDir()))), 120_000)

  it.live("a 503 is retried as a new job and delivered; attempts recorded; rotation before the retry signs it", () =>
    Effect.gen(function*() {
      const target = yield* receiver([503])
      const oldSecret = yield* Durable.secretFor("mon_r", target.url)
      yield* Durable.worker(work)
      const e = event()
      const id = yield* Durable.enqueue({ monitorId: "mon_r", runId: "run_1", url: target.url, retry: undefined, event: e })
      yield* eventually(statusIs(id, "retrying"))
      const newSecret = (yield* Durable.rotateSecret("mon_r"))!
      const done = yield* eventually(statusIs(id, "delivered"))
      expect(done.attempts).toBe(2)
      const attempts = yield* Durable.attempts(id)
      expect(attempts.map((a) => [a.attempt, a.http_status, a.trigger])).toEqual([[1, 503, "initial"], [2, 200, "automatic"]])
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
        return yield* Durable.enqueue({ monitorId: "mon_x", runId: "run_1", url: target.url, retry: undefined, event: e })
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
      const id = yield* Durable.enqueue({ monitorId: "mon_u", runId: null, url: target.url, retry: {}, event: event() })
      const row = yield* eventually(statusIs(id, "failed"))
      expect(row.last_status).toBe("skipped_unsafe_url")
      expect(row.attempts).toBe(1)
      expect(target.received).toHaveLength(0)
    }).pipe(Effect.scoped, Effect.provide(stack(newDir()))), 120_000)
})
