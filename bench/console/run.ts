/**
 * The console's overview against a large request log (issue 21 budget: it answers in under 300 ms with 1,000,000 log
 * rows). The log is filled on PGlite across 30 days and 12 paths in statements of 50,000 rows (as group commits write
 * them, so the `usage_hourly` trigger runs per statement), then the overview's series is read for 24 h, 7 d and 30 d
 * (median of 15) and compared with the same series computed by scanning `request_logs` at read time. The trigger's
 * cost on the write path is the insert time with the trigger against without it (same rows, trigger disabled).
 *
 *   npm run bench -- console [--rows 1000000]      (--quick: 100,000 rows)
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as Auth from "@sift/auth"
import { Migrations, Sql } from "@sift/store"
import { Effect } from "effect"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { parseArgs } from "node:util"
import * as Usage from "../../packages/http/src/Console/Usage.js"
import * as RequestLog from "../../packages/http/src/RequestLog.js"

const { values } = parseArgs({ options: { rows: { type: "string", default: "1000000" }, quick: { type: "boolean", default: false } } })
const rows = values.quick ? 100_000 : Number(values.rows)
const CHUNK = 50_000
const ORG = "org_bench"

const median = (xs: Array<number>) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!

const fill = (sql: SqlClient.SqlClient, count: number, offset: number) =>
  sql.unsafe(`INSERT INTO request_logs (request_id, org_id, key_id, created_at, method, path, status_code, error_code, latency_ms, credits_used, tags, zdr, user_agent, input, response)
    SELECT gen_random_uuid(), '${ORG}', 'key_bench', now() - interval '30 days' * (i::float8 / ${rows}), 'GET',
      '/v1/web/path' || (i % 12), CASE WHEN i % 50 = 0 THEN 429 WHEN i % 20 = 0 THEN 400 ELSE 200 END, NULL, 40, 1, '[]'::jsonb, false, 'bench',
      '{"query":{}}'::jsonb, CASE WHEN i % 3 = 0 THEN '{"cache_metadata":{"status":"hit","age_ms":5}}' ELSE '{"cache_metadata":{"status":"miss","age_ms":0}}' END
    FROM generate_series(${offset}, ${offset + count - 1}) AS i`)

const program = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const insertAll = (label: string) => Effect.gen(function*() {
    const started = performance.now()
    for (let offset = 0; offset < rows; offset += CHUNK) yield* fill(sql, Math.min(CHUNK, rows - offset), offset)
    const ms = performance.now() - started
    console.log(`${label}: ${rows.toLocaleString()} rows in ${(ms / 1000).toFixed(1)} s (${((ms * 1000) / rows).toFixed(1)} µs a row)`)
    return ms
  })
  // The trigger's cost: the same rows with and without it, twice each in turn (the faster of each kept).
  const runs = { with: [] as Array<number>, without: [] as Array<number> }
  for (const round of [1, 2]) {
    for (const trigger of ["without", "with"] as const) {
      yield* sql`TRUNCATE request_logs, usage_hourly`
      yield* sql.unsafe(`ALTER TABLE request_logs ${trigger === "with" ? "ENABLE" : "DISABLE"} TRIGGER request_logs_usage`)
      runs[trigger].push(yield* insertAll(`insert ${trigger} the usage trigger (round ${round})`))
    }
  }
  console.log(`write-path cost of the hourly aggregates: ${(Math.min(...runs.with) / Math.min(...runs.without)).toFixed(2)}x the plain insert`)
  const counted = (yield* sql<{ n: string }>`SELECT sum(requests) AS n FROM usage_hourly WHERE org_id = ${ORG}`)[0]!.n
  if (Number(counted) !== rows) throw new Error(`usage_hourly counts ${counted} requests, not ${rows}`)

  for (const range of ["24h", "7d", "30d"] as const) {
    const times: Array<number> = []
    for (let i = 0; i < 15; i++) {
      const started = performance.now()
      yield* Usage.series(ORG, range, new Date())
      times.push(performance.now() - started)
    }
    const scans: Array<number> = []
    const hours = Usage.ranges[range].hours
    for (let i = 0; i < 3; i++) {
      const started = performance.now()
      yield* sql.unsafe(`SELECT date_trunc('hour', created_at) AS t, path, count(*), sum(credits_used), count(*) FILTER (WHERE status_code >= 400),
        count(*) FILTER (WHERE status_code = 429), count(*) FILTER (WHERE response LIKE '%"cache_metadata":{"status":"hit"%')
        FROM request_logs WHERE org_id = '${ORG}' AND created_at >= now() - interval '${hours} hours' GROUP BY 1, 2`)
      scans.push(performance.now() - started)
    }
    const ms = median(times)
    console.log(`overview ${range} with ${rows.toLocaleString()} log rows: ${ms.toFixed(1)} ms (target < 300 ms) ${ms < 300 ? "MET" : "MISSED"}; ` +
      `scanning the log at read time: ${median(scans).toFixed(0)} ms (${(median(scans) / ms).toFixed(0)}x slower)`)
  }
})

const dir = mkdtempSync(join(tmpdir(), "sift-bench-console-"))
const database = Sql.layerPglite({ dir })
await Effect.runPromise(
  Effect.zipRight(Migrations.run({ store: Migrations.store, auth: Auth.migrations, http: RequestLog.migrations }), program).pipe(Effect.provide(database), Effect.scoped)
).finally(() => rmSync(dir, { recursive: true, force: true }))
