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
import { Clock, Context, Effect, Exit, Option, type Scope } from "effect"
import { type Org, orgFromRow } from "../Accounts.js"
import { UsageExceeded } from "../AuthErrors.js"
import * as Plans from "../Plans.js"
import * as OrgVersions from "./orgVersions.js"

interface Reservation {
  readonly id: string
  readonly orgId: string
  readonly credits: number
  /** Only the PostgreSQL ledger reserves from floats. */
  readonly float?: string
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

/**
 * The ledger's part of an open `transaction`: what its debits and refunds do to the balances in memory once the
 * transaction commits (or undo, if it rolls back). Internal: only `transaction` provides it.
 */
export class OpenTransaction extends Context.Tag("@sift/auth/CreditLedger/OpenTransaction")<OpenTransaction, {
  readonly owner: object
  readonly outcomes: Array<(committed: boolean) => void>
}>() {}

/** The movements of a `debitIn` (what was debited) and the balance after it. */
export interface Debited {
  readonly debited: number
  readonly remaining: number
}

/** Credits a charge takes: what was delivered, at most what was reserved. */
export const chargeOf = (reservation: Reservation, charge: { readonly credits: number }): number =>
  Math.max(0, Math.min(Math.floor(charge.credits), reservation.credits))

/** `CreditLedger.settleWith`: charges and a statement given their balances as a SQL relation, as one statement. */
export type SettleWith = (
  charges: ReadonlyArray<Charge>,
  statement: (balances: Fragment) => Fragment
) => Effect.Effect<ReadonlyArray<number>, SqlError>

/** Builds the embedded ledger; `renew` renews a cycle in the database (the shared ledger's locked transaction). */
export const make = (
  sql: SqlClient.SqlClient,
  renew: (orgId: string, at: Date) => Effect.Effect<Org, SqlError>
): Effect.Effect<{
  reserve: (orgId: string, credits: number, options: { readonly ttlMs: number }) => Effect.Effect<Reservation, UsageExceeded | SqlError>
  commit: (reservation: Reservation, charge: { readonly credits: number; readonly requestId: string }) => Effect.Effect<{ remaining: number }, SqlError>
  settle: (charges: ReadonlyArray<Charge>, alongside: (remaining: ReadonlyArray<number>) => Fragment) => Effect.Effect<void, SqlError>
  settleWith: SettleWith | undefined
  journal: JournalPart | undefined
  release: (reservation: Reservation) => Effect.Effect<{ remaining: number }, SqlError>
  balance: (orgId: string) => Effect.Effect<{ remaining: number; cycleStart: Date; cycleEnd: Date | null }, SqlError>
  transaction: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E | SqlError, Exclude<R, OpenTransaction>>
  debitIn: (orgId: string, credits: number, requestId: string, options?: { readonly upTo?: boolean }) => Effect.Effect<Debited, UsageExceeded | SqlError>
  refund: (orgId: string, credits: number, requestId: string) => Effect.Effect<{ remaining: number }, SqlError>
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
    const reload = (orgId: string, at: Date) => io.withPermits(1)(reloadHeld(orgId, at))

    /** `reload` for a fiber that holds `io` already (an open `transaction`). */
    const reloadHeld = (orgId: string, at: Date) =>
      Effect.gen(function*() {
        return yield* Effect.gen(function*() {
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
        })
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

    const owner = {}

    /** The open `transaction` of this ledger the caller runs in; a debit or refund outside one is a defect. */
    const openTransaction = Effect.flatMap(Effect.serviceOption(OpenTransaction), (open) =>
      Option.isSome(open) && open.value.owner === owner
        ? Effect.succeed(open.value)
        : Effect.dieMessage("CreditLedger.debitIn and refund run inside CreditLedger.transaction"))

    /**
     * One transaction whose debits and refunds are exact in memory: it holds `io` (so no balance is read afresh
     * between its commit and the memory catching up; the same order as `settle`, `io` then the database), and applies
     * each movement to memory once it has committed, or takes a debit back if it rolled back. Never nest it in a
     * transaction already open (that would take the database before `io`).
     */
    const transaction = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E | SqlError, Exclude<R, OpenTransaction>> =>
      io.withPermits(1)(Effect.suspend(() => {
        const open = { owner, outcomes: [] as Array<(committed: boolean) => void> }
        return Effect.onExit(
          sql.withTransaction(Effect.provideService(effect, OpenTransaction, open)),
          (exit) => Effect.sync(() => open.outcomes.forEach((outcome) => outcome(Exit.isSuccess(exit))))
        )
      }))

    /**
     * Debits `credits` inside the open transaction: counted at once as unwritten (concurrent reservations see it), the
     * charge written with the caller's statements, stored once they commit, taken back if they roll back. `upTo`:
     * debit what the balance allows instead of failing.
     */
    const debitIn = (orgId: string, credits: number, requestId: string, options: { readonly upTo?: boolean } = {}) =>
      Effect.gen(function*() {
        const open = yield* openTransaction
        const ms = yield* Clock.currentTimeMillis
        const current = states.get(orgId)
        const state = current === undefined || isStale(current, new Date(ms)) ? yield* reloadHeld(orgId, new Date(ms)) : current
        const available = state.stored - state.unwritten - heldOf(state, ms)
        const amount = options.upTo === true ? Math.min(credits, Math.max(0, available)) : credits
        if (amount > available) return yield* new UsageExceeded({ needed: credits, available })
        if (amount > 0) {
          yield* sql`
            WITH charged AS (UPDATE organizations SET credits_remaining = credits_remaining - ${amount}::bigint WHERE id = ${orgId})
            INSERT INTO credit_events (org_id, request_id, credits) VALUES (${orgId}, ${requestId}, ${amount}::bigint)`
          state.unwritten += amount
          open.outcomes.push((committed) => {
            if (committed) state.stored -= amount
            state.unwritten -= amount
          })
        }
        return { debited: amount, remaining: state.stored - state.unwritten }
      })

    /** Credits `credits` back inside the open transaction; memory counts them once it has committed. */
    const refund = (orgId: string, credits: number, requestId: string) =>
      Effect.gen(function*() {
        const open = yield* openTransaction
        if (credits <= 0) return { remaining: remaining(orgId) }
        yield* sql`
          WITH credited AS (UPDATE organizations SET credits_remaining = credits_remaining + ${credits}::bigint WHERE id = ${orgId})
          INSERT INTO credit_events (org_id, request_id, credits) VALUES (${orgId}, ${requestId}, ${-credits}::bigint)`
        open.outcomes.push((committed) => {
          const state = states.get(orgId)
          if (committed && state !== undefined) state.stored += credits
        })
        return { remaining: remaining(orgId) + credits }
      })

    return {
      transaction,
      debitIn,
      refund,
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
      // One process owns the database: its charges are written by `settle` (or journaled), never as one statement.
      settleWith: undefined,
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
