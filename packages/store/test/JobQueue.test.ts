import { describe, expect, it, layer as testLayer } from "@effect/vitest"
import { afterAll } from "vitest"
import * as SqlClient from "@effect/sql/SqlClient"
import { Deferred, Duration, Effect, Layer, Option, Redacted, Ref, Schedule } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as JobQueue from "../src/JobQueue.js"
import * as Sql from "../src/Sql.js"
import { backends, postgresUrl, title, unique } from "./support/backends.js"

/** Retries `check` (an effect that fails until its condition holds) for up to `within`. */
const eventually = <A, E, R>(check: Effect.Effect<A, E, R>, within: Duration.DurationInput = "20 seconds") =>
  check.pipe(
    Effect.retry(Schedule.spaced("100 millis")),
    Effect.timeoutFail({ duration: within, onTimeout: () => new Error("condition not reached in time") })
  )

const jobStates = (queue: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ state: string; retryCount: number }>`
      SELECT state, retry_count AS "retryCount" FROM pgboss.job WHERE name = ${queue}`)

const poll = { pollingIntervalSeconds: 0.5 }

// Declared up front: sending inside a transaction on PGlite needs the queue to exist already.
const transactionalQueue = `tx-${unique()}`

for (const backend of backends) {
  describe.skipIf(backend.skip !== undefined)(title(backend), () => {
    const layer = Layer.provideMerge(JobQueue.layer({ queues: [transactionalQueue] }), backend.layer())

    testLayer(layer, { timeout: 120_000, excludeTestServices: true })((it) => {
      it.scoped("processes a sent job once", () =>
        Effect.gen(function*() {
          const jobs = yield* JobQueue.JobQueue
          const queue = `once-${unique()}`
          const seen = yield* Ref.make<ReadonlyArray<unknown>>([])
          yield* jobs.work(queue, (job) => Ref.update(seen, (all) => [...all, job.data]), poll)
          const id = yield* jobs.send(queue, { page: "https://example.com/" })
          expect(Option.isSome(id)).toBe(true)
          yield* eventually(Effect.flatMap(jobStates(queue), (rows) =>
            rows[0]?.state === "completed" ? Effect.void : Effect.fail("pending")))
          yield* Effect.sleep("1200 millis")
          expect(yield* Ref.get(seen)).toEqual([{ page: "https://example.com/" }])
        }))

      it.scoped("retries a failing job until it succeeds", () =>
        Effect.gen(function*() {
          const jobs = yield* JobQueue.JobQueue
          const queue = `retry-${unique()}`
          const attempts = yield* Ref.make(0)
          yield* jobs.work(
            queue,
            () =>
              Effect.flatMap(Ref.updateAndGet(attempts, (n) => n + 1), (n) =>
                n < 3 ? Effect.fail(new Error(`attempt ${n} fails`)) : Effect.void),
            poll
          )
          yield* jobs.send(queue, { n: 1 }, { retryLimit: 3, retryDelay: 0 })
          const [row] = yield* eventually(Effect.flatMap(jobStates(queue), (rows) =>
            rows[0]?.state === "completed" ? Effect.succeed(rows) : Effect.fail("pending")))
          expect(row!.retryCount).toBe(2)
          expect(yield* Ref.get(attempts)).toBe(3)
        }))

      it.scoped("marks a job failed once its retries are spent", () =>
        Effect.gen(function*() {
          const jobs = yield* JobQueue.JobQueue
          const queue = `fail-${unique()}`
          const attempts = yield* Ref.make(0)
          yield* jobs.work(queue, () => Effect.zipRight(Ref.update(attempts, (n) => n + 1), Effect.die("always")), poll)
          yield* jobs.send(queue, {}, { retryLimit: 1, retryDelay: 0 })
          yield* eventually(Effect.flatMap(jobStates(queue), (rows) =>
            rows[0]?.state === "failed" ? Effect.void : Effect.fail("pending")))
          expect(yield* Ref.get(attempts)).toBe(2)
        }))

      it.effect("writes a job sent inside a transaction only if the transaction commits", () =>
        Effect.gen(function*() {
          const jobs = yield* JobQueue.JobQueue
          const sql = yield* SqlClient.SqlClient
          yield* sql.withTransaction(
            Effect.zipRight(jobs.send(transactionalQueue, { keep: false }), Effect.fail("roll back"))
          ).pipe(Effect.ignore)
          expect(yield* jobStates(transactionalQueue)).toHaveLength(0)
          yield* sql.withTransaction(jobs.send(transactionalQueue, { keep: true }))
          expect(yield* jobStates(transactionalQueue)).toHaveLength(1)
        }))
    })
  })
}

const made: Array<string> = []
afterAll(() => made.forEach((dir) => fs.rmSync(dir, { recursive: true, force: true })))

describe("JobQueue on a PGlite data directory", () => {
  it.live("runs a job sent before a restart once the directory is reopened", () =>
    Effect.gen(function*() {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "sift-jobs-"))
      made.push(dir)
      const stack = () => Layer.provideMerge(JobQueue.layer(), Sql.layerPglite({ dir }))
      const queue = "survivor"

      yield* Effect.flatMap(JobQueue.JobQueue, (jobs) => jobs.send(queue, { sentBefore: "restart" })).pipe(
        Effect.provide(stack())
      )

      const seen = yield* Ref.make<ReadonlyArray<unknown>>([])
      yield* Effect.gen(function*() {
        const jobs = yield* JobQueue.JobQueue
        yield* jobs.work(queue, (job) => Ref.update(seen, (all) => [...all, job.data]), poll)
        yield* eventually(Effect.flatMap(Ref.get(seen), (all) => all.length > 0 ? Effect.void : Effect.fail("pending")))
      }).pipe(Effect.scoped, Effect.provide(stack()))
      expect(yield* Ref.get(seen)).toEqual([{ sentBefore: "restart" }])
    }), 120_000)
})

describe("JobQueue stop", () => {
  it.live("lets a running job finish, and records it completed, when its scope closes", () =>
    Effect.gen(function*() {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "sift-jobs-"))
      made.push(dir)
      const queue = "graceful"
      const started = yield* Deferred.make<void>()
      const finished = yield* Ref.make(false)
      yield* Effect.gen(function*() {
        const jobs = yield* JobQueue.JobQueue
        yield* jobs.work(queue, () =>
          Deferred.succeed(started, undefined).pipe(
            Effect.zipRight(Effect.sleep("1500 millis")),
            Effect.zipRight(Ref.set(finished, true))
          ), poll)
        yield* jobs.send(queue, {})
        // Leave the scope while the job is still running.
        yield* Deferred.await(started)
      }).pipe(Effect.scoped, Effect.provide(Layer.provideMerge(JobQueue.layer(), Sql.layerPglite({ dir }))))
      expect(yield* Ref.get(finished)).toBe(true)
      const states = yield* jobStates(queue).pipe(Effect.provide(Sql.layerPglite({ dir })))
      expect(states.map((r) => r.state)).toEqual(["completed"])
    }), 120_000)
})

describe.skipIf(postgresUrl === null)(
  postgresUrl === null ? "JobQueue competition on PostgreSQL (skipped: no PostgreSQL)" : "JobQueue competition on PostgreSQL",
  () => {
    it.live("two competing workers process each of many jobs exactly once", () =>
      Effect.gen(function*() {
        const queue = `compete-${unique()}`
        const table = `processed_${unique()}`
        const total = 60
        const node = () =>
          Layer.provideMerge(JobQueue.layer(), Sql.layerPg({ url: Redacted.make(postgresUrl!) }))
        const record = (worker: string) => (job: JobQueue.Job) =>
          Effect.flatMap(SqlClient.SqlClient, (sql) =>
            Effect.zipRight(
              Effect.sleep("15 millis"),
              sql`INSERT INTO ${sql(table)} (n, worker) VALUES (${(job.data as { n: number }).n}, ${worker})`
            ))

        yield* Effect.gen(function*() {
          const sql = yield* SqlClient.SqlClient
          yield* sql`CREATE TABLE ${sql(table)} (n int NOT NULL, worker text NOT NULL)`
          const jobs = yield* JobQueue.JobQueue
          yield* Effect.forEach(Array.from({ length: total }, (_, n) => n), (n) => jobs.send(queue, { n }), {
            concurrency: 8
          })
        }).pipe(Effect.provide(node()))

        const counts = yield* Effect.gen(function*() {
          const [a, b] = yield* Effect.all([Layer.build(node()), Layer.build(node())])
          yield* Effect.flatMap(JobQueue.JobQueue, (jobs) =>
            jobs.work(queue, record("a"), { ...poll, concurrency: 2 })).pipe(Effect.provide(a))
          yield* Effect.flatMap(JobQueue.JobQueue, (jobs) =>
            jobs.work(queue, record("b"), { ...poll, concurrency: 2 })).pipe(Effect.provide(b))
          const sql = yield* SqlClient.SqlClient.pipe(Effect.provide(a))
          const count = sql<{ rows: number; distinct: number; a: number; b: number }>`
            SELECT count(*)::int AS rows, count(DISTINCT n)::int AS distinct,
              count(*) FILTER (WHERE worker = 'a')::int AS a, count(*) FILTER (WHERE worker = 'b')::int AS b
            FROM ${sql(table)}`
          yield* eventually(Effect.flatMap(count, ([c]) => c!.rows >= total ? Effect.void : Effect.fail("pending")), "60 seconds")
          // Let any duplicate delivery surface before counting.
          yield* Effect.sleep("1500 millis")
          return (yield* count)[0]!
        }).pipe(Effect.scoped)

        expect(counts.rows).toBe(total)
        expect(counts.distinct).toBe(total)
        expect(counts.a).toBeGreaterThan(0)
        expect(counts.b).toBeGreaterThan(0)
      }), 120_000)
  }
)
