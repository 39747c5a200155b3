/**
 * Schema migrations owned by each package. A package registers an ordered record of migrations under its name
 * (`{ store: { "0001_blobs": effect }, auth: { ... } }`); `run` applies the missing ones at start-up, package by package
 * in record order and by id within a package, each in its own transaction, and records them in `sift_migrations`.
 * A transaction-scoped advisory lock serialises concurrent migrators (several replicas starting on one PostgreSQL).
 *
 * @since 0.1.0
 */
import * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import { Cause, Effect, Layer, Schema } from "effect"
import { storeMigrations } from "./internal/storeMigrations.js"

/**
 * One migration: an effect that runs statements through the `SqlClient` in its context (already inside a transaction).
 *
 * @category models
 */
export type Migration = Effect.Effect<unknown, unknown, SqlClient.SqlClient>

/**
 * Migrations by package name, then by id. Ids start with a zero-padded number (`0001_jobs`) and run in sorted order.
 *
 * @category models
 */
export type MigrationRecords = Readonly<Record<string, Readonly<Record<string, Migration>>>>

/** A migration that was applied by a `run`. */
export interface Applied {
  readonly package: string
  readonly id: string
}

/**
 * A migration failed; its transaction was rolled back, and later migrations were not attempted.
 *
 * @category errors
 */
export class MigrationError extends Schema.TaggedError<MigrationError>()("MigrationError", {
  package: Schema.String,
  id: Schema.String,
  cause: Schema.Defect
}) {
  override get message(): string {
    return `migration ${this.package}/${this.id} failed: ${String((this.cause as Error)?.message ?? this.cause)}`
  }
}

/** The store's own migrations (blobs, cache entries), to include under the `store` key. */
export const store: Readonly<Record<string, Migration>> = storeMigrations

/** The table recording applied migrations. */
export const tableName = "sift_migrations"

// An arbitrary constant shared by every Sift process: the key of the advisory lock around each migration step.
const lockKey = 7_316_041_253

const lock = (sql: SqlClient.SqlClient) => sql`SELECT pg_advisory_xact_lock(${lockKey}::bigint)`

const ensureTable = (sql: SqlClient.SqlClient) =>
  sql.withTransaction(
    Effect.zipRight(
      lock(sql),
      sql`CREATE TABLE IF NOT EXISTS ${sql(tableName)} (
        package text NOT NULL,
        id text NOT NULL,
        applied_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (package, id)
      )`
    )
  )

/** The order migrations run in: packages as given, ids sorted. */
export const plan = (records: MigrationRecords): ReadonlyArray<Applied & { readonly migration: Migration }> =>
  Object.entries(records).flatMap(([pkg, migrations]) =>
    Object.keys(migrations).sort().map((id) => ({ package: pkg, id, migration: migrations[id]! }))
  )

/**
 * Applies the missing migrations and returns those it applied (empty when the schema is up to date).
 *
 * @category running
 */
export const run = (
  records: MigrationRecords
): Effect.Effect<ReadonlyArray<Applied>, MigrationError | SqlError, SqlClient.SqlClient> =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    yield* ensureTable(sql)
    const applied: Array<Applied> = []
    for (const step of plan(records)) {
      const ran = yield* sql.withTransaction(
        Effect.gen(function*() {
          yield* lock(sql)
          // Checked under the lock: another process may have applied it while this one waited.
          const done = yield* sql`SELECT 1 FROM ${sql(tableName)} WHERE package = ${step.package} AND id = ${step.id}`
          if (done.length > 0) return false
          yield* step.migration.pipe(
            Effect.catchAllCause((cause) =>
              Effect.fail(new MigrationError({ package: step.package, id: step.id, cause: Cause.squash(cause) }))
            )
          )
          yield* sql`INSERT INTO ${sql(tableName)} (package, id) VALUES (${step.package}, ${step.id})`
          return true
        })
      )
      if (ran) {
        applied.push({ package: step.package, id: step.id })
        yield* Effect.logDebug(`applied migration ${step.package}/${step.id}`)
      }
    }
    return applied
  })

/**
 * Runs the migrations when the layer is built (at start-up).
 *
 * @category layers
 */
export const layer = (records: MigrationRecords): Layer.Layer<never, MigrationError | SqlError, SqlClient.SqlClient> =>
  Layer.effectDiscard(run(records))

/** Lists what has been applied, in order. */
export const applied = (): Effect.Effect<ReadonlyArray<Applied & { readonly appliedAt: Date }>, SqlError, SqlClient.SqlClient> =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ package: string; id: string; appliedAt: Date }>`
      SELECT package, id, applied_at AS "appliedAt" FROM ${sql(tableName)} ORDER BY applied_at, package, id`)
