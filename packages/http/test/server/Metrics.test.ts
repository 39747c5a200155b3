/**
 * The process's metrics (issue 22, item 3) where no Sift server is needed: the route labels stay bounded, `/metrics`
 * is off, open or bearer-only as configured (answered on a node:http server of the test), and a webhook
 * delivery attempt's outcome reaches `sift_webhook_attempts_total` through the role's job queue (pg-boss on PGlite,
 * the real wrapper `sift serve` uses; the job stands in for the delivery worker and tells the outcomes it is given).
 */
import { describe, expect, it } from "@effect/vitest"
import { JobQueue, Sql } from "@sift/store"
import { Deliveries } from "@sift/webhooks"
import { Duration, Effect, Layer, Option, Redacted, Schedule } from "effect"
import * as fs from "node:fs"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import * as os from "node:os"
import * as path from "node:path"
import * as Metrics from "../../src/Metrics.js"
import * as Roles from "../../src/internal/server/roles.js"

describe("metrics", () => {
  it("route labels: ids become :id, unknown API paths and other paths one label each", () => {
    expect(Metrics.routeOf("/v1/web/scrape/markdown?url=x", 200)).toBe("/v1/web/scrape/markdown")
    expect(Metrics.routeOf("/v1/monitors/mon_7f3a9c2b1d", 200)).toBe("/v1/monitors/:id")
    expect(Metrics.routeOf("/v1/no/such/thing", 404)).toBe("/v1/(unmatched)")
    expect(Metrics.routeOf("/wp-admin/x.php", 404)).toBe("other")
    expect(Metrics.routeOf("/metrics", 200)).toBe("/metrics")
  })

  it("GET /metrics: 404 while off, bearer-only with SIFT_METRICS_TOKEN, open with SIFT_METRICS alone", async () => {
    const metrics = new Metrics.Metrics()
    metrics.observe("GET", "/v1/web/scrape/markdown?url=x", 200, 0.01)
    const serve = async (m: Metrics.Metrics | undefined, token: Option.Option<Redacted.Redacted>, headers: Record<string, string> = {}) => {
      const server = createServer((req, res) => Metrics.answer(m, token, req, res))
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
      try {
        const response = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/metrics`, { headers })
        return { status: response.status, body: await response.text() }
      } finally {
        server.close()
      }
    }
    const off = await serve(undefined, Option.none())
    expect(off.status).toBe(404)
    expect(off.body).toContain("SIFT_METRICS")
    const token = Option.some(Redacted.make("s3cret-token"))
    expect((await serve(metrics, token)).status).toBe(401)
    expect((await serve(metrics, token, { authorization: "Bearer s3cret-tokeX" })).status).toBe(401)
    const authorized = await serve(metrics, token, { authorization: "Bearer s3cret-token" })
    expect(authorized.status).toBe(200)
    expect(authorized.body).toMatch(/^sift_http_requests_total\{route="\/v1\/web\/scrape\/markdown",method="GET",status="200"\} 1$/m)
    const open = await serve(metrics, Option.none())
    expect(open.status).toBe(200)
    expect(open.body).toContain("sift_process_resident_memory_bytes")
  })

  it.live("a webhook delivery job's attempt outcomes are counted by outcome, with the job itself", () =>
    Effect.gen(function*() {
      const metrics = new Metrics.Metrics()
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "sift-metrics-"))
      yield* Effect.addFinalizer(() => Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true })))
      const told: Array<string> = []
      yield* Effect.gen(function*() {
        const jobs = yield* JobQueue.JobQueue
        // What Deliveries.runAttempt does after recording an attempt: tell AttemptOutcomes, when someone provides it.
        yield* jobs.work(Deliveries.QUEUE, (job) =>
          Effect.gen(function*() {
            const outcomes = yield* Effect.serviceOption(Deliveries.AttemptOutcomes)
            const outcome = (job.data as { outcome: "delivered" | "retrying" | "failed" }).outcome
            if (Option.isSome(outcomes)) outcomes.value(outcome)
            told.push(outcome)
          }), { pollingIntervalSeconds: 0.5 })
        for (const outcome of ["retrying", "delivered", "failed", "delivered"]) yield* jobs.send(Deliveries.QUEUE, { outcome })
        yield* Effect.suspend(() => told.length >= 4 ? Effect.void : Effect.fail("jobs not run yet")).pipe(
          Effect.retry(Schedule.spaced("200 millis")),
          Effect.timeoutFail({ duration: Duration.seconds(60), onTimeout: () => new Error("the jobs did not run in time") })
        )
      }).pipe(
        Effect.provide(Roles.layerJobQueue({ queues: [Deliveries.QUEUE] }).pipe(Layer.provide(Sql.layerPglite({ dir })))),
        Effect.provideService(Metrics.CurrentMetrics, metrics)
      )
      // A job is counted as it ends, just after its handler told its outcome.
      const text = yield* Effect.promise(() => metrics.registry.metrics()).pipe(
        Effect.filterOrFail((text) => /^sift_jobs_total\{queue="webhook-delivery",outcome="completed"\} 4$/m.test(text), () => "jobs not counted yet"),
        Effect.retry({ schedule: Schedule.spaced("100 millis"), times: 50 }),
        Effect.orElse(() => Effect.promise(() => metrics.registry.metrics()))
      )
      expect(text).toMatch(/^sift_webhook_attempts_total\{outcome="delivered"\} 2$/m)
      expect(text).toMatch(/^sift_webhook_attempts_total\{outcome="retrying"\} 1$/m)
      expect(text).toMatch(/^sift_webhook_attempts_total\{outcome="failed"\} 1$/m)
      expect(text).toMatch(/^sift_jobs_total\{queue="webhook-delivery",outcome="completed"\} 4$/m)
    }).pipe(Effect.scoped), 120_000)
})
