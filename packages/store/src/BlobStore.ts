/**
 * Bytes by key (cached screenshots, original documents). The embedded default keeps them in the `blobs` table on
 * whichever backend runs; an object store can implement the same interface later.
 *
 * @since 0.1.0
 */
import * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import { Context, Effect, Layer, Option } from "effect"

/**
 * A stored blob with its metadata.
 *
 * @category models
 */
export interface Blob {
  readonly key: string
  readonly bytes: Uint8Array
  readonly contentType: Option.Option<string>
  readonly createdAt: Date
}

/**
 * The blob store interface.
 *
 * @category models
 */
export interface BlobStoreShape {
  /** Stores `bytes` under `key`, replacing what was there. */
  readonly put: (
    key: string,
    bytes: Uint8Array,
    options?: { readonly contentType?: string | undefined }
  ) => Effect.Effect<void, SqlError>
  /** The blob under `key`, if any. */
  readonly get: (key: string) => Effect.Effect<Option.Option<Blob>, SqlError>
  /** Removes `key`; true when something was removed. */
  readonly delete: (key: string) => Effect.Effect<boolean, SqlError>
  /** Removes the blobs whose key starts with `prefix` stored before `cutoff`; answers how many. */
  readonly removeOlderThan: (prefix: string, cutoff: Date) => Effect.Effect<number, SqlError>
}

/** @category tags */
export class BlobStore extends Context.Tag("@sift/store/BlobStore")<BlobStore, BlobStoreShape>() {}

interface BlobRow {
  readonly key: string
  /** Base64: bytes cross to the database as text, decoded there (as `CacheStore` does). */
  readonly bytes: string
  readonly contentType: string | null
  readonly createdAt: Date
}

// The stored bytes, from the base64 text they are read as.
const toBytes = (base64: string): Uint8Array => new Uint8Array(Buffer.from(base64, "base64"))

/**
 * The SQL implementation over the `blobs` table (created by the store's migrations).
 *
 * @category constructors
 */
export const makeSql: Effect.Effect<BlobStoreShape, never, SqlClient.SqlClient> = Effect.map(
  SqlClient.SqlClient,
  (sql): BlobStoreShape => ({
    // Base64 text decoded by the database, not a bytea parameter: PGlite's bytea (de)serializers build a string per
    // byte (a batch's 256 KB NDJSON chunk took ~50 ms of its thread's CPU).
    put: (key, bytes, options) =>
      sql`INSERT INTO blobs (key, content_type, bytes, size)
        VALUES (${key}, ${options?.contentType ?? null}, decode(${Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64")}, 'base64'), ${bytes.byteLength})
        ON CONFLICT (key) DO UPDATE SET content_type = EXCLUDED.content_type, bytes = EXCLUDED.bytes,
          size = EXCLUDED.size, created_at = now()`.pipe(Effect.asVoid),
    get: (key) =>
      sql<BlobRow>`SELECT key, encode(bytes, 'base64') AS bytes, content_type AS "contentType", created_at AS "createdAt"
        FROM blobs WHERE key = ${key}`.pipe(
        Effect.map((rows) =>
          Option.map(Option.fromNullable(rows[0]), (row) => ({
            key: row.key,
            bytes: toBytes(row.bytes),
            contentType: Option.fromNullable(row.contentType),
            createdAt: row.createdAt
          }))
        )
      ),
    delete: (key) =>
      sql`DELETE FROM blobs WHERE key = ${key} RETURNING key`.pipe(Effect.map((rows) => rows.length > 0)),
    removeOlderThan: (prefix, cutoff) =>
      // A prefix match, not LIKE: `_` and `%` in a key prefix are plain characters.
      sql`DELETE FROM blobs WHERE starts_with(key, ${prefix}) AND created_at < ${cutoff} RETURNING key`.pipe(
        Effect.map((rows) => rows.length)
      )
  })
)

/**
 * `BlobStore` in the SQL database (PGlite or PostgreSQL).
 *
 * @category layers
 */
export const layerSql: Layer.Layer<BlobStore, never, SqlClient.SqlClient> = Layer.effect(BlobStore, makeSql)
