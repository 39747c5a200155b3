/**
 * The scheduler's claims on real databases: a due slot is queued exactly once however many replicas tick at once (two
 * connections on PostgreSQL, as two server processes would), slots spread monitors over their interval, monitors
 * overdue after downtime catch up spread out instead of at once (and never run twice in one interval: a catch-up slot
 * followed by a grid slot seconds later did), a slot is queued once however often it is claimed, and a stuck run is
 * recorded as failed once its job can no longer be retried.
 */
import { describe, expect, it } from "@effect/vitest"
import * as SqlClient from "@effect/sql/SqlClient"
import * as Migrations from "@sift/store/Migrations"
import * as JobQueue from "@sift/store/JobQueue"
import * as Sql from "@sift/store/Sql"
import { Clock, Effect, Layer, Redacted } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, inject } from "vitest"
import { jobsSchema } from "../../store/test/support/backends.js"
import * as Slots from "../src/internal/monitors/slots.js"
import { migrations } from "../src/Migrations.js"
import * as MonitorScheduler from "../src/MonitorScheduler.js"
import * as Monitors from "../src/Monitors.js"
import type * as MonitorSpec from "../src/MonitorSpec.js"

const made: Array<string> = []
afterAll(() => made.forEach((dir) => fs.rmSync(dir, { recursive: true, force: true })))

const migrated = <E>(storage: Layer.Layer<SqlClient.SqlClient | Sql.Database, E>) =>
  Layer.provideMerge(
    JobQueue.layer({ queues: [Monitors.RUN_QUEUE], supervise: false, schema: jobsSchema() }),
    Layer.tap(storage, (ctx) => Effect.provide(Migrations.run({ monitors: migrations }), ctx))
  )

const pglite = () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "sift-scheduler-"))
  made.push(dir)
  return migrated(Sql.layerPglite({ dir }))
}

const databaseUrl = inject("databaseUrl")
const owner = (orgId: string): Monitors.Owner => ({ orgId, plan: "scale", monitorsLimit: 10_000, canWrite: true })
const spec = (n: number, schedule: MonitorSpec.Schedule = { type: "interval", frequency: 10, unit: "minutes" }): MonitorSpec.NewMonitor => ({
  name: `m${n}`,
  target: { type: "page", url: `https://example.com/${n}` },
  changeDetection: { type: "exact" },
  schedule,
  webhook: null,
  tags: []
})

describe("slots", () => {
  it("the next slot is after the given time, within one interval, at the monitor's fixed phase", () => {
    const interval = 600_000
    for (const id of ["mon_a", "mon_b", "mon_c"]) {
      const after = 1_700_000_000_123
      const slot = Slots.nextSlot(id, interval, after)
      expect(slot).toBeGreaterThan(after)
      expect(slot - after).toBeLessThanOrEqual(interval)
      expect(Slots.nextSlot(id, interval, slot)).toBe(slot + interval)
    }
  })

  it("1,000 monitors created together spread over their 10-minute interval (no minute above 1.5× the mean)", () => {
    const interval = 600_000
    const now = 1_700_000_000_000
    const perMinute = new Array(10).fill(0)
    for (let i = 0; i < 1000; i++) perMinute[Math.floor((Slots.nextSlot(`mon_${i}x`, interval, now) - now - 1) / 60_000)]++
    expect(Math.max(...perMinute)).toBeLessThanOrEqual(150)
    expect(Math.min(...perMinute)).toBeGreaterThanOrEqual(50)
  })

  it("catch-up after downtime stays within ten minutes (or the interval when shorter)", () => {
    expect(Slots.catchUpAt("mon_x", 3_600_000, 0)).toBeLessThan(Slots.CATCH_UP_WINDOW_MS)
    expect(Slots.catchUpAt("mon_x", 86_400_000, 5)).toBeGreaterThanOrEqual(5)
  })
})

/** A clock standing at `now`. */
const fixedClock = (now: number): Clock.Clock => ({
  [Clock.ClockTypeId]: Clock.ClockTypeId,
  unsafeCurrentTimeMillis: () => now,
  currentTimeMillis: Effect.succeed(now),
  unsafeCurrentTimeNanos: () => BigInt(now) * 1_000_000n,
  currentTimeNanos: Effect.succeed(BigInt(now) * 1_000_000n),
  sleep: (duration) => Effect.sleep(duration).pipe(Effect.withClock(Clock.make()))
})

const makeDue = (ids: ReadonlyArray<string>, at: Date) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => sql`UPDATE monitors SET next_run_at = ${at} WHERE ${sql.in("id", ids)}`)

const scheduledRuns = (ids: ReadonlyArray<string>) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ monitor_id: string; n: string | number }>`
      SELECT monitor_id, count(*) AS n FROM monitor_runs WHERE trigger = 'schedule' AND ${sql.in("monitor_id", ids)} GROUP BY monitor_id`)

describe("ticks on PGlite", () => {
  it.scopedLive("queues each due monitor once, leaves the rest, and catches up overdue ones spread out", () =>
    Effect.gen(function*() {
      const created = yield* Effect.forEach(Array.from({ length: 30 }, (_, i) => i), (i) => Monitors.create(owner("org_p"), spec(i)))
      const ids = created.map((m) => m.id as string)
      const now = Date.now()
      yield* makeDue(ids.slice(0, 20), new Date(now - 1_000))
      // Overdue by an hour: the process was down.
      yield* makeDue(ids.slice(20), new Date(now - 3_600_000))
      const queued = yield* MonitorScheduler.tick()
      expect(queued).toBe(20)
      const counts = yield* scheduledRuns(ids)
      expect(counts.map((c) => c.monitor_id).sort()).toEqual(ids.slice(0, 20).sort())
      expect(counts.every((c) => Number(c.n) === 1)).toBe(true)
      const sql = yield* SqlClient.SqlClient
      const moved = yield* sql<{ id: string; next_run_at: Date }>`SELECT id, next_run_at FROM monitors WHERE ${sql.in("id", ids)}`
      for (const row of moved) {
        const next = new Date(row.next_run_at).getTime()
        expect(next).toBeGreaterThan(now - 2_000)
        expect(next).toBeLessThanOrEqual(now + (ids.indexOf(row.id) < 20 ? 600_000 : Slots.CATCH_UP_WINDOW_MS) + 2_000)
      }
      // A second tick queues only catch-up monitors whose (phase-spread) time has already come; never a second run of
      // a monitor queued by the first tick.
      const before = yield* sql<{ id: string }>`SELECT id FROM monitors WHERE ${sql.in("id", ids)} AND next_run_at <= ${new Date()}`
      const again = yield* MonitorScheduler.tick()
      expect(before.every((m) => ids.indexOf(m.id) >= 20)).toBe(true)
      expect(again).toBeLessThanOrEqual(before.length + 1)
      const recount = yield* scheduledRuns(ids.slice(0, 20))
      expect(recount.every((c) => Number(c.n) === 1)).toBe(true)
    }).pipe(Effect.provide(pglite())), { timeout: 60_000 })

  it.scopedLive("after a catch-up, no 10-minute window holds two scheduled runs of a monitor (the grid slot right after was run too)", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const interval = 600_000
      // Phases spread the catch-ups over the window: several monitors, so some land just before a grid slot of theirs.
      const created = yield* Effect.forEach(Array.from({ length: 8 }, (_, i) => i), (i) => Monitors.create(owner("org_c"), spec(i)))
      const ids = created.map((m) => m.id as string)
      const start = Date.now()
      yield* makeDue(ids, new Date(start - 3_600_000))
      // Ticks every 5 s of a clock of our own over 40 minutes (the process was down for an hour before).
      for (let now = start; now <= start + 40 * 60_000; now += 5_000) {
        yield* MonitorScheduler.tick().pipe(Effect.withClock(fixedClock(now)))
      }
      const runs = yield* sql<{ monitor_id: string; queued_at: Date }>`
        SELECT monitor_id, queued_at FROM monitor_runs WHERE trigger = 'schedule' AND ${sql.in("monitor_id", ids)} ORDER BY queued_at`
      const closest = ids.map((id) => {
        const times = runs.filter((r) => r.monitor_id === id).map((r) => new Date(r.queued_at).getTime())
        expect(times.length).toBeGreaterThanOrEqual(3)
        return Math.min(...times.slice(1).map((t, i) => t - times[i]!))
      })
      // Ticks are 5 s apart: a slot is run within 5 s of its time, so runs one interval apart may be 5 s closer.
      expect(Math.min(...closest)).toBeGreaterThanOrEqual(interval - 5_000)
    }).pipe(Effect.provide(pglite())), { timeout: 60_000 })

  it.scopedLive("a slot claimed twice (a claim whose move of next_run_at was lost) is queued once", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const created = yield* Monitors.create(owner("org_d"), spec(1))
      const due = new Date(Date.now() - 1_000)
      yield* makeDue([created.id as string], due)
      expect(yield* MonitorScheduler.tick()).toBe(1)
      yield* makeDue([created.id as string], due)
      expect(yield* MonitorScheduler.tick()).toBe(0)
      const counts = yield* scheduledRuns([created.id as string])
      expect(counts.map((c) => Number(c.n))).toEqual([1])
      const [monitor] = yield* sql<{ next_run_at: Date }>`SELECT next_run_at FROM monitors WHERE id = ${created.id as string}`
      expect(new Date(monitor!.next_run_at).getTime()).toBeGreaterThan(Date.now())
    }).pipe(Effect.provide(pglite())), { timeout: 60_000 })

  it.scopedLive("a run stuck in running is recorded as failed once its job's retries are over, and the monitor shows it", () =>
    Effect.gen(function*() {
      const created = yield* Monitors.create(owner("org_s"), spec(1))
      const sql = yield* SqlClient.SqlClient
      // Past its lease but within its job's retries (each runs it again): not given up yet.
      yield* sql`UPDATE monitor_runs SET status = 'running', started_at = ${new Date(Date.now() - 20 * 60_000)} WHERE id = ${created.initial_run_id}`
      yield* MonitorScheduler.tick()
      const [waiting] = yield* sql<{ status: string }>`SELECT status FROM monitor_runs WHERE id = ${created.initial_run_id}`
      expect(waiting!.status).toBe("running")
      expect(Monitors.RUN_GIVEN_UP_MS).toBe(4 * (15 * 60_000 + 30_000) + 5 * 60_000)
      yield* sql`UPDATE monitor_runs SET started_at = ${new Date(Date.now() - Monitors.RUN_GIVEN_UP_MS - 1_000)} WHERE id = ${created.initial_run_id}`
      yield* MonitorScheduler.tick()
      const [run] = yield* sql<{ status: string; error: unknown }>`SELECT status, error FROM monitor_runs WHERE id = ${created.initial_run_id}`
      expect(run!.status).toBe("failed")
      expect(JSON.stringify(run!.error)).toContain("did not finish")
      const [monitor] = yield* sql<{ status: string; consecutive_failures: number }>`SELECT status, consecutive_failures FROM monitors WHERE id = ${created.id}`
      expect(monitor).toMatchObject({ status: "failed", consecutive_failures: 1 })
    }).pipe(Effect.provide(pglite())), { timeout: 60_000 })
})

describe.skipIf(databaseUrl === undefined)("ticks on PostgreSQL from two replicas at once", () => {
  it.scopedLive("200 due monitors, two replicas ticking concurrently, 20 rounds: every slot queued exactly once", () =>
    Effect.gen(function*() {
      const url = Redacted.make(databaseUrl!)
      const replicaA = yield* Layer.build(migrated(Sql.layerPg({ url })))
      const replicaB = yield* Layer.build(migrated(Sql.layerPg({ url })))
      const org = `org_${Math.random().toString(36).slice(2, 10)}`
      // A yearly interval: no monitor's own next slot can fall inside the test by chance.
      const created = yield* Effect.forEach(Array.from({ length: 200 }, (_, i) => i), (i) =>
        Monitors.create(owner(org), spec(i, { type: "interval", frequency: 365, unit: "days" }))).pipe(Effect.provide(replicaA))
      const ids = created.map((m) => m.id as string)
      yield* makeDue(ids, new Date(Date.now() - 500)).pipe(Effect.provide(replicaA))
      // Other suites' servers may tick on this database too: what counts is one run per monitor, whoever queued it.
      for (let round = 0; round < 20; round++) {
        yield* Effect.all([
          MonitorScheduler.tick({ batch: 37 }).pipe(Effect.provide(replicaA)),
          MonitorScheduler.tick({ batch: 37 }).pipe(Effect.provide(replicaB))
        ], { concurrency: 2 })
      }
      // A server of another suite ticking on this database may hold some of these rows in its own (committing) claim.
      let counts = yield* scheduledRuns(ids).pipe(Effect.provide(replicaB))
      for (let i = 0; i < 100 && counts.length < 200; i++) {
        yield* Effect.sleep("200 millis")
        counts = yield* scheduledRuns(ids).pipe(Effect.provide(replicaB))
      }
      // The database is shared with other suites' servers: these monitors of no real organization go again.
      yield* Effect.flatMap(SqlClient.SqlClient, (sql) =>
        Effect.all([
          sql`DELETE FROM ${sql(jobsSchema())}.job WHERE name = ${Monitors.RUN_QUEUE} AND data->>'runId' IN (SELECT id FROM monitor_runs WHERE org_id = ${org})`,
          sql`DELETE FROM monitor_runs WHERE org_id = ${org}`,
          sql`DELETE FROM monitors WHERE org_id = ${org}`
        ], { discard: true })).pipe(Effect.provide(replicaA))
      expect(counts).toHaveLength(200)
      expect(counts.filter((c) => Number(c.n) !== 1)).toEqual([])
    }), { timeout: 120_000 })
})
