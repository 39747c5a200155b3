/**
 * The backends every storage test runs against: PGlite always, PostgreSQL when the global setup provided a URL.
 */
import { Layer, Redacted } from "effect"
import { inject } from "vitest"
import type * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import * as Sql from "../../src/Sql.js"
import type * as DataDirLock from "../../src/DataDirLock.js"

/** One backend under test. */
export interface Backend {
  readonly name: Sql.Backend
  /** Why it is skipped, when it is. */
  readonly skip: string | undefined
  /** A fresh client layer (for PostgreSQL a new pool on the shared test database). */
  readonly layer: () => Layer.Layer<SqlClient.SqlClient | Sql.Database, SqlError | DataDirLock.DataDirLocked>
}

const databaseUrl = inject("databaseUrl")

/** The PostgreSQL URL provided by the global setup, if any. */
export const postgresUrl: string | null = databaseUrl ?? null

/** PGlite in memory, and PostgreSQL when available. */
export const backends: ReadonlyArray<Backend> = [
  { name: "pglite", skip: undefined, layer: () => Sql.layerPglite({ dir: "memory://" }) },
  {
    name: "postgres",
    skip: postgresUrl === null ? "no PostgreSQL: set DATABASE_URL or run `node scripts/postgres.mjs`" : undefined,
    layer: () => Sql.layerPg({ url: Redacted.make(postgresUrl ?? "") })
  }
]

/** The describe title for a backend, naming the skip reason so it shows in the report. */
export const title = (backend: Backend): string =>
  backend.skip === undefined ? backend.name : `${backend.name} (skipped: ${backend.skip})`

/** A short random suffix so tests sharing one PostgreSQL database never see each other's tables or queues. */
export const unique = (): string => Math.random().toString(36).slice(2, 10)

/**
 * pg-boss's schema for this vitest worker of this run on PostgreSQL (ignored on PGlite): test files running side by
 * side on the one database (in this run or another) would otherwise take each other's jobs (a worker of one file
 * running another's monitor or URL enrichment with its own fixtures). Services started one after another in a file
 * share it. The global setup drops a run's schemas at its end.
 */
export const jobsSchema = (): string => `pgboss_r${inject("jobsRun")}_w${process.env.VITEST_POOL_ID ?? "0"}`
