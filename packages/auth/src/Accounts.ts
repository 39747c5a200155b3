/**
 * Organizations (plan, ZDR flag, status, credit balance and cycle, per-organization overrides) and their users.
 *
 * @since 0.1.0
 */
import * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import { Clock, Effect, Option } from "effect"
import { hashSecret, id } from "./internal/ids.js"
import * as OrgVersions from "./internal/orgVersions.js"
import * as Plans from "./Plans.js"

/** An organization as the rest of Sift sees it; limits are the effective ones (plan or override). */
export interface Org {
  readonly id: string
  readonly name: string
  readonly plan: Plans.PlanName
  readonly zdrEnabled: boolean
  readonly status: "active" | "suspended" | "disabled"
  readonly creditsRemaining: number
  readonly cycleStart: Date
  readonly cycleEnd: Date | null
  readonly requestsPerMinute: number
  readonly monthlyCredits: number
  readonly monitorsLimit: number
  readonly createdAt: Date
}

/** Per-organization limits that replace the plan's. */
export interface Overrides {
  readonly requestsPerMinute?: number | undefined
  /** Credits per cycle; setting it also sets the current balance to it. */
  readonly credits?: number | undefined
  readonly monitorsLimit?: number | undefined
}

const date = (value: unknown): Date => value instanceof Date ? value : new Date(String(value))
const MONTH_MS = 30 * 86_400_000

/** The end of a cycle that starts at `start`: one calendar month later. */
export const cycleEndAfter = (start: Date): Date => {
  const end = new Date(start)
  end.setUTCMonth(end.getUTCMonth() + 1)
  return Number.isNaN(end.getTime()) ? new Date(start.getTime() + MONTH_MS) : end
}

/** Reads an organization row (columns of `organizations`). */
export const orgFromRow = (row: Record<string, unknown>): Org => {
  const plan = Plans.isPlanName(String(row.plan)) ? String(row.plan) as Plans.PlanName : "free"
  const limits = Plans.plans[plan]
  const num = (value: unknown) => value === null || value === undefined ? undefined : Number(value)
  return {
    id: String(row.id),
    name: String(row.name),
    plan,
    zdrEnabled: Boolean(row.zdr_enabled),
    status: String(row.status) as Org["status"],
    creditsRemaining: Number(row.credits_remaining),
    cycleStart: date(row.cycle_start),
    cycleEnd: row.cycle_end === null ? null : date(row.cycle_end),
    requestsPerMinute: num(row.rpm_override) ?? limits.requestsPerMinute ?? Plans.ENTERPRISE_DEFAULTS.requestsPerMinute,
    monthlyCredits: num(row.credits_override) ?? limits.credits ?? Plans.ENTERPRISE_DEFAULTS.credits,
    monitorsLimit: num(row.monitors_override) ?? limits.monitorsLimit ?? Plans.ENTERPRISE_DEFAULTS.monitorsLimit,
    createdAt: date(row.created_at)
  }
}

/** Organizations and users. */
export class Accounts extends Effect.Service<Accounts>()("@sift/auth/Accounts", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const now = Effect.map(Clock.currentTimeMillis, (ms) => new Date(ms))

    const getOrg = (orgId: string): Effect.Effect<Option.Option<Org>, SqlError> =>
      Effect.map(sql<Record<string, unknown>>`SELECT * FROM organizations WHERE id = ${orgId}`, (rows) =>
        Option.map(Option.fromNullable(rows[0]), orgFromRow))

    /** Creates an organization on a plan (default free), its balance the plan's credits and its cycle starting now. */
    const createOrg = (input: { readonly name: string; readonly plan?: Plans.PlanName | undefined; readonly zdr?: boolean | undefined }) =>
      Effect.gen(function*() {
        const plan = input.plan ?? "free"
        const start = yield* now
        const rows = yield* sql<Record<string, unknown>>`INSERT INTO organizations ${sql.insert({
          id: id("org_"),
          name: input.name,
          plan,
          zdr_enabled: input.zdr ?? false,
          credits_remaining: Plans.plans[plan].credits ?? Plans.ENTERPRISE_DEFAULTS.credits,
          cycle_start: start,
          cycle_end: Plans.plans[plan].renews ? cycleEndAfter(start) : null
        })} RETURNING *`
        return orgFromRow(rows[0]!)
      })

    const update = (orgId: string, set: Record<string, unknown>) =>
      Effect.map(sql<Record<string, unknown>>`UPDATE organizations SET ${sql.update(set)} WHERE id = ${orgId} RETURNING *`, (rows) => {
        OrgVersions.bump(orgId)
        return Option.map(Option.fromNullable(rows[0]), orgFromRow)
      })

    return {
      createOrg,
      getOrg,
      /** Finds an organization by id or by name. */
      findOrg: (ref: string) =>
        Effect.map(sql<Record<string, unknown>>`SELECT * FROM organizations WHERE id = ${ref} OR name = ${ref} ORDER BY id = ${ref} DESC LIMIT 1`, (rows) =>
          Option.map(Option.fromNullable(rows[0]), orgFromRow)),
      listOrgs: () => Effect.map(sql<Record<string, unknown>>`SELECT * FROM organizations ORDER BY created_at, id`, (rows) => rows.map(orgFromRow)),
      /** Moves an organization to a plan: a new cycle starts now with the plan's credits. */
      setPlan: (orgId: string, plan: Plans.PlanName) =>
        Effect.flatMap(now, (start) =>
          update(orgId, {
            plan,
            credits_remaining: Plans.plans[plan].credits ?? Plans.ENTERPRISE_DEFAULTS.credits,
            cycle_start: start,
            cycle_end: Plans.plans[plan].renews ? cycleEndAfter(start) : null
          })),
      setZdr: (orgId: string, enabled: boolean) => update(orgId, { zdr_enabled: enabled }),
      setStatus: (orgId: string, status: Org["status"]) => update(orgId, { status }),
      setOverrides: (orgId: string, overrides: Overrides) =>
        update(orgId, {
          ...(overrides.requestsPerMinute === undefined ? {} : { rpm_override: overrides.requestsPerMinute }),
          ...(overrides.credits === undefined ? {} : { credits_override: overrides.credits, credits_remaining: overrides.credits }),
          ...(overrides.monitorsLimit === undefined ? {} : { monitors_override: overrides.monitorsLimit })
        }),
      /** Drops the organization's own limits, so its plan's apply again (the balance stays as it is). */
      clearOverrides: (orgId: string) => update(orgId, { rpm_override: null, credits_override: null, monitors_override: null }),
      createUser: (input: { readonly orgId: string; readonly email: string }) =>
        Effect.map(
          sql<Record<string, unknown>>`INSERT INTO users ${sql.insert({ id: id("usr_"), org_id: input.orgId, email: input.email.toLowerCase() })} RETURNING *`,
          (rows) => ({ id: String(rows[0]!.id), orgId: input.orgId, email: input.email.toLowerCase() })
        ),
      /**
       * Makes sure an API key with exactly this secret exists (`SIFT_BOOTSTRAP_KEY`), in an organization named
       * `bootstrap` on `plan`. Idempotent across restarts and replicas.
       */
      ensureBootstrapKey: (secret: string, plan: Plans.PlanName) =>
        sql.withTransaction(Effect.gen(function*() {
          if (!/^sift_sk_[A-Za-z0-9]{40}$/.test(secret)) {
            return yield* Effect.die(new Error("SIFT_BOOTSTRAP_KEY must look like sift_sk_ followed by 40 letters and digits"))
          }
          const hash = hashSecret(secret)
          const existing = yield* sql<{ id: string; org_id: string }>`SELECT id, org_id FROM api_keys WHERE hash = ${hash}`
          if (existing[0] !== undefined) return { orgId: existing[0].org_id, keyId: existing[0].id }
          // Replicas starting together may race here: both inserts skip on conflict (waiting for the other's commit)
          // and both then read the one row that won.
          const start = yield* now
          yield* sql`INSERT INTO organizations ${sql.insert({
            id: id("org_"),
            name: "bootstrap",
            plan,
            credits_remaining: Plans.plans[plan].credits ?? Plans.ENTERPRISE_DEFAULTS.credits,
            cycle_start: start,
            cycle_end: Plans.plans[plan].renews ? cycleEndAfter(start) : null
          })} ON CONFLICT (name) DO NOTHING`
          const org = (yield* sql<{ id: string }>`SELECT id FROM organizations WHERE name = 'bootstrap'`)[0]!
          yield* sql`INSERT INTO api_keys ${sql.insert({ id: id("key_"), org_id: org.id, name: "bootstrap", prefix: secret.slice(0, 12), hash })}
            ON CONFLICT (hash) DO NOTHING`
          const key = (yield* sql<{ id: string; org_id: string }>`SELECT id, org_id FROM api_keys WHERE hash = ${hash}`)[0]!
          return { orgId: key.org_id, keyId: key.id }
        }))
    } as const
  })
}) {}
