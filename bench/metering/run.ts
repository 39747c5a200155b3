/**
 * What metering costs per API request, on PGlite and (when reachable) PostgreSQL: `authenticate` (cached and uncached),
 * `RateLimiter.hit`, `reserve` + `commit`, and a charged request as the service makes it (`reserve`, then `settle` with
 * a log row through a group commit, as `RequestLog` does), each timed over a loop and printed as a ratio of one
 * `SELECT 1` round trip measured in the same run on the same backend (the machine is shared, so ratios matter, not
 * milliseconds). On PostgreSQL the charged requests of one organization per second are printed too, and the round trips
 * per charged request, counted by a relay in front of the server (`Sync` and `Query` messages).
 *
 * Targets (issue 24, item 3): at most 2 round trips per charged request; charged requests/s of one organization at 8
 * concurrent at least 4× what the row-locked ledger did (about 900/s on this machine).
 *
 *   npm run bench -- metering [--loops 2000] [--concurrency 8]
 *
 * PostgreSQL comes from `DATABASE_URL`, else the local test cluster of `scripts/postgres.mjs` when there is one.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { GroupCommit, Migrations, Sql } from "@sift/store"
import { Clock, Effect, Layer, Redacted } from "effect"
import { parseArgs } from "node:util"
// @ts-expect-error: a plain ESM script without type declarations
import { ensurePostgres } from "../../scripts/postgres.mjs"
import * as Auth from "@sift/auth"
import { countRoundTrips } from "../../packages/auth/test/support/roundTrips.js"

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

/**
 * A charged request as the service makes it: reserve, then settle with a log row in a group commit (on PostgreSQL one
 * statement, `settleWith`, its rows given the balances as a relation, as `RequestLog` does).
 */
const chargedRequests = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const ledger = yield* Auth.CreditLedger.CreditLedger
  yield* sql`CREATE TABLE IF NOT EXISTS bench_metering_rows (request_id text PRIMARY KEY, remaining bigint NOT NULL)`
  const settleWith = ledger.settleWith
  const commits = yield* GroupCommit.make<Auth.CreditLedger.Charge, void, unknown>({
    maxBatch: 1_000,
    write: (batch) =>
      Effect.as(
        settleWith !== undefined
          ? settleWith(batch, (balances) =>
            sql`INSERT INTO bench_metering_rows (request_id, remaining)
              SELECT t.request_id, b.remaining FROM json_to_recordset(${JSON.stringify(batch.map((charge, i) => ({ request_id: charge.requestId, i })))}::json)
              AS t(request_id text, i int) JOIN ${balances} b ON b.i = t.i`)
          : ledger.settle(batch, (remaining) =>
            sql`INSERT INTO bench_metering_rows (request_id, remaining)
              SELECT request_id, remaining FROM json_to_recordset(${JSON.stringify(batch.map((charge, i) => ({ request_id: charge.requestId, remaining: remaining[i] })))}::json)
              AS t(request_id text, remaining bigint)`),
        batch.map(() => undefined)
      )
  })
  return (orgId: string, requestId: string) =>
    Effect.flatMap(ledger.reserve(orgId, 1, { ttlMs: 60_000 }), (reservation) => commits.submit({ reservation, credits: 1, requestId }))
})

const measure = (relayed?: { readonly count: () => number }) => Effect.gen(function*() {
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
  // A hold and its release touch no logged table: what a reservation costs without the disk's flush.
  rows.push(yield* timed(`reserve + release, ${concurrency} at once`, loops, () =>
    Effect.flatMap(ledger.reserve(org.id, 1, { ttlMs: 60_000 }), ledger.release), concurrency))
  const charged = yield* chargedRequests
  rows.push(
    yield* timed("charged request (reserve + settle)", loops, (i) => charged(org.id, `${suffix}-s${i}`)),
    yield* timed(`charged request, ${concurrency} at once`, loops, (i) => charged(org.id, `${suffix}-p${i}`), concurrency)
  )
  const baseline = rows[0]!.perCall
  for (const row of rows) {
    console.log(`  ${row.label.padEnd(34)} ${row.perCall.toFixed(3).padStart(8)} ms/call  ${(row.perCall / baseline).toFixed(1).padStart(6)}× baseline`)
  }
  console.log(`  charged requests/s of one organization: ${(1000 / rows.at(-2)!.perCall).toFixed(0)} one at a time, ${(1000 / rows.at(-1)!.perCall).toFixed(0)} at ${concurrency} concurrent (target ≥ 4× ~900)`)
  if (relayed !== undefined) {
    const trips = (n: number, body: (i: number) => Effect.Effect<unknown, unknown>, parallel = 1) =>
      Effect.gen(function*() {
        const before = relayed.count()
        yield* Effect.forEach(Array.from({ length: n }, (_, i) => i), body, { concurrency: parallel, discard: true })
        return ((relayed.count() - before) / n).toFixed(2)
      })
    const n = Math.min(loops, 500)
    const commitTrips = yield* trips(n, (i) =>
      Effect.flatMap(ledger.reserve(org.id, 1, { ttlMs: 60_000 }), (r) => ledger.commit(r, { credits: 1, requestId: `t${i}` })))
    const one = yield* trips(n, (i) => charged(org.id, `${suffix}-t1-${i}`))
    const many = yield* trips(n, (i) => charged(org.id, `${suffix}-t8-${i}`), concurrency)
    console.log(`  round trips per charged request: reserve + commit ${commitTrips}; reserve + settle ${one} one at a time, ${many} at ${concurrency} concurrent (target ≤ 2)`)
  }
  yield* sql`DROP TABLE IF EXISTS bench_metering_rows`
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
await Effect.runPromise(Effect.scoped(Effect.provide(measure(), migrated(Sql.layerPglite({ dir: "memory://" })))))
if (url === undefined) {
  console.log("postgres: skipped (no DATABASE_URL and no local cluster)")
} else {
  console.log("postgres")
  await Effect.runPromise(Effect.scoped(Effect.provide(measure(), migrated(Sql.layerPg({ url: Redacted.make(url) })))))
  // The same again through a relay that counts round trips (its own timings are not printed: the relay adds latency).
  const relay = await countRoundTrips(url)
  try {
    console.log("postgres, through a relay counting round trips (timings include the relay)")
    await Effect.runPromise(Effect.scoped(Effect.provide(measure(relay), migrated(Sql.layerPg({ url: Redacted.make(relay.url) })))))
  } finally {
    await relay.close()
  }
}
