/**
 * The PostgreSQL ledger's charge path: a charged request costs at most two round trips (reserve, commit), reservations
 * in flight together share one statement, a group of settled requests shares one transaction, and a reservation never waits for the organization's row (which a charge
 * in flight, on this replica or another, holds until its WAL is on disk). Round trips are counted by a relay in front
 * of the server that reads the client's side of the wire protocol. And a database crash (which empties the unlogged
 * holds and reservations) leaves nothing held and every balance exact.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { describe, expect, it } from "@effect/vitest"
import { Migrations, Sql } from "@sift/store"
import { Effect, Exit, Layer, Redacted } from "effect"
import * as Auth from "../src/index.js"
import { postgresUrl, unique } from "./support/database.js"
import { countRoundTrips, type RoundTripCounter } from "./support/roundTrips.js"

const layerAt = (url: string) =>
  Layer.fresh(Auth.layer).pipe(Layer.provideMerge(Layer.tap(Sql.layerPg({ url: Redacted.make(url) }), (context) =>
    Effect.provide(Migrations.run({ store: Migrations.store, auth: Auth.migrations }), context))))

const orgWith = (credits: number) =>
  Effect.gen(function*() {
    const accounts = yield* Auth.Accounts.Accounts
    const org = yield* accounts.createOrg({ name: `trips-${unique()}`, plan: "enterprise" })
    yield* accounts.setOverrides(org.id, { credits })
    return org.id
  })

const relay = Effect.acquireRelease(Effect.promise(() => countRoundTrips(postgresUrl!)), (r) => Effect.promise(() => r.close()))
const tripsOf = <A, E, R>(counter: RoundTripCounter, effect: Effect.Effect<A, E, R>) =>
  Effect.gen(function*() {
    const before = counter.count()
    const value = yield* effect
    return { value, trips: counter.count() - before }
  })

describe.skipIf(postgresUrl === null)("credit ledger on PostgreSQL: round trips and row locks", () => {
  it.scoped("reserve is one round trip, commit one, release one; a group of eight settles costs one transaction", () =>
    Effect.gen(function*() {
      const counter = yield* relay
      const context = yield* Layer.build(layerAt(counter.url))
      yield* Effect.provide(Effect.gen(function*() {
        const ledger = yield* Auth.CreditLedger.CreditLedger
        const sql = yield* SqlClient.SqlClient
        const orgId = yield* orgWith(100)
        // The first reservation of an organization may set up its counters; every later one is one statement.
        yield* ledger.release(yield* ledger.reserve(orgId, 1, { ttlMs: 60_000 }))
        const reserved = yield* tripsOf(counter, ledger.reserve(orgId, 3, { ttlMs: 60_000 }))
        expect(reserved.trips).toBe(1)
        const committed = yield* tripsOf(counter, ledger.commit(reserved.value, { credits: 2, requestId: `r-${unique()}` }))
        expect(committed.value).toEqual({ remaining: 98 })
        expect(committed.trips).toBe(1)
        const released = yield* tripsOf(counter, Effect.flatMap(ledger.reserve(orgId, 5, { ttlMs: 60_000 }), ledger.release))
        expect(released.value).toEqual({ remaining: 98 })
        expect(released.trips).toBe(2)

        const table = `trips_rows_${unique()}`
        yield* sql`CREATE TABLE ${sql(table)} (id text PRIMARY KEY, remaining bigint NOT NULL)`
        // Eight reservations in flight at once share a statement (the first may go alone, the others wait for it).
        const grouped = yield* tripsOf(counter, Effect.forEach(Array.from({ length: 8 }, (_, i) => i), () => ledger.reserve(orgId, 2, { ttlMs: 60_000 }), { concurrency: 8 }))
        expect(grouped.trips).toBeLessThanOrEqual(2)
        const holds = grouped.value
        expect(new Set(holds.map((hold) => hold.id)).size).toBe(8)
        const settled = yield* tripsOf(counter, ledger.settle(
          holds.map((reservation, i) => ({ reservation, credits: 1, requestId: `g${i}-${unique()}` })),
          (remaining) => sql`INSERT INTO ${sql(table)} (id, remaining) SELECT * FROM json_to_recordset(${JSON.stringify(remaining.map((n, i) => ({ id: `g${i}`, remaining: n })))}::json) AS t(id text, remaining bigint)`
        ))
        // BEGIN with the charges, the caller's rows, COMMIT: 3 for the group.
        expect(settled.trips).toBe(3)
        expect((yield* sql<{ remaining: string }>`SELECT remaining FROM ${sql(table)} ORDER BY id`).map((r) => Number(r.remaining)))
          .toEqual([97, 96, 95, 94, 93, 92, 91, 90])
        // Every hold was released by its charge: the whole balance can be held again, not a credit more.
        expect((yield* ledger.balance(orgId)).remaining).toBe(90)
        expect(Exit.isFailure(yield* Effect.exit(ledger.reserve(orgId, 91, { ttlMs: 60_000 })))).toBe(true)
        yield* ledger.release(yield* ledger.reserve(orgId, 90, { ttlMs: 60_000 }))

        // The charges go without parameters: ids with quotes, backslashes and other text arrive as they were.
        const odd = `o'k\\'' \\n "q" ü ${unique()}\n`
        yield* ledger.settle([{ reservation: yield* ledger.reserve(orgId, 1, { ttlMs: 60_000 }), credits: 1, requestId: odd }], () => sql`SELECT 1`)
        expect((yield* sql<{ request_id: string }>`SELECT request_id FROM credit_events WHERE org_id = ${orgId} AND credits = 1 ORDER BY id DESC LIMIT 1`)[0]?.request_id)
          .toBe(odd)
      }), context)
    }), { timeout: 60_000 })

  it.scopedLive("a reservation does not wait for the organization's row: another transaction holding it leaves reserve and release free", () =>
    Effect.gen(function*() {
      const replica = yield* Layer.build(layerAt(postgresUrl!))
      const other = yield* Layer.build(Sql.layerPg({ url: Redacted.make(postgresUrl!) }))
      const orgId = yield* Effect.provide(orgWith(10), replica)
      const ledger = Effect.provide(Auth.CreditLedger.CreditLedger, replica)
      yield* Effect.provide(Effect.flatMap(ledger, (l) => Effect.flatMap(l.reserve(orgId, 1, { ttlMs: 60_000 }), l.release)), replica)
      // A transaction of another connection holds the organization's row, as a charge waiting for its WAL flush does.
      const locked = yield* Effect.makeLatch()
      const done = yield* Effect.makeLatch()
      const holder = yield* Effect.fork(Effect.provide(Effect.flatMap(SqlClient.SqlClient, (sql) =>
        sql.withTransaction(Effect.gen(function*() {
          yield* sql`SELECT id FROM organizations WHERE id = ${orgId} FOR UPDATE`
          yield* locked.open
          yield* done.await
        }))), other))
      yield* locked.await
      // Had a reservation waited for the row, the holder lets go after 10 s (and the test fails) rather than never.
      let waited = false
      yield* Effect.fork(Effect.delay(Effect.zipRight(Effect.sync(() => (waited = true)), done.open), "10 seconds"))
      const outcome = yield* Effect.provide(Effect.flatMap(ledger, (l) =>
        Effect.gen(function*() {
          const a = yield* l.reserve(orgId, 6, { ttlMs: 60_000 })
          const refused = yield* Effect.exit(l.reserve(orgId, 5, { ttlMs: 60_000 }))
          yield* l.release(a)
          const b = yield* l.reserve(orgId, 10, { ttlMs: 60_000 })
          return { a: a.credits, refused: Exit.isFailure(refused), b: b.credits }
        })), replica)
      const heldThroughout = !waited
      yield* done.open
      yield* holder.await
      expect({ ...outcome, heldThroughout }).toEqual({ a: 6, refused: true, b: 10, heldThroughout: true })
    }), { timeout: 60_000 })

  it.scoped("a database crash empties holds and reservations together: nothing stays held, a late charge is still taken once", () =>
    Effect.gen(function*() {
      const context = yield* Layer.build(layerAt(postgresUrl!))
      yield* Effect.provide(Effect.gen(function*() {
        const ledger = yield* Auth.CreditLedger.CreditLedger
        const sql = yield* SqlClient.SqlClient
        const orgId = yield* orgWith(10)
        const before = yield* ledger.reserve(orgId, 4, { ttlMs: 60_000 })
        yield* ledger.commit(yield* ledger.reserve(orgId, 1, { ttlMs: 60_000 }), { credits: 1, requestId: `r-${unique()}` })
        const inFlight = yield* ledger.reserve(orgId, 3, { ttlMs: 60_000 })
        expect(Exit.isFailure(yield* Effect.exit(ledger.reserve(orgId, 3, { ttlMs: 60_000 })))).toBe(true)
        // What crash recovery does to unlogged tables (this organization's rows only: other tests share the database).
        yield* sql`DELETE FROM credit_reservations WHERE org_id = ${orgId}`
        yield* sql`DELETE FROM credit_holds WHERE org_id = ${orgId}`
        // Nothing is held any more: all 9 can be held again.
        yield* ledger.release(yield* ledger.reserve(orgId, 9, { ttlMs: 60_000 }))
        // A request that survived the crash delivers: charged, and the hold it no longer has is not freed a second time.
        expect(yield* ledger.commit(inFlight, { credits: 2, requestId: `r-${unique()}` })).toEqual({ remaining: 7 })
        yield* ledger.release(before)
        const all = yield* ledger.reserve(orgId, 7, { ttlMs: 60_000 })
        expect(Exit.isFailure(yield* Effect.exit(ledger.reserve(orgId, 1, { ttlMs: 60_000 })))).toBe(true)
        expect(yield* ledger.commit(all, { credits: 7, requestId: `r-${unique()}` })).toEqual({ remaining: 0 })
        expect(Exit.isFailure(yield* Effect.exit(ledger.reserve(orgId, 1, { ttlMs: 60_000 })))).toBe(true)
      }), context)
    }), { timeout: 60_000 })

  it.scoped("groups settled at once by two replicas over the same organizations in opposite orders never deadlock, and charge exactly", () =>
    Effect.gen(function*() {
      const replicas = [yield* Layer.build(layerAt(postgresUrl!)), yield* Layer.build(layerAt(postgresUrl!))]
      const [a, b] = [yield* Effect.provide(orgWith(1_000), replicas[0]!), yield* Effect.provide(orgWith(1_000), replicas[0]!)]
      const group = (replica: number, orgs: ReadonlyArray<string>, round: number) =>
        Effect.provide(Effect.gen(function*() {
          const ledger = yield* Auth.CreditLedger.CreditLedger
          const sql = yield* SqlClient.SqlClient
          const charges = yield* Effect.forEach(orgs, (orgId, i) =>
            Effect.map(ledger.reserve(orgId, 2, { ttlMs: 60_000 }), (reservation) => ({ reservation, credits: 1, requestId: `d${replica}-${round}-${i}-${unique()}` })))
          yield* ledger.settle(charges, () => sql`SELECT 1`)
        }), replicas[replica]!)
      for (let round = 0; round < 20; round++) {
        yield* Effect.all([group(0, [a!, b!, a!], round), group(1, [b!, a!, b!], round)], { concurrency: 2 })
      }
      const balances = yield* Effect.provide(Effect.flatMap(Auth.CreditLedger.CreditLedger, (ledger) =>
        Effect.all([ledger.balance(a!), ledger.balance(b!)])), replicas[1]!)
      expect(balances.map((balance) => balance.remaining)).toEqual([940, 940])
      // Every hold was settled: the whole balance can be held again.
      yield* Effect.provide(Effect.flatMap(Auth.CreditLedger.CreditLedger, (ledger) =>
        Effect.flatMap(ledger.reserve(a!, 940, { ttlMs: 60_000 }), ledger.release)), replicas[0]!)
    }), { timeout: 60_000 })

  it.scoped("a group of reservations is granted in order while it fits; one that does not fit is tried alone, so a later smaller one still gets what is left", () =>
    Effect.gen(function*() {
      const context = yield* Layer.build(layerAt(postgresUrl!))
      yield* Effect.provide(Effect.gen(function*() {
        const ledger = yield* Auth.CreditLedger.CreditLedger
        const orgId = yield* orgWith(6)
        yield* ledger.release(yield* ledger.reserve(orgId, 1, { ttlMs: 60_000 }))
        // Two organizations in one group: each one's balance counts only its own requests.
        const other = yield* orgWith(3)
        yield* ledger.release(yield* ledger.reserve(other, 1, { ttlMs: 60_000 }))
        const asked = [[orgId, 4], [other, 3], [orgId, 4], [orgId, 1], [other, 1]] as const
        const outcomes = yield* Effect.forEach(asked, ([org, credits]) =>
          Effect.map(Effect.exit(ledger.reserve(org, credits, { ttlMs: 60_000 })), (exit) => Exit.isSuccess(exit) ? credits : 0), { concurrency: 5 })
        expect(outcomes).toEqual([4, 3, 0, 1, 0])
        // Held: 5 of 6 and 3 of 3; nothing more fits until they are released.
        expect(Exit.isFailure(yield* Effect.exit(ledger.reserve(orgId, 2, { ttlMs: 60_000 })))).toBe(true)
        yield* ledger.release(yield* ledger.reserve(orgId, 1, { ttlMs: 60_000 }))
        expect(Exit.isFailure(yield* Effect.exit(ledger.reserve(other, 1, { ttlMs: 60_000 })))).toBe(true)
        expect((yield* ledger.balance(orgId)).remaining).toBe(6)
      }), context)
    }), { timeout: 60_000 })
})
