/**
 * The role's job queue (issue 22, item 1) on a real pg-boss over PGlite: `SIFT_QUEUE_CONCURRENCY` sets how many jobs
 * of a queue one process runs at once, over the package's own default; an `api` process sends jobs and runs none.
 */
import { describe, expect, it } from "@effect/vitest"
import { JobQueue, Sql } from "@sift/store"
import { ConfigProvider, Duration, Effect, Either, Layer, Schedule, type Scope } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as Roles from "../../src/internal/server/roles.js"
import * as ServiceConfig from "../../src/ServiceConfig.js"

const QUEUE = "concurrency-probe"

const configFrom = (env: Record<string, string>) =>
  Effect.either(Effect.withConfigProvider(ServiceConfig.config, ConfigProvider.fromMap(new Map(Object.entries(env)))))

/** Runs `body` with the role's job queue on a fresh PGlite directory, under the configuration of `env`. */
const withQueue = <A, E>(env: Record<string, string>, body: (jobs: JobQueue.JobQueueShape) => Effect.Effect<A, E, Scope.Scope>) =>
  Effect.gen(function*() {
    const config = yield* Effect.flatMap(configFrom(env), Either.match({ onLeft: (e) => Effect.die(e), onRight: Effect.succeed }))
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "sift-queue-"))
    yield* Effect.addFinalizer(() => Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true })))
    return yield* Effect.flatMap(JobQueue.JobQueue, (jobs) => body(jobs)).pipe(
      Effect.scoped,
      Effect.provide(Roles.layerJobQueue({ queues: [QUEUE] }).pipe(Layer.provide(Sql.layerPglite({ dir })))),
      Effect.provideService(ServiceConfig.CurrentConfig, config)
    )
  }).pipe(Effect.scoped)

const until = (check: () => boolean, seconds: number) =>
  Effect.suspend(() => check() ? Effect.void : Effect.fail("not yet")).pipe(
    Effect.retry(Schedule.spaced("100 millis")),
    Effect.timeoutFail({ duration: Duration.seconds(seconds), onTimeout: () => new Error(`not reached in ${seconds} s`) })
  )

describe("SIFT_QUEUE_CONCURRENCY and roles", () => {
  it.effect("queue=n pairs are read; anything else stops start-up naming the pair", () =>
    Effect.gen(function*() {
      expect(ServiceConfig.parseQueueConcurrency(" batch-drive=2, webhook-delivery = 8,")).toEqual({ "batch-drive": 2, "webhook-delivery": 8 })
      expect(ServiceConfig.parseQueueConcurrency("monitor-run")).toContain('got "monitor-run"')
      expect(ServiceConfig.parseQueueConcurrency("monitor-run=0")).toContain("monitor-run must be 1 to 1000, got 0")
      const refused = yield* configFrom({ SIFT_QUEUE_CONCURRENCY: "url-enrichment=5000" })
      expect(Either.isLeft(refused) && String(refused.left)).toContain("url-enrichment must be 1 to 1000, got 5000")
      const read = yield* configFrom({ SIFT_QUEUE_CONCURRENCY: "url-enrichment=3", SIFT_ROLE: "worker" })
      expect(Either.getOrThrow(read)).toMatchObject({ role: "worker", queueConcurrency: { "url-enrichment": 3 } })
    }))

  it.live("a worker runs a queue's jobs as many at once as the setting says, not the package's 1", () =>
    withQueue({ SIFT_ROLE: "worker", SIFT_QUEUE_CONCURRENCY: `${QUEUE}=3` }, (jobs) =>
      Effect.gen(function*() {
        let running = 0
        let most = 0
        let done = 0
        yield* jobs.work(QUEUE, () =>
          Effect.acquireUseRelease(
            Effect.sync(() => (most = Math.max(most, ++running))),
            () => Effect.sleep("1500 millis"),
            () => Effect.sync(() => (running--, done++))
          ), { concurrency: 1, pollingIntervalSeconds: 0.5 })
        for (let i = 0; i < 6; i++) yield* jobs.send(QUEUE, { i })
        yield* until(() => done === 6, 60)
        expect(most).toBe(3)
      })), 120_000)

  it.live("an api process sends the job and runs none", () =>
    withQueue({ SIFT_ROLE: "api" }, (jobs) =>
      Effect.gen(function*() {
        let ran = 0
        yield* jobs.work(QUEUE, () => Effect.sync(() => void ran++), { pollingIntervalSeconds: 0.5 })
        const sent = yield* jobs.send(QUEUE, { i: 1 })
        expect(sent._tag).toBe("Some")
        yield* Effect.sleep("3 seconds")
        expect(ran).toBe(0)
      })), 60_000)
})
