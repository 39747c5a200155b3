/**
 * Rows as the API shows them (decisions §7): the monitor object, runs and changes, and the opaque list cursor.
 */
import type { Failures } from "@sift/webhooks"
import { Redacted } from "effect"

const iso = (value: unknown): string | null =>
  value === null || value === undefined ? null : (value instanceof Date ? value : new Date(String(value))).toISOString()

const json = <A>(value: unknown): A => (typeof value === "string" ? JSON.parse(value) : value) as A

/** A monitor row (columns of `monitors`). */
export type MonitorRow = Record<string, unknown> & { readonly id: string; readonly org_id: string }

/** The stored webhook: what the caller set (events and retry as given). */
export interface StoredWebhook {
  readonly url: string
  readonly events?: ReadonlyArray<"change.detected" | "run.completed"> | undefined
  readonly retry?: { readonly delays_seconds?: ReadonlyArray<number> | undefined } | undefined
}

/** The stored webhook of a row, or null. */
export const webhookOf = (row: MonitorRow): StoredWebhook | null => json<StoredWebhook | null>(row.webhook) ?? null

/** The retry setting the delivery worker reads: omitted, `{}` (default schedule) or explicit waits in ms. */
export const retrySettingOf = (webhook: StoredWebhook): undefined | Record<string, never> | ReadonlyArray<number> =>
  webhook.retry === undefined
    ? undefined
    : webhook.retry.delays_seconds === undefined
    ? {}
    : webhook.retry.delays_seconds.map((s) => s * 1000)

/** The monitor object. `secret` only for callers allowed to write monitors; `baseline` only on GET by id. */
export const monitorView = (
  row: MonitorRow,
  extra: {
    readonly secret?: Redacted.Redacted<string> | undefined
    readonly failure?: Failures.WebhookFailure | undefined
    readonly withBaseline?: boolean | undefined
  } = {}
): Record<string, unknown> => {
  const webhook = webhookOf(row)
  return {
    id: row.id,
    mode: "web",
    name: row.name,
    target: json(row.target),
    change_detection: json(row.change_detection),
    schedule: json(row.schedule),
    status: row.status,
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
    webhook: webhook === null ? null : {
      url: webhook.url,
      events: webhook.events ?? ["change.detected"],
      ...(webhook.retry === undefined ? {} : { retry: webhook.retry }),
      // The one place a secret is unwrapped for the API: callers allowed to write monitors.
      ...(extra.secret === undefined ? {} : { secret: Redacted.value(extra.secret) })
    },
    last_run_at: iso(row.last_run_at),
    last_change_at: iso(row.last_change_at),
    next_run_at: row.status === "paused" ? null : iso(row.next_run_at),
    last_error: json(row.last_error) ?? null,
    webhook_failure: webhook === null ? null : extra.failure === undefined ? null : {
      consecutive_failures: extra.failure.consecutive_failures,
      last_status: extra.failure.last_status,
      last_message: extra.failure.last_message,
      last_failed_at: extra.failure.last_failed_at
    },
    tags: row.tags ?? [],
    ...(extra.withBaseline === true ? { baseline: json(row.baseline) ?? null } : {})
  }
}

/** A run record. */
export const runView = (row: Record<string, unknown>): Record<string, unknown> => ({
  id: row.id,
  monitor_id: row.monitor_id,
  run_type: row.run_type,
  ...(row.trigger === "manual" ? { trigger: "manual" } : {}),
  status: row.status,
  target_type: row.target_type,
  change_detection_type: row.change_detection_type,
  baseline_created: row.baseline_created,
  change_detected: row.change_detected,
  credits_charged: Number(row.credits_charged),
  change_id: row.change_id ?? null,
  queued_at: iso(row.queued_at),
  started_at: iso(row.started_at),
  completed_at: iso(row.completed_at),
  error: json(row.error) ?? null,
  skip_reason: row.skip_reason ?? null,
  webhook_delivery_ids: row.webhook_delivery_ids ?? []
})

/** A change record in full (GET by id, webhook payloads). */
export const changeView = (row: Record<string, unknown>): Record<string, unknown> => json(row.record)

// The members a change list shows: the summary, without diffs and URL lists.
const LIST_MEMBERS = [
  "id", "monitor_id", "run_id", "mode", "target_type", "change_detection_type", "detected_at", "title", "summary", "url", "tags",
  "added_url_count", "removed_url_count", "confidence", "importance", "matched_url_count"
]

/** A change as lists show it. */
export const changeSummary = (row: Record<string, unknown>): Record<string, unknown> => {
  const record = changeView(row)
  return Object.fromEntries(LIST_MEMBERS.filter((k) => record[k] !== undefined).map((k) => [k, record[k]]))
}

/** The cursor after a row of a list ordered by (time DESC, id DESC): opaque to callers. */
export const cursorAfter = (time: unknown, id: string): string =>
  Buffer.from(JSON.stringify([iso(time), id])).toString("base64url")

/** Reads a cursor; undefined when it is not one of ours. */
export const readCursor = (cursor: string): { readonly time: Date; readonly id: string } | undefined => {
  try {
    const [time, id] = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")) as [unknown, unknown]
    if (typeof time !== "string" || typeof id !== "string") return undefined
    const date = new Date(time)
    return Number.isNaN(date.getTime()) ? undefined : { time: date, id }
  } catch {
    return undefined
  }
}
