/**
 * Credits per organization. A request reserves what it may cost before any work (a row with an expiry, so a process
 * killed mid-request never charges), then commits what it delivered and releases the rest. Reservations serialise on
 * the organization's row (`FOR UPDATE`), so balances stay exact under concurrency and across server replicas. Monthly
 * cycles renew lazily at the first reservation after a cycle ends; the free plan's credits never renew.
 *
 * @since 0.1.0
 */
import * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import { Clock, Effect } from "effect"
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

/** The credit ledger. */
export class CreditLedger extends Effect.Service<CreditLedger>()("@sift/auth/CreditLedger", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const now = Effect.map(Clock.currentTimeMillis, (ms) => new Date(ms))

    /** Locks the organization's row and renews its cycle when one has ended. */
    const lockOrg = (orgId: string, at: Date) =>
      Effect.gen(function*() {
        const rows = yield* sql<Record<string, unknown>>`SELECT * FROM organizations WHERE id = ${orgId} FOR UPDATE`
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

    return {
      /** Holds `credits` for a request, or fails with `USAGE_EXCEEDED` when they are not available. */
      reserve: (orgId: string, credits: number, options: { readonly ttlMs: number }): Effect.Effect<Reservation, UsageExceeded | SqlError> =>
        sql.withTransaction(Effect.gen(function*() {
          const at = yield* now
          const org = yield* lockOrg(orgId, at)
          yield* sql`DELETE FROM credit_reservations WHERE org_id = ${orgId} AND expires_at <= ${at}`
          const held = yield* sql<{ held: string | number }>`SELECT COALESCE(SUM(credits), 0) AS held FROM credit_reservations WHERE org_id = ${orgId}`
          const available = org.creditsRemaining - Number(held[0]?.held ?? 0)
          if (available < credits) return yield* new UsageExceeded({ needed: credits, available })
          const reservation = { id: id("res_"), orgId, credits }
          yield* sql`INSERT INTO credit_reservations ${sql.insert({ id: reservation.id, org_id: orgId, credits, expires_at: new Date(at.getTime() + options.ttlMs) })}`
          return reservation
        })),
      /** Charges what was delivered (at most what was reserved) and releases the reservation. */
      commit: (reservation: Reservation, charge: { readonly credits: number; readonly requestId: string }) =>
        sql.withTransaction(Effect.gen(function*() {
          const credits = Math.max(0, Math.min(charge.credits, reservation.credits))
          yield* sql`DELETE FROM credit_reservations WHERE id = ${reservation.id}`
          if (credits === 0) return { remaining: yield* remainingOf(reservation.orgId) }
          const rows = yield* sql<{ credits_remaining: string | number }>`
            UPDATE organizations SET credits_remaining = credits_remaining - ${credits} WHERE id = ${reservation.orgId} RETURNING credits_remaining`
          yield* sql`INSERT INTO credit_events ${sql.insert({ org_id: reservation.orgId, request_id: charge.requestId, credits })}`
          return { remaining: Number(rows[0]?.credits_remaining ?? 0) }
        })),
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
