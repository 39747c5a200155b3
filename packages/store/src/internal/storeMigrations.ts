/**
 * The store package's own tables. Later packages keep theirs beside their code and register them under their name.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { Effect } from "effect"
import { migration as urlIndex } from "../UrlIndexStore.js"

const blobs = Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql`CREATE TABLE blobs (
    key text PRIMARY KEY,
    content_type text,
    bytes bytea NOT NULL,
    size integer NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
  )`)

// The durable side of core's `Cache` interface (the implementation comes with the cache step): one row per key,
// expired rows ignored on read and swept by `expires_at`.
const cacheEntries = Effect.flatMap(SqlClient.SqlClient, (sql) =>
  Effect.zipRight(
    sql`CREATE TABLE cache_entries (
      key text PRIMARY KEY,
      value jsonb NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      expires_at timestamptz
    )`,
    sql`CREATE INDEX cache_entries_expires_at ON cache_entries (expires_at) WHERE expires_at IS NOT NULL`
  ))

// Core's `Cache` stores bytes: a bytea column beside the original jsonb one (which becomes optional) keeps cached pages
// out of JSON (no base64 inflation, no parse on read).
const cacheEntriesBytes = Effect.flatMap(SqlClient.SqlClient, (sql) =>
  Effect.zipRight(
    sql`ALTER TABLE cache_entries ADD COLUMN bytes bytea`,
    sql`ALTER TABLE cache_entries ALTER COLUMN value DROP NOT NULL`
  ))

// Entries are written compressed (brotli) when that pays: `encoding` says how (NULL: the bytes as given).
const cacheEntriesEncoding = Effect.flatMap(SqlClient.SqlClient, (sql) => sql`ALTER TABLE cache_entries ADD COLUMN encoding text`)

/** The store's migrations, by id. */
export const storeMigrations = {
  "0001_blobs": blobs,
  "0002_cache_entries": cacheEntries,
  "0003_cache_entries_bytes": cacheEntriesBytes,
  "0004_url_index": urlIndex,
  "0005_cache_entries_encoding": cacheEntriesEncoding
}
