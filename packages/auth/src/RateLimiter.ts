/**
 * Fixed one-minute windows per key and bucket (`api`, `logs`, and `registration` per client address), counted in the database with one atomic upsert, so the
 * limits hold across server replicas; the hits a process makes meanwhile share that upsert (a group commit: one
 * statement for them all, each hit given its own place in its window's count). On embedded PGlite one process owns the database, so the windows are counted in
 * memory (a restart starts a fresh window). Refused requests count too (a client hammering through a 429 stays limited).
 *
 * @since 0.1.0
 */
import * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import { GroupCommit, Sql } from "@sift/store"
import { Clock, Effect } from "effect"

/** The window length. */
export const WINDOW_MS = 60_000

/** The outcome of one request against its window. */
export interface Hit {
  readonly allowed: boolean
  readonly limit: number
  readonly remaining: number
  /** Unix seconds when the window ends. */
  readonly resetAt: number
  /** Seconds to wait (1 to 60); meaningful when refused. */
  readonly retryAfter: number
}

/** The rate limiter. */
export class RateLimiter extends Effect.Service<RateLimiter>()("@sift/auth/RateLimiter", {
  scoped: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    if ((yield* Sql.Database).backend === "pglite") return embedded()
    let prunedWindow = 0
    /**
     * The hits of a group as one upsert: each window's hits counted together, and each hit's count its window's count
     * before the group plus its place among the window's hits in the group.
     */
    const count = (hits: ReadonlyArray<{ readonly keyId: string; readonly bucket: string; readonly windowStart: number }>) =>
      Effect.map(
        // Its text is the same whatever the group: kept prepared on each connection.
        sql<{ key_id: string; bucket: string; window_start: string | number; count: number }>`${sql.literal(Sql.PREPARED)}
          WITH h AS (
            SELECT key_id, bucket, window_start, count(*)::int AS n
            FROM json_to_recordset(${JSON.stringify(hits.map((hit) => ({ key_id: hit.keyId, bucket: hit.bucket, window_start: hit.windowStart })))}::json)
              AS t(key_id text, bucket text, window_start bigint)
            GROUP BY key_id, bucket, window_start
          )
          INSERT INTO rate_limit_windows (key_id, bucket, window_start, count) SELECT key_id, bucket, window_start, n FROM h
          ON CONFLICT (key_id, bucket, window_start) DO UPDATE SET count = rate_limit_windows.count + EXCLUDED.count
          RETURNING key_id, bucket, window_start, count`,
        (rows) => {
          const windowOf = (keyId: string, bucket: string, windowStart: number | string) => `${keyId}\u0000${bucket}\u0000${windowStart}`
          const final = new Map(rows.map((row) => [windowOf(row.key_id, row.bucket, row.window_start), Number(row.count)]))
          const inGroup = new Map<string, number>()
          for (const hit of hits) {
            const window = windowOf(hit.keyId, hit.bucket, hit.windowStart)
            inGroup.set(window, (inGroup.get(window) ?? 0) + 1)
          }
          const seen = new Map<string, number>()
          return hits.map((hit) => {
            const window = windowOf(hit.keyId, hit.bucket, hit.windowStart)
            const place = (seen.get(window) ?? 0) + 1
            seen.set(window, place)
            return (final.get(window) ?? place) - inGroup.get(window)! + place
          })
        }
      )
    const hits = yield* GroupCommit.make({ maxBatch: 1_000, write: count })
    return {
      /** Whether hits are counted in this process's memory (no round trip for a caller to overlap). */
      local: false as boolean,
      /** Counts one request of `keyId` in `bucket` against `limit` per minute. */
      hit: (keyId: string, bucket: "api" | "logs" | "registration", limit: number): Effect.Effect<Hit, SqlError> =>
        Effect.gen(function*() {
          const nowMs = yield* Clock.currentTimeMillis
          const windowStart = Math.floor(nowMs / WINDOW_MS) * WINDOW_MS
          const count = yield* hits.submit({ keyId, bucket, windowStart })
          if (windowStart !== prunedWindow) {
            // Once per window per process: old windows are never read again.
            prunedWindow = windowStart
            yield* sql`DELETE FROM rate_limit_windows WHERE window_start < ${windowStart - WINDOW_MS}`
          }
          const end = windowStart + WINDOW_MS
          return {
            allowed: count <= limit,
            limit,
            remaining: Math.max(0, limit - count),
            resetAt: Math.ceil(end / 1000),
            retryAfter: Math.min(60, Math.max(1, Math.ceil((end - nowMs) / 1000)))
          }
        })
    } as const
  })
}) {}

/** Windows counted in memory, for the one process of an embedded database. */
const embedded = () => {
  const windows = new Map<string, { start: number; count: number }>()
  return {
    local: true as boolean,
    hit: (keyId: string, bucket: "api" | "logs" | "registration", limit: number): Effect.Effect<Hit, SqlError> =>
      // The clock is read in the same step (`clockWith`): a hit is one step of the caller's fiber.
      Effect.clockWith((clock) => {
        const nowMs = clock.unsafeCurrentTimeMillis()
        const windowStart = Math.floor(nowMs / WINDOW_MS) * WINDOW_MS
        const key = `${keyId}\u0000${bucket}`
        let window = windows.get(key)
        if (window === undefined || window.start !== windowStart) {
          if (windows.size > 100_000) for (const [k, w] of windows) if (w.start < windowStart) windows.delete(k)
          window = { start: windowStart, count: 0 }
          windows.set(key, window)
        }
        window.count++
        const end = windowStart + WINDOW_MS
        return Effect.succeed({
          allowed: window.count <= limit,
          limit,
          remaining: Math.max(0, limit - window.count),
          resetAt: Math.ceil(end / 1000),
          retryAfter: Math.min(60, Math.max(1, Math.ceil((end - nowMs) / 1000)))
        })
      })
  }
}
