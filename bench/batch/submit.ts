/**
 * bench/batch/submit: the server's time to accept a 25,000-URL submission on PGlite in a data directory, alone (the
 * figure `bench/batch` reports beside its run), a few times, for profiling intake and the pages' insert.
 *
 *   node --import tsx bench/batch/submit.ts [--urls 25000] [--times 3]
 */
import { BatchCredits, Batches, migrations as batchMigrations } from "@sift/batch"
import { Fetcher } from "@sift/core"
import { JobQueue, Migrations, Sql } from "@sift/store"
import { Deliveries, migrations as webhookMigrations } from "@sift/webhooks"
import * as SqlClient from "@effect/sql/SqlClient"
import { ConfigProvider, Effect, Layer } from "effect"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"

const arg = (name: string, fallback: number) => {
  const at = process.argv.indexOf(`--${name}`)
  return at === -1 ? fallback : Number(process.argv[at + 1])
}
const count = arg("urls", 25_000)
const times = arg("times", 3)
const dir = mkdtempSync(join(tmpdir(), "sift-bench-submit-"))
const credits = Layer.succeed(BatchCredits.BatchCredits, { reserve: () => Effect.succeed({ remaining: 1_000_000 }), settle: () => Effect.void })
const storage = Layer.tap(Sql.layerPglite({ dir }), (ctx) =>
  Effect.provide(Migrations.run({ store: Migrations.store, webhooks: webhookMigrations, batch: batchMigrations }), ctx))
const fetcher = Fetcher.layerConfig.pipe(
  Layer.provide(Layer.setConfigProvider(ConfigProvider.fromMap(new Map([["SIFT_ALLOW_PRIVATE_TARGETS", "true"]])))),
  Layer.orDie
)
const live = Layer.mergeAll(credits, JobQueue.layer({ queues: [Batches.QUEUE, Deliveries.QUEUE], supervise: false })).pipe(
  Layer.provideMerge(storage),
  Layer.provideMerge(fetcher)
)
const owner: Batches.Owner = { orgId: "org_bench", keyId: undefined, plan: "scale" }
await Effect.runPromise(Effect.scoped(Effect.provide(Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  console.log(`ready: RSS ${(process.memoryUsage().rss / 1048576).toFixed(0)} MB`)
  for (let t = 0; t < times; t++) {
    const urls = Array.from({ length: count }, (_, i) => ({ url: `https://example.com/s/${t}/${i}?q=${i % 7}` }))
    const started = performance.now()
    const made = yield* Batches.submit(owner, { input: { mode: "scrape", data: { format: "markdown", urls } } }, { requestId: `req_${t}` })
    console.log(`submission of ${count} URLs: ${(performance.now() - started).toFixed(0)} ms; RSS ${(process.memoryUsage().rss / 1048576).toFixed(0)} MB`)
    yield* sql`UPDATE batches SET status = 'cancelled' WHERE id = ${made.id}`
  }
}), live)))
rmSync(dir, { recursive: true, force: true })
process.exit(0)
