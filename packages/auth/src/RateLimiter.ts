/**
 * Fixed one-minute windows per key and bucket (`api`, `logs`, and `registration` per client address), counted in the database with one atomic upsert, so the
 * limits hold across server replicas; the hits a process makes meanwhile share that upsert (a group commit: one
 * statement for them all, each hit given its own place in its window's count). On embedded PGlite one process owns the database, so the windows are counted in
 * memory (a restart starts a fresh window). Refused requests count too (a client hammering through a 429 stays limited).
 *
 * Limits of `LEASE_FROM` requests a minute or more (enterprise overrides; every plan's limit is far below) are counted
 * in leases on PostgreSQL: a hit that goes to the database claims up to 1/64 of what its window has left (at most
 * `LEASE_MAX` hits) and the process answers the next hits of that key from the claim, in memory. Never more than the
 * limit is allowed, whatever the replicas; a replica's unused claim can refuse another's hits early by at most that
 * claim, and claims shrink as the window fills (the last 128 hits a process sees left are claimed one at a time).
 *
 * @since 0.1.0
 */
import * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import { GroupCommit, Sql } from "@sift/store"
import { Deferred, Effect, Exit, FiberId } from "effect"

/** The window length. */
export const WINDOW_MS = 60_000

/** Limits (requests per minute) at or above which a PostgreSQL window is counted in leases. */
export const LEASE_FROM = 10_000

/** The most hits one lease claims. */
export const LEASE_MAX = 256

/** A lease claims at most this share (1/n) of what its window has left, as its process last saw it. */
const LEASE_SHARE = 64

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

/** The outcome of a hit, given how many hits its window has counted so far (this one included). */
const outcome = (limit: number, allowed: boolean, counted: number, windowStart: number, nowMs: number): Hit => {
  const end = windowStart + WINDOW_MS
  return {
    allowed,
    limit,
    remaining: Math.max(0, limit - counted),
    resetAt: Math.ceil(end / 1000),
    retryAfter: Math.min(60, Math.max(1, Math.ceil((end - nowMs) / 1000)))
  }
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
    const count = (hits: ReadonlyArray<{ readonly keyId: string; readonly bucket: string; readonly windowStart: number; readonly n: number }>) =>
      Effect.map(
        // Its text is the same whatever the group: kept prepared on each connection.
        sql<{ key_id: string; bucket: string; window_start: string | number; count: number }>`${sql.literal(Sql.PREPARED)}
          WITH h AS (
            SELECT key_id, bucket, window_start, sum(n)::int AS n
            FROM json_to_recordset(${JSON.stringify(hits.map((hit) => ({ key_id: hit.keyId, bucket: hit.bucket, window_start: hit.windowStart, n: hit.n })))}::json)
              AS t(key_id text, bucket text, window_start bigint, n int)
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
            inGroup.set(window, (inGroup.get(window) ?? 0) + hit.n)
          }
          const seen = new Map<string, number>()
          return hits.map((hit) => {
            const window = windowOf(hit.keyId, hit.bucket, hit.windowStart)
            const place = (seen.get(window) ?? 0) + hit.n
            seen.set(window, place)
            return (final.get(window) ?? place) - inGroup.get(window)! + place
          })
        }
      )
    const hits = yield* GroupCommit.make({ maxBatch: 1_000, write: count })
    /**
     * Hits claimed and not yet used, per key and bucket, in the window they were claimed in; `full` once a claim found
     * the window at its limit (every later hit of the window is refused, and counted one by one).
     */
    const leases = new Map<string, { windowStart: number; left: number; count: number; full: boolean }>()
    /** Keys whose lease is being claimed: their other hits wait for that claim instead of claiming too. */
    const claiming = new Map<string, Deferred.Deferred<void>>()
    const leaseOf = (key: string, nowMs: number) => {
      const lease = leases.get(key)
      return lease !== undefined && lease.windowStart === Math.floor(nowMs / WINDOW_MS) * WINDOW_MS ? lease : undefined
    }
    const prune = (windowStart: number) => {
      if (windowStart === prunedWindow) return Effect.void
      // Once per window per process: old windows are never read again.
      prunedWindow = windowStart
      return Effect.asVoid(sql`DELETE FROM rate_limit_windows WHERE window_start < ${windowStart - WINDOW_MS}`)
    }
    /** A hit counted alone: one place in its window's count. */
    const single = (keyId: string, bucket: string, limit: number, windowStart: number, nowMs: number) =>
      Effect.zipLeft(Effect.map(hits.submit({ keyId, bucket, windowStart, n: 1 }), (count) => outcome(limit, count <= limit, count, windowStart, nowMs)), prune(windowStart))
    /** A hit of a leased limit: from this process's lease, or a claim of a new one (one claim per key at a time). */
    const leasedHit = (keyId: string, bucket: string, limit: number): Effect.Effect<Hit, SqlError> =>
      Effect.clockWith((clock) => {
        const nowMs = clock.unsafeCurrentTimeMillis()
        const windowStart = Math.floor(nowMs / WINDOW_MS) * WINDOW_MS
        const key = `${keyId}\u0000${bucket}`
        let lease = leaseOf(key, nowMs)
        if (lease !== undefined && lease.left > 0) {
          lease.left--
          return Effect.succeed(outcome(limit, true, lease.count - lease.left, windowStart, nowMs))
        }
        if (lease?.full === true) return single(keyId, bucket, limit, windowStart, nowMs)
        const pending = claiming.get(key)
        if (pending !== undefined) return Effect.zipRight(Deferred.await(pending), leasedHit(keyId, bucket, limit))
        const claimed = Deferred.unsafeMake<void>(FiberId.none)
        claiming.set(key, claimed)
        // A share of what the window had left when this process last saw it.
        const n = Math.max(1, Math.min(LEASE_MAX, Math.floor((limit - (lease?.count ?? 0)) / LEASE_SHARE)))
        const claim = Effect.map(hits.submit({ keyId, bucket, windowStart, n }), (count) => {
          // Of the hits claimed, those within the limit are granted: this one, and the rest are the lease.
          const granted = Math.max(0, Math.min(n, limit - (count - n)))
          if (lease === undefined) {
            if (leases.size > 100_000) for (const [k, l] of leases) if (l.windowStart < windowStart) leases.delete(k)
            lease = { windowStart, left: 0, count: 0, full: false }
            leases.set(key, lease)
          }
          lease.count = Math.max(lease.count, count)
          if (granted > 1) lease.left += granted - 1
          if (granted < n) lease.full = true
          return outcome(limit, granted > 0, granted > 0 ? lease.count - lease.left : count, windowStart, nowMs)
        })
        return Effect.zipLeft(
          Effect.ensuring(claim, Effect.suspend(() => {
            claiming.delete(key)
            return Deferred.done(claimed, Exit.void)
          })),
          prune(windowStart)
        )
      })
    return {
      /** Whether hits are counted in this process's memory (no round trip for a caller to overlap). */
      local: false as boolean,
      /** Whether the next hit of `keyId` in `bucket` is answered from a lease (in memory, no round trip). */
      leased: (keyId: string, bucket: "api" | "logs" | "registration", limit: number, nowMs: number): boolean =>
        limit >= LEASE_FROM && (leaseOf(`${keyId}\u0000${bucket}`, nowMs)?.left ?? 0) > 0,
      /** Counts one request of `keyId` in `bucket` against `limit` per minute. */
      hit: (keyId: string, bucket: "api" | "logs" | "registration", limit: number): Effect.Effect<Hit, SqlError> =>
        limit >= LEASE_FROM
          ? leasedHit(keyId, bucket, limit)
          : Effect.clockWith((clock) => {
            const nowMs = clock.unsafeCurrentTimeMillis()
            return single(keyId, bucket, limit, Math.floor(nowMs / WINDOW_MS) * WINDOW_MS, nowMs)
          })
    } as const
  })
}) {}

/** Windows counted in memory, for the one process of an embedded database. */
const embedded = () => {
  const windows = new Map<string, { start: number; count: number }>()
  return {
    local: true as boolean,
    leased: (_keyId: string, _bucket: "api" | "logs" | "registration", _limit: number, _nowMs: number): boolean => false,
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
        return Effect.succeed(outcome(limit, window.count <= limit, window.count, windowStart, nowMs))
      })
  }
}
