/**
 * Webhook secrets of monitors on a real database: reads (list, get) write nothing, secrets are made where webhooks are
 * set, and a database made before @sift/webhooks existed (its tables from monitors/0002_webhooks) upgrades in place.
 */
import { describe, expect, it } from "@effect/vitest"
import * as SqlClient from "@effect/sql/SqlClient"
import * as JobQueue from "@sift/store/JobQueue"
import * as Migrations from "@sift/store/Migrations"
import * as Sql from "@sift/store/Sql"
import { migrations as webhookMigrations } from "@sift/webhooks"
import { Effect, Layer } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll } from "vitest"
import { migrations } from "../src/Migrations.js"
import * as Monitors from "../src/Monitors.js"
import type * as MonitorSpec from "../src/MonitorSpec.js"

const made: Array<string> = []
afterAll(() => made.forEach((dir) => fs.rmSync(dir, { recursive: true, force: true })))

const newDir = () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "sift-monitor-secrets-"))
  made.push(dir)
  return dir
}

const database = (dir: string) =>
  Layer.provideMerge(
    JobQueue.layer({ queues: [Monitors.RUN_QUEUE], supervise: false }),
    Layer.tap(Sql.layerPglite({ dir }), (ctx) => Effect.provide(Migrations.run({ webhooks: webhookMigrations, monitors: migrations }), ctx))
  )

const writer: Monitors.Owner = { orgId: "org_s", plan: "scale", monitorsLimit: 100, canWrite: true }
const reader: Monitors.Owner = { ...writer, canWrite: false }

const spec = (n: number): MonitorSpec.NewMonitor => ({
  name: `hooked ${n}`,
  target: { type: "page", url: `https://example.com/${n}` },
  changeDetection: { type: "exact" },
  schedule: { type: "interval", frequency: 1, unit: "days" },
  webhook: { url: `https://hooks.example.com/${n}` },
  tags: []
})

const secretRows = Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql<{ monitor_id: string; url: string; secret: string }>`SELECT monitor_id, url, secret FROM webhook_secrets ORDER BY monitor_id`)

const webhookOf = (view: Record<string, unknown>) => view.webhook as { url: string; secret?: string } | null

describe("monitor webhook secrets", () => {
  it.live("list and get read secrets and failures without writing; a secret is made where the webhook is set", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const created = yield* Monitors.create(writer, spec(1))
      const secret = webhookOf(created)!.secret!
      expect(secret).toMatch(/^whsec_[A-Za-z0-9]{32}$/)
      yield* Monitors.create(writer, spec(2))
      const made = (yield* secretRows).map((row) => row.monitor_id)
      expect(made).toHaveLength(2)
      expect(made).toContain(created.id)
      // Readers with write permission see the secret; others never do.
      expect(webhookOf(yield* Monitors.get(writer, created.id as string))!.secret).toBe(secret)
      const page = yield* Monitors.list(writer, { limit: 25 })
      expect(page.data.map((view) => webhookOf(view)!.secret)).toEqual(expect.arrayContaining([secret]))
      expect(page.data.every((view) => typeof webhookOf(view)!.secret === "string")).toBe(true)
      expect(webhookOf(yield* Monitors.get(reader, created.id as string))).toEqual({ url: "https://hooks.example.com/1", events: ["change.detected"] })

      // With the secrets gone, reads show none and make none (before: every read made them again).
      yield* sql`DELETE FROM webhook_secrets`
      expect(webhookOf(yield* Monitors.get(writer, created.id as string))!.secret).toBeUndefined()
      const again = yield* Monitors.list(writer, { limit: 25 })
      expect(again.data.map((view) => webhookOf(view)!.secret)).toEqual([undefined, undefined])
      expect(yield* secretRows).toEqual([])

      // Write paths make them: a webhook update, a rotation.
      const updated = yield* Monitors.update(writer, created.id as string, { webhook: { url: "https://hooks.example.com/moved" } })
      expect(webhookOf(updated)!.secret).toMatch(/^whsec_/)
      const other = again.data.find((view) => view.id !== created.id)!
      const rotated = yield* Monitors.rotateSecret(writer, other.id as string)
      expect(webhookOf(rotated)!.secret).toMatch(/^whsec_/)
      expect((yield* secretRows).map((row) => [row.monitor_id, row.url]).sort()).toEqual([
        [created.id, "https://hooks.example.com/moved"],
        [other.id, "https://hooks.example.com/2"]
      ].sort())
    }).pipe(Effect.provide(database(newDir()))), 120_000)
})

// The webhook tables exactly as the monitors package created them as its "0002_webhooks" migration before
// @sift/webhooks existed (from packages/monitors/src/internal/webhooks/Durable.ts at aaa6468).
const legacyWebhooks = Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql`CREATE TABLE webhook_secrets (
      monitor_id text PRIMARY KEY,
      url text NOT NULL,
      secret text NOT NULL,
      updated_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE TABLE webhook_deliveries (
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
    CREATE INDEX webhook_deliveries_monitor ON webhook_deliveries (monitor_id, created_at);
    CREATE TABLE webhook_attempts (
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
    CREATE TABLE webhook_failures (
      monitor_id text PRIMARY KEY,
      url text NOT NULL,
      consecutive_failures integer NOT NULL,
      last_status text NOT NULL,
      last_message text,
      last_failed_at timestamptz NOT NULL,
      streak_emailed boolean NOT NULL DEFAULT false
    );
    CREATE TABLE webhook_failure_emails (
      url text PRIMARY KEY,
      last_sent_at timestamptz NOT NULL
    );
    CREATE TABLE webhook_retry_keys (
      delivery_id text NOT NULL,
      idempotency_key text NOT NULL,
      attempt integer NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (delivery_id, idempotency_key)
    );`.unprepared)


describe("upgrade from a database made before @sift/webhooks", () => {
  it.live("webhooks/0001 finds the tables and keeps their rows; monitors/0003 gives webhooks without a secret one", () =>
    Effect.gen(function*() {
      const dir = newDir()
      const before = yield* Effect.gen(function*() {
        const applied = yield* Migrations.run({ monitors: { "0001_monitors": migrations["0001_monitors"], "0002_webhooks": legacyWebhooks } })
        const sql = yield* SqlClient.SqlClient
        const now = new Date()
        for (const [id, webhook] of [["mon_old1", { url: "https://hooks.example.com/a" }], ["mon_old2", null], ["mon_old3", { url: "https://hooks.example.com/c" }]] as const) {
          yield* sql`INSERT INTO monitors ${sql.insert({
            id, org_id: "org_old", name: id, target: JSON.stringify({ type: "page", url: "https://example.com/" }),
            change_detection: JSON.stringify({ type: "exact" }), schedule: JSON.stringify({ type: "interval", frequency: 1, unit: "days" }),
            interval_ms: 86_400_000, status: "active", webhook: webhook === null ? null : JSON.stringify(webhook), created_at: now, updated_at: now
          })}`
        }
        yield* sql`INSERT INTO webhook_secrets (monitor_id, url, secret) VALUES ('mon_old3', 'https://hooks.example.com/c', 'whsec_kept')`
        yield* sql`INSERT INTO webhook_deliveries (id, monitor_id, event_id, event_type, url, body, status)
          VALUES ('whd_old', 'mon_old3', 'evt_old', 'change.detected', 'https://hooks.example.com/c', '{}', 'delivered')`
        return applied
      }).pipe(Effect.provide(Sql.layerPglite({ dir })))
      expect(before.map((a) => `${a.package}/${a.id}`)).toEqual(["monitors/0001_monitors", "monitors/0002_webhooks"])

      const upgraded = yield* Effect.gen(function*() {
        const applied = yield* Migrations.run({ webhooks: webhookMigrations, monitors: migrations })
        const sql = yield* SqlClient.SqlClient
        const deliveries = yield* sql<{ id: string }>`SELECT id FROM webhook_deliveries`
        const secrets = yield* secretRows
        const rerun = yield* Migrations.run({ webhooks: webhookMigrations, monitors: migrations })
        return { applied, deliveries, secrets, rerun }
      }).pipe(Effect.provide(Sql.layerPglite({ dir })))
      expect(upgraded.applied.map((a) => `${a.package}/${a.id}`)).toEqual(["webhooks/0001_webhooks", "webhooks/0002_delivery_times", "monitors/0003_webhook_secrets", "monitors/0004_run_slots"])
      expect(upgraded.deliveries).toEqual([{ id: "whd_old" }])
      expect(upgraded.secrets.map((row) => [row.monitor_id, row.url])).toEqual([
        ["mon_old1", "https://hooks.example.com/a"],
        ["mon_old3", "https://hooks.example.com/c"]
      ])
      expect(upgraded.secrets[0]!.secret).toMatch(/^whsec_[A-Za-z0-9]{32}$/)
      expect(upgraded.secrets[1]!.secret).toBe("whsec_kept")
      expect(upgraded.rerun).toEqual([])
    }), 120_000)

  it.live("a new database: webhooks/0001 makes the tables, monitors/0003 has nothing to do", () =>
    Effect.gen(function*() {
      const applied = yield* Migrations.run({ webhooks: webhookMigrations, monitors: migrations })
      expect(applied.map((a) => `${a.package}/${a.id}`)).toEqual(["webhooks/0001_webhooks", "webhooks/0002_delivery_times", "monitors/0001_monitors", "monitors/0003_webhook_secrets", "monitors/0004_run_slots"])
      expect(yield* secretRows).toEqual([])
    }).pipe(Effect.provide(Sql.layerPglite({ dir: "memory://" }))), 120_000)
})
