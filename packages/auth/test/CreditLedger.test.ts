/**
 * The credit ledger through its public interface only (`reserve`, `commit`, `release`, `balance`), on embedded PGlite
 * (exact in memory) and on PostgreSQL (row locks, across pools): holds, charges, releases, lapses and exactness
 * under concurrency.
 */
import { describe, expect, it } from "@effect/vitest"
import * as SqlClient from "@effect/sql/SqlClient"
import { Effect, Exit, Layer, TestClock } from "effect"
import * as Auth from "../src/index.js"
import { backends, codeOf, layerFor, title, unique } from "./support/database.js"

/** An organization with exactly `credits` to spend (enterprise, so no plan default and no renewal in the way). */
const orgWith = (credits: number) =>
  Effect.gen(function*() {
    const accounts = yield* Auth.Accounts.Accounts
    const org = yield* accounts.createOrg({ name: `org-${unique()}`, plan: "enterprise" })
    yield* accounts.setOverrides(org.id, { credits })
    return org.id
  })

const ledger = Auth.CreditLedger.CreditLedger
const remaining = (orgId: string) => Effect.flatMap(ledger, (l) => Effect.map(l.balance(orgId), (b) => b.remaining))
const reserve = (orgId: string, credits: number, ttlMs = 60_000) => Effect.flatMap(ledger, (l) => l.reserve(orgId, credits, { ttlMs }))

for (const backend of backends) {
  describe.skipIf(backend.skip !== undefined)(`credit ledger (${title(backend)})`, () => {
    it.layer(layerFor(backend), { timeout: 60_000 })((it) => {
      it.effect("reserve holds credits without charging; what is held cannot be reserved again; USAGE_EXCEEDED says what is left", () =>
        Effect.gen(function*() {
          const orgId = yield* orgWith(10)
          const held = yield* reserve(orgId, 7)
          expect(held).toMatchObject({ orgId, credits: 7 })
          expect(yield* remaining(orgId)).toBe(10)
          const refused = yield* Effect.flip(reserve(orgId, 4))
          expect(codeOf(refused)).toBe("USAGE_EXCEEDED")
          expect(refused).toMatchObject({ needed: 4, available: 3 })
          expect((yield* reserve(orgId, 3)).credits).toBe(3)
          expect(codeOf(yield* Effect.flip(reserve(orgId, 1)))).toBe("USAGE_EXCEEDED")
        }))

      it.effect("commit charges what was delivered, at most what was reserved, and frees the rest; release charges nothing", () =>
        Effect.gen(function*() {
          const l = yield* ledger
          const orgId = yield* orgWith(20)
          const a = yield* reserve(orgId, 5)
          expect(yield* l.commit(a, { credits: 3, requestId: `r-${unique()}` })).toEqual({ remaining: 17 })
          const b = yield* reserve(orgId, 5)
          // Delivered more than reserved: charged the reservation, never more.
          expect(yield* l.commit(b, { credits: 9, requestId: `r-${unique()}` })).toEqual({ remaining: 12 })
          const c = yield* reserve(orgId, 5)
          expect(yield* l.commit(c, { credits: 0, requestId: `r-${unique()}` })).toEqual({ remaining: 12 })
          const d = yield* reserve(orgId, 12)
          expect(yield* l.release(d)).toEqual({ remaining: 12 })
          // Everything released or committed: the whole balance can be held again.
          expect((yield* reserve(orgId, 12)).credits).toBe(12)
          expect(yield* remaining(orgId)).toBe(12)
        }))

      it.effect("a reservation never committed lapses at its expiry (a crashed request charges nothing); a late commit still charges", () =>
        Effect.gen(function*() {
          const l = yield* ledger
          const orgId = yield* orgWith(10)
          yield* TestClock.setTime(Date.UTC(2031, 2, 1))
          const crashed = yield* reserve(orgId, 10, 30_000)
          expect(codeOf(yield* Effect.flip(reserve(orgId, 1)))).toBe("USAGE_EXCEEDED")
          yield* TestClock.adjust(29_000)
          expect(codeOf(yield* Effect.flip(reserve(orgId, 1)))).toBe("USAGE_EXCEEDED")
          yield* TestClock.adjust(1_001)
          const after = yield* reserve(orgId, 10, 30_000)
          expect(yield* remaining(orgId)).toBe(10)
          yield* l.release(after)
          // The crashed request's work was delivered after all: committing its lapsed reservation charges it.
          expect(yield* l.commit(crashed, { credits: 4, requestId: `r-${unique()}` })).toEqual({ remaining: 6 })
        }))

      it.effect("200 concurrent 1-credit reservations on 100 credits: exactly 100 succeed, and nothing is charged until commit", () =>
        Effect.gen(function*() {
          const l = yield* ledger
          const orgId = yield* orgWith(100)
          const outcomes = yield* Effect.all(Array.from({ length: 200 }, () => Effect.exit(reserve(orgId, 1))), { concurrency: "unbounded" })
          const held = outcomes.filter(Exit.isSuccess).map((exit) => exit.value)
          expect(held).toHaveLength(100)
          expect(new Set(held.map((r) => r.id)).size).toBe(100)
          expect(outcomes.filter(Exit.isFailure).every((exit) => JSON.stringify(exit).includes("UsageExceeded"))).toBe(true)
          expect(yield* remaining(orgId)).toBe(100)
          // Half committed, half released, all at once: exactly 50 charged.
          yield* Effect.all(held.map((r, i) => i % 2 === 0 ? l.commit(r, { credits: 1, requestId: `c${i}` }) : l.release(r)), { concurrency: "unbounded" })
          expect(yield* remaining(orgId)).toBe(50)
          // And the 50 left are exactly what the next burst can hold.
          const next = yield* Effect.all(Array.from({ length: 80 }, () => Effect.exit(reserve(orgId, 1))), { concurrency: "unbounded" })
          expect(next.filter(Exit.isSuccess)).toHaveLength(50)
        }))

      it.effect("concurrent reservations of mixed sizes never hold more than the balance", () =>
        Effect.gen(function*() {
          const orgId = yield* orgWith(100)
          const sizes = Array.from({ length: 60 }, (_, i) => 1 + (i * 7) % 9)
          const outcomes = yield* Effect.all(sizes.map((n) => Effect.exit(reserve(orgId, n))), { concurrency: "unbounded" })
          const held = outcomes.filter(Exit.isSuccess).reduce((sum, exit) => sum + exit.value.credits, 0)
          expect(held).toBeLessThanOrEqual(100)
          // A refusal only when the request could not fit; nothing is released, so what is left at the end is smaller
          // than every refused size.
          const refusedSizes = sizes.filter((_, i) => Exit.isFailure(outcomes[i]!))
          expect(refusedSizes.length).toBeGreaterThan(0)
          expect(100 - held).toBeLessThan(Math.min(...refusedSizes))
          expect(yield* remaining(orgId)).toBe(100)
        }))
    })
  })
}

const postgres = backends.find((backend) => backend.name === "postgres")!

describe.skipIf(postgres.skip !== undefined)(`credit ledger across two connection pools (${title(postgres)})`, () => {
  it.scoped("200 concurrent 1-credit reservations on 100 credits split over two replicas: exactly 100 succeed", () =>
    Effect.gen(function*() {
      const replicas = [yield* Layer.build(layerFor(postgres)), yield* Layer.build(layerFor(postgres))]
      const orgId = yield* Effect.provide(orgWith(100), replicas[0]!)
      const outcomes = yield* Effect.all(
        Array.from({ length: 200 }, (_, i) => Effect.exit(Effect.provide(reserve(orgId, 1), replicas[i % 2]!))),
        { concurrency: "unbounded" }
      )
      expect(outcomes.filter(Exit.isSuccess)).toHaveLength(100)
      for (const replica of replicas) expect(yield* Effect.provide(remaining(orgId), replica)).toBe(100)
    }), { timeout: 60_000 })
})

const onPostgres = backends.find((backend) => backend.name === "postgres")!

describe.skipIf(onPostgres.skip !== undefined)(`credit floats for large balances (${title(onPostgres)})`, () => {
  const { FLOAT_CREDITS, FLOAT_FROM, FLOAT_IDLE_MS } = Auth.CreditLedger
  /** What the database holds for the organization: its reservation rows' credits, and its hold counter's held credits. */
  const heldOf = (orgId: string) =>
    Effect.flatMap(SqlClient.SqlClient, (sql) =>
      Effect.map(sql<{ rows: string | number; held: string | number }>`
        SELECT (SELECT COALESCE(SUM(credits), 0) FROM credit_reservations WHERE org_id = ${orgId}) AS rows,
          (SELECT h.reserved - (o.credits_settled - h.settled_base) FROM credit_holds h JOIN organizations o ON o.id = h.org_id
            WHERE h.org_id = ${orgId}) AS held`, ([row]) => ({ rows: Number(row!.rows), held: Number(row!.held) })))

  it.scoped("after a charge shows a large balance, reservations come from one float; charges, releases and the idle give-back leave nothing held", () =>
    Effect.gen(function*() {
      const replica = yield* Layer.build(layerFor(onPostgres))
      const run = <A, E>(effect: Effect.Effect<A, E, any>) => Effect.provide(effect, replica) as Effect.Effect<A, E>
      const l = yield* run(ledger)
      const orgId = yield* run(orgWith(FLOAT_FROM + 1_000))
      // The first reservation is exact: the process has not seen the balance yet.
      const first = yield* run(reserve(orgId, 1))
      expect(first.float).toBeUndefined()
      yield* run(l.commit(first, { credits: 1, requestId: `r-${unique()}` }))
      const fromFloat = yield* run(reserve(orgId, 2))
      expect(fromFloat.float).toMatch(/^flt_/)
      // One row holds the float's credits; the request's are part of them.
      expect(yield* run(heldOf(orgId))).toEqual({ rows: FLOAT_CREDITS, held: FLOAT_CREDITS })
      const more = yield* Effect.forEach(Array.from({ length: 100 }), () => run(reserve(orgId, 1)))
      expect(new Set(more.map((r) => r.float))).toEqual(new Set([fromFloat.float]))
      expect(yield* run(heldOf(orgId))).toEqual({ rows: FLOAT_CREDITS, held: FLOAT_CREDITS })
      // Charged what was delivered (at most what was held), each with its event; a release goes back to the float.
      expect(yield* run(l.commit(fromFloat, { credits: 5, requestId: `r-${unique()}` }))).toEqual({ remaining: FLOAT_FROM + 1_000 - 1 - 2 })
      yield* Effect.forEach(more.slice(0, 60), (r) => run(l.commit(r, { credits: 1, requestId: `r-${unique()}` })))
      yield* Effect.forEach(more.slice(60), (r) => run(l.release(r)))
      expect(yield* run(remaining(orgId))).toBe(FLOAT_FROM + 1_000 - 63)
      expect(yield* run(heldOf(orgId))).toEqual({ rows: FLOAT_CREDITS - 62, held: FLOAT_CREDITS - 62 })
      // Unused for FLOAT_IDLE_MS (wall-clock), the float is given back: nothing held, the row gone.
      yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, FLOAT_IDLE_MS * 2 + 200)))
      expect(yield* run(heldOf(orgId))).toEqual({ rows: 0, held: 0 })
      const events = yield* run(Effect.flatMap(SqlClient.SqlClient, (sql) => sql<{ n: string | number; sum: string | number }>`
        SELECT count(*) AS n, SUM(credits) AS sum FROM credit_events WHERE org_id = ${orgId}`))
      expect(events.map((e) => [Number(e.n), Number(e.sum)])).toEqual([[62, 63]])
    }), { timeout: 60_000 })

  it.scoped("a balance that falls below FLOAT_FROM ends the float at the next charge: the rest is reserved one by one, exactly", () =>
    Effect.gen(function*() {
      const replica = yield* Layer.build(layerFor(onPostgres))
      const run = <A, E>(effect: Effect.Effect<A, E, any>) => Effect.provide(effect, replica) as Effect.Effect<A, E>
      const l = yield* run(ledger)
      const orgId = yield* run(orgWith(FLOAT_FROM + 10))
      yield* run(l.commit(yield* run(reserve(orgId, 1)), { credits: 1, requestId: `r-${unique()}` }))
      const a = yield* run(reserve(orgId, 20))
      expect(a.float).toMatch(/^flt_/)
      // Charged 20: the balance is FLOAT_FROM - 11, so the float's rest goes back.
      yield* run(l.commit(a, { credits: 20, requestId: `r-${unique()}` }))
      yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 200)))
      expect(yield* run(heldOf(orgId))).toEqual({ rows: 0, held: 0 })
      const b = yield* run(reserve(orgId, 1))
      expect(b.float).toBeUndefined()
      // Every credit left can be held, and no more.
      const all = yield* run(reserve(orgId, FLOAT_FROM - 12))
      expect(codeOf(yield* Effect.flip(run(reserve(orgId, 1))))).toBe("USAGE_EXCEEDED")
      yield* run(l.release(all))
      yield* run(l.release(b))
    }), { timeout: 60_000 })
})
