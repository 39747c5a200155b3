/**
 * The scheduler of monitors, on durable jobs (pg-boss on the store's database). Every replica ticks: it locks the
 * monitors whose `next_run_at` has come (`FOR UPDATE SKIP LOCKED`, so each due slot is claimed by exactly one replica),
 * queues one run each with its job in the same transaction, and moves `next_run_at` to the monitor's next slot. Slots
 * keep a per-monitor phase inside the interval, so monitors spread evenly over it; monitors found overdue after
 * downtime catch up spread over ten minutes instead of all at once. Each scheduled run is keyed by its slot (unique
 * per monitor), and the slot after a run is at least one interval after it, a catch-up slot included (the monitor
 * then keeps the catch-up time as its phase): no window of one interval holds two scheduled slots of a monitor. The tick also finds stuck runs (running longer
 * than any run can) and records them as failed, so a monitor never silently stops. A pool of workers executes the
 * run jobs; the run row, locked and checked, makes each run happen once even when pg-boss re-delivers a job.
 *
 * @since 0.1.0
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { JobQueue } from "@sift/store/JobQueue"
import { Clock, Context, Effect, Layer, Schedule } from "effect"
import * as Runner from "./internal/monitors/runner.js"
import * as Slots from "./internal/monitors/slots.js"
import type * as Views from "./internal/monitors/views.js"
import { queueSlot, RUN_GIVEN_UP_MS, RUN_QUEUE } from "./Monitors.js"

/** Options of the scheduler. */
export interface Options {
  /** How often each replica looks for due monitors (default 5 s). */
  readonly tickMs?: number | undefined
  /** Runs executed at once by this process (default `SIFT_MONITOR_CONCURRENCY` or 4). */
  readonly concurrency?: number | undefined
  /** A run still running after this long is recorded as failed (default `RUN_GIVEN_UP_MS`, about 67 min: its job's retries are over). */
  readonly stuckAfterMs?: number | undefined
  /** How late a due slot may be before it counts as missed and catches up spread out (default 2 minutes). */
  readonly lateAfterMs?: number | undefined
  /** pg-boss polling (default 1 s). */
  readonly pollingIntervalSeconds?: number | undefined
  /** Due monitors claimed per tick at most (default 500). */
  readonly batch?: number | undefined
}

/** The scheduler's handle: one tick on demand (tests, benches). @category services */
export class MonitorScheduler extends Context.Tag("@sift/monitors/MonitorScheduler")<MonitorScheduler, {
  /** Queues the runs that are due and fails stuck ones; answers how many runs it queued. */
  readonly tick: Effect.Effect<number, unknown>
}>() {}

/** One tick: queue due runs, catch up missed slots, fail stuck runs. */
export const tick = (options: Options = {}) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const now = yield* Clock.currentTimeMillis
    const at = new Date(now)
    const lateAfter = options.lateAfterMs ?? 120_000
    const queued = yield* sql.withTransaction(Effect.gen(function*() {
      const due = yield* sql<Views.MonitorRow>`
        SELECT * FROM monitors WHERE status IN ('active', 'failed') AND next_run_at <= ${at}
        ORDER BY next_run_at LIMIT ${options.batch ?? 500} FOR UPDATE SKIP LOCKED`
      let count = 0
      for (const monitor of due) {
        const interval = Number(monitor.interval_ms)
        const dueAt = new Date(monitor.next_run_at as Date | string).getTime()
        if (now - dueAt > lateAfter) {
          // Missed while no replica ran: catch up at this monitor's phase within the catch-up window.
          yield* sql`UPDATE monitors SET next_run_at = ${new Date(Slots.catchUpAt(monitor.id, interval, now))} WHERE id = ${monitor.id}`
          continue
        }
        // The slot claimed is the due time itself; a slot already queued (by a tick that did not move next_run_at) is not queued again.
        const queued = yield* queueSlot(monitor, new Date(dueAt), at)
        yield* sql`UPDATE monitors SET next_run_at = ${new Date(Slots.slotAfter(monitor.id, interval, dueAt, now))} WHERE id = ${monitor.id}`
        if (queued !== undefined) count++
      }
      return count
    }))
    // Stuck runs: the worker died or hung and every retry of the job (each runs it again once its lease lapsed) is
    // over. Recorded as failed, so the status machine sees them.
    const stuck = yield* sql<{ id: string; monitor_id: string }>`
      SELECT id, monitor_id FROM monitor_runs WHERE status = 'running' AND started_at < ${new Date(now - (options.stuckAfterMs ?? RUN_GIVEN_UP_MS))}`
    for (const run of stuck) {
      yield* Runner.recordFailure(run.id, run.monitor_id, {
        code: "INTERNAL_ERROR",
        message: "the run did not finish in time (its worker stopped or hung); the next run is on schedule"
      }, at)
    }
    return queued
  })

/**
 * The scheduler and the run workers for the layer's lifetime.
 *
 * @category layers
 */
export const layer = (options: Options = {}) =>
  Layer.scoped(MonitorScheduler, Effect.gen(function*() {
    const jobs = yield* JobQueue
    const context = yield* Effect.context<Effect.Effect.Context<ReturnType<typeof Runner.execute>> | SqlClient.SqlClient | JobQueue>()
    const concurrency = options.concurrency ?? (Number(process.env.SIFT_MONITOR_CONCURRENCY ?? "") || 4)
    yield* jobs.work(RUN_QUEUE, (job) => {
      const { runId } = job.data as { runId?: unknown }
      return typeof runId === "string"
        ? Runner.execute(runId).pipe(
          Effect.provide(context),
          Effect.catchAllCause((cause) => Effect.logWarning(`monitor run ${runId} could not be executed`, cause))
        )
        : Effect.void
    }, { concurrency, pollingIntervalSeconds: options.pollingIntervalSeconds ?? 1 })
    const once = tick(options).pipe(Effect.provide(context))
    yield* once.pipe(
      Effect.catchAllCause((cause) => Effect.logWarning("monitor scheduler tick failed", cause)),
      Effect.repeat(Schedule.spaced(options.tickMs ?? 5_000)),
      Effect.forkScoped
    )
    return MonitorScheduler.of({ tick: once })
  }))
