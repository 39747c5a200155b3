/**
 * The credit ledger on embedded PGlite. The data-directory lock guarantees one process owns the database, so balances
 * and reservations are exact in memory: reserving touches no database on the hot path. A charge is made durable
 * before its answer is sent: `settle` writes a group of charges in one transaction, together with whatever the caller
 * writes in it (the request log's rows), so a SIGKILL never loses a charge of an answer sent, and never keeps a charge
 * without its log row. The stored balance is read again after any change made through `Accounts` (plan, override,
 * status) and when a cycle ends.
 */
import type * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import type { Fragment } from "@effect/sql/Statement"
import { Clock, Effect, Exit, type Scope } from "effect"
import { type Org, orgFromRow } from "../Accounts.js"
import { UsageExceeded } from "../AuthErrors.js"
import * as Plans from "../Plans.js"
import * as OrgVersions from "./orgVersions.js"

interface Reservation {
  readonly id: string
  readonly orgId: string
  readonly credits: number
}

interface OrgState {
  /** `credits_remaining` as last read, minus the charges written since. */
  stored: number
  /** Charges committed but not yet written. */
  unwritten: number
  version: number
  org: Org
  readonly held: Map<string, { readonly credits: number; readonly expires: number }>
}


/** What a request delivered against its reservation. */
interface Charge {
  readonly reservation: Reservation
  readonly credits: number
  readonly requestId: string
}

/** What a redo journal needs of the ledger (embedded only): charges counted at once, written later. */
export interface JournalPart {
  readonly stage: (charge: Charge) => number
  readonly unstage: (charge: Charge) => void
  readonly store: (charges: ReadonlyArray<Charge>, alongside: Fragment) => Effect.Effect<void, SqlError>
}

/** Credits a charge takes: what was delivered, at most what was reserved. */
export const chargeOf = (reservation: Reservation, charge: { readonly credits: number }): number =>
  Math.max(0, Math.min(Math.floor(charge.credits), reservation.credits))

/** Builds the embedded ledger; `renew` renews a cycle in the database (the shared ledger's locked transaction). */
export const make = (
  sql: SqlClient.SqlClient,
  renew: (orgId: string, at: Date) => Effect.Effect<Org, SqlError>
): Effect.Effect<{
  reserve: (orgId: string, credits: number, options: { readonly ttlMs: number }) => Effect.Effect<Reservation, UsageExceeded | SqlError>
  commit: (reservation: Reservation, charge: { readonly credits: number; readonly requestId: string }) => Effect.Effect<{ remaining: number }, SqlError>
  settle: (charges: ReadonlyArray<Charge>, alongside: (remaining: ReadonlyArray<number>) => Fragment) => Effect.Effect<void, SqlError>
  journal: JournalPart | undefined
  release: (reservation: Reservation) => Effect.Effect<{ remaining: number }, SqlError>
  balance: (orgId: string) => Effect.Effect<{ remaining: number; cycleStart: Date; cycleEnd: Date | null }, SqlError>
}, never, Scope.Scope> =>
  Effect.gen(function*() {
    const states = new Map<string, OrgState>()
    // Reservations never leave this process: a counter names them (no random bytes on every request).
    let reservations = 0
    // Writing charges and reading a balance afresh exclude each other, so "stored minus unwritten" stays exact.
    const io = yield* Effect.makeSemaphore(1)

    /**
     * Charges a group and writes `alongside` (given each charge's remaining balance, in order) in one statement: the
     * charges as data-modifying CTEs before it, so the whole group costs one round trip to PGlite's thread and one
     * commit. In memory the charges count at once (so concurrent reservations see them) and become stored once the
     * statement has committed; if it fails they are undone: nothing was charged. Exclusive with reading a balance
     * afresh, so "stored minus unwritten" stays exact.
     */
    /** The statement that writes charges (as data-modifying CTEs) and `alongside`, one round trip to PGlite's thread. */
    const chargesWith = (charges: ReadonlyArray<Charge>, alongside: Fragment) => {
      // One JSON parameter: no placeholder per value to compile on the request thread.
      const events = charges.flatMap((charge) => {
        const credits = chargeOf(charge.reservation, charge)
        return credits > 0 ? [{ org_id: charge.reservation.orgId, request_id: charge.requestId, credits }] : []
      })
      return events.length === 0 ? sql`${alongside}` : sql`
        WITH c AS (SELECT * FROM json_to_recordset(${JSON.stringify(events)}::json) AS t(org_id text, request_id text, credits bigint)),
        charged AS (
          UPDATE organizations o SET credits_remaining = o.credits_remaining - s.credits
          FROM (SELECT org_id, SUM(credits)::bigint AS credits FROM c GROUP BY org_id) s WHERE o.id = s.org_id
        ),
        events AS (INSERT INTO credit_events (org_id, request_id, credits) SELECT org_id, request_id, credits FROM c)
        ${alongside}`
    }

    /** Counts a charge in memory (its hold becomes an unwritten charge); the balance after it. */
    const stage = (charge: Charge): number => {
      const state = states.get(charge.reservation.orgId)
      if (state === undefined) return 0
      state.held.delete(charge.reservation.id)
      state.unwritten += chargeOf(charge.reservation, charge)
      return state.stored - state.unwritten
    }
    /** Takes back a staged charge that was never made durable. */
    const unstage = (charge: Charge): void => {
      const state = states.get(charge.reservation.orgId)
      if (state !== undefined) state.unwritten -= chargeOf(charge.reservation, charge)
    }
    /** After staged charges were written (or not): stored once committed, no longer unwritten either way. */
    const written = (charges: ReadonlyArray<Charge>, committed: boolean, undo: boolean) => {
      for (const charge of charges) {
        const state = states.get(charge.reservation.orgId)
        if (state === undefined) continue
        const credits = chargeOf(charge.reservation, charge)
        if (committed) state.stored -= credits
        if (committed || undo) state.unwritten -= credits
      }
    }

    /**
     * Charges a group and writes `alongside` (given each charge's remaining balance, in order) in one statement. In
     * memory the charges count at once (so concurrent reservations see them) and become stored once the statement has
     * committed; if it fails they are undone: nothing was charged. Exclusive with reading a balance afresh, so
     * "stored minus unwritten" stays exact.
     */
    const settle = (charges: ReadonlyArray<Charge>, alongside: (remaining: ReadonlyArray<number>) => Fragment): Effect.Effect<void, SqlError> => {
      // A charge's organization is known from its reservation; it is read afresh only if this process forgot it.
      const forgotten = charges.filter((charge) => !states.has(charge.reservation.orgId))
      const known = forgotten.length === 0 ? Effect.void : Effect.forEach(forgotten, (charge) =>
        Effect.flatMap(Clock.currentTimeMillis, (ms) => reload(charge.reservation.orgId, new Date(ms))), { discard: true })
      return Effect.zipRight(known, io.withPermits(1)(Effect.suspend(() => {
        const remaining = charges.map(stage)
        return Effect.onExit(Effect.asVoid(chargesWith(charges, alongside(remaining))), (exit) =>
          Effect.sync(() => written(charges, Exit.isSuccess(exit), true)))
      })))
    }

    /**
     * For a redo journal (`Journal`): `stage` counts a charge in memory at once, and `store` writes staged charges later
     * with `alongside`, in one statement; charges whose write fails stay staged (unwritten) for the next try.
     */
    const journal = {
      stage,
      unstage,
      store: (charges: ReadonlyArray<Charge>, alongside: Fragment): Effect.Effect<void, SqlError> =>
        io.withPermits(1)(Effect.suspend(() =>
          Effect.onExit(Effect.asVoid(chargesWith(charges, alongside)), (exit) =>
            Effect.sync(() => written(charges, Exit.isSuccess(exit), false)))))
    }

    const isStale = (state: OrgState | undefined, at: Date): boolean =>
      state === undefined || state.version !== OrgVersions.version(state.org.id) ||
      (Plans.plans[state.org.plan].renews && state.org.cycleEnd !== null && state.org.cycleEnd.getTime() <= at.getTime())

    /**
     * Reads the stored balance again (renewing an ended cycle first), with no write in flight. Reloads are serialised
     * and re-check under the lock, so concurrent reserves share one read and never drop each other's holds.
     */
    const reload = (orgId: string, at: Date) =>
      Effect.gen(function*() {
        return yield* io.withPermits(1)(Effect.gen(function*() {
          const current = states.get(orgId)
          if (current !== undefined && !isStale(current, at)) return current
          const version = OrgVersions.version(orgId)
          const rows = yield* sql<Record<string, unknown>>`SELECT * FROM organizations WHERE id = ${orgId}`
          if (rows[0] === undefined) return yield* Effect.die(new Error(`no organization ${orgId}`))
          let org = orgFromRow(rows[0])
          if (Plans.plans[org.plan].renews && org.cycleEnd !== null && org.cycleEnd.getTime() <= at.getTime()) org = yield* renew(orgId, at)
          // Holds and unwritten charges made while reading are kept: they are not in the row yet.
          const latest = states.get(orgId)
          const state: OrgState = {
            stored: org.creditsRemaining,
            unwritten: latest?.unwritten ?? 0,
            version,
            org,
            held: latest?.held ?? new Map()
          }
          states.set(orgId, state)
          return state
        }))
      })

    const stateOf = (orgId: string, at: Date) => {
      const state = states.get(orgId)
      return state === undefined || isStale(state, at) ? reload(orgId, at) : Effect.succeed(state)
    }

    const heldOf = (state: OrgState, at: number) => {
      let total = 0
      for (const [key, r] of state.held) {
        if (r.expires <= at) state.held.delete(key)
        else total += r.credits
      }
      return total
    }
    const remaining = (orgId: string) => {
      const state = states.get(orgId)
      return state === undefined ? 0 : state.stored - state.unwritten
    }

    return {
      reserve: (orgId, credits, options) =>
        Effect.clockWith((clock) => {
          const ms = clock.unsafeCurrentTimeMillis()
          const at = new Date(ms)
          // From the state on nothing yields: the check and the hold are one step (the clock read included).
          const hold = (state: OrgState): Effect.Effect<Reservation, UsageExceeded> => {
            const available = state.stored - state.unwritten - heldOf(state, ms)
            if (available < credits) return Effect.fail(new UsageExceeded({ needed: credits, available }))
            const reservation = { id: `res_${++reservations}`, orgId, credits }
            state.held.set(reservation.id, { credits, expires: ms + options.ttlMs })
            return Effect.succeed(reservation)
          }
          const state = states.get(orgId)
          return state === undefined || isStale(state, at) ? Effect.flatMap(reload(orgId, at), hold) : hold(state)
        }),
      journal,
      commit: (reservation, charge) => {
        let after = 0
        return Effect.map(
          settle([{ reservation, credits: charge.credits, requestId: charge.requestId }], (remaining) => {
            after = remaining[0]!
            return sql`SELECT 1`
          }),
          () => ({ remaining: after })
        )
      },
      settle,
      release: (reservation) =>
        Effect.sync(() => {
          states.get(reservation.orgId)?.held.delete(reservation.id)
          return { remaining: remaining(reservation.orgId) }
        }),
      balance: (orgId) =>
        Effect.flatMap(Clock.currentTimeMillis, (ms) =>
          Effect.map(stateOf(orgId, new Date(ms)), (state) => ({
            remaining: state.stored - state.unwritten,
            cycleStart: state.org.cycleStart,
            cycleEnd: state.org.cycleEnd
          })))
    }
  })
