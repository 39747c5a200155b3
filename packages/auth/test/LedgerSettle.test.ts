/**
 * `CreditLedger.settle`: a group of charges and the caller's own rows in one transaction, durable together or not at
 * all; each charge's balance as if charged one by one; the embedded ledger's memory agreeing with the database after
 * a failure. On PGlite and PostgreSQL.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { describe, expect, it } from "@effect/vitest"
import { Migrations } from "@sift/store"
import { Effect, Exit, Layer } from "effect"
import * as Auth from "../src/index.js"
import { backends, title, unique } from "../../store/test/support/backends.js"

const layerFor = (backend: (typeof backends)[number]) => {
  const database = Layer.tap(backend.layer(), (context) =>
    Effect.provide(Migrations.run({ store: Migrations.store, auth: Auth.migrations }), context))
  return Layer.fresh(Auth.layer).pipe(Layer.provideMerge(database))
}

const orgWith = (credits: number) =>
  Effect.gen(function*() {
    const accounts = yield* Auth.Accounts.Accounts
    const org = yield* accounts.createOrg({ name: `settle-${unique()}`, plan: "enterprise" })
    yield* accounts.setOverrides(org.id, { credits, requestsPerMinute: 1_000 })
    return org.id
  })

const storedOf = (orgId: string) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const [org] = yield* sql<{ credits_remaining: string | number }>`SELECT credits_remaining FROM organizations WHERE id = ${orgId}`
    const events = yield* sql<{ request_id: string; credits: string | number }>`SELECT request_id, credits FROM credit_events WHERE org_id = ${orgId} ORDER BY request_id`
    return { remaining: Number(org!.credits_remaining), events: events.map((e) => [e.request_id, Number(e.credits)]) }
  })

for (const backend of backends) {
  describe.skipIf(backend.skip !== undefined)(`CreditLedger.settle (${title(backend)})`, () => {
    it.layer(layerFor(backend), { timeout: 60_000 })((it) => {
      it.effect("charges a group with the caller's rows in one transaction; each charge reports its balance in order", () =>
        Effect.gen(function*() {
          const ledger = yield* Auth.CreditLedger.CreditLedger
          const sql = yield* SqlClient.SqlClient
          const table = `settle_rows_${unique()}`
          yield* sql`CREATE TABLE ${sql(table)} (id text PRIMARY KEY)`
          const a = yield* orgWith(100)
          const b = yield* orgWith(50)
          const charges = [
            { reservation: yield* ledger.reserve(a, 3, { ttlMs: 60_000 }), credits: 2, requestId: "a1" },
            { reservation: yield* ledger.reserve(b, 5, { ttlMs: 60_000 }), credits: 5, requestId: "b1" },
            // More than reserved is charged as reserved; nothing delivered charges nothing (and writes no event).
            { reservation: yield* ledger.reserve(a, 4, { ttlMs: 60_000 }), credits: 9, requestId: "a2" },
            { reservation: yield* ledger.reserve(a, 1, { ttlMs: 60_000 }), credits: 0, requestId: "a3" }
          ]
          let balances: ReadonlyArray<number> = []
          yield* ledger.settle(charges, (remaining) => {
            balances = remaining
            return sql`INSERT INTO ${sql(table)} (id) VALUES ('written')`
          })
          expect(balances).toEqual([98, 45, 94, 94])
          expect(yield* storedOf(a)).toEqual({ remaining: 94, events: [["a1", 2], ["a2", 4]] })
          expect(yield* storedOf(b)).toEqual({ remaining: 45, events: [["b1", 5]] })
          expect((yield* sql<{ id: string }>`SELECT id FROM ${sql(table)}`).map((r) => r.id)).toEqual(["written"])
          // The reservations are gone: all of the rest is available again.
          expect((yield* ledger.balance(a)).remaining).toBe(94)
          yield* ledger.release(yield* ledger.reserve(a, 94, { ttlMs: 60_000 }))
        }))

      it.effect("when the caller's statement fails nothing is charged, in the database or in the balance; the reservation can be released", () =>
        Effect.gen(function*() {
          const ledger = yield* Auth.CreditLedger.CreditLedger
          const sql = yield* SqlClient.SqlClient
          const a = yield* orgWith(10)
          const reservation = yield* ledger.reserve(a, 4, { ttlMs: 60_000 })
          const failed = yield* Effect.exit(ledger.settle([{ reservation, credits: 4, requestId: "lost" }], () =>
            sql`INSERT INTO ${sql(`missing_${unique()}`)} (id) VALUES ('x')`))
          expect(Exit.isFailure(failed)).toBe(true)
          expect(yield* storedOf(a)).toEqual({ remaining: 10, events: [] })
          yield* ledger.release(reservation)
          expect((yield* ledger.balance(a)).remaining).toBe(10)
          // All ten can be reserved and charged: the failed charge left nothing behind in memory either.
          const all = yield* ledger.reserve(a, 10, { ttlMs: 60_000 })
          expect((yield* ledger.commit(all, { credits: 10, requestId: "all" })).remaining).toBe(0)
          expect(yield* storedOf(a)).toEqual({ remaining: 0, events: [["all", 10]] })
        }))

      it.effect("without charges only the caller's statement runs", () =>
        Effect.gen(function*() {
          const ledger = yield* Auth.CreditLedger.CreditLedger
          const sql = yield* SqlClient.SqlClient
          const table = `settle_alone_${unique()}`
          yield* sql`CREATE TABLE ${sql(table)} (id text PRIMARY KEY)`
          yield* ledger.settle([], (remaining) => sql`INSERT INTO ${sql(table)} (id) VALUES (${String(remaining.length)})`)
          expect((yield* sql<{ id: string }>`SELECT id FROM ${sql(table)}`).map((r) => r.id)).toEqual(["0"])
        }))

      it.effect("settleWith (PostgreSQL): charges and the caller's statement as one, given each charge's balance as a relation", () =>
        Effect.gen(function*() {
          const ledger = yield* Auth.CreditLedger.CreditLedger
          if (ledger.settleWith === undefined) return expect(backend.name).toBe("pglite")
          const sql = yield* SqlClient.SqlClient
          const table = `settle_with_${unique()}`
          yield* sql`CREATE TABLE ${sql(table)} (id text PRIMARY KEY, remaining bigint NOT NULL)`
          const a = yield* orgWith(100)
          const b = yield* orgWith(50)
          const charges = [
            { reservation: yield* ledger.reserve(a, 3, { ttlMs: 60_000 }), credits: 2, requestId: "a1" },
            { reservation: yield* ledger.reserve(b, 5, { ttlMs: 60_000 }), credits: 5, requestId: "b1" },
            { reservation: yield* ledger.reserve(a, 4, { ttlMs: 60_000 }), credits: 9, requestId: "a2" },
            { reservation: yield* ledger.reserve(a, 1, { ttlMs: 60_000 }), credits: 0, requestId: "a3" }
          ]
          const balances = yield* ledger.settleWith(charges, (relation) =>
            sql`INSERT INTO ${sql(table)} (id, remaining) SELECT 'charge' || i, remaining FROM ${relation}`)
          // As `settle`: each as if charged one by one, in order; and the caller's rows got the same numbers.
          expect(balances).toEqual([98, 45, 94, 94])
          const rows = yield* sql<{ id: string; remaining: string | number }>`SELECT id, remaining FROM ${sql(table)} ORDER BY id`
          expect(rows.map((r) => [r.id, Number(r.remaining)])).toEqual([["charge0", 98], ["charge1", 45], ["charge2", 94], ["charge3", 94]])
          expect(yield* storedOf(a)).toEqual({ remaining: 94, events: [["a1", 2], ["a2", 4]] })
          expect(yield* storedOf(b)).toEqual({ remaining: 45, events: [["b1", 5]] })
          const [left] = yield* sql<{ n: string | number }>`SELECT count(*) AS n FROM credit_reservations WHERE org_id IN (${a}, ${b})`
          expect(Number(left!.n)).toBe(0)
        }))

      it.effect("settleWith (PostgreSQL): when the caller's statement fails nothing is charged and the reservation stays to release", () =>
        Effect.gen(function*() {
          const ledger = yield* Auth.CreditLedger.CreditLedger
          if (ledger.settleWith === undefined) return expect(backend.name).toBe("pglite")
          const sql = yield* SqlClient.SqlClient
          const table = `settle_with_${unique()}`
          yield* sql`CREATE TABLE ${sql(table)} (id text PRIMARY KEY, remaining bigint NOT NULL CHECK (remaining < 0))`
          const a = yield* orgWith(10)
          const reservation = yield* ledger.reserve(a, 4, { ttlMs: 60_000 })
          // The row breaks its table's check only once the charge's balance is known: the charge is undone with it.
          const failed = yield* Effect.exit(ledger.settleWith([{ reservation, credits: 4, requestId: "lost" }], (relation) =>
            sql`INSERT INTO ${sql(table)} (id, remaining) SELECT 'x', remaining FROM ${relation}`))
          expect(Exit.isFailure(failed)).toBe(true)
          expect(yield* storedOf(a)).toEqual({ remaining: 10, events: [] })
          const [held] = yield* sql<{ n: string | number }>`SELECT count(*) AS n FROM credit_reservations WHERE id = ${reservation.id}`
          expect(Number(held!.n)).toBe(1)
          yield* ledger.release(reservation)
          expect((yield* ledger.balance(a)).remaining).toBe(10)
          const all = yield* ledger.reserve(a, 10, { ttlMs: 60_000 })
          yield* ledger.release(all)
        }))

      it.effect("a commit is durable when it returns (no charge left for a later write)", () =>
        Effect.gen(function*() {
          const ledger = yield* Auth.CreditLedger.CreditLedger
          const a = yield* orgWith(5)
          expect((yield* ledger.commit(yield* ledger.reserve(a, 2, { ttlMs: 60_000 }), { credits: 2, requestId: "now" })).remaining).toBe(3)
          expect(yield* storedOf(a)).toEqual({ remaining: 3, events: [["now", 2]] })
        }))
    })
  })
}
