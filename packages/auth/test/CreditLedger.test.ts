/**
 * The credit ledger through its public interface only (`reserve`, `commit`, `release`, `balance`), on embedded PGlite
 * (exact in memory) and on PostgreSQL (row locks, across pools): holds, charges, releases, lapses and exactness
 * under concurrency.
 */
import { describe, expect, it } from "@effect/vitest"
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
