/**
 * Credits per organization. A request reserves what it may cost before any work (a row with an expiry, so a process
 * killed mid-request never charges), then charges what it delivered and releases the rest. On PostgreSQL each step is
 * one statement (shared with the others in flight: reservations and charges are group commits) and none holds a lock
 * across the request: `reserve` updates the organization's hold counter
 * (`credit_holds`) only if its balance, read from the organization's row without locking it, covers what is already
 * held plus the new hold; `commit` charges one request, and `settle` a whole group in one transaction with a statement
 * of the caller's (`settleWith`: in the same statement, given the balances as a SQL relation; the request log's rows),
 * so a charge and its log row are durable together before the answer is sent. A charge moves the reservation's credits from held to settled on the organization's row (`credits_settled`,
 * beside the balance), so a reservation that reads the row before a charge committed sees the hold still held: never
 * more than is there, whatever the replicas. Charges are never written with `synchronous_commit = off`; holds and
 * releases are (a crash empties the unlogged holds and reservations together). Monthly cycles renew lazily at the first
 * reservation after a cycle ends; the free plan's credits never renew.
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
import { Clock, Deferred, Effect, Exit, FiberId } from "effect"
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
  /** The float it was reserved from (PostgreSQL, large balances): its credits are held by the float's row. */
  readonly float?: string
}

/** Balances (as a process last saw them) from which its reservations are made from floats on PostgreSQL. */
export const FLOAT_FROM = 16_384

/** Credits one float holds. */
export const FLOAT_CREDITS = 256

/** How long a float is held at most: what a crashed process's float keeps held. */
export const FLOAT_TTL_MS = 5 * 60_000

/** A float unused this long is given back. */
export const FLOAT_IDLE_MS = 1_000

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
     * Locks the organization's row and renews its cycle when one has ended (once, however many replicas find it ended).
     * A renewal lost in a database crash is made again by the next reservation, so it need not wait for the disk.
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

    if (backend === "pglite") {
      // One process owns an embedded database (the data-directory lock): exact in memory, charges written behind.
      return yield* Embedded.make(sql, (orgId, at) => sql.withTransaction(lockOrg(orgId, at)))
    }

    // The hot statements' text is the same whatever the group: kept prepared on each connection (parsed and planned once).
    const prepared = sql.literal(Sql.PREPARED)

    // Plans whose credits renew: a reservation after such an organization's cycle ended renews it first (rarely).
    const renewingPlans = `{${Object.entries(Plans.plans).filter(([, plan]) => plan.renews).map(([name]) => name).join(",")}}`
    const renewing = sql.literal(`(${Object.entries(Plans.plans).filter(([, plan]) => plan.renews).map(([name]) => `'${name}'`).join(", ")})`)

    /**
     * One statement: holds `credits` if the organization's balance, less what is held, covers them. The hold counter is
     * the row updated (locked for this statement only, committed without waiting for the disk: a reservation lost in a
     * database crash is what a crashed request leaves anyway, and the crash empties the unlogged holds with it); the
     * organization's row is only read, so a charge in flight (which holds that row until its WAL is flushed) never
     * delays a reservation. The row read may be older than the counter, never newer: a charge moves credits out of
     * the balance and its reservation's credits into `credits_settled` in one update, so an older row only counts a
     * settled hold as still held (a reservation sees less, never more, than is there).
     */
    const tryReserve = (orgId: string, credits: number, at: Date, reservation: Reservation, expires: Date) =>
      Effect.map(
        sql<{ added: string | number; due: boolean; holds: boolean; available: string | number | null }>`
          WITH o AS (SELECT credits_remaining, credits_settled, (plan IN ${renewing} AND cycle_end IS NOT NULL AND cycle_end <= ${at}) AS due
            FROM organizations WHERE id = ${orgId}),
          h AS (
            UPDATE credit_holds h SET reserved = h.reserved + ${credits}::bigint FROM o
            WHERE h.org_id = ${orgId} AND NOT o.due
              AND o.credits_remaining + o.credits_settled - h.settled_base - h.reserved >= ${credits}::bigint
            RETURNING h.reserved
          ),
          added AS (
            INSERT INTO credit_reservations (id, org_id, credits, expires_at)
            SELECT ${reservation.id}, ${orgId}, ${credits}::bigint, ${expires}::timestamptz FROM h RETURNING id
          )
          SELECT set_config('synchronous_commit', 'off', true) AS async_commit, (SELECT count(*) FROM added) AS added, o.due,
            hs.org_id IS NOT NULL AS holds, o.credits_remaining + o.credits_settled - hs.settled_base - hs.reserved AS available
          FROM o LEFT JOIN credit_holds hs ON hs.org_id = ${orgId}`,
        (rows) => rows[0]
      )

    /**
     * `tryReserve` for a group of requests (of one or several organizations) as one call of `sift_credit_reserve`
     * (migration `auth/0007`, a function so its plan is kept per connection): the organizations' hold
     * counters locked in id order and read as they are now (a lock in a CTE returns the row's newest version, which the
     * update below then changes), each organization's requests granted in order while their running sum fits its
     * balance. Which items were granted (their indexes); the others go through `tryReserve` alone, which also renews a
     * cycle, makes a missing counter and sweeps lapsed holds.
     */
    const reserveGroup = (items: ReadonlyArray<{ readonly id: string; readonly orgId: string; readonly credits: number; readonly expires: Date }>) =>
      Effect.flatMap(now, (at) =>
        Effect.map(
          sql<{ granted: ReadonlyArray<number> | string | null }>`${prepared}
            SELECT set_config('synchronous_commit', 'off', true) AS async_commit, sift_credit_reserve(
              ${JSON.stringify(items.map((item, i) => ({ i, id: item.id, org_id: item.orgId, credits: item.credits, expires_at: item.expires.toISOString() })))}::json,
              ${at}, ${renewingPlans}::text[]) AS granted`,
          (rows) => {
            const granted = rows[0]?.granted ?? []
            const indexes = new Set<number>(typeof granted === "string" ? JSON.parse(granted) : granted)
            return items.map((_, i) => indexes.has(i))
          }
        ))

    // Reservations made meanwhile share one statement: one organization's requests in flight take its counter's lock
    // once a group instead of once each (each handing it to the next), which capped one organization's charged requests.
    const reservations = yield* GroupCommit.make<{ readonly id: string; readonly orgId: string; readonly credits: number; readonly expires: Date }, boolean, SqlError>({
      maxBatch: 256,
      write: reserveGroup
    })

    /** Holds `credits` for a request in the database (with the group of reservations made meanwhile). */
    const reserveExact = (orgId: string, credits: number, options: { readonly ttlMs: number }): Effect.Effect<Reservation, UsageExceeded | SqlError> =>
      Effect.gen(function*() {
        const at = yield* now
        const reservation = { id: id("res_"), orgId, credits }
        const expires = new Date(at.getTime() + options.ttlMs)
        // Usually granted with the group of reservations made meanwhile.
        if (yield* reservations.submit({ id: reservation.id, orgId, credits, expires })) return reservation
        let swept = false
        // Otherwise alone: an ended cycle is renewed, a missing hold counter (a new organization, or after a
        // database crash emptied them with the reservations) is made, lapsed reservations are released, and it goes again.
        for (let attempt = 0;; attempt++) {
          const row = yield* tryReserve(orgId, credits, at, reservation, expires)
          if (row === undefined) return yield* Effect.die(new Error(`no organization ${orgId}`))
          if (Number(row.added) > 0) return reservation
          const available = row.available === null ? 0 : Number(row.available)
          if (attempt >= 3) return yield* new UsageExceeded({ needed: credits, available })
          if (row.due) {
            yield* sql.withTransaction(lockOrg(orgId, at))
          } else if (!row.holds) {
            yield* sql`INSERT INTO credit_holds (org_id, reserved, settled_base)
              SELECT id, 0, credits_settled FROM organizations WHERE id = ${orgId} ON CONFLICT (org_id) DO NOTHING`
          } else if (swept || !(yield* sweep(orgId, at))) {
            return yield* new UsageExceeded({ needed: credits, available })
          } else {
            swept = true
          }
        }
      })

    /**
     * Floats: for an organization whose balance (as this process last saw it, after its own charges) is at least
     * `FLOAT_FROM`, the process holds `FLOAT_CREDITS` at once (one reservation row, granted like any other) and
     * reserves its requests' credits from them in memory. A charge draws what its request held from the float's row; a
     * float is given back when it is spent, unused for `FLOAT_IDLE_MS`, when the balance falls below `FLOAT_FROM`, and
     * when the process stops; a crashed process's float lapses after `FLOAT_TTL_MS`. What another replica can be
     * refused early is this process's unused float, and only while the balance is that low: never more than there is.
     */
    interface Float {
      readonly id: string
      readonly orgId: string
      readonly expiresAt: number
      /** Credits of the float not reserved by a request. */
      left: number
      /** Wall-clock time of its last use. */
      idleSince: number
    }
    const floats = new Map<string, Float>()
    /** The balance each organization had after this process's last charge of it. */
    const known = new Map<string, number>()
    /** Organizations whose float is being taken: their other reservations wait for it. */
    const taking = new Map<string, Deferred.Deferred<void>>()

    /** Gives back `credits` of a float (its unreserved part, or a request's unused hold); the row goes once empty. */
    const giveBack = (floatId: string, credits: number) =>
      credits <= 0 ? Effect.void : Effect.asVoid(sql`${prepared} SELECT sift_credit_float_release(${floatId}, ${credits}::bigint)`)

    /** Takes the float out of use; what it had not reserved, to give back. */
    const detach = (float: Float): number => {
      if (floats.get(float.orgId) === float) floats.delete(float.orgId)
      const left = float.left
      float.left = 0
      return left
    }

    /** Ends the organization's float: what it has not reserved is given back (in the background; it lapses otherwise). */
    const retire = (float: Float) => {
      const left = detach(float)
      if (left > 0) Effect.runFork(Effect.ignoreLogged(giveBack(float.id, left)))
    }

    const noteBalances = (orgOf: (i: number) => string, remaining: ReadonlyArray<number>) => {
      for (let i = 0; i < remaining.length; i++) known.set(orgOf(i), remaining[i]!)
      if (floats.size === 0) return
      for (let i = 0; i < remaining.length; i++) {
        const float = floats.get(orgOf(i))
        if (float !== undefined && remaining[i]! < FLOAT_FROM) retire(float)
      }
    }

    const reserve = (orgId: string, credits: number, options: { readonly ttlMs: number }): Effect.Effect<Reservation, UsageExceeded | SqlError> =>
      Effect.clockWith((clock) => {
        const nowMs = clock.unsafeCurrentTimeMillis()
        const float = floats.get(orgId)
        if (float !== undefined && float.left >= credits && float.expiresAt - nowMs > options.ttlMs) {
          float.left -= credits
          float.idleSince = Date.now()
          return Effect.succeed<Reservation>({ id: float.id, orgId, credits, float: float.id })
        }
        if (credits <= 0 || credits > FLOAT_CREDITS / 4 || options.ttlMs > FLOAT_TTL_MS / 2 || (known.get(orgId) ?? 0) < FLOAT_FROM) {
          return reserveExact(orgId, credits, options)
        }
        const pending = taking.get(orgId)
        if (pending !== undefined) return Effect.zipRight(Deferred.await(pending), reserve(orgId, credits, options))
        // A new float: the spent (or expiring) one's remainder goes back.
        if (float !== undefined) retire(float)
        const taken = Deferred.unsafeMake<void>(FiberId.none)
        taking.set(orgId, taken)
        const next: Float = { id: id("flt_"), orgId, expiresAt: nowMs + FLOAT_TTL_MS, left: FLOAT_CREDITS, idleSince: Date.now() }
        const take = Effect.flatMap(
          reservations.submit({ id: next.id, orgId, credits: FLOAT_CREDITS, expires: new Date(next.expiresAt) }),
          (granted): Effect.Effect<Reservation, UsageExceeded | SqlError> => {
            if (!granted) {
              // Not that much available: this process reserves one by one until a charge shows a large balance again.
              known.set(orgId, 0)
              return reserveExact(orgId, credits, options)
            }
            next.left -= credits
            floats.set(orgId, next)
            return Effect.succeed({ id: next.id, orgId, credits, float: next.id })
          }
        )
        return Effect.ensuring(take, Effect.suspend(() => {
          taking.delete(orgId)
          return Deferred.done(taken, Exit.void)
        }))
      })

    // Floats unused for a while are given back (another replica may need their credits), and all of them at the end.
    // On a timer of wall-clock time, whatever clock the fibers are given (a test's clock is not the one that idles).
    yield* Effect.acquireRelease(
      Effect.sync(() => {
        const timer = setInterval(() => {
          const nowMs = Date.now()
          for (const float of [...floats.values()]) if (nowMs - float.idleSince >= FLOAT_IDLE_MS) retire(float)
        }, FLOAT_IDLE_MS / 2)
        timer.unref()
        return timer
      }),
      (timer) => Effect.sync(() => clearInterval(timer))
    )
    yield* Effect.addFinalizer(() =>
      Effect.forEach([...floats.values()], (float) => Effect.ignore(giveBack(float.id, detach(float))), { discard: true }))

    /** Releases the organization's lapsed reservations (their holds, not charged); whether there were any. */
    const sweep = (orgId: string, at: Date) =>
      Effect.map(
        sql<{ reserved: string | number }>`
          WITH lapsed AS (DELETE FROM credit_reservations WHERE org_id = ${orgId} AND expires_at <= ${at} RETURNING credits)
          UPDATE credit_holds SET reserved = reserved - s.credits
          FROM (SELECT SUM(credits)::bigint AS credits FROM lapsed) s WHERE org_id = ${orgId} AND s.credits IS NOT NULL
          RETURNING reserved, set_config('synchronous_commit', 'off', true) AS async_commit`,
        (rows) => rows.length > 0
      )

    /**
     * The charges of a group as one statement, `sift_credit_charge` (migration `auth/0007`): each reservation deleted (its credits, if it had not lapsed, become
     * settled), each organization charged what was delivered, one event per charge; the organizations' rows locked in id
     * order first (an init plan of the update), so two replicas' groups never deadlock; the commit made to wait for the
     * WAL. One row per organization charged (and one with nulls when none is).
     */
    const charging = (items: ReadonlyArray<{ reservation_id: string; org_id: string; request_id: string; credits: number }>, inline = false) =>
      sql<{ id: string | null; credits_remaining: string | number | null }>`
        SELECT c.org AS id, c.remaining AS credits_remaining FROM (SELECT ${GroupCommit.synchronousCommit(sql)} AS durable) d
        LEFT JOIN LATERAL sift_credit_charge(${inline ? literalJson(items) : JSON.stringify(items)}::json) c ON true`

    /** A JSON value as a string literal, for a statement sent without parameters (`E'…'`, quotes doubled: read alike whatever the server's settings). */
    const literalJson = (value: unknown) => sql.literal(`E'${JSON.stringify(value).replace(/\\/g, "\\\\").replace(/'/g, "''")}'`)

    /**
     * `settle` in a transaction of its own: `BEGIN` and the charges go as one message (no parameters, so PostgreSQL
     * takes both at once), then the caller's statement, then `COMMIT`: three round trips for the group.
     */
    const settleOwn = (charges: ReadonlyArray<Charge>, alongside: (remaining: ReadonlyArray<number>) => Fragment) =>
      Effect.scoped(Effect.gen(function*() {
        const connection = yield* sql.reserve
        const items = charges.map(itemOf)
        const [text] = charging(items, true).compile()
        yield* Effect.onError(
          Effect.gen(function*() {
            const results = yield* connection.executeUnprepared(`BEGIN; ${text}`, [], undefined)
            const rows = results[1] as ReadonlyArray<{ id: string | null; credits_remaining: string | number | null }>
            // The caller's statement on this connection, inside the transaction.
            yield* Effect.provideService(sql`${alongside(balancesOf(items, rows))}`, SqlClient.TransactionConnection, [connection, 1])
            yield* connection.executeUnprepared("COMMIT", [], undefined)
          }),
          () => Effect.ignore(connection.executeUnprepared("ROLLBACK", [], undefined))
        )
      }))

    /**
     * `settleWith`: the charges, each one's balance and the caller's statement as ONE statement, sent alone (autocommit:
     * one transaction, one round trip for the group, its commit made to wait for the WAL; all of it or none). `balances`
     * is what `balancesOf` computes, in SQL: the balance after the group plus the organization's later charges in it.
     * The caller's statement is a data-modifying CTE, which PostgreSQL runs whether or not it is read.
     */
    const settleOne = (charges: ReadonlyArray<Charge>, statement: (balances: Fragment) => Fragment): Effect.Effect<ReadonlyArray<number>, SqlError> => {
      const items = JSON.stringify(charges.map((charge, i) => ({ ...itemOf(charge), i })))
      return Effect.map(
        sql<{ i: number; remaining: string | number }>`${prepared}
          WITH charged AS MATERIALIZED (
            SELECT c.org, c.remaining FROM (SELECT ${GroupCommit.synchronousCommit(sql)} AS durable) d
            LEFT JOIN LATERAL sift_credit_charge(${items}::json) c ON true
          ),
          sift_balances AS MATERIALIZED (
            SELECT t.i, COALESCE(c.remaining, 0) + COALESCE(SUM(t.credits) OVER (PARTITION BY t.org_id ORDER BY t.i DESC
              ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0) AS remaining
            FROM json_to_recordset(${items}::json) AS t(i int, org_id text, credits bigint) LEFT JOIN charged c ON c.org = t.org_id
          ),
          written AS (${statement(sql.literal("sift_balances"))})
          SELECT i, remaining FROM sift_balances ORDER BY i`,
        (rows) => {
          const remaining: Array<number> = new Array(charges.length).fill(0)
          for (const row of rows) remaining[Number(row.i)] = Number(row.remaining)
          noteBalances((i) => charges[i]!.reservation.orgId, remaining)
          return remaining
        }
      )
    }

    /** `settle` as statements of a transaction (the caller's, when there is one). */
    const settleIn = (charges: ReadonlyArray<Charge>, alongside: (remaining: ReadonlyArray<number>) => Fragment): Effect.Effect<void, SqlError> =>
      sql.withTransaction(Effect.gen(function*() {
        if (charges.length === 0) {
          yield* sql`SELECT ${GroupCommit.synchronousCommit(sql)} AS durable`
          return yield* sql`${alongside([])}`
        }
        const items = charges.map(itemOf)
        const rows = yield* charging(items)
        return yield* sql`${alongside(balancesOf(items, rows))}`
      })).pipe(Effect.asVoid)

    const itemOf = (charge: Charge) => ({
      reservation_id: charge.reservation.id,
      org_id: charge.reservation.orgId,
      request_id: charge.requestId,
      credits: chargeOf(charge.reservation, charge),
      ...(charge.reservation.float === undefined ? {} : { float_id: charge.reservation.float, held: charge.reservation.credits })
    })

    /** Each charge's balance as if the group were charged one by one, in order, from the balances after the group. */
    const balancesOf = (items: ReadonlyArray<{ org_id: string; credits: number }>, rows: ReadonlyArray<{ id: string | null; credits_remaining: string | number | null }>) => {
      // The balance after the group plus the organization's charges that come after it.
      const after = new Map(rows.filter((row) => row.id !== null).map((row) => [row.id!, Number(row.credits_remaining)]))
      const later = new Map<string, number>()
      const remaining: Array<number> = new Array(items.length)
      for (let i = items.length - 1; i >= 0; i--) {
        const item = items[i]!
        remaining[i] = (after.get(item.org_id) ?? 0) + (later.get(item.org_id) ?? 0)
        later.set(item.org_id, (later.get(item.org_id) ?? 0) + item.credits)
      }
      noteBalances((i) => items[i]!.org_id, remaining)
      return remaining
    }

    // Single commits (monitors, scripts) share one statement and one WAL flush with the commits made meanwhile.
    const commits = yield* GroupCommit.make<ReturnType<typeof itemOf>, number, SqlError>({
      maxBatch: 1_000,
      write: (batch) => Effect.map(charging(batch), (rows) => balancesOf(batch, rows))
    })

    /**
     * Debits `credits` in the caller's transaction (committed or rolled back with it). The organization's hold counter
     * takes the debit as a hold settled at once (`reserved` and `credits_settled` both grow by it, the balance falls
     * by it), so a reservation racing the open transaction waits on the counter's row and then counts the debit, even
     * when it reads the organization's row from before the commit. `upTo`: what the balance allows instead of failing.
     */
    const debitIn = (orgId: string, credits: number, requestId: string, options: { readonly upTo?: boolean } = {}) =>
      Effect.gen(function*() {
        const at = yield* now
        yield* sql`INSERT INTO credit_holds (org_id, reserved, settled_base)
          SELECT id, 0, credits_settled FROM organizations WHERE id = ${orgId} ON CONFLICT (org_id) DO NOTHING`
        const [hold] = yield* sql<{ reserved: string | number; settled_base: string | number }>`
          SELECT reserved, settled_base FROM credit_holds WHERE org_id = ${orgId} FOR UPDATE`
        // The organization's row locked (renewed first when its cycle ended): the debit below reads what it changes.
        const org = yield* lockOrg(orgId, at)
        const [settled] = yield* sql<{ credits_settled: string | number }>`SELECT credits_settled FROM organizations WHERE id = ${orgId}`
        const available = org.creditsRemaining + Number(settled?.credits_settled ?? 0) - Number(hold?.settled_base ?? 0) - Number(hold?.reserved ?? 0)
        const amount = options.upTo === true ? Math.min(credits, Math.max(0, available)) : credits
        if (amount > available) return yield* new UsageExceeded({ needed: credits, available })
        // lockOrg turned synchronous_commit off for the transaction; a debit must wait for the disk.
        yield* sql`SELECT ${GroupCommit.synchronousCommit(sql)} AS durable`
        if (amount > 0) {
          yield* sql`
            WITH held AS (UPDATE credit_holds SET reserved = reserved + ${amount}::bigint WHERE org_id = ${orgId}),
            charged AS (UPDATE organizations SET credits_remaining = credits_remaining - ${amount}::bigint,
              credits_settled = credits_settled + ${amount}::bigint WHERE id = ${orgId})
            INSERT INTO credit_events (org_id, request_id, credits) VALUES (${orgId}, ${requestId}, ${amount}::bigint)`
        }
        return { debited: amount, remaining: org.creditsRemaining - amount }
      })

    /** Credits `credits` back in the caller's transaction (a negative credit event records it). */
    const refund = (orgId: string, credits: number, requestId: string) =>
      Effect.gen(function*() {
        if (credits <= 0) {
          const [row] = yield* sql<{ credits_remaining: string | number }>`SELECT credits_remaining FROM organizations WHERE id = ${orgId}`
          return { remaining: Number(row?.credits_remaining ?? 0) }
        }
        const [row] = yield* sql<{ credits_remaining: string | number }>`
          WITH credited AS (UPDATE organizations SET credits_remaining = credits_remaining + ${credits}::bigint WHERE id = ${orgId} RETURNING credits_remaining),
          events AS (INSERT INTO credit_events (org_id, request_id, credits) VALUES (${orgId}, ${requestId}, ${-credits}::bigint))
          SELECT credits_remaining, ${GroupCommit.synchronousCommit(sql)} AS durable FROM credited`
        return { remaining: Number(row?.credits_remaining ?? 0) }
      })

    return {
      /**
       * Runs `effect` as one SQL transaction in which `debitIn` and `refund` move credits with the caller's own
       * statements: all of it commits, or none. Not to be started inside another transaction.
       */
      transaction: <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E | SqlError, Exclude<R, Embedded.OpenTransaction>> =>
        sql.withTransaction(effect) as Effect.Effect<A, E | SqlError, Exclude<R, Embedded.OpenTransaction>>,
      /**
       * Debits `credits` for request `requestId` inside `transaction` (all of them, or `USAGE_EXCEEDED` and nothing;
       * `upTo`: what the balance allows). For charges a handler makes in a transaction of its own (batches).
       */
      debitIn: debitIn as (orgId: string, credits: number, requestId: string, options?: { readonly upTo?: boolean }) => Effect.Effect<Embedded.Debited, UsageExceeded | SqlError>,
      /** Credits `credits` back for request `requestId` inside `transaction`. */
      refund: refund as (orgId: string, credits: number, requestId: string) => Effect.Effect<{ remaining: number }, SqlError>,
      /**
       * Holds `credits` for a request, or fails with `USAGE_EXCEEDED` when they are not available: from this process's
       * float for the organization when it has one that covers them (no round trip), else in the database.
       */
      reserve,
      /**
       * Charges what was delivered (at most what was reserved) and releases the reservation, durable when this
       * completes: one statement, shared with the commits made meanwhile (a group commit). It charges even when the
       * reservation has already lapsed (the work was delivered), so callers commit once.
       */
      commit: (reservation: Reservation, charge: { readonly credits: number; readonly requestId: string }) =>
        Effect.map(commits.submit(itemOf({ reservation, credits: charge.credits, requestId: charge.requestId })), (remaining) => ({ remaining })),
      /**
       * Charges a group of requests and writes `alongside` (a statement, given each charge's remaining balance in
       * order) in one transaction: all of it is durable when this completes, or none of it. Three round trips for the
       * group: `BEGIN` with the charges (the organizations' rows locked in id order, so two replicas' groups never
       * deadlock), `alongside`, `COMMIT`.
       */
      settle: (charges: ReadonlyArray<Charge>, alongside: (remaining: ReadonlyArray<number>) => Fragment): Effect.Effect<void, SqlError> =>
        Effect.flatMap(Effect.serviceOption(SqlClient.TransactionConnection), (outer) =>
          // Inside a caller's transaction (or with nothing to charge) its statements are added to that transaction.
          outer._tag === "None" && charges.length > 0 ? Effect.uninterruptible(settleOwn(charges, alongside)) : settleIn(charges, alongside)),
      /**
       * `settle` as one statement (inside a caller's transaction, one more of its statements): the charges and `statement`, a data-modifying
       * statement (an `INSERT`, run as a CTE) given `balances`, a relation `(i integer, remaining bigint)` of each
       * charge's balance after it (`i`: its index in `charges`) as if the group were charged one by one in order. One
       * round trip: all of it durable when this completes (the commit waits for the WAL), or none of it. Those balances,
       * in order. Only on PostgreSQL (undefined on the embedded ledger).
       */
      settleWith: ((charges, statement) => Effect.uninterruptible(settleOne(charges, statement))) as Embedded.SettleWith | undefined,
      /** Only the embedded ledger keeps charges in memory for a redo journal. */
      journal: undefined as Embedded.JournalPart | undefined,
      /** Releases a reservation without charging (one from a float goes back to it, or to its row once it ended). */
      release: (reservation: Reservation) =>
        reservation.float !== undefined ? Effect.zipRight(
          Effect.suspend(() => {
            const float = floats.get(reservation.orgId)
            if (float === undefined || float.id !== reservation.float) return giveBack(reservation.float!, reservation.credits)
            float.left += reservation.credits
            return Effect.void
          }),
          Effect.map(sql<{ credits_remaining: string | number }>`SELECT credits_remaining FROM organizations WHERE id = ${reservation.orgId}`,
            (rows) => ({ remaining: Number(rows[0]?.credits_remaining ?? 0) }))
        ) : Effect.map(
          sql<{ credits_remaining: string | number }>`
            WITH released AS (DELETE FROM credit_reservations WHERE id = ${reservation.id} RETURNING org_id, credits),
            freed AS (UPDATE credit_holds h SET reserved = h.reserved - r.credits FROM released r WHERE h.org_id = r.org_id)
            SELECT set_config('synchronous_commit', 'off', true) AS async_commit, credits_remaining FROM organizations WHERE id = ${reservation.orgId}`,
          (rows) => ({ remaining: Number(rows[0]?.credits_remaining ?? 0) })
        ),
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
