/**
 * The store package's own tables. Later packages keep theirs beside their code and register them under their name.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { Effect } from "effect"

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

/** The store's migrations, by id. */
export const storeMigrations = {
  "0001_blobs": blobs,
  "0002_cache_entries": cacheEntries
}
