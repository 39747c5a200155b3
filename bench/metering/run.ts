/**
 * What metering costs per API request, on PGlite and (when reachable) PostgreSQL: `authenticate` (cached and uncached),
 * `RateLimiter.hit`, and `reserve` + `commit`, each timed over a loop and printed as a ratio of one `SELECT 1` round
 * trip measured in the same run on the same backend (the machine is shared, so ratios matter, not milliseconds).
 *
 *   npm run bench -- metering [--loops 2000] [--concurrency 8]
 *
 * PostgreSQL comes from `DATABASE_URL`, else the local test cluster of `scripts/postgres.mjs` when there is one.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { Migrations, Sql } from "@sift/store"
import { Clock, Effect, Layer, Redacted } from "effect"
import { parseArgs } from "node:util"
// @ts-expect-error: a plain ESM script without type declarations
import { ensurePostgres } from "../../scripts/postgres.mjs"
import * as Auth from "@sift/auth"

const { values } = parseArgs({ options: { loops: { type: "string", default: "2000" }, concurrency: { type: "string", default: "8" } } })
const loops = Number(values.loops)
const concurrency = Number(values.concurrency)

const timed = <A, E, R>(label: string, n: number, body: (i: number) => Effect.Effect<A, E, R>, parallel = 1) =>
  Effect.gen(function*() {
    const started = performance.now()
    yield* Effect.forEach(Array.from({ length: n }, (_, i) => i), body, { concurrency: parallel, discard: true })
    const perCall = (performance.now() - started) / n
    return { label, perCall }
  })

let skew = 0
const skipping = (): Clock.Clock => {
  skew += Auth.ApiKeys.CACHE_MS + 1
  const at = Date.now() + skew
  return {
    [Clock.ClockTypeId]: Clock.ClockTypeId,
    unsafeCurrentTimeMillis: () => at,
    unsafeCurrentTimeNanos: () => BigInt(at) * 1_000_000n,
    currentTimeMillis: Effect.succeed(at),
    currentTimeNanos: Effect.succeed(BigInt(at) * 1_000_000n),
    sleep: (duration) => Effect.sleep(duration)
  }
}

const measure = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const accounts = yield* Auth.Accounts.Accounts
  const keys = yield* Auth.ApiKeys.ApiKeys
  const limiter = yield* Auth.RateLimiter.RateLimiter
  const ledger = yield* Auth.CreditLedger.CreditLedger
  const suffix = Math.random().toString(36).slice(2, 10)
  const org = yield* accounts.createOrg({ name: `bench-${suffix}`, plan: "scale" })
  const one = yield* keys.create({ orgId: org.id, name: "bench" })

  yield* timed("warm-up", 200, () => sql`SELECT 1`)
  const rows = [
    yield* timed("SELECT 1 (baseline)", loops, () => sql`SELECT 1`),
    yield* timed("authenticate, cached", loops, () => keys.authenticate(one.secret)),
    // A clock that jumps past the lookup cache before every call: each lookup reaches the database, and (as for a
    // busy key) every 30th also records the key's last use.
    yield* timed("authenticate, uncached", loops, () => Effect.withClock(keys.authenticate(one.secret), skipping())),
    yield* timed("rate limit hit", loops, (i) => limiter.hit(`key_bench${suffix}${i % 10}`, "api", 1_000_000)),
    yield* timed("reserve + commit", loops, (i) =>
      Effect.flatMap(ledger.reserve(org.id, 1, { ttlMs: 60_000 }), (r) => ledger.commit(r, { credits: 1, requestId: `b${i}` }))),
    yield* timed(`reserve + commit, ${concurrency} at once`, loops, (i) =>
      Effect.flatMap(ledger.reserve(org.id, 1, { ttlMs: 60_000 }), (r) => ledger.commit(r, { credits: 1, requestId: `c${i}` })), concurrency)
  ]
  const baseline = rows[0]!.perCall
  for (const row of rows) {
    console.log(`  ${row.label.padEnd(34)} ${row.perCall.toFixed(3).padStart(8)} ms/call  ${(row.perCall / baseline).toFixed(1).padStart(6)}× baseline`)
  }
})

const migrated = (layer: Layer.Layer<SqlClient.SqlClient | Sql.Database, unknown>) =>
  Layer.fresh(Auth.layer).pipe(Layer.provideMerge(Layer.tap(layer, (context) =>
    Effect.provide(Migrations.run({ store: Migrations.store, auth: Auth.migrations }), context))))

const url: string | undefined = process.env.DATABASE_URL || (() => {
  const result = ensurePostgres({ install: false }) as { url: string } | { skipped: string }
  return "url" in result ? result.url : undefined
})()

console.log(`metering: ${loops} calls per row`)
console.log("pglite (memory)")
await Effect.runPromise(Effect.provide(measure, migrated(Sql.layerPglite({ dir: "memory://" }))))
if (url === undefined) {
  console.log("postgres: skipped (no DATABASE_URL and no local cluster)")
} else {
  console.log("postgres")
  await Effect.runPromise(Effect.provide(measure, migrated(Sql.layerPg({ url: Redacted.make(url) }))))
}
