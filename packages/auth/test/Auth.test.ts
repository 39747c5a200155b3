import * as SqlClient from "@effect/sql/SqlClient"
import { describe, expect, it } from "@effect/vitest"
import { Migrations } from "@sift/store"
import { Context, Effect, Exit, Layer, Option, Scope, TestClock } from "effect"
import { randomBytes } from "node:crypto"
import * as Auth from "../src/index.js"
import { backends, title } from "../../store/test/support/backends.js"

const layerFor = (backend: (typeof backends)[number]) => {
  const database = Layer.tap(backend.layer(), (context) =>
    Effect.provide(Migrations.run({ store: Migrations.store, auth: Auth.migrations }), context))
  // Fresh per backend: @effect/vitest memoises layers by reference across `it.layer` blocks.
  return Layer.fresh(Auth.layer).pipe(Layer.provideMerge(database))
}

/** The contract's error code of a failure (auth errors carry one; an SqlError would show as undefined and fail the test). */
const codeOf = (error: unknown): string | undefined => (error as { readonly errorCode?: string }).errorCode

const unique = () => Math.random().toString(36).slice(2, 10)

const setup = (plan: Auth.Plans.PlanName = "scale", permissions?: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const accounts = yield* Auth.Accounts.Accounts
    const keys = yield* Auth.ApiKeys.ApiKeys
    const org = yield* accounts.createOrg({ name: `org-${unique()}`, plan })
    const created = yield* keys.create({ orgId: org.id, name: "k", permissions })
    return { org, ...created }
  })

for (const backend of backends) {
  describe.skipIf(backend.skip !== undefined)(`auth (${title(backend)})`, () => {
    it.layer(layerFor(backend), { timeout: 60_000 })((it) => {
      it.effect("keys: the secret has the documented shape and only its hash is stored", () =>
        Effect.gen(function*() {
          const { key, secret } = yield* setup()
          expect(secret).toMatch(/^sift_sk_[A-Za-z0-9]{40}$/)
          expect(key.id).toMatch(/^key_[A-Za-z0-9]{16}$/)
          expect(key.orgId).toMatch(/^org_[A-Za-z0-9]{16}$/)
          const sql = yield* SqlClient.SqlClient
          const rows = yield* sql<Record<string, unknown>>`SELECT * FROM api_keys WHERE id = ${key.id}`
          expect(JSON.stringify(rows)).not.toContain(secret)
          expect(rows[0]!.prefix).toBe(secret.slice(0, 12))
        }))

      it.effect("keys: permissions are stored as a list (unknown names refused); last use is recorded; prefix twins are told apart", () =>
        Effect.gen(function*() {
          const keys = yield* Auth.ApiKeys.ApiKeys
          const { key, org, secret } = yield* setup("pro", ["logs:read", "monitors:write"])
          expect(key.permissions).toEqual(["logs:read", "monitors:write"])
          expect(key.lastUsedAt).toBeNull()
          const refused = yield* Effect.flip(keys.create({ orgId: org.id, name: "bad", permissions: ["logs:write"] }))
          expect(codeOf(refused)).toBe("INPUT_VALIDATION_ERROR")
          // Another key row with the same lookup prefix but another hash must not shadow the real one.
          const sql = yield* SqlClient.SqlClient
          yield* sql`INSERT INTO api_keys (id, org_id, name, prefix, hash) VALUES (${`key_twin${unique()}`}, ${org.id}, 'twin', ${key.prefix}, ${randomBytes(32).toString("hex")})`
          const context = yield* keys.authenticate(secret)
          expect(context.keyId).toBe(key.id)
          expect(context.permissions).toEqual(["logs:read", "monitors:write"])
          const listed = (yield* keys.list(org.id)).find((k) => k.id === key.id)!
          expect(listed.lastUsedAt).not.toBeNull()
          expect(JSON.stringify(yield* keys.list(org.id))).not.toContain(secret)
        }))

      it.effect("authenticate: ok, malformed, unknown, revoked, expired, suspended, disabled", () =>
        Effect.gen(function*() {
          const keys = yield* Auth.ApiKeys.ApiKeys
          const accounts = yield* Auth.Accounts.Accounts
          const { key, org, secret } = yield* setup("pro")
          const context = yield* keys.authenticate(secret)
          expect(context.keyId).toBe(key.id)
          expect(context.org.plan).toBe("pro")
          expect(context.org.requestsPerMinute).toBe(300)
          const code = (e: Effect.Effect<unknown, unknown, never>) => Effect.map(Effect.flip(e), codeOf)
          expect(yield* code(keys.authenticate("nope"))).toBe("UNAUTHORIZED")
          expect(yield* code(keys.authenticate("sift_sk_" + "x".repeat(40)))).toBe("UNAUTHORIZED")

          const revoked = yield* keys.create({ orgId: org.id, name: "r" })
          yield* keys.revoke(revoked.key.id)
          expect(yield* code(keys.authenticate(revoked.secret))).toBe("UNAUTHORIZED")

          const expiring = yield* keys.create({ orgId: org.id, name: "e", expiresAt: new Date(60_000) })
          expect((yield* keys.authenticate(expiring.secret)).keyId).toBe(expiring.key.id)
          yield* TestClock.adjust("61 seconds") // past the expiry and the lookup cache
          expect(yield* code(keys.authenticate(expiring.secret))).toBe("UNAUTHORIZED")

          const other = yield* setup()
          yield* accounts.setStatus(other.org.id, "suspended")
          expect(yield* code(keys.authenticate(other.secret))).toBe("FORBIDDEN")
          yield* accounts.setStatus(other.org.id, "disabled")
          expect(yield* code(keys.authenticate(other.secret))).toBe("DISABLED")
        }))

      it.effect("authenticate: concurrent requests share one lookup; a key in use is refreshed in the background", () =>
        Effect.gen(function*() {
          const keys = yield* Auth.ApiKeys.ApiKeys
          const sql = yield* SqlClient.SqlClient
          const { key, secret } = yield* setup("pro")
          // 100 at once for a key not in memory: all get the same answer (from one shared lookup).
          const contexts = yield* Effect.all(Array.from({ length: 100 }, () => keys.authenticate(secret)), { concurrency: "unbounded" })
          expect(new Set(contexts.map((c) => c.keyId))).toEqual(new Set([key.id]))
          expect(new Set(contexts).size).toBe(1)
          // Revoked behind the service's back (as another replica would): remembered answers stand for half the cache
          // time; the first request after that is still answered from memory and starts a lookup, which forgets the key.
          yield* sql`UPDATE api_keys SET revoked_at = now() WHERE id = ${key.id}`
          expect((yield* keys.authenticate(secret)).keyId).toBe(key.id)
          yield* TestClock.adjust(Auth.ApiKeys.CACHE_MS / 2)
          expect((yield* keys.authenticate(secret)).keyId).toBe(key.id)
          // The background lookup does real database work: wait in real time (the test clock stays before CACHE_MS).
          let refused: unknown
          for (let i = 0; i < 200 && refused === undefined; i++) {
            yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 10)))
            const outcome = yield* Effect.either(keys.authenticate(secret))
            if (outcome._tag === "Left") refused = outcome.left
          }
          expect(codeOf(refused)).toBe("UNAUTHORIZED")
        }))

      it.effect("rate limit: the 31st request of a 30/min window is refused; the next window resets", () =>
        Effect.gen(function*() {
          const limiter = yield* Auth.RateLimiter.RateLimiter
          const keyId = `key_${unique()}`
          yield* TestClock.setTime(10 * 60_000 + 15_000)
          for (let i = 1; i <= 30; i++) {
            const hit = yield* limiter.hit(keyId, "api", 30)
            expect(hit.allowed).toBe(true)
            expect(hit.remaining).toBe(30 - i)
          }
          const refused = yield* limiter.hit(keyId, "api", 30)
          expect(refused.allowed).toBe(false)
          expect(refused.remaining).toBe(0)
          expect(refused.retryAfter).toBe(45)
          expect(refused.resetAt).toBe(11 * 60)
          // Another bucket counts separately.
          expect((yield* limiter.hit(keyId, "logs", 120)).allowed).toBe(true)
          yield* TestClock.adjust("45 seconds")
          const next = yield* limiter.hit(keyId, "api", 30)
          expect(next.allowed).toBe(true)
          expect(next.remaining).toBe(29)
        }))

      it.effect("credits: 200 concurrent reserve+commit of 1 on 100 credits → exactly 100 succeed, balance 0", () =>
        Effect.gen(function*() {
          const accounts = yield* Auth.Accounts.Accounts
          const ledger = yield* Auth.CreditLedger.CreditLedger
          const org = yield* accounts.createOrg({ name: `org-${unique()}`, plan: "enterprise" })
          yield* accounts.setOverrides(org.id, { credits: 100 })
          const results = yield* Effect.all(
            Array.from({ length: 200 }, (_, i) =>
              Effect.exit(Effect.flatMap(ledger.reserve(org.id, 1, { ttlMs: 60_000 }), (r) => ledger.commit(r, { credits: 1, requestId: `r${i}` })))),
            { concurrency: 50 }
          )
          expect(results.filter(Exit.isSuccess)).toHaveLength(100)
          expect((yield* ledger.balance(org.id)).remaining).toBe(0)
          const failure = results.find(Exit.isFailure)!
          expect(JSON.stringify(failure)).toContain("UsageExceeded")
        }))

      it.effect("credits: an uncommitted reservation (a crashed request) charges nothing and lapses at its expiry", () =>
        Effect.gen(function*() {
          const accounts = yield* Auth.Accounts.Accounts
          const ledger = yield* Auth.CreditLedger.CreditLedger
          const org = yield* accounts.createOrg({ name: `org-${unique()}`, plan: "enterprise" })
          yield* accounts.setOverrides(org.id, { credits: 3 })
          yield* ledger.reserve(org.id, 3, { ttlMs: 90_000 }) // never committed: the process "died"
          const blocked = yield* Effect.flip(ledger.reserve(org.id, 1, { ttlMs: 1_000 }))
          expect(codeOf(blocked)).toBe("USAGE_EXCEEDED")
          expect((yield* ledger.balance(org.id)).remaining).toBe(3)
          yield* TestClock.adjust("91 seconds")
          const r = yield* ledger.reserve(org.id, 3, { ttlMs: 1_000 })
          expect((yield* ledger.commit(r, { credits: 2, requestId: "x" })).remaining).toBe(1)
          const released = yield* ledger.reserve(org.id, 1, { ttlMs: 1_000 })
          expect((yield* ledger.release(released)).remaining).toBe(1)
        }))

      it.effect("credits: monthly plans renew when the cycle ends; free's 500 never do", () =>
        Effect.gen(function*() {
          const accounts = yield* Auth.Accounts.Accounts
          const ledger = yield* Auth.CreditLedger.CreditLedger
          yield* TestClock.setTime(Date.UTC(2026, 0, 15))
          const hobby = yield* accounts.createOrg({ name: `org-${unique()}`, plan: "hobby" })
          const free = yield* accounts.createOrg({ name: `org-${unique()}`, plan: "free" })
          expect(hobby.creditsRemaining).toBe(10_000)
          expect(free.creditsRemaining).toBe(500)
          for (const org of [hobby, free]) {
            const r = yield* ledger.reserve(org.id, 100, { ttlMs: 1_000 })
            yield* ledger.commit(r, { credits: 100, requestId: "spend" })
          }
          yield* TestClock.setTime(Date.UTC(2026, 1, 16))
          for (const org of [hobby, free]) yield* ledger.commit(yield* ledger.reserve(org.id, 1, { ttlMs: 1_000 }), { credits: 1, requestId: "x" })
          const renewed = yield* ledger.balance(hobby.id)
          expect(renewed.remaining).toBe(9_999)
          expect(renewed.cycleStart.toISOString()).toBe("2026-02-15T00:00:00.000Z")
          expect((yield* ledger.balance(free.id)).remaining).toBe(399)
        }))

      it.effect("accounts: users (unique email), plan change starts a new cycle, ZDR flag, enterprise overrides", () =>
        Effect.gen(function*() {
          const accounts = yield* Auth.Accounts.Accounts
          yield* TestClock.setTime(Date.UTC(2026, 2, 10))
          const org = yield* accounts.createOrg({ name: `org-${unique()}` })
          expect(org.plan).toBe("free")
          expect(org.cycleEnd).toBeNull()
          const email = `${unique()}@Example.com`
          const user = yield* accounts.createUser({ orgId: org.id, email })
          expect(user.email).toBe(email.toLowerCase())
          expect(Exit.isFailure(yield* Effect.exit(accounts.createUser({ orgId: org.id, email: email.toUpperCase() })))).toBe(true)
          const pro = Option.getOrThrow(yield* accounts.setPlan(org.id, "pro"))
          expect([pro.creditsRemaining, pro.requestsPerMinute, pro.monitorsLimit]).toEqual([200_000, 300, 100])
          expect(pro.cycleStart.toISOString()).toBe("2026-03-10T00:00:00.000Z")
          expect(pro.cycleEnd?.toISOString()).toBe("2026-04-10T00:00:00.000Z")
          expect(Option.getOrThrow(yield* accounts.setZdr(org.id, true)).zdrEnabled).toBe(true)
          const enterprise = Option.getOrThrow(yield* accounts.setPlan(org.id, "enterprise"))
          const custom = Option.getOrThrow(yield* accounts.setOverrides(enterprise.id, { requestsPerMinute: 5_000, credits: 9_000_000, monitorsLimit: 7 }))
          expect([custom.requestsPerMinute, custom.monthlyCredits, custom.creditsRemaining, custom.monitorsLimit]).toEqual([5_000, 9_000_000, 9_000_000, 7])
          expect((yield* accounts.listOrgs()).some((o) => o.id === org.id)).toBe(true)
        }))

      // The shared (PostgreSQL) limiter's table; on PGlite the windows live in memory.
      it.effect.skipIf(backend.name === "pglite")("rate limit: windows two minutes old are pruned", () =>
        Effect.gen(function*() {
          const limiter = yield* Auth.RateLimiter.RateLimiter
          const sql = yield* SqlClient.SqlClient
          const keyId = `key_${unique()}`
          yield* TestClock.setTime(Date.UTC(2026, 5, 1, 12, 0, 30))
          yield* limiter.hit(keyId, "logs", 120)
          expect(yield* sql`SELECT 1 FROM rate_limit_windows WHERE key_id = ${keyId}`).toHaveLength(1)
          yield* TestClock.adjust("3 minutes")
          yield* limiter.hit(`key_${unique()}`, "api", 30)
          const rows = yield* sql`SELECT 1 FROM rate_limit_windows WHERE key_id = ${keyId}`
          expect(rows).toHaveLength(0)
        }))

      it.effect("bootstrap key: idempotent, and the key authenticates", () =>
        Effect.gen(function*() {
          const accounts = yield* Auth.Accounts.Accounts
          const keys = yield* Auth.ApiKeys.ApiKeys
          const secret = "sift_sk_" + unique().padEnd(40, "Q").slice(0, 40)
          const first = yield* accounts.ensureBootstrapKey(secret, "scale")
          const second = yield* accounts.ensureBootstrapKey(secret, "scale")
          expect(second).toEqual(first)
          expect((yield* keys.authenticate(secret)).keyId).toBe(first.keyId)
        }))
    })
  })
}

const postgres = backends.find((backend) => backend.name === "postgres")!

describe.skipIf(postgres.skip !== undefined)(`auth across two connection pools (${title(postgres)})`, () => {
  it.scoped("200 concurrent reserve+commit of 1 on 100 credits split over two pools → exactly 100 succeed; revocation reaches the other pool", () =>
    Effect.gen(function*() {
      // Two pools and two sets of services: what two server processes on one PostgreSQL would have.
      const a = yield* Layer.build(layerFor(postgres))
      const b = yield* Layer.build(layerFor(postgres))
      const inA = <X, E, R>(effect: Effect.Effect<X, E, R>) => Effect.provide(effect, a)
      const org = yield* inA(Effect.flatMap(Auth.Accounts.Accounts, (accounts) => accounts.createOrg({ name: `org-${unique()}`, plan: "enterprise" })))
      yield* inA(Effect.flatMap(Auth.Accounts.Accounts, (accounts) => accounts.setOverrides(org.id, { credits: 100 })))
      const spend = (i: number) =>
        Effect.provide(
          Effect.exit(Effect.gen(function*() {
            const ledger = yield* Auth.CreditLedger.CreditLedger
            return yield* ledger.commit(yield* ledger.reserve(org.id, 1, { ttlMs: 60_000 }), { credits: 1, requestId: `p${i}` })
          })),
          i % 2 === 0 ? a : b
        )
      const results = yield* Effect.all(Array.from({ length: 200 }, (_, i) => spend(i)), { concurrency: 50 })
      expect(results.filter(Exit.isSuccess)).toHaveLength(100)
      for (const context of [a, b]) {
        expect((yield* Effect.provide(Effect.flatMap(Auth.CreditLedger.CreditLedger, (ledger) => ledger.balance(org.id)), context)).remaining).toBe(0)
      }
      const sql = yield* inA(SqlClient.SqlClient)
      const events = yield* sql<{ n: string | number }>`SELECT COALESCE(SUM(credits), 0) AS n FROM credit_events WHERE org_id = ${org.id}`
      expect(Number(events[0]!.n)).toBe(100)

      // A key revoked through one pool stops working on the other within the lookup cache time.
      const { key, secret } = yield* inA(Effect.flatMap(Auth.ApiKeys.ApiKeys, (keys) => keys.create({ orgId: org.id, name: "shared" })))
      const authenticateInB = Effect.provide(Effect.flatMap(Auth.ApiKeys.ApiKeys, (keys) => keys.authenticate(secret)), b)
      expect((yield* authenticateInB).keyId).toBe(key.id)
      yield* inA(Effect.flatMap(Auth.ApiKeys.ApiKeys, (keys) => keys.revoke(key.id)))
      yield* TestClock.adjust(Auth.ApiKeys.CACHE_MS + 1)
      expect(Auth.ApiKeys.CACHE_MS).toBeLessThanOrEqual(5_000)
      expect(codeOf(yield* Effect.flip(authenticateInB))).toBe("UNAUTHORIZED")

      // Two replicas bootstrapping the same key at once end with one key.
      const bootstrap = "sift_sk_" + `${unique()}${unique()}`.padEnd(40, "Z").slice(0, 40)
      const both = yield* Effect.all([a, b].map((context) =>
        Effect.provide(Effect.flatMap(Auth.Accounts.Accounts, (accounts) => accounts.ensureBootstrapKey(bootstrap, "scale")), context)), { concurrency: 2 })
      expect(both[1]).toEqual(both[0])
    }), { timeout: 60_000 })
})

describe("credits on embedded PGlite", () => {
  it.live("charges committed just before shutdown are written (none lost while the writer lingers)", () =>
    Effect.gen(function*() {
      const pglite = backends.find((b) => b.name === "pglite")!
      const database = yield* Layer.build(Layer.tap(pglite.layer(), (context) =>
        Effect.provide(Migrations.run({ store: Migrations.store, auth: Auth.migrations }), context)))
      const scope = yield* Scope.make()
      const services = yield* Layer.buildWithScope(Layer.fresh(Auth.layer), scope).pipe(Effect.provide(database))
      const { org } = yield* Effect.provide(setup("scale"), Context.merge(database, services))
      const ledger = Context.get(services, Auth.CreditLedger.CreditLedger)
      const before = (yield* ledger.balance(org.id)).remaining
      for (let i = 0; i < 3; i++) yield* ledger.commit(yield* ledger.reserve(org.id, 2, { ttlMs: 60_000 }), { credits: 2, requestId: `late${i}` })
      yield* Scope.close(scope, Exit.void)
      const sql = Context.get(database, SqlClient.SqlClient)
      const [row] = yield* sql<{ credits_remaining: number }>`SELECT credits_remaining FROM organizations WHERE id = ${org.id}`
      const events = yield* sql<{ n: string }>`SELECT count(*) AS n FROM credit_events WHERE org_id = ${org.id}`
      expect(Number(row!.credits_remaining)).toBe(before - 6)
      expect(Number(events[0]!.n)).toBe(3)
    }).pipe(Effect.scoped))
})

describe("permissions", () => {
  it("write grants read, no list grants all, and routes map as decisions §1 says", () => {
    const { has, requiredFor } = Auth.Permissions
    expect(has({ permissions: null }, "monitors:write")).toBe(true)
    expect(has({ permissions: ["monitors:write"] }, "monitors:read")).toBe(true)
    expect(has({ permissions: ["monitors:read"] }, "monitors:write")).toBe(false)
    expect(has({ permissions: ["logs:read"] }, "data:execute")).toBe(false)
    expect(requiredFor("GET", "/web/scrape/markdown")).toBe("data:execute")
    expect(requiredFor("POST", "/parse")).toBe("data:execute")
    expect(requiredFor("GET", "/logs/abc")).toBe("logs:read")
    expect(requiredFor("GET", "/monitors/limits")).toBe("monitors:read")
    expect(requiredFor("PATCH", "/monitors/mon_x")).toBe("monitors:write")
    expect(requiredFor("POST", "/webhooks/deliveries")).toBe("monitors:read")
    expect(requiredFor("POST", "/webhooks/deliveries/whd_x/retry")).toBe("monitors:write")
    expect(requiredFor("GET", "/batch/list")).toBe("batches:read")
    expect(requiredFor("POST", "/batch/submit")).toBe("batches:write")
    expect(requiredFor("GET", "/openapi.json")).toBeUndefined()
    expect(requiredFor("POST", "/brand/extract")).toBe("data:execute")
    expect(requiredFor("GET", "/news/search")).toBe("data:execute")
    expect(requiredFor("POST", "/people/search")).toBe("data:execute")
    expect(requiredFor("GET", "/utility/ip")).toBe("data:execute")
    expect(requiredFor("GET", "/logs")).toBe("logs:read")
    expect(requiredFor("GET", "/webhooks/deliveries/whd_x")).toBe("monitors:read")
    expect(requiredFor("DELETE", "/monitors/mon_x")).toBe("monitors:write")
    expect(requiredFor("GET", "/batch/bat_x")).toBe("batches:read")
    expect(has({ permissions: ["batches:write"] }, "batches:read")).toBe(true)
    expect(has({ permissions: ["webdbs:write"] }, "webdbs:read")).toBe(true)
    expect(has({ permissions: [] }, "logs:read")).toBe(false)
  })
})
