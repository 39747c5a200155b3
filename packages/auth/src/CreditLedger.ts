/**
 * Credits per organization. A request reserves what it may cost before any work (a row with an expiry, so a process
 * killed mid-request never charges), then charges what it delivered and releases the rest. Reservations serialise on
 * the organization's row (`FOR UPDATE`), so balances stay exact under concurrency and across server replicas. Cost per
 * request: `reserve` is one short transaction (lock, then one statement); `commit` is one statement, and `settle`
 * charges a whole group of requests in one transaction with a statement of the caller's (the request log's rows), so
 * a charge and its log row are durable together before the answer is sent. Charges are never written with
 * `synchronous_commit = off`. Monthly cycles renew lazily at the first reservation after a cycle ends; the free plan's
 * credits never renew.
 *
 * That is the PostgreSQL ledger, for replicas. On embedded PGlite, where one process owns the database, the ledger is
 * exact in memory and writes only charges (`internal/embeddedLedger.ts`).
 *
 * @since 0.1.0
 */
import * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import type { Fragment } from "@effect/sql/Statement"
import { GroupCommit, Sql } from "@sift/store"
import { Clock, Effect } from "effect"
import * as Embedded from "./internal/embeddedLedger.js"
import { cycleEndAfter, orgFromRow } from "./Accounts.js"
import { UsageExceeded } from "./AuthErrors.js"
import { id } from "./internal/ids.js"
import * as Plans from "./Plans.js"

/** Credits held for a request in flight. */
export interface Reservation {
  readonly id: string
  readonly orgId: string
  readonly credits: number
}

/** An organization's balance. */
export interface Balance {
  readonly remaining: number
  readonly cycleStart: Date
  readonly cycleEnd: Date | null
}

/** What a request delivered against its reservation (charged at most the reserved credits). */
export interface Charge {
  readonly reservation: Reservation
  readonly credits: number
  readonly requestId: string
}

const chargeOf = Embedded.chargeOf

/** The credit ledger. */
export class CreditLedger extends Effect.Service<CreditLedger>()("@sift/auth/CreditLedger", {
  scoped: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const backend = (yield* Sql.Database).backend
    const now = Effect.map(Clock.currentTimeMillis, (ms) => new Date(ms))

    /**
     * Locks the organization's row and renews its cycle when one has ended. The lock also turns off the synchronous
     * WAL flush for the reservation's transaction: a reservation lost in a database crash is what a crashed request
     * leaves anyway (nothing charged), so it need not wait for the disk.
     */
    const lockOrg = (orgId: string, at: Date) =>
      Effect.gen(function*() {
        const rows = yield* sql<Record<string, unknown>>`
          SELECT set_config('synchronous_commit', 'off', true) AS async_commit, * FROM organizations WHERE id = ${orgId} FOR UPDATE`
        const row = rows[0]
        if (row === undefined) return yield* Effect.die(new Error(`no organization ${orgId}`))
        const org = orgFromRow(row)
        if (Plans.plans[org.plan].renews && org.cycleEnd !== null && org.cycleEnd.getTime() <= at.getTime()) {
          let start = org.cycleEnd
          while (cycleEndAfter(start).getTime() <= at.getTime()) start = cycleEndAfter(start)
          yield* sql`UPDATE organizations SET ${sql.update({ credits_remaining: org.monthlyCredits, cycle_start: start, cycle_end: cycleEndAfter(start) })} WHERE id = ${orgId}`
          return { ...org, creditsRemaining: org.monthlyCredits, cycleStart: start, cycleEnd: cycleEndAfter(start) }
        }
        return org
      })

    const remainingOf = (orgId: string) =>
      Effect.map(sql<{ credits_remaining: string | number }>`SELECT credits_remaining FROM organizations WHERE id = ${orgId}`, (rows) =>
        Number(rows[0]?.credits_remaining ?? 0))

    if (backend === "pglite") {
      // One process owns an embedded database (the data-directory lock): exact in memory, charges written behind.
      return yield* Embedded.make(sql, (orgId, at) => sql.withTransaction(lockOrg(orgId, at)))
    }

    return {
      /** Holds `credits` for a request, or fails with `USAGE_EXCEEDED` when they are not available. */
      reserve: (orgId: string, credits: number, options: { readonly ttlMs: number }): Effect.Effect<Reservation, UsageExceeded | SqlError> =>
        sql.withTransaction(Effect.gen(function*() {
          const at = yield* now
          const org = yield* lockOrg(orgId, at)
          const reservation = { id: id("res_"), orgId, credits }
          // A new statement after the lock, so its snapshot sees every reservation committed before we got the row.
          // Expired reservations are ignored here and deleted on the way.
          const rows = yield* sql<{ held: string | number; added: string | number }>`
            WITH lapsed AS (DELETE FROM credit_reservations WHERE org_id = ${orgId} AND expires_at <= ${at}),
            held AS (SELECT COALESCE(SUM(credits), 0)::bigint AS held FROM credit_reservations WHERE org_id = ${orgId} AND expires_at > ${at}),
            added AS (
              INSERT INTO credit_reservations (id, org_id, credits, expires_at)
              SELECT ${reservation.id}, ${orgId}, ${credits}::bigint, ${new Date(at.getTime() + options.ttlMs)}::timestamptz FROM held
              WHERE ${org.creditsRemaining}::bigint - held.held >= ${credits}::bigint
              RETURNING id
            )
            SELECT held.held, (SELECT count(*) FROM added) AS added FROM held`
          if (Number(rows[0]?.added ?? 0) === 0) {
            return yield* new UsageExceeded({ needed: credits, available: org.creditsRemaining - Number(rows[0]?.held ?? 0) })
          }
          return reservation
        })),
      /**
       * Charges what was delivered (at most what was reserved) and releases the reservation: one statement, durable.
       * It charges even when the reservation has already lapsed (the work was delivered), so callers commit once.
       */
      commit: (reservation: Reservation, charge: { readonly credits: number; readonly requestId: string }) =>
        Effect.map(
          sql<{ credits_remaining: string | number | null }>`
            WITH released AS (DELETE FROM credit_reservations WHERE id = ${reservation.id}),
            charged AS (
              UPDATE organizations SET credits_remaining = credits_remaining - ${chargeOf(reservation, charge)}::bigint
              WHERE id = ${reservation.orgId} AND ${chargeOf(reservation, charge)}::bigint > 0
              RETURNING credits_remaining
            ),
            event AS (
              INSERT INTO credit_events (org_id, request_id, credits)
              SELECT ${reservation.orgId}, ${charge.requestId}, ${chargeOf(reservation, charge)}::bigint WHERE ${chargeOf(reservation, charge)}::bigint > 0
            )
            SELECT ${GroupCommit.synchronousCommit(sql)} AS durable,
              COALESCE((SELECT credits_remaining FROM charged), (SELECT credits_remaining FROM organizations WHERE id = ${reservation.orgId})) AS credits_remaining`,
          (rows) => ({ remaining: Number(rows[0]?.credits_remaining ?? 0) })
        ),
      /**
       * Charges a group of requests and writes `alongside` (a statement, given each charge's remaining balance in
       * order) in one transaction: all of it is durable when this completes, or none of it. The organizations' rows
       * are locked in id order, so two replicas' groups never deadlock.
       */
      settle: (charges: ReadonlyArray<Charge>, alongside: (remaining: ReadonlyArray<number>) => Fragment): Effect.Effect<void, SqlError> =>
        sql.withTransaction(Effect.gen(function*() {
          if (charges.length === 0) {
            yield* sql`SELECT ${GroupCommit.synchronousCommit(sql)} AS durable`
            return yield* sql`${alongside([])}`
          }
          const items = charges.map((charge) => ({
            reservation_id: charge.reservation.id,
            org_id: charge.reservation.orgId,
            request_id: charge.requestId,
            credits: chargeOf(charge.reservation, charge)
          }))
          const orgIds = [...new Set(items.map((item) => item.org_id))].sort()
          yield* sql`SELECT ${GroupCommit.synchronousCommit(sql)} AS durable, (SELECT count(*) FROM (
            SELECT id FROM organizations WHERE id IN (SELECT value FROM json_array_elements_text(${JSON.stringify(orgIds)}::json))
            ORDER BY id FOR UPDATE) AS locked) AS locked`
          const rows = yield* sql<{ id: string; credits_remaining: string | number }>`
            WITH c AS (
              SELECT * FROM json_to_recordset(${JSON.stringify(items)}::json) AS t(reservation_id text, org_id text, request_id text, credits bigint)
            ),
            released AS (DELETE FROM credit_reservations WHERE id IN (SELECT reservation_id FROM c)),
            sums AS (SELECT org_id, SUM(credits)::bigint AS credits FROM c GROUP BY org_id),
            charged AS (
              UPDATE organizations o SET credits_remaining = o.credits_remaining - sums.credits FROM sums
              WHERE o.id = sums.org_id RETURNING o.id, o.credits_remaining
            ),
            events AS (INSERT INTO credit_events (org_id, request_id, credits) SELECT org_id, request_id, credits FROM c WHERE credits > 0)
            SELECT id, credits_remaining FROM charged`
          // Each charge's balance as if the group were charged one by one, in order: the balance after the group plus
          // the organization's charges that come after it.
          const after = new Map(rows.map((row) => [row.id, Number(row.credits_remaining)]))
          const later = new Map<string, number>()
          const remaining: Array<number> = new Array(items.length)
          for (let i = items.length - 1; i >= 0; i--) {
            const item = items[i]!
            remaining[i] = (after.get(item.org_id) ?? 0) + (later.get(item.org_id) ?? 0)
            later.set(item.org_id, (later.get(item.org_id) ?? 0) + item.credits)
          }
          return yield* sql`${alongside(remaining)}`
        })).pipe(Effect.asVoid),
      /** Only the embedded ledger keeps charges in memory for a redo journal. */
      journal: undefined as Embedded.JournalPart | undefined,
      /** Releases a reservation without charging. */
      release: (reservation: Reservation) =>
        Effect.zipRight(sql`DELETE FROM credit_reservations WHERE id = ${reservation.id}`, Effect.map(remainingOf(reservation.orgId), (remaining) => ({ remaining }))),
      /** The current balance (credits held by requests in flight are not subtracted). */
      balance: (orgId: string): Effect.Effect<Balance, SqlError> =>
        Effect.map(sql<Record<string, unknown>>`SELECT * FROM organizations WHERE id = ${orgId}`, (rows) => {
          if (rows[0] === undefined) return { remaining: 0, cycleStart: new Date(0), cycleEnd: null }
          const org = orgFromRow(rows[0])
          return { remaining: org.creditsRemaining, cycleStart: org.cycleStart, cycleEnd: org.cycleEnd }
        })
    } as const
  })
}) {}
