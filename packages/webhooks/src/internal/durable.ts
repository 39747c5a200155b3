/**
 * Durable webhook deliveries: each delivery is a row (its event body fixed at creation, so every attempt sends the same
 * `evt_` id) and each attempt is one pg-boss job. A job re-reads the row: a delivery already finished is never sent
 * again, and a job interrupted by a restart is picked up by the next process. The next attempt is a new job with
 * `startAfter` the retry wait, written in the same transaction as the attempt record.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import * as Ids from "@sift/store/Ids"
import { JobQueue, type JobQueueError } from "@sift/store/JobQueue"
import { Context, Effect, Option, Redacted, Schema, type Scope } from "effect"
import * as Attempt from "./attempt.js"
import type { Envelope } from "./envelope.js"
import { nextDelay, type RetrySetting } from "./retryPolicy.js"
import * as Signature from "./signature.js"

/** The pg-boss queue of delivery attempts. */
export const QUEUE = "webhook-delivery"

/**
 * Job options of an attempt. An attempt is one POST (the receiver has 10 s between bytes), so its job expires after
 * 60 s instead of pg-boss's 15 min: an attempt whose worker died (kill -9, a lost machine) is sent again within about
 * a minute and a half (expiry, then pg-boss's maintenance, every 30 s), with the same `X-Service-Id`.
 */
export const JOB_OPTIONS = { retryLimit: 5, retryDelay: 1, expireInSeconds: 60 } as const

/**
 * The tables. They were created by the monitors package's "0002_webhooks" migration before this package existed, so
 * every statement is `IF NOT EXISTS`: on a database made then, this migration finds them and changes nothing.
 * The `monitor_id` columns hold the id of what a webhook belongs to (its owner: a monitor today).
 */
export const migration = Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql`CREATE TABLE IF NOT EXISTS webhook_secrets (
      monitor_id text PRIMARY KEY,
      url text NOT NULL,
      secret text NOT NULL,
      updated_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE TABLE IF NOT EXISTS webhook_deliveries (
      id text PRIMARY KEY,
      monitor_id text NOT NULL,
      run_id text,
      event_id text NOT NULL,
      event_type text NOT NULL,
      url text NOT NULL,
      body text NOT NULL,
      retry jsonb,
      status text NOT NULL,
      attempts integer NOT NULL DEFAULT 0,
      last_status text,
      last_message text,
      created_at timestamptz NOT NULL DEFAULT date_trunc('milliseconds', now()),
      updated_at timestamptz NOT NULL DEFAULT now()
    );
    -- created_at is kept to the millisecond so list cursors (which carry milliseconds) page exactly.
    CREATE INDEX IF NOT EXISTS webhook_deliveries_monitor ON webhook_deliveries (monitor_id, created_at);
    CREATE TABLE IF NOT EXISTS webhook_attempts (
      delivery_id text NOT NULL REFERENCES webhook_deliveries (id) ON DELETE CASCADE,
      attempt integer NOT NULL,
      started_at timestamptz NOT NULL,
      completed_at timestamptz NOT NULL,
      http_status integer,
      error text,
      trigger text NOT NULL,
      url text NOT NULL,
      PRIMARY KEY (delivery_id, attempt)
    );
    CREATE TABLE IF NOT EXISTS webhook_failures (
      monitor_id text PRIMARY KEY,
      url text NOT NULL,
      consecutive_failures integer NOT NULL,
      last_status text NOT NULL,
      last_message text,
      last_failed_at timestamptz NOT NULL,
      streak_emailed boolean NOT NULL DEFAULT false
    );
    CREATE TABLE IF NOT EXISTS webhook_failure_emails (
      url text PRIMARY KEY,
      last_sent_at timestamptz NOT NULL
    );
    CREATE TABLE IF NOT EXISTS webhook_retry_keys (
      delivery_id text NOT NULL,
      idempotency_key text NOT NULL,
      attempt integer NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (delivery_id, idempotency_key)
    );`.unprepared)

/** When a delivery last succeeded and when its next attempt is due, as the SDK's delivery object shows them. */
export const deliveryTimes = Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql`ALTER TABLE webhook_deliveries ADD COLUMN IF NOT EXISTS delivered_at timestamptz;
    ALTER TABLE webhook_deliveries ADD COLUMN IF NOT EXISTS next_attempt_at timestamptz;
    UPDATE webhook_deliveries SET next_attempt_at = created_at WHERE status = 'pending' AND next_attempt_at IS NULL;`.unprepared)

/** Failures in a row after which the organization is emailed (interface.md limits). */
export const FAILURES_BEFORE_EMAIL = 3

/** An owner's `webhook_failure`, or undefined (null in the API) when its last delivery succeeded. */
export interface WebhookFailure {
  readonly consecutive_failures: number
  readonly last_status: "rejected" | "failed" | "skipped_unsafe_url"
  readonly last_message: string
  readonly last_failed_at: string
}

type FailureRow = {
  monitor_id: string
  consecutive_failures: number
  last_status: WebhookFailure["last_status"]
  last_message: string | null
  last_failed_at: Date
}

const failureFromRow = (row: FailureRow): WebhookFailure => ({
  consecutive_failures: row.consecutive_failures,
  last_status: row.last_status,
  last_message: row.last_message ?? "",
  last_failed_at: new Date(row.last_failed_at).toISOString()
})

/** Reads an owner's `webhook_failure`. */
export const failureOf = (ownerId: string): Effect.Effect<WebhookFailure | undefined, SqlError, SqlClient.SqlClient> =>
  Effect.map(failuresOf([ownerId]), (failures) => failures.get(ownerId))

/** Reads the `webhook_failure` of several owners in one statement (a list page). */
export const failuresOf = (ownerIds: ReadonlyArray<string>): Effect.Effect<ReadonlyMap<string, WebhookFailure>, SqlError, SqlClient.SqlClient> =>
  ownerIds.length === 0 ? Effect.succeed(new Map()) : Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.map(sql<FailureRow>`
      SELECT monitor_id, consecutive_failures, last_status, last_message, last_failed_at FROM webhook_failures
      WHERE ${sql.in("monitor_id", ownerIds)}`,
      (rows) => new Map(rows.map((row) => [row.monitor_id, failureFromRow(row)]))))

/** Clears an owner's `webhook_failure` (after a success, or when its webhook URL changes). */
export const clearFailure = (ownerId: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => sql`DELETE FROM webhook_failures WHERE monitor_id = ${ownerId}`)

/**
 * Counts a failed delivery. Answers true when the failure email is due: the streak just reached the threshold, was not
 * emailed yet, and no other monitor sharing the receiver URL had an email sent for it in the last day.
 */
const countFailure = (sql: SqlClient.SqlClient, delivery: DeliveryRow, status: string, message: string | null) =>
  Effect.gen(function*() {
    const [row] = yield* sql<{ consecutive_failures: number; streak_emailed: boolean }>`
      INSERT INTO webhook_failures (monitor_id, url, consecutive_failures, last_status, last_message, last_failed_at)
      VALUES (${delivery.monitor_id}, ${delivery.url}, 1, ${status}, ${message}, now())
      ON CONFLICT (monitor_id) DO UPDATE SET consecutive_failures = webhook_failures.consecutive_failures + 1,
        url = EXCLUDED.url, last_status = EXCLUDED.last_status, last_message = EXCLUDED.last_message, last_failed_at = now()
      RETURNING consecutive_failures, streak_emailed`
    if (row === undefined || row.consecutive_failures < FAILURES_BEFORE_EMAIL || row.streak_emailed) return false
    yield* sql`UPDATE webhook_failures SET streak_emailed = true WHERE monitor_id = ${delivery.monitor_id}`
    // One email a day per receiver, whichever owner's streak reaches it first.
    const claimed = yield* sql`
      INSERT INTO webhook_failure_emails (url, last_sent_at) VALUES (${delivery.url}, now())
      ON CONFLICT (url) DO UPDATE SET last_sent_at = now()
      WHERE webhook_failure_emails.last_sent_at < now() - interval '1 day'
      RETURNING url`
    return claimed.length > 0
  })

/**
 * The secret of an owner's webhook URL, created when missing: kept for the same URL, new for a new URL. A write: call
 * it where the webhook is set (and before a delivery), never on a read.
 */
export const secretFor = (ownerId: string, url: string): Effect.Effect<Redacted.Redacted<string>, SqlError, SqlClient.SqlClient> =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const fresh = Redacted.value(Signature.generateSecret())
    const rows = yield* sql<{ secret: string }>`
      INSERT INTO webhook_secrets (monitor_id, url, secret) VALUES (${ownerId}, ${url}, ${fresh})
      ON CONFLICT (monitor_id) DO UPDATE SET
        secret = CASE WHEN webhook_secrets.url = EXCLUDED.url THEN webhook_secrets.secret ELSE EXCLUDED.secret END,
        url = EXCLUDED.url,
        updated_at = CASE WHEN webhook_secrets.url = EXCLUDED.url THEN webhook_secrets.updated_at ELSE now() END
      RETURNING secret`
    return Redacted.make(rows[0]!.secret)
  })

/** The current secrets of several owners (each with the URL it belongs to), read in one statement; writes nothing. */
export const secretsOf = (
  ownerIds: ReadonlyArray<string>
): Effect.Effect<ReadonlyMap<string, { readonly url: string; readonly secret: Redacted.Redacted<string> }>, SqlError, SqlClient.SqlClient> =>
  ownerIds.length === 0 ? Effect.succeed(new Map()) : Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.map(sql<{ monitor_id: string; url: string; secret: string }>`
      SELECT monitor_id, url, secret FROM webhook_secrets WHERE ${sql.in("monitor_id", ownerIds)}`,
      (rows) => new Map(rows.map((row) => [row.monitor_id, { url: row.url, secret: Redacted.make(row.secret) }]))))

/** Replaces an owner's secret at once (later attempts, retries and replays included, use the new one). */
export const rotateSecret = (ownerId: string): Effect.Effect<Redacted.Redacted<string> | undefined, SqlError, SqlClient.SqlClient> =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql<{ secret: string }>`
      UPDATE webhook_secrets SET secret = ${Redacted.value(Signature.generateSecret())}, updated_at = now()
      WHERE monitor_id = ${ownerId} RETURNING secret`
    return rows[0] === undefined ? undefined : Redacted.make(rows[0].secret)
  })

/** A delivery as stored. */
export interface DeliveryRow {
  readonly id: string
  readonly monitor_id: string
  readonly run_id: string | null
  readonly event_id: string
  readonly event_type: string
  readonly url: string
  readonly body: string
  readonly retry: RetrySetting
  readonly status: "pending" | "delivering" | "retrying" | "delivered" | "failed" | "cancelled"
  readonly attempts: number
  readonly last_status: string | null
  readonly last_message: string | null
}

/** Records a delivery of `event` and queues its first attempt, in one transaction (the caller's, when it has one). */
export const enqueue = (input: {
  /** What the webhook belongs to (a monitor id); its secret signs every attempt. */
  readonly ownerId: string
  /** The owner's run that produced the event, when there is one. */
  readonly runId: string | null
  readonly url: string
  readonly retry: RetrySetting
  readonly event: Envelope
}): Effect.Effect<string, SqlError | JobQueueError, SqlClient.SqlClient | JobQueue> =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const jobs = yield* JobQueue
    const id = Ids.id("whd_")
    yield* sql.withTransaction(Effect.gen(function*() {
      yield* sql`INSERT INTO webhook_deliveries ${sql.insert({
        id,
        monitor_id: input.ownerId,
        run_id: input.runId,
        event_id: input.event.id,
        event_type: input.event.type,
        url: input.url,
        body: JSON.stringify(input.event),
        retry: input.retry === undefined ? null : JSON.stringify(input.retry),
        status: "pending",
        next_attempt_at: new Date()
      })}`
      yield* jobs.send(QUEUE, { deliveryId: id, attempt: 1 }, JOB_OPTIONS)
    }))
    return id
  })

/** Reads one delivery. */
export const get = (id: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.map(sql<DeliveryRow>`SELECT * FROM webhook_deliveries WHERE id = ${id}`, (rows) => rows[0]))

/** The attempts of one delivery, in order. */
export const attempts = (id: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ attempt: number; started_at: Date; completed_at: Date; http_status: number | null; error: string | null; trigger: string; url: string }>`
      SELECT attempt, started_at, completed_at, http_status, error, trigger, url FROM webhook_attempts
      WHERE delivery_id = ${id} ORDER BY attempt`)

/** How an attempt ended: delivered, failed and scheduled again (`retrying`), or failed for good (`failed`). */
export type AttemptOutcome = "delivered" | "retrying" | "failed"

/**
 * Told the outcome of each attempt once its record is committed (the server's metrics count them); optional, provided
 * around the job handler.
 */
export class AttemptOutcomes extends Context.Tag("@sift/webhooks/AttemptOutcomes")<AttemptOutcomes, (outcome: AttemptOutcome) => void>() {}

/**
 * Runs one attempt of a delivery (the job handler). A job for an attempt already made, or for a finished delivery, does
 * nothing: pg-boss may hand a job out again after a crash.
 */
export const runAttempt = (
  job: { readonly deliveryId: string; readonly attempt: number; readonly trigger?: "manual" | undefined },
  options: WorkerOptions
): Effect.Effect<void, SqlError | JobQueueError, SqlClient.SqlClient | JobQueue> =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const jobs = yield* JobQueue
    const delivery = yield* get(job.deliveryId)
    if (delivery === undefined || delivery.attempts >= job.attempt) return
    if (delivery.status === "delivered" || delivery.status === "failed" || delivery.status === "cancelled") {
      if (job.trigger !== "manual") return
    }
    yield* sql`UPDATE webhook_deliveries SET status = 'delivering', updated_at = now() WHERE id = ${delivery.id}`
    const secrets = yield* sql<{ secret: string }>`SELECT secret FROM webhook_secrets WHERE monitor_id = ${delivery.monitor_id}`
    const result = yield* Attempt.send({
      url: delivery.url,
      eventId: delivery.event_id,
      eventType: delivery.event_type,
      body: delivery.body,
      secret: Redacted.make(secrets[0]?.secret ?? ""),
      allowPrivateTargets: options.allowPrivateTargets,
      timeoutMs: options.timeoutMs
    })
    const wait = result.kind === "delivered" ? undefined : nextDelay(delivery.retry ?? undefined, job.attempt, result)
    const status = result.kind === "delivered" ? "delivered" : wait === undefined ? "failed" : "retrying"
    const emailDue = yield* sql.withTransaction(Effect.gen(function*() {
      yield* sql`INSERT INTO webhook_attempts ${sql.insert({
        delivery_id: delivery.id,
        attempt: job.attempt,
        started_at: result.startedAt,
        completed_at: result.completedAt,
        http_status: result.httpStatus,
        error: result.error,
        trigger: job.trigger ?? (job.attempt === 1 ? "initial" : "automatic"),
        url: delivery.url
      })} ON CONFLICT DO NOTHING`
      yield* sql`UPDATE webhook_deliveries SET status = ${status}, attempts = ${job.attempt},
        last_status = ${result.kind === "delivered" ? null : result.kind}, last_message = ${result.error}, updated_at = now(),
        delivered_at = ${result.kind === "delivered" ? result.completedAt : sql`delivered_at`},
        next_attempt_at = ${wait === undefined ? null : new Date(Date.now() + wait)}
        WHERE id = ${delivery.id}`
      if (wait !== undefined) {
        yield* jobs.send(QUEUE, { deliveryId: delivery.id, attempt: job.attempt + 1 }, {
          ...JOB_OPTIONS,
          startAfter: new Date(Date.now() + wait)
        })
      }
      if (status === "delivered") yield* clearFailure(delivery.monitor_id)
      return status === "failed" ? yield* countFailure(sql, delivery, result.kind, result.error) : false
    }))
    const outcomes = yield* Effect.serviceOption(AttemptOutcomes)
    if (Option.isSome(outcomes)) outcomes.value(status)
    if (emailDue && options.onFailureStreak !== undefined) {
      const failure = yield* failureOf(delivery.monitor_id)
      if (failure !== undefined) {
        yield* options.onFailureStreak({ ownerId: delivery.monitor_id, url: delivery.url, failure })
      }
    }
  })

/** What the worker needs. */
export interface WorkerOptions {
  readonly allowPrivateTargets: boolean
  readonly timeoutMs?: number | undefined
  readonly pollingIntervalSeconds?: number | undefined
  /** Tells the owner of a failure streak (called once per streak, at most once a day per receiver URL). */
  readonly onFailureStreak?: ((streak: { ownerId: string; url: string; failure: WebhookFailure }) => Effect.Effect<void>) | undefined
}

/** Works the delivery queue for the scope's lifetime. */
export const worker = (options: WorkerOptions): Effect.Effect<void, JobQueueError, SqlClient.SqlClient | JobQueue | Scope.Scope> =>
  Effect.flatMap(JobQueue, (jobs) =>
    jobs.work(
      QUEUE,
      (job) => runAttempt(job.data as { deliveryId: string; attempt: number }, options),
      { pollingIntervalSeconds: options.pollingIntervalSeconds ?? 1, concurrency: 4 }
    ))

/** How long a delivery can be retried by hand, and an Idempotency-Key is remembered: 7 days. */
export const MANUAL_RETRY_WINDOW_MS = 7 * 24 * 3600 * 1000

/** The `error_code`s a manual retry is refused with (decisions §1 gives the statuses). */
export const ErrorCode = Schema.Literal("NOT_FOUND", "DELIVERY_IN_PROGRESS", "DELIVERY_ALREADY_DELIVERED", "DELIVERY_EXPIRED", "DELIVERY_CANCELLED")
/** @category models */
export type ErrorCode = typeof ErrorCode.Type

/**
 * A manual retry the delivery's state does not allow; `error_code` is the contract's, the message says what to do.
 *
 * @category errors
 */
export class DeliveryRetryRefused extends Schema.TaggedError<DeliveryRetryRefused>()("DeliveryRetryRefused", {
  error_code: ErrorCode,
  delivery_id: Schema.String
}) {
  get errorCode(): ErrorCode {
    return this.error_code
  }
  override get message(): string {
    const id = this.delivery_id
    switch (this.error_code) {
      case "DELIVERY_IN_PROGRESS":
        return `Delivery ${id} is still being attempted; retry it once it has finished`
      case "DELIVERY_ALREADY_DELIVERED":
        return `Delivery ${id} was delivered; send {"force": true} to deliver it again`
      case "DELIVERY_EXPIRED":
        return `Delivery ${id} is older than 7 days and can no longer be retried`
      case "DELIVERY_CANCELLED":
        return `Delivery ${id} was cancelled`
      case "NOT_FOUND":
        return `No webhook delivery ${id}`
    }
  }
}

/**
 * Queues a manual attempt of a finished delivery. The same Idempotency-Key within 7 days answers the attempt it queued
 * the first time instead of queueing another; `force` re-sends a delivered one.
 */
export const retryByHand = (
  id: string,
  options: { readonly force?: boolean | undefined; readonly idempotencyKey?: string | undefined }
): Effect.Effect<{ readonly attempt: number; readonly replayed: boolean }, DeliveryRetryRefused | SqlError | JobQueueError, SqlClient.SqlClient | JobQueue> =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const jobs = yield* JobQueue
    return yield* sql.withTransaction(Effect.gen(function*() {
      const [delivery] = yield* sql<DeliveryRow & { created_at: Date }>`
        SELECT * FROM webhook_deliveries WHERE id = ${id} FOR UPDATE`
      const refuse = (error_code: DeliveryRetryRefused["error_code"]) => new DeliveryRetryRefused({ error_code, delivery_id: id })
      if (delivery === undefined) return yield* refuse("NOT_FOUND")
      if (options.idempotencyKey !== undefined) {
        const [seen] = yield* sql<{ attempt: number }>`
          SELECT attempt FROM webhook_retry_keys WHERE delivery_id = ${id} AND idempotency_key = ${options.idempotencyKey}
          AND created_at > now() - interval '7 days'`
        if (seen !== undefined) return { attempt: seen.attempt, replayed: true }
      }
      if (Date.now() - new Date(delivery.created_at).getTime() > MANUAL_RETRY_WINDOW_MS) return yield* refuse("DELIVERY_EXPIRED")
      if (delivery.status === "cancelled") return yield* refuse("DELIVERY_CANCELLED")
      if (delivery.status === "pending" || delivery.status === "delivering" || delivery.status === "retrying") {
        return yield* refuse("DELIVERY_IN_PROGRESS")
      }
      if (delivery.status === "delivered" && options.force !== true) return yield* refuse("DELIVERY_ALREADY_DELIVERED")
      const attempt = delivery.attempts + 1
      yield* sql`UPDATE webhook_deliveries SET status = 'pending', next_attempt_at = now(), updated_at = now() WHERE id = ${id}`
      if (options.idempotencyKey !== undefined) {
        yield* sql`INSERT INTO webhook_retry_keys (delivery_id, idempotency_key, attempt)
          VALUES (${id}, ${options.idempotencyKey}, ${attempt})
          ON CONFLICT (delivery_id, idempotency_key) DO UPDATE SET attempt = EXCLUDED.attempt, created_at = now()`
      }
      yield* jobs.send(QUEUE, { deliveryId: id, attempt, trigger: "manual" }, JOB_OPTIONS)
      return { attempt, replayed: false }
    }))
  })

/** A delivery as the API shows it. */
export interface DeliveryView {
  readonly id: string
  readonly type: "monitor"
  readonly monitor_id: string
  readonly run_id: string | null
  readonly event_id: string
  readonly event_type: string
  readonly url: string
  readonly status: DeliveryRow["status"]
  readonly attempts: number
  readonly last_status: string | null
  readonly last_message: string | null
  readonly created_at: string
  readonly updated_at: string
  /** The SDK's members (`context.dev` `DeliverySummary`): the event name, times, the last error, the retry setting. */
  readonly event: string
  readonly delivered_at: string | null
  readonly next_attempt_at: string | null
  readonly retry_expires_at: string
  readonly last_error: { readonly code: string; readonly message: string } | null
  readonly retry: { readonly delays_seconds?: ReadonlyArray<number> }
  readonly source: { readonly type: "monitor"; readonly monitor_id: string; readonly run_id: string | null }
}

/** A delivery with its latest attempt (`GET /webhooks/deliveries/{id}`). */
export interface DeliveryDetail extends DeliveryView {
  readonly last_attempt: AttemptView | null
}

/** One attempt as the API shows it (decisions §8). */
export interface AttemptView {
  readonly attempt: number
  readonly started_at: string
  readonly completed_at: string
  readonly http_status: number | null
  readonly error: string | null
  readonly trigger: string
  readonly url: string
}

type ViewRow = DeliveryRow & {
  created_at: Date | string
  updated_at: Date | string
  delivered_at: Date | string | null
  next_attempt_at: Date | string | null
}

const isoOrNull = (date: Date | string | null | undefined): string | null => date === null || date === undefined ? null : new Date(date).toISOString()

/** The stored setting as the SDK's `RetryConfig`: explicit waits in seconds, `{}` for the default schedule (and legacy). */
const retryConfig = (setting: RetrySetting): { readonly delays_seconds?: ReadonlyArray<number> } =>
  Array.isArray(setting) ? { delays_seconds: setting.map((ms) => ms / 1000) } : {}

const toView = (row: ViewRow): DeliveryView => ({
  id: row.id,
  type: "monitor",
  monitor_id: row.monitor_id,
  run_id: row.run_id,
  event_id: row.event_id,
  event_type: row.event_type,
  url: row.url,
  status: row.status,
  attempts: row.attempts,
  last_status: row.last_status,
  last_message: row.last_message,
  created_at: new Date(row.created_at).toISOString(),
  updated_at: new Date(row.updated_at).toISOString(),
  event: row.event_type,
  delivered_at: isoOrNull(row.delivered_at),
  next_attempt_at: row.status === "pending" || row.status === "retrying" ? isoOrNull(row.next_attempt_at) : null,
  retry_expires_at: new Date(new Date(row.created_at).getTime() + MANUAL_RETRY_WINDOW_MS).toISOString(),
  last_error: row.last_status === null ? null : { code: row.last_status, message: row.last_message ?? "" },
  retry: retryConfig(row.retry),
  source: { type: "monitor", monitor_id: row.monitor_id, run_id: row.run_id }
})

/** Reads one delivery as the API shows it, with its latest attempt. */
export const view = (id: string): Effect.Effect<DeliveryDetail | undefined, SqlError, SqlClient.SqlClient> =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.flatMap(sql<ViewRow>`SELECT * FROM webhook_deliveries WHERE id = ${id}`, (rows) => {
      const row = rows[0]
      if (row === undefined) return Effect.succeed(undefined)
      return Effect.map(sql<{ attempt: number; started_at: Date; completed_at: Date; http_status: number | null; error: string | null; trigger: string; url: string }>`
        SELECT attempt, started_at, completed_at, http_status, error, trigger, url FROM webhook_attempts
        WHERE delivery_id = ${id} ORDER BY attempt DESC LIMIT 1`, (last) => ({
        ...toView(row),
        last_attempt: last[0] === undefined ? null : {
          ...last[0],
          started_at: new Date(last[0].started_at).toISOString(),
          completed_at: new Date(last[0].completed_at).toISOString()
        }
      }))
    }))

/**
 * Lists deliveries newest first, filtered, a page at a time; `next_cursor` (opaque) continues after the last one shown.
 * Scoping to the caller's organization is the caller's filter on `ownerIds`.
 */
export const list = (filter: {
  readonly ownerIds?: ReadonlyArray<string> | undefined
  readonly runId?: string | undefined
  readonly status?: DeliveryRow["status"] | undefined
  readonly createdAfter?: Date | undefined
  readonly cursor?: string | undefined
  readonly limit?: number | undefined
}): Effect.Effect<{ readonly deliveries: ReadonlyArray<DeliveryView>; readonly next_cursor: string | null }, SqlError, SqlClient.SqlClient> =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const limit = Math.min(Math.max(filter.limit ?? 20, 1), 100)
    const after = filter.cursor === undefined ? undefined : (() => {
      const [at, id] = Buffer.from(filter.cursor, "base64url").toString("utf8").split("|")
      return at !== undefined && id !== undefined ? { at: new Date(Number(at)), id } : undefined
    })()
    const conditions = [
      filter.ownerIds === undefined ? undefined : filter.ownerIds.length === 0 ? sql`false` : sql.in("monitor_id", filter.ownerIds),
      filter.runId === undefined ? undefined : sql`run_id = ${filter.runId}`,
      filter.status === undefined ? undefined : sql`status = ${filter.status}`,
      filter.createdAfter === undefined ? undefined : sql`created_at > ${filter.createdAfter}`,
      after === undefined ? undefined : sql`(created_at, id) < (${after.at}, ${after.id})`
    ].filter((c) => c !== undefined)
    const rows = yield* sql<ViewRow>`
      SELECT * FROM webhook_deliveries WHERE ${sql.and(conditions)} ORDER BY created_at DESC, id DESC LIMIT ${limit + 1}`
    const page = rows.slice(0, limit)
    const last = page[page.length - 1]
    return {
      deliveries: page.map(toView),
      next_cursor: rows.length > limit && last !== undefined
        ? Buffer.from(`${new Date(last.created_at).getTime()}|${last.id}`).toString("base64url")
        : null
    }
  })
