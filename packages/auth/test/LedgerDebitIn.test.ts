/**
 * Credits moved inside a caller's transaction (`CreditLedger.transaction`, `debitIn`, `refund`; what batches use), on
 * embedded PGlite (balances exact in memory) and PostgreSQL: a debit commits or rolls back with the caller's rows and
 * the balance in memory follows either way; a reservation racing an open debit never gets the debited credits.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { describe, expect, it } from "@effect/vitest"
import { Deferred, Effect, Exit, Fiber } from "effect"
import * as Auth from "../src/index.js"
import { backends, codeOf, layerFor, title, unique } from "./support/database.js"

const orgWith = (credits: number) =>
  Effect.gen(function*() {
    const accounts = yield* Auth.Accounts.Accounts
    const org = yield* accounts.createOrg({ name: `org-${unique()}`, plan: "enterprise" })
    yield* accounts.setOverrides(org.id, { credits })
    return org.id
  })

const ledger = Auth.CreditLedger.CreditLedger
const remaining = (orgId: string) => Effect.flatMap(ledger, (l) => Effect.map(l.balance(orgId), (b) => b.remaining))
/** The balance as stored, and the credit events of a request id. */
const stored = (orgId: string, requestId: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.all({
      balance: Effect.map(sql<{ credits_remaining: string | number }>`SELECT credits_remaining FROM organizations WHERE id = ${orgId}`, (rows) => Number(rows[0]!.credits_remaining)),
      events: Effect.map(sql<{ credits: string | number }>`SELECT credits FROM credit_events WHERE request_id = ${requestId} ORDER BY id`, (rows) => rows.map((r) => Number(r.credits)))
    }))

for (const backend of backends) {
  describe.skipIf(backend.skip !== undefined)(`credits moved in a caller's transaction (${title(backend)})`, () => {
    it.layer(layerFor(backend), { timeout: 60_000 })((it) => {
      it.effect("a debit commits with the caller's statements; a rolled-back one leaves memory and database as they were", () =>
        Effect.gen(function*() {
          const l = yield* ledger
          const sql = yield* SqlClient.SqlClient
          const orgId = yield* orgWith(10)
          yield* sql`CREATE TABLE IF NOT EXISTS debit_test_rows (id text PRIMARY KEY)`
          const kept = `req-${unique()}`
          const debited = yield* l.transaction(Effect.gen(function*() {
            yield* sql`INSERT INTO debit_test_rows (id) VALUES (${kept})`
            return yield* l.debitIn(orgId, 4, kept)
          }))
          expect(debited).toEqual({ debited: 4, remaining: 6 })
          expect(yield* remaining(orgId)).toBe(6)
          expect(yield* stored(orgId, kept)).toEqual({ balance: 6, events: [4] })

          const lost = `req-${unique()}`
          const failed = yield* Effect.exit(l.transaction(Effect.gen(function*() {
            yield* sql`INSERT INTO debit_test_rows (id) VALUES (${lost})`
            yield* l.debitIn(orgId, 5, lost)
            return yield* Effect.fail("the caller's work failed" as const)
          })))
          expect(Exit.isFailure(failed)).toBe(true)
          expect(yield* remaining(orgId)).toBe(6)
          expect(yield* stored(orgId, lost)).toEqual({ balance: 6, events: [] })
          expect(yield* sql`SELECT id FROM debit_test_rows WHERE id = ${lost}`).toEqual([])
          // The rolled-back debit holds nothing back: all six can be reserved.
          const all = yield* l.reserve(orgId, 6, { ttlMs: 60_000 })
          yield* l.release(all)
        }))

      it.effect("USAGE_EXCEEDED stores nothing; upTo debits what the balance allows; a refund credits back on commit only", () =>
        Effect.gen(function*() {
          const l = yield* ledger
          const orgId = yield* orgWith(5)
          const refused = yield* Effect.flip(l.transaction(l.debitIn(orgId, 6, "too-much")))
          expect(codeOf(refused)).toBe("USAGE_EXCEEDED")
          expect(refused).toMatchObject({ needed: 6, available: 5 })
          expect(yield* remaining(orgId)).toBe(5)

          const ocr = `ocr-${unique()}`
          expect(yield* l.transaction(l.debitIn(orgId, 8, ocr, { upTo: true }))).toEqual({ debited: 5, remaining: 0 })
          expect(yield* stored(orgId, ocr)).toEqual({ balance: 0, events: [5] })

          const back = `refund-${unique()}`
          yield* Effect.exit(l.transaction(Effect.zipRight(l.refund(orgId, 3, back), Effect.fail("rolled back" as const))))
          expect(yield* remaining(orgId)).toBe(0)
          yield* l.transaction(l.refund(orgId, 3, back))
          expect(yield* remaining(orgId)).toBe(3)
          expect(yield* stored(orgId, back)).toEqual({ balance: 3, events: [-3] })
        }))

      it.effect("a reservation racing an open debit cannot take the debited credits", () =>
        Effect.gen(function*() {
          const l = yield* ledger
          const orgId = yield* orgWith(10)
          // The organization's hold counter exists before (as it does after its first request).
          yield* l.release(yield* l.reserve(orgId, 1, { ttlMs: 60_000 }))
          const debited = yield* Deferred.make<void>()
          const release = yield* Deferred.make<void>()
          const open = yield* Effect.fork(l.transaction(Effect.gen(function*() {
            yield* l.debitIn(orgId, 8, `race-${unique()}`)
            yield* Deferred.succeed(debited, undefined)
            yield* Deferred.await(release)
          })))
          yield* Deferred.await(debited)
          // Racing the open transaction (on PostgreSQL it waits for the hold counter's row; let it go after a while).
          const racing = yield* Effect.fork(Effect.exit(l.reserve(orgId, 5, { ttlMs: 60_000 })))
          yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 300)))
          yield* Deferred.succeed(release, undefined)
          yield* Fiber.join(open)
          const raced = yield* Fiber.join(racing)
          expect(Exit.isFailure(raced)).toBe(true)
          expect(yield* remaining(orgId)).toBe(2)
          const rest = yield* l.reserve(orgId, 2, { ttlMs: 60_000 })
          expect(codeOf(yield* Effect.flip(l.reserve(orgId, 1, { ttlMs: 60_000 })))).toBe("USAGE_EXCEEDED")
          yield* l.release(rest)
        }))
    })
  })
}
