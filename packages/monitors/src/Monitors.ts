/**
 * Monitors of an organization (decisions §7): create, list, read, update, delete, run now, limits, credit usage, runs
 * and changes, secret rotation. Every operation is scoped to the caller's organization: another organization's ids are
 * `NOT_FOUND`. Runs are rows queued with a durable job (`MonitorScheduler.QUEUE`) in the same transaction, so a queued
 * run is never lost; the scheduler and its worker execute them.
 *
 * @since 0.1.0
 */
import * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import { Errors } from "@sift/core"
import * as Ids from "@sift/store/Ids"
import { JobQueue, type JobQueueError } from "@sift/store/JobQueue"
import { Failures, Secrets } from "@sift/webhooks"
import { Clock, Effect, type Redacted } from "effect"
import * as Slots from "./internal/monitors/slots.js"
import * as Views from "./internal/monitors/views.js"
import { MonitorRefused } from "./MonitorErrors.js"
import * as MonitorSpec from "./MonitorSpec.js"

/** The pg-boss queue of monitor runs. */
export const RUN_QUEUE = "monitor-run"

/** Job options of a run: pg-boss retries a job whose worker died; the run row decides whether anything is left to do. */
export const RUN_JOB_OPTIONS = { retryLimit: 3, retryDelay: 30, expireInSeconds: 15 * 60 } as const

/**
 * A run's lease: a run still `running` this long after it started had its worker die (a run's own deadlines are far
 * shorter), and its job, expired by then, is retried by pg-boss: the retry runs it again, and the monitor's next run
 * does not wait for it.
 */
export const RUN_LEASE_MS = RUN_JOB_OPTIONS.expireInSeconds * 1000

/**
 * When a run left `running` is given up and recorded as failed: once every retry of its job could have come and gone
 * (each after its lease and the retry delay), plus five minutes for pg-boss's expiry sweep.
 */
export const RUN_GIVEN_UP_MS = (RUN_JOB_OPTIONS.retryLimit + 1) * (RUN_LEASE_MS + RUN_JOB_OPTIONS.retryDelay * 1000) + 5 * 60_000

/** The caller, as monitor operations need it. */
export interface Owner {
  readonly orgId: string
  readonly plan: string
  readonly monitorsLimit: number
  /** Whether the caller may see webhook secrets (`monitors:write` or full access). */
  readonly canWrite: boolean
}

/** List page: `{ data, has_more, next_cursor }`. */
export interface Page {
  readonly data: ReadonlyArray<Record<string, unknown>>
  readonly has_more: boolean
  readonly next_cursor: string | null
}

/** Filters of `GET /monitors`. */
export interface MonitorFilters {
  readonly q?: string | undefined
  readonly searchBy?: ReadonlyArray<"name" | "url" | "instructions" | "tags"> | undefined
  readonly searchType?: "exact" | "prefix" | undefined
  readonly status?: string | undefined
  readonly targetType?: string | undefined
  readonly changeDetectionType?: string | undefined
  readonly tag?: string | undefined
  readonly tags?: ReadonlyArray<string> | undefined
  readonly cursor?: string | undefined
  readonly limit: number
}

/** Filters of the run lists. */
export interface RunFilters {
  readonly monitorId?: string | undefined
  readonly status?: string | undefined
  readonly cursor?: string | undefined
  readonly limit: number
}

/** Filters of the change lists. */
export interface ChangeFilters {
  readonly monitorId?: string | undefined
  readonly since?: Date | undefined
  readonly until?: Date | undefined
  readonly tag?: string | undefined
  readonly targetType?: string | undefined
  readonly changeDetectionType?: string | undefined
  readonly cursor?: string | undefined
  readonly limit: number
}

type Failure = SqlError | JobQueueError | MonitorRefused | Errors.InvalidRequest

const notFound = (what: string, id: string) => new MonitorRefused({ reason: "NotFound", detail: `No ${what} ${id}` })
const invalidCursor = Effect.fail(new Errors.InvalidRequest({ reason: "Invalid", field: "cursor", detail: "is not a cursor this API returned" }))

const nowDate = Effect.map(Clock.currentTimeMillis, (ms) => new Date(ms))

/** The cursor of a request, or a validation failure when it is not one of ours. */
const cursorOf = (cursor: string | undefined) => {
  if (cursor === undefined) return Effect.succeed(undefined)
  const after = Views.readCursor(cursor)
  return after === undefined ? invalidCursor : Effect.succeed(after)
}

/** A list page from `limit + 1` rows ordered by (`time` DESC, id DESC). */
const pageOf = <Row extends { readonly id: string }>(
  rows: ReadonlyArray<Row>,
  limit: number,
  timeOf: (row: Row) => unknown,
  view: (row: Row) => Record<string, unknown>
): Page => {
  const shown = rows.slice(0, limit)
  const last = shown[shown.length - 1]
  const more = rows.length > limit
  return { data: shown.map(view), has_more: more, next_cursor: more && last !== undefined ? Views.cursorAfter(timeOf(last), last.id) : null }
}

/** Reads a monitor row of the organization, locked for update when `lock`. */
const row = (orgId: string, id: string, lock = false) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.flatMap(
      lock
        ? sql<Views.MonitorRow>`SELECT * FROM monitors WHERE id = ${id} AND org_id = ${orgId} FOR UPDATE`
        : sql<Views.MonitorRow>`SELECT * FROM monitors WHERE id = ${id} AND org_id = ${orgId}`,
      (rows) => rows[0] === undefined ? Effect.fail(notFound("monitor", id)) : Effect.succeed(rows[0])
    ))

/** Queues a run of a monitor and its job, inside the caller's transaction. */
export const queueRun = (monitor: Views.MonitorRow, trigger: "create" | "manual", at: Date) =>
  Effect.map(insertRun(monitor, trigger, at, null), (id) => id!)

/**
 * Queues the scheduled run of one slot of a monitor, inside the caller's transaction; a slot already queued queues
 * nothing and answers undefined (`monitor_runs` keys scheduled runs by monitor and slot).
 */
export const queueSlot = (monitor: Views.MonitorRow, slot: Date, at: Date) => insertRun(monitor, "schedule", at, slot)

const insertRun = (monitor: Views.MonitorRow, trigger: "create" | "schedule" | "manual", at: Date, slot: Date | null) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const jobs = yield* JobQueue
    const id = Ids.id("run_")
    const target = monitor.target as { type: string } | string
    const detection = monitor.change_detection as { type: string } | string
    const inserted = yield* sql`INSERT INTO monitor_runs ${sql.insert({
      id,
      monitor_id: monitor.id,
      org_id: monitor.org_id,
      run_type: monitor.baseline === null || monitor.baseline === undefined || trigger === "create" ? "baseline" : "scheduled",
      trigger,
      status: "queued",
      target_type: (typeof target === "string" ? JSON.parse(target) : target).type,
      change_detection_type: (typeof detection === "string" ? JSON.parse(detection) : detection).type,
      queued_at: at,
      slot_at: slot
    })} ON CONFLICT (monitor_id, slot_at) WHERE slot_at IS NOT NULL DO NOTHING RETURNING id`
    if (inserted.length === 0) return undefined
    yield* jobs.send(RUN_QUEUE, { runId: id }, RUN_JOB_OPTIONS)
    return id
  })

/**
 * The monitor objects of rows, with their webhook failures and (for writers) secrets, each read in one statement for
 * the whole page (none without webhooks). Reads never write: secrets are made where webhooks are set.
 */
const presentAll = (owner: Owner, monitors: ReadonlyArray<Views.MonitorRow>, withBaseline = false) =>
  Effect.gen(function*() {
    const hooked = monitors.filter((monitor) => Views.webhookOf(monitor) !== null).map((monitor) => monitor.id)
    const failures = yield* Failures.failuresOf(hooked)
    const secrets: ReadonlyMap<string, { readonly url: string; readonly secret: Redacted.Redacted<string> }> = owner.canWrite
      ? yield* Secrets.secretsOf(hooked)
      : new Map()
    return monitors.map((monitor) => {
      const webhook = Views.webhookOf(monitor)
      const stored = secrets.get(monitor.id)
      // A secret signs for the URL it was made for; the write paths keep the two together.
      const secret = webhook !== null && stored !== undefined && stored.url === webhook.url ? stored.secret : undefined
      return Views.monitorView(monitor, { secret, failure: failures.get(monitor.id), withBaseline })
    })
  })

/** The monitor object of a row, with its webhook failure and (for writers) secret. */
const present = (owner: Owner, monitor: Views.MonitorRow, withBaseline = false) =>
  Effect.map(presentAll(owner, [monitor], withBaseline), (views) => views[0]!)

/** Creates a monitor and queues its baseline run. */
export const create = (owner: Owner, spec: MonitorSpec.NewMonitor) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const now = yield* nowDate
    return yield* sql.withTransaction(Effect.gen(function*() {
      // Creations of one organization take turns, so the count and the limit agree across replicas.
      yield* sql`SELECT pg_advisory_xact_lock(hashtext(${`monitors:${owner.orgId}`}))`
      const counted = yield* sql<{ count: string | number }>`SELECT count(*) AS count FROM monitors WHERE org_id = ${owner.orgId}`
      const count = Number(counted[0]?.count ?? 0)
      if (count >= owner.monitorsLimit) {
        return yield* new MonitorRefused({
          reason: "LimitExceeded",
          detail: `The ${owner.plan} plan allows ${owner.monitorsLimit} monitors and ${count} exist; delete one or change plans`
        })
      }
      const id = Ids.id("mon_")
      const interval = MonitorSpec.intervalMs(spec.schedule)
      const values = {
        id,
        org_id: owner.orgId,
        name: spec.name,
        target: JSON.stringify(spec.target),
        change_detection: JSON.stringify(spec.changeDetection),
        schedule: JSON.stringify(spec.schedule),
        interval_ms: interval,
        status: "active",
        webhook: spec.webhook === null ? null : JSON.stringify(spec.webhook),
        tags: spec.tags as Array<string>,
        created_at: now,
        updated_at: now,
        next_run_at: new Date(Slots.nextSlot(id, interval, now.getTime()))
      }
      const [inserted] = yield* sql<Views.MonitorRow>`INSERT INTO monitors ${sql.insert(values)} RETURNING *`
      if (spec.webhook !== null) yield* Secrets.secretFor(id, spec.webhook.url)
      const initialRunId = yield* queueRun(inserted!, "create", now)
      const view: Record<string, unknown> & { readonly initial_run_id: string } = { ...(yield* present(owner, inserted!)), initial_run_id: initialRunId }
      return view
    }))
  })

const searchCondition = (sql: SqlClient.SqlClient, filters: MonitorFilters) => {
  if (filters.q === undefined) return undefined
  const by = filters.searchBy ?? ["name", "url"]
  const exact = filters.searchType === "exact"
  const needle = filters.q.toLowerCase()
  const pattern = `${needle.replace(/[\\%_]/g, (c) => `\\${c}`)}%`
  const text = (column: ReturnType<typeof sql.literal>) => exact ? sql`lower(${column}) = ${needle}` : sql`lower(${column}) LIKE ${pattern}`
  const parts = by.map((field) => {
    switch (field) {
      case "name":
        return text(sql.literal("name"))
      case "url":
        return text(sql.literal("(target->>'url')"))
      case "instructions":
        return text(sql.literal("COALESCE(target->>'instructions', '')"))
      case "tags":
        return exact
          ? sql`EXISTS (SELECT 1 FROM unnest(tags) t WHERE lower(t) = ${needle})`
          : sql`EXISTS (SELECT 1 FROM unnest(tags) t WHERE lower(t) LIKE ${pattern})`
    }
  })
  return sql.or(parts)
}

/** Lists monitors, newest first. */
export const list = (owner: Owner, filters: MonitorFilters) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const after = yield* cursorOf(filters.cursor)
    const tags = [...(filters.tags ?? []), ...(filters.tag === undefined ? [] : [filters.tag])]
    const conditions = [
      sql`org_id = ${owner.orgId}`,
      filters.status === undefined ? undefined : sql`status = ${filters.status}`,
      filters.targetType === undefined ? undefined : sql`target->>'type' = ${filters.targetType}`,
      filters.changeDetectionType === undefined ? undefined : sql`change_detection->>'type' = ${filters.changeDetectionType}`,
      tags.length === 0 ? undefined : sql.or(tags.map((tag) => sql`${tag} = ANY(tags)`)),
      searchCondition(sql, filters),
      after === undefined ? undefined : sql`(created_at, id) < (${after.time}, ${after.id})`
    ].filter((c) => c !== undefined)
    const rows = yield* sql<Views.MonitorRow>`
      SELECT * FROM monitors WHERE ${sql.and(conditions)} ORDER BY created_at DESC, id DESC LIMIT ${filters.limit + 1}`
    const page = pageOf(rows, filters.limit, (r) => r.created_at, (r) => r)
    const data = yield* presentAll(owner, page.data as ReadonlyArray<Views.MonitorRow>)
    return { ...page, data } satisfies Page
  })

/** Reads a monitor with its baseline. */
export const get = (owner: Owner, id: string) =>
  Effect.flatMap(row(owner.orgId, id), (monitor) => present(owner, monitor, true))

/** Applies an update (decisions §7; interface.md PATCH). */
export const update = (owner: Owner, id: string, body: unknown) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const now = yield* nowDate
    return yield* sql.withTransaction(Effect.gen(function*() {
      const current = yield* row(owner.orgId, id, true)
      const json = <A>(value: unknown) => (typeof value === "string" ? JSON.parse(value) : value) as A
      const change = yield* MonitorSpec.decodeUpdate(body, {
        target: json<MonitorSpec.Target>(current.target),
        changeDetection: json<MonitorSpec.ChangeDetection>(current.change_detection)
      })
      const set: Record<string, unknown> = { updated_at: now }
      if (change.name !== undefined) set.name = change.name
      if (change.tags !== undefined) set.tags = change.tags
      const resetsBaseline = (change.target !== undefined && JSON.stringify(change.target) !== JSON.stringify(json(current.target))) ||
        (change.changeDetection !== undefined && JSON.stringify(change.changeDetection) !== JSON.stringify(json(current.change_detection)))
      if (change.target !== undefined) set.target = JSON.stringify(change.target)
      if (change.changeDetection !== undefined) set.change_detection = JSON.stringify(change.changeDetection)
      if (resetsBaseline) {
        set.baseline = null
        set.baseline_version = Number(current.baseline_version) + 1
      }
      let interval = Number(current.interval_ms)
      if (change.schedule !== undefined) {
        interval = MonitorSpec.intervalMs(change.schedule)
        set.schedule = JSON.stringify(change.schedule)
        set.interval_ms = interval
        set.next_run_at = new Date(Slots.nextSlot(id, interval, now.getTime()))
      }
      if (change.webhook !== undefined) {
        const before = Views.webhookOf(current)
        if (change.webhook === null) {
          set.webhook = null
          yield* Failures.clearFailure(id)
        } else {
          // Omitted events or retry keep the current ones (interface.md PATCH).
          const merged: Views.StoredWebhook = {
            url: change.webhook.url,
            ...(change.webhook.events !== undefined ? { events: change.webhook.events } : before?.events !== undefined ? { events: before.events } : {}),
            ...(change.webhook.retry !== undefined ? { retry: change.webhook.retry } : before?.retry !== undefined ? { retry: before.retry } : {})
          }
          set.webhook = JSON.stringify(merged)
          if (before?.url !== merged.url) yield* Failures.clearFailure(id)
          yield* Secrets.secretFor(id, merged.url)
        }
      }
      if (change.status === "paused") {
        set.status = "paused"
      } else if (change.status === "active" && current.status === "paused") {
        set.status = "active"
        set.consecutive_failures = 0
        set.consecutive_credit_skips = 0
        set.next_run_at = new Date(Slots.nextSlot(id, interval, now.getTime()))
      }
      const [updated] = yield* sql<Views.MonitorRow>`UPDATE monitors SET ${sql.update(set)} WHERE id = ${id} RETURNING *`
      return yield* present(owner, updated!)
    }))
  })

/** Deletes a monitor, its changes and its queued runs (finished runs stay for credit usage). */
export const remove = (owner: Owner, id: string) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    return yield* sql.withTransaction(Effect.gen(function*() {
      yield* row(owner.orgId, id, true)
      yield* sql`DELETE FROM monitor_changes WHERE monitor_id = ${id}`
      yield* sql`DELETE FROM monitor_runs WHERE monitor_id = ${id} AND status = 'queued'`
      yield* sql`DELETE FROM monitors WHERE id = ${id}`
      return { id, deleted: true }
    }))
  })

/** Queues a run now; a run already waiting is answered instead of queueing a second (`queued: false`). */
export const runNow = (owner: Owner, id: string) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const now = yield* nowDate
    return yield* sql.withTransaction(Effect.gen(function*() {
      const monitor = yield* row(owner.orgId, id, true)
      if (monitor.status === "paused") {
        return yield* new MonitorRefused({ reason: "Paused", detail: `Monitor ${id} is paused; resume it with PATCH {"status":"active"} first` })
      }
      const [waiting] = yield* sql<{ id: string }>`
        SELECT id FROM monitor_runs WHERE monitor_id = ${id} AND status = 'queued' ORDER BY queued_at LIMIT 1`
      if (waiting !== undefined) return { monitor_id: id, queued: false, run_id: waiting.id }
      const runId = yield* queueRun(monitor, "manual", now)
      return { monitor_id: id, queued: true, run_id: runId }
    }))
  })

/** `GET /monitors/limits`. */
export const limits = (owner: Owner) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.map(sql<{ count: string | number }>`SELECT count(*) AS count FROM monitors WHERE org_id = ${owner.orgId}`, (rows) => ({
      monitors_used: Number(rows[0]?.count ?? 0),
      monitors_limit: owner.monitorsLimit,
      plan: owner.plan
    })))

/** `GET /monitors/credit-usage`: credits of billed runs per monitor in [since, until). */
export const creditUsage = (owner: Owner, window: { readonly since: Date; readonly until: Date }) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql<{ monitor_id: string; name: string | null; credits: string | number; runs: string | number }>`
      SELECT r.monitor_id, m.name, SUM(r.credits_charged) AS credits, count(*) AS runs
      FROM monitor_runs r LEFT JOIN monitors m ON m.id = r.monitor_id
      WHERE r.org_id = ${owner.orgId} AND r.credits_charged > 0
        AND r.completed_at >= ${window.since} AND r.completed_at < ${window.until}
      GROUP BY r.monitor_id, m.name ORDER BY SUM(r.credits_charged) DESC, r.monitor_id`
    const data = rows.map((r) => ({ monitor_id: r.monitor_id, name: r.name ?? r.monitor_id, credits: Number(r.credits), runs: Number(r.runs) }))
    return {
      data,
      total_credits: data.reduce((sum, r) => sum + r.credits, 0),
      since: window.since.toISOString(),
      until: window.until.toISOString()
    }
  })

/** Runs of a monitor (or of the organization), newest first. */
export const runs = (owner: Owner, filters: RunFilters) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    if (filters.monitorId !== undefined) yield* row(owner.orgId, filters.monitorId)
    const after = yield* cursorOf(filters.cursor)
    const conditions = [
      sql`r.org_id = ${owner.orgId}`,
      filters.monitorId === undefined ? sql`EXISTS (SELECT 1 FROM monitors m WHERE m.id = r.monitor_id)` : sql`r.monitor_id = ${filters.monitorId}`,
      filters.status === undefined ? undefined : sql`r.status = ${filters.status}`,
      after === undefined ? undefined : sql`(r.queued_at, r.id) < (${after.time}, ${after.id})`
    ].filter((c) => c !== undefined)
    const rows = yield* sql<Record<string, unknown> & { id: string; queued_at: Date }>`
      SELECT r.* FROM monitor_runs r WHERE ${sql.and(conditions)} ORDER BY r.queued_at DESC, r.id DESC LIMIT ${filters.limit + 1}`
    return pageOf(rows, filters.limit, (r) => r.queued_at, Views.runView)
  })

/** One run of a monitor. */
export const run = (owner: Owner, monitorId: string, runId: string) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    yield* row(owner.orgId, monitorId)
    const rows = yield* sql<Record<string, unknown>>`
      SELECT * FROM monitor_runs WHERE id = ${runId} AND monitor_id = ${monitorId} AND org_id = ${owner.orgId}`
    if (rows[0] === undefined) return yield* notFound("run", runId)
    return Views.runView(rows[0])
  })

/** Changes of a monitor (or of the organization), newest first. */
export const changes = (owner: Owner, filters: ChangeFilters) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    if (filters.monitorId !== undefined) yield* row(owner.orgId, filters.monitorId)
    const after = yield* cursorOf(filters.cursor)
    const conditions = [
      sql`org_id = ${owner.orgId}`,
      filters.monitorId === undefined ? undefined : sql`monitor_id = ${filters.monitorId}`,
      filters.since === undefined ? undefined : sql`detected_at >= ${filters.since}`,
      filters.until === undefined ? undefined : sql`detected_at < ${filters.until}`,
      filters.tag === undefined ? undefined : sql`${filters.tag} = ANY(tags)`,
      filters.targetType === undefined ? undefined : sql`target_type = ${filters.targetType}`,
      filters.changeDetectionType === undefined ? undefined : sql`change_detection_type = ${filters.changeDetectionType}`,
      after === undefined ? undefined : sql`(detected_at, id) < (${after.time}, ${after.id})`
    ].filter((c) => c !== undefined)
    const rows = yield* sql<Record<string, unknown> & { id: string; detected_at: Date }>`
      SELECT * FROM monitor_changes WHERE ${sql.and(conditions)} ORDER BY detected_at DESC, id DESC LIMIT ${filters.limit + 1}`
    return pageOf(rows, filters.limit, (r) => r.detected_at, Views.changeSummary)
  })

/** One change in full. */
export const change = (owner: Owner, changeId: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.flatMap(
      sql<Record<string, unknown>>`SELECT * FROM monitor_changes WHERE id = ${changeId} AND org_id = ${owner.orgId}`,
      (rows) => rows[0] === undefined ? Effect.fail(notFound("change", changeId)) : Effect.succeed(Views.changeView(rows[0]))
    ))

/** Rotates the webhook secret; the monitor comes back with the new one. */
export const rotateSecret = (owner: Owner, id: string) =>
  Effect.gen(function*() {
    const monitor = yield* row(owner.orgId, id)
    const webhook = Views.webhookOf(monitor)
    if (webhook === null) {
      return yield* new MonitorRefused({ reason: "NoWebhook", detail: `Monitor ${id} has no webhook; set one with PATCH first` })
    }
    // A webhook without a secret row (none should remain after monitors/0003) gets one here: rotation is a write.
    const secret = (yield* Secrets.rotateSecret(id)) ?? (yield* Secrets.secretFor(id, webhook.url))
    const failure = yield* Failures.failureOf(id)
    return Views.monitorView(monitor, { secret, failure })
  })

/** The ids of an organization's monitors (to scope delivery lists), or whether one belongs to it. */
export const monitorIdsOf = (orgId: string, only?: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.map(
      only === undefined
        ? sql<{ id: string }>`SELECT id FROM monitors WHERE org_id = ${orgId}`
        : sql<{ id: string }>`SELECT id FROM monitors WHERE org_id = ${orgId} AND id = ${only}`,
      (rows) => rows.map((r) => r.id)
    ))

/** Every failure a monitor operation can end with. */
export type MonitorFailure = Failure
