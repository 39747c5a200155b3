/**
 * Core's `Cache` over the store: one row per key in `cache_entries` (bytes and the time they were stored), shared by
 * every process on the database, with a small in-process front for hot keys and a periodic sweep of expired rows.
 * A cache never fails a request: a database error is logged and answered as a miss (on `get`) or dropped (on `set`).
 *
 * @since 0.1.0
 */
import * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import { Cache } from "@sift/core/Cache"
import { Context, Duration, Effect, FiberRef, Layer, Option, Schedule, type Scope } from "effect"
import { LRUCache } from "lru-cache"
import * as GroupCommit from "./GroupCommit.js"
import { brotliCompressSync, brotliDecompressSync, constants as zlib } from "node:zlib"

/** Options of the store-backed cache. */
export interface Options {
  /** How long an entry is kept at all, whatever `maxAgeMs` asks (default 30 days, the contract's largest `maxAgeMs`). */
  readonly retentionMs?: number
  /** How often expired rows are deleted (default 10 minutes). */
  readonly sweepIntervalMs?: number
  /** Bytes of recently used entries kept in process memory (default 64 MiB; 0 turns the front off). */
  readonly memoryBytes?: number
}

/** The default retention: 30 days. */
export const DEFAULT_RETENTION_MS = 2_592_000_000

interface Row {
  /** Base64 (see `asText`). */
  readonly bytes: string
  readonly encoding: string | null
  readonly storedAt: string | number | Date
}

/** The largest entry written compressed, and the most a compressed entry may expand into when read. */
const MAX_PACKED_BYTES = 64 * 1024 * 1024

/**
 * An entry as it is written: brotli at its fastest quality when that saves a tenth or more (a 100 KB page becomes
 * ~24 KB in ~0.3 ms, where writing it whole cost the database ~3 ms of CPU and four times the disk), else as given.
 */
const pack = (value: Uint8Array): { readonly text: string; readonly encoding: "br" | null } => {
  if (value.byteLength >= 1024 && value.byteLength <= MAX_PACKED_BYTES) {
    const packed = brotliCompressSync(value, {
      params: { [zlib.BROTLI_PARAM_QUALITY]: 1, [zlib.BROTLI_PARAM_SIZE_HINT]: value.byteLength }
    })
    if (packed.byteLength <= value.byteLength * 0.9) return { text: asText(packed), encoding: "br" }
  }
  return { text: asText(value), encoding: null }
}

/** An entry as read; a compressed one expands into at most `MAX_PACKED_BYTES` (more throws: the read is a miss). */
const unpack = (text: string, encoding: string | null): Uint8Array => {
  const bytes = Buffer.from(text, "base64")
  if (encoding === null) return new Uint8Array(bytes)
  if (encoding !== "br") throw new Error(`cache entry in an unknown encoding: ${encoding}`)
  return new Uint8Array(brotliDecompressSync(bytes, { maxOutputLength: MAX_PACKED_BYTES }))
}

/**
 * Bytes cross to the database as base64 text, decoded there: PGlite's bytea (de)serializers build a string per byte
 * (a 100 KB page cost ~12 ms of its thread's CPU and 100,000 short strings to collect), and PostgreSQL takes it alike.
 */
const asText = (value: Uint8Array): string => Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString("base64")

const toMillis = (value: string | number | Date): number =>
  value instanceof Date ? value.getTime() : typeof value === "number" ? value : Number(value)

interface FrontEntry {
  readonly value: Uint8Array
  readonly storedAt: number
}

/**
 * The entries this process read or wrote, bounded by their bytes, least recently used evicted first; an entry larger
 * than a quarter of the budget is not kept. It only ever answers with an entry's true age.
 */
const makeFront = (maxBytes: number) =>
  new LRUCache<string, FrontEntry>({
    maxSize: maxBytes,
    maxEntrySize: Math.max(1, Math.floor(maxBytes / 4)),
    sizeCalculation: (entry) => Math.max(1, entry.value.byteLength)
  })

/**
 * Present beside a store-backed `Cache`: its entries are rows of `cache_entries` in the same database, so a caller that
 * writes a row of its own anyway (a batch page's record) may write the page's entry in that statement with `upsert`
 * instead of a second round trip through `Cache.set`. Such an entry skips the memory front (nobody asked for it yet).
 *
 * @category services
 */
export class Rows extends Context.Tag("@sift/store/CacheStore/Rows")<Rows, {
  /** How long an entry is kept (its `expires_at` is now plus this). */
  readonly retentionMs: number
  /** Drops `key` from this process's memory front, so a row written beside it is the one read next. */
  readonly forget: (key: string) => void
}>() {}

/**
 * While a fiber has this set, a store-backed cache's writes go into the array instead of the database (and its reads
 * see them): a caller holds a request's page writes to write them in a statement of its own with `upsert` (http's page
 * index writes a page's entry with its index row). A fiber reference rather than another `Cache` in the context: the
 * pipeline's result memo is kept per `Cache` service, which a per-request stand-in would empty on every request.
 */
export const heldWrites: FiberRef.FiberRef<Array<{ readonly key: string; readonly value: Uint8Array }> | undefined> = FiberRef.unsafeMake<
  Array<{ readonly key: string; readonly value: Uint8Array }> | undefined
>(undefined)

/**
 * The `cache_entries` upsert of some entries, as a fragment to put in a data-modifying `WITH` of the caller's statement
 * (the same columns and conflict rule as `Cache.set`; of entries with one key the last is written); none writes nothing.
 */
export const upsert = (
  sql: SqlClient.SqlClient,
  rows: Rows["Type"],
  entries: ReadonlyArray<{ readonly key: string; readonly value: Uint8Array }>
) => {
  // One row per key: an upsert that meets its own key twice fails.
  const byKey = new Map(entries.map((entry) => [entry.key, entry.value]))
  if (byKey.size === 0) return sql`INSERT INTO cache_entries (key, value) SELECT NULL, NULL WHERE false`
  const expiresAt = new Date(Date.now() + rows.retentionMs)
  for (const key of byKey.keys()) rows.forget(key)
  const values = [...byKey].map(([key, value]) => {
    const packed = pack(value)
    return sql`(${key}, decode(${packed.text}, 'base64'), ${packed.encoding}, ${expiresAt})`
  })
  return sql`
    INSERT INTO cache_entries (key, bytes, encoding, expires_at) VALUES ${sql.join(", ", false)(values)}
    ON CONFLICT (key) DO UPDATE
      SET value = NULL, bytes = EXCLUDED.bytes, encoding = EXCLUDED.encoding, created_at = now(), expires_at = EXCLUDED.expires_at`
}

/**
 * Builds the cache over the `SqlClient` in context and starts the expiry sweep for the scope's lifetime.
 *
 * @category constructors
 */
export const make = (options: Options = {}): Effect.Effect<Cache["Type"], never, SqlClient.SqlClient | Scope.Scope> =>
  Effect.map(makeWithRows(options), ({ cache }) => cache)

const makeWithRows = (options: Options = {}): Effect.Effect<{ cache: Cache["Type"]; rows: Rows["Type"] }, never, SqlClient.SqlClient | Scope.Scope> =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const retentionMs = options.retentionMs ?? DEFAULT_RETENTION_MS
    const memoryBytes = options.memoryBytes ?? 64 * 1024 * 1024
    const front = memoryBytes > 0 ? makeFront(memoryBytes) : undefined

    const sweep = sql`DELETE FROM cache_entries WHERE expires_at < now()`.pipe(
      Effect.tap(() => Effect.logDebug("cache: expired entries swept")),
      Effect.catchAllCause((cause) => Effect.logWarning("cache: sweep failed", cause))
    )
    yield* Effect.forkScoped(
      Effect.repeat(sweep, Schedule.spaced(Duration.millis(options.sweepIntervalMs ?? 600_000)))
    )

    // The reads made meanwhile share one statement (a group, as writes are grouped): on PGlite a lookup's fixed cost
    // (~0.4 ms of CPU planning one statement) was most of it, ten keys in one cost 0.04 ms each (a batch's pages are
    // looked up 16 at a time, nearly all misses).
    const reads = yield* GroupCommit.make<string, Row | undefined, SqlError>({
      maxBatch: 64,
      write: (keys) =>
        Effect.map(
          sql<Row & { readonly key: string }>`
            SELECT key, encode(bytes, 'base64') AS bytes, encoding, (extract(epoch from created_at) * 1000)::float8 AS "storedAt"
            FROM cache_entries
            WHERE key IN ${sql.in([...new Set(keys)])} AND bytes IS NOT NULL AND (expires_at IS NULL OR expires_at > now())`,
          (rows) => {
            const byKey = new Map(rows.map((row) => [row.key, row]))
            return keys.map((key) => byKey.get(key))
          }
        )
    })

    const fromDatabase = (key: string, maxAgeMs: number, now: number): Effect.Effect<Option.Option<{ value: Uint8Array; storedAt: number }>> =>
      Effect.gen(function*() {
        const row = yield* reads.submit(key)
        if (row === undefined) return Option.none()
        const entry = { value: unpack(row.bytes, row.encoding), storedAt: Math.round(toMillis(row.storedAt)) }
        front?.set(key, entry)
        return now - entry.storedAt <= maxAgeMs ? Option.some(entry) : Option.none()
      }).pipe(
        Effect.catchAllCause((cause) =>
          Effect.as(Effect.logWarning("cache: read failed, answering a miss", cause), Option.none())
        )
      )

    const get = (key: string, maxAgeMs: number): Effect.Effect<Option.Option<{ value: Uint8Array; storedAt: number }>> =>
      Effect.withFiberRuntime((fiber) => {
        const now = Date.now()
        const held = fiber.getFiberRef(heldWrites)
        const mine = held === undefined || held.length === 0 ? undefined : held.findLast((entry) => entry.key === key)
        if (mine !== undefined) return Effect.succeed(Option.some({ value: mine.value, storedAt: now }))
        const local = front?.get(key)
        // A fresher row may exist in the database (another replica wrote it), but this one is honest about its age.
        if (local !== undefined && now - local.storedAt <= Math.min(maxAgeMs, retentionMs)) {
          return Effect.succeed(Option.some(local))
        }
        return fromDatabase(key, maxAgeMs, now)
      })

    const set = (key: string, value: Uint8Array): Effect.Effect<void> =>
      Effect.withFiberRuntime((fiber) => {
        const held = fiber.getFiberRef(heldWrites)
        return held === undefined ? write(key, value) : Effect.sync(() => void held.push({ key, value }))
      })

    const write = (key: string, value: Uint8Array): Effect.Effect<void> =>
      Effect.gen(function*() {
        front?.delete(key)
        const expiresAt = new Date(Date.now() + retentionMs)
        const packed = pack(value)
        const rows = yield* sql<{ storedAt: string | number }>`
          INSERT INTO cache_entries (key, value, bytes, encoding, created_at, expires_at)
          VALUES (${key}, NULL, decode(${packed.text}, 'base64'), ${packed.encoding}, now(), ${expiresAt})
          ON CONFLICT (key) DO UPDATE
            SET value = EXCLUDED.value, bytes = EXCLUDED.bytes, encoding = EXCLUDED.encoding, created_at = EXCLUDED.created_at,
                expires_at = EXCLUDED.expires_at
          RETURNING (extract(epoch from created_at) * 1000)::float8 AS "storedAt"`
        const storedAt = rows[0]?.storedAt
        if (storedAt !== undefined) front?.set(key, { value, storedAt: Math.round(toMillis(storedAt)) })
      }).pipe(Effect.catchAllCause((cause) => Effect.logWarning("cache: write failed, entry dropped", cause)))

    return { cache: Cache.of({ get, set }), rows: Rows.of({ retentionMs, forget: (key) => void front?.delete(key) }) }
  })

/**
 * Core's `Cache` backed by the store's database.
 *
 * @category layers
 */
export const layer = (options?: Options): Layer.Layer<Cache | Rows, never, SqlClient.SqlClient> =>
  Layer.scopedContext(Effect.map(makeWithRows(options), ({ cache, rows }) => Context.make(Cache, cache).pipe(Context.add(Rows, rows))))
