import { describe, expect, it } from "@effect/vitest"
import * as JobQueue from "@sift/store/JobQueue"
import * as Mailer from "@sift/store/Mailer"
import * as Migrations from "@sift/store/Migrations"
import * as Sql from "@sift/store/Sql"
import { Duration, Effect, Layer, Schedule } from "effect"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import { Deliveries, migrations as webhookMigrations, Secrets, Signature } from "@sift/webhooks"
import * as Webhooks from "../src/Webhooks.js"

const receiver = Effect.acquireRelease(
  Effect.async<{ url: string; received: Array<{ headers: http.IncomingHttpHeaders; body: string }>; server: http.Server }>((resume) => {
    const received: Array<{ headers: http.IncomingHttpHeaders; body: string }> = []
    const server = http.createServer((req, res) => {
      const chunks: Array<Buffer> = []
      req.on("data", (c: Buffer) => chunks.push(c))
      req.on("end", () => {
        received.push({ headers: req.headers, body: Buffer.concat(chunks).toString("utf8") })
        res.writeHead(204).end()
      })
    })
    server.listen(0, "127.0.0.1", () =>
      resume(Effect.succeed({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, received, server })))
  }),
  ({ server }) => Effect.async<void>((resume) => { server.close(() => resume(Effect.void)) })
)

const database = Layer.tap(Sql.layerPglite({ dir: "memory://" }), (ctx) =>
  Effect.provide(Migrations.run({ mailer: Mailer.migrations, webhooks: webhookMigrations }), ctx))

const services = Layer.provideMerge(
  Webhooks.layer({ allowPrivateTargets: true, recipients: () => Effect.succeed(["owner@example.com"]), pollingIntervalSeconds: 0.5 }),
  Layer.provideMerge(Layer.merge(JobQueue.layer({ queues: ["webhook-delivery"] }), Mailer.layer()), database)
)

describe("WebhookEvents.emit", () => {
  it.live("a run with a change sends change.detected and run.completed, each signed, with its own id", () =>
    Effect.gen(function*() {
      const target = yield* receiver
      const webhooks = yield* Webhooks.WebhookEvents
      const monitor = {
        id: "mon_e",
        name: "Status page",
        tags: ["ops"],
        webhook: { url: target.url, events: ["change.detected", "run.completed"] as const }
      }
      const secret = yield* Secrets.secretFor(monitor.id, target.url)
      const run = { id: "run_9", status: "completed", changed: true }
      const change = { id: "chg_9", summary: "Incident posted" }
      const ids = yield* webhooks.emit({ monitor, run, change })
      expect(ids).toHaveLength(2)
      yield* Effect.flatMap(Effect.sync(() => target.received.length), (n) => n >= 2 ? Effect.void : Effect.fail("waiting")).pipe(
        Effect.retry(Schedule.spaced("200 millis")),
        Effect.timeoutFail({ duration: Duration.seconds(30), onTimeout: () => new Error("deliveries not received") })
      )
      const bodies = target.received.map((r) => JSON.parse(r.body))
      const byType = Object.fromEntries(bodies.map((b) => [b.type, b]))
      expect(byType["change.detected"].data).toEqual({ monitor: { id: "mon_e", name: "Status page", tags: ["ops"] }, change })
      expect(byType["run.completed"].data).toEqual({ monitor: { id: "mon_e", name: "Status page", tags: ["ops"] }, run, change })
      expect(byType["change.detected"].id).not.toBe(byType["run.completed"].id)
      for (const r of target.received) {
        expect(r.headers["x-service-id"]).toBe(JSON.parse(r.body).id)
        expect(r.headers["x-service-event"]).toBe(JSON.parse(r.body).type)
        expect(Signature.verify(r.headers["x-service-signature"] as string, r.body, secret)).toBeUndefined()
      }
      const delivery = yield* Deliveries.get(ids[0]!)
      expect(delivery?.run_id).toBe("run_9")

      // Default events: change.detected only, so a run without a change sends nothing; no webhook sends nothing.
      expect(yield* webhooks.emit({ monitor: { ...monitor, webhook: { url: target.url } }, run, change: null })).toEqual([])
      expect(yield* webhooks.emit({ monitor: { ...monitor, webhook: null }, run, change })).toEqual([])
    }).pipe(Effect.scoped, Effect.provide(services)), 120_000)

  it.live("deliveries list newest first by monitor, run and status, a page at a time", () =>
    Effect.gen(function*() {
      const target = yield* receiver
      const webhooks = yield* Webhooks.WebhookEvents
      const monitor = { id: "mon_l", name: "List", tags: [], webhook: { url: target.url, events: ["run.completed"] as const } }
      const ids: Array<string> = []
      for (const n of [1, 2, 3]) {
        ids.push(...(yield* webhooks.emit({ monitor, run: { id: `run_l${n}` }, change: null })))
        yield* Effect.sleep("5 millis")
      }
      const first = yield* Deliveries.list({ ownerIds: ["mon_l"], limit: 2 })
      expect(first.deliveries.map((d) => d.id)).toEqual([ids[2], ids[1]])
      expect(first.deliveries[0]).toMatchObject({ type: "monitor", monitor_id: "mon_l", run_id: "run_l3", event_type: "run.completed", url: target.url })
      expect(first.next_cursor).not.toBeNull()
      const second = yield* Deliveries.list({ ownerIds: ["mon_l"], limit: 2, cursor: first.next_cursor! })
      expect(second.deliveries.map((d) => d.id)).toEqual([ids[0]])
      expect(second.next_cursor).toBeNull()
      expect((yield* Deliveries.list({ runId: "run_l2" })).deliveries.map((d) => d.id)).toEqual([ids[1]])
      expect((yield* Deliveries.list({ ownerIds: [] })).deliveries).toEqual([])
      yield* Effect.flatMap(Deliveries.list({ ownerIds: ["mon_l"], status: "delivered" }), (page) =>
        page.deliveries.length === 3 ? Effect.void : Effect.fail("not all delivered yet")).pipe(
        Effect.retry(Schedule.spaced("200 millis")),
        Effect.timeoutFail({ duration: Duration.seconds(30), onTimeout: () => new Error("deliveries not delivered") })
      )
      expect((yield* Deliveries.view(ids[0]!))?.status).toBe("delivered")
      expect(yield* Deliveries.view("whd_none")).toBeUndefined()
    }).pipe(Effect.scoped, Effect.provide(services)), 120_000)
})
