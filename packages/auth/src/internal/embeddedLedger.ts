/**
 * The credit ledger on embedded PGlite. The data-directory lock guarantees one process owns the database, so balances
 * and reservations are exact in memory: reserving and committing touch no database on the hot path. Charges are
 * written behind in batches (one transaction for many requests) and flushed on shutdown; a SIGKILL loses at most the
 * charges of the last few milliseconds (never a charge for undelivered work). The stored balance is read again after
 * any change made through `Accounts` (plan, override, status) and when a cycle ends.
 */
import type * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import { WriteBehind } from "@sift/store"
import { Clock, Effect, type Scope } from "effect"
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

/** Rows per `credit_events` insert (three parameters each, far below PostgreSQL's 65,535). */
const MAX_ROWS = 5_000

interface Charge {
  readonly orgId: string
  readonly credits: number
  readonly requestId: string
}

/** Builds the embedded ledger; `renew` renews a cycle in the database (the shared ledger's locked transaction). */
export const make = (
  sql: SqlClient.SqlClient,
  renew: (orgId: string, at: Date) => Effect.Effect<Org, SqlError>
): Effect.Effect<{
  reserve: (orgId: string, credits: number, options: { readonly ttlMs: number }) => Effect.Effect<Reservation, UsageExceeded | SqlError>
  commit: (reservation: Reservation, charge: { readonly credits: number; readonly requestId: string }) => Effect.Effect<{ remaining: number }, SqlError>
  release: (reservation: Reservation) => Effect.Effect<{ remaining: number }, SqlError>
  balance: (orgId: string) => Effect.Effect<{ remaining: number; cycleStart: Date; cycleEnd: Date | null }, SqlError>
}, never, Scope.Scope> =>
  Effect.gen(function*() {
    const states = new Map<string, OrgState>()
    // Reservations never leave this process: a counter names them (no random bytes on every request).
    let reservations = 0
    // Writing charges and reading a balance afresh exclude each other, so "stored minus unwritten" stays exact.
    const io = yield* Effect.makeSemaphore(1)

    const write = (charges: ReadonlyArray<Charge>) =>
      io.withPermits(1)(Effect.gen(function*() {
        const byOrg = new Map<string, number>()
        for (const charge of charges) byOrg.set(charge.orgId, (byOrg.get(charge.orgId) ?? 0) + charge.credits)
        yield* sql.withTransaction(Effect.gen(function*() {
          for (const [orgId, credits] of byOrg) {
            yield* sql`UPDATE organizations SET credits_remaining = credits_remaining - ${credits} WHERE id = ${orgId}`
          }
          // One JSON parameter per statement: no placeholder per value to compile on the request thread.
          for (let i = 0; i < charges.length; i += MAX_ROWS) {
            const rows = charges.slice(i, i + MAX_ROWS).map((c) => ({ org_id: c.orgId, request_id: c.requestId, credits: c.credits }))
            yield* sql`INSERT INTO credit_events (org_id, request_id, credits)
              SELECT org_id, request_id, credits FROM json_to_recordset(${JSON.stringify(rows)}::json) AS t(org_id text, request_id text, credits bigint)`
          }
        }))
        for (const [orgId, credits] of byOrg) {
          const state = states.get(orgId)
          if (state !== undefined) {
            state.stored -= credits
            state.unwritten -= credits
          }
        }
      }))
    // Charges are written behind, one transaction per burst (`WriteBehind`: none lost at shutdown). A batch the
    // database refuses is kept for the next write: a charge is never dropped because the database failed once.
    const pending = yield* WriteBehind.make<Charge>({
      linger: "25 millis",
      maxBatch: MAX_ROWS,
      write: (batch) =>
        Effect.catchAll(Effect.as(write(batch), []), (error) =>
          Effect.as(Effect.logError("credit ledger: writing charges failed", error), batch))
    })
    const writeAll = pending.drain

    const isStale = (state: OrgState | undefined, at: Date): boolean =>
      state === undefined || state.version !== OrgVersions.version(state.org.id) ||
      (Plans.plans[state.org.plan].renews && state.org.cycleEnd !== null && state.org.cycleEnd.getTime() <= at.getTime())

    /**
     * Reads the stored balance again (renewing an ended cycle first), with no write in flight. Reloads are serialised
     * and re-check under the lock, so concurrent reserves share one read and never drop each other's holds.
     */
    const reload = (orgId: string, at: Date) =>
      Effect.gen(function*() {
        yield* writeAll
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
      commit: (reservation, charge) =>
        Effect.sync(() => {
          const state = states.get(reservation.orgId)
          state?.held.delete(reservation.id)
          const credits = Math.max(0, Math.min(Math.floor(charge.credits), reservation.credits))
          if (credits > 0) {
            if (state !== undefined) state.unwritten += credits
            pending.offer({ orgId: reservation.orgId, credits, requestId: charge.requestId })
          }
          return { remaining: remaining(reservation.orgId) }
        }),
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
