/**
 * The monitors package's tables, registered under the `monitors` key of the store's migrations: monitors, their runs
 * and changes (0001). The webhook tables were "0002_webhooks" here; they now belong to `@sift/webhooks` (its own
 * `webhooks` key, a no-op on databases that already have them), and a database that recorded monitors/0002 keeps that
 * record harmlessly. 0003 gives a secret to every webhook that has none, so reads never need to make one. 0004 keys
 * each scheduled run by its slot (`slot_at`, unique per monitor), so no slot is ever queued twice.
 *
 * @since 0.1.0
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { Secrets } from "@sift/webhooks"
import { Effect } from "effect"

/** The monitors package's migrations. */
export const migrations = {
  // A monitor's settings are JSON as the caller gave them (validated); the scheduler reads next_run_at and status.
  // Runs outlive a deleted monitor (no foreign key): credit usage reports them by monitor id.
  "0001_monitors": Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql`CREATE TABLE monitors (
      id text PRIMARY KEY,
      org_id text NOT NULL,
      name text NOT NULL,
      target jsonb NOT NULL,
      change_detection jsonb NOT NULL,
      schedule jsonb NOT NULL,
      interval_ms bigint NOT NULL,
      status text NOT NULL,
      webhook jsonb,
      tags text[] NOT NULL DEFAULT '{}',
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL,
      last_run_at timestamptz,
      last_change_at timestamptz,
      next_run_at timestamptz,
      last_error jsonb,
      consecutive_failures integer NOT NULL DEFAULT 0,
      consecutive_credit_skips integer NOT NULL DEFAULT 0,
      baseline jsonb,
      baseline_version integer NOT NULL DEFAULT 0
    );
    CREATE INDEX monitors_org ON monitors (org_id, created_at DESC, id DESC);
    CREATE INDEX monitors_due ON monitors (next_run_at) WHERE status IN ('active', 'failed');
    CREATE TABLE monitor_runs (
      id text PRIMARY KEY,
      monitor_id text NOT NULL,
      org_id text NOT NULL,
      run_type text NOT NULL,
      trigger text NOT NULL,
      status text NOT NULL,
      target_type text NOT NULL,
      change_detection_type text NOT NULL,
      baseline_created boolean NOT NULL DEFAULT false,
      change_detected boolean NOT NULL DEFAULT false,
      credits_charged integer NOT NULL DEFAULT 0,
      change_id text,
      queued_at timestamptz NOT NULL,
      started_at timestamptz,
      completed_at timestamptz,
      error jsonb,
      skip_reason text,
      webhook_delivery_ids text[] NOT NULL DEFAULT '{}',
      baseline_version integer NOT NULL DEFAULT 0
    );
    CREATE INDEX monitor_runs_monitor ON monitor_runs (monitor_id, queued_at DESC, id DESC);
    CREATE INDEX monitor_runs_org ON monitor_runs (org_id, queued_at DESC, id DESC);
    CREATE INDEX monitor_runs_open ON monitor_runs (status, started_at) WHERE status IN ('queued', 'running');
    CREATE TABLE monitor_changes (
      id text PRIMARY KEY,
      monitor_id text NOT NULL,
      org_id text NOT NULL,
      run_id text NOT NULL,
      target_type text NOT NULL,
      change_detection_type text NOT NULL,
      tags text[] NOT NULL DEFAULT '{}',
      detected_at timestamptz NOT NULL,
      record jsonb NOT NULL
    );
    CREATE INDEX monitor_changes_org ON monitor_changes (org_id, detected_at DESC, id DESC);
    CREATE INDEX monitor_changes_monitor ON monitor_changes (monitor_id, detected_at DESC, id DESC)`.unprepared),
  "0003_webhook_secrets": Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const [table] = yield* sql<{ present: boolean }>`SELECT to_regclass('webhook_secrets') IS NOT NULL AS present`
    // A new database (the webhooks migrations not run yet) has no monitors: nothing to give a secret to.
    if (table?.present !== true) return
    const missing = yield* sql<{ id: string; url: string }>`
      SELECT m.id, m.webhook->>'url' AS url FROM monitors m
      WHERE m.webhook->>'url' IS NOT NULL
        AND NOT EXISTS (SELECT 1 FROM webhook_secrets s WHERE s.monitor_id = m.id AND s.url = m.webhook->>'url')`
    yield* Effect.forEach(missing, (monitor) => Secrets.secretFor(monitor.id, monitor.url), { discard: true })
  }),
  // The slot a scheduled run was queued for: one run per slot of a monitor, whatever ticks (replicas, retries) claim it.
  "0004_run_slots": Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql`ALTER TABLE monitor_runs ADD COLUMN slot_at timestamptz;
    CREATE UNIQUE INDEX monitor_runs_slot ON monitor_runs (monitor_id, slot_at) WHERE slot_at IS NOT NULL`.unprepared)
}
