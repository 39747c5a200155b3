/**
 * An `@effect/sql` client over embedded PGlite. It compiles statements with `@effect/sql-pg`'s compiler, so the `sql`
 * template behaves exactly as on PostgreSQL, and guards the single PGlite session with a one-permit semaphore: a
 * statement holds the permit while it runs, a transaction holds it from `BEGIN` to `COMMIT`, so a query from another
 * fiber (or from pg-boss) can never land inside someone else's open transaction.
 *
 * @since 0.1.0
 */
import * as Reactivity from "@effect/experimental/Reactivity"
import * as SqlClient from "@effect/sql/SqlClient"
import type { Connection } from "@effect/sql/SqlConnection"
import { SqlError } from "@effect/sql/SqlError"
import * as Statement from "@effect/sql/Statement"
import { makeCompiler } from "@effect/sql-pg/PgClient"
import { Context, Effect, Layer, Scope, Stream } from "effect"
import * as DataDirLock from "./DataDirLock.js"
import * as PgliteSession from "./internal/pgliteSession.js"

/** The rows of one statement as PGlite and node-postgres both return them. */
export interface RawResult {
  readonly rows: ReadonlyArray<any>
}

/**
 * A `SqlClient` backed by PGlite, plus the raw session for tools that bring their own SQL (pg-boss).
 *
 * @category models
 */
export interface PgliteClient extends SqlClient.SqlClient {
  /** Runs an effect while holding the session: no statement or transaction of another fiber runs meanwhile. */
  readonly exclusive: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
  /**
   * Runs raw SQL outside any transaction, waiting for the session like any statement. Without values the text may hold
   * several statements (simple protocol, as node-postgres does); the last statement's rows are returned.
   */
  readonly executeSql: (text: string, values?: ReadonlyArray<unknown>) => Effect.Effect<RawResult, SqlError>
}

/** @category tags */
export const PgliteClient = Context.GenericTag<PgliteClient>("@sift/store/PgliteClient")

/**
 * Options for opening PGlite. `dataDir` is a directory path, or `memory://` for a throw-away database.
 *
 * @category models
 */
export interface PgliteClientConfig {
  readonly dataDir: string
  /** The directory whose lockfile guards the database; defaults to `dataDir`. Ignored for `memory://`. */
  readonly lockDir?: string | undefined
  /** Written into the lockfile so other processes know who owns the directory. */
  readonly lockInfo?: DataDirLock.LockInfo | undefined
  /** PostgreSQL's `shared_buffers` inside PGlite, in MB (default 16; see `SIFT_PGLITE_SHARED_BUFFERS_MB`). */
  readonly sharedBuffersMb?: number | undefined
  readonly transformResultNames?: ((str: string) => string) | undefined
  readonly transformQueryNames?: ((str: string) => string) | undefined
  readonly spanAttributes?: Record<string, unknown> | undefined
}

/** True when the data dir names an in-memory database rather than a directory. */
export const isMemory = (dataDir: string): boolean => dataDir === "" || dataDir.startsWith("memory://")

const toSqlError = (message: string) => (cause: unknown) => new SqlError({ cause, message })

const lastRows = (results: ReadonlyArray<RawResult>): RawResult => results[results.length - 1] ?? { rows: [] }

/**
 * Opens PGlite (taking the data-dir lock first for an on-disk database) and builds the client; PGlite closes, and the
 * lock is released, when the scope closes.
 *
 * @category constructors
 */
export const make = (
  config: PgliteClientConfig
): Effect.Effect<PgliteClient, SqlError | DataDirLock.DataDirLocked, Scope.Scope | Reactivity.Reactivity> =>
  Effect.gen(function*() {
    if (!isMemory(config.dataDir)) {
      yield* DataDirLock.acquire(config.lockDir ?? config.dataDir, config.lockInfo ?? {})
    }
    // PGlite runs on its own thread (internal/pgliteSession): its work never stalls this thread's event loop.
    const pglite = yield* Effect.acquireRelease(
      Effect.tryPromise({
        try: () =>
          PgliteSession.open(isMemory(config.dataDir) ? "memory://" : config.dataDir, {
            sharedBuffersMb: config.sharedBuffersMb ?? PgliteSession.defaultSettings.sharedBuffersMb
          }),
        catch: toSqlError("PgliteClient: failed to open the database")
      }),
      (db) => Effect.promise(() => db.close()).pipe(Effect.ignore)
    )
    const semaphore = yield* Effect.makeSemaphore(1)

    const compiler = makeCompiler(config.transformQueryNames)
    const transformRows = config.transformResultNames
      ? Statement.defaultTransforms(config.transformResultNames).array
      : undefined

    const run = (sql: string, params: ReadonlyArray<unknown>) =>
      params.length === 0
        // Without parameters use the simple protocol, like node-postgres: it accepts several statements.
        ? Effect.tryPromise({
          try: () => pglite.exec(sql),
          catch: toSqlError("Failed to execute statement")
        }).pipe(Effect.map((results) => results.length > 1 ? results.map((r) => r.rows) : lastRows(results).rows))
        : Effect.tryPromise({
          try: () => pglite.query(sql, params),
          catch: toSqlError("Failed to execute statement")
        }).pipe(Effect.map((result) => result.rows))

    const runRaw = (sql: string, params: ReadonlyArray<unknown>) =>
      Effect.tryPromise({
        try: async (): Promise<RawResult> =>
          params.length === 0 ? lastRows(await pglite.exec(sql)) : await pglite.query(sql, params),
        catch: toSqlError("Failed to execute statement")
      })

    const connection: Connection = {
      execute: (sql, params, transform) =>
        transform ? Effect.map(run(sql, params), transform) : run(sql, params),
      executeRaw: runRaw,
      executeValues: (sql, params) =>
        Effect.tryPromise({
          try: () => pglite.query(sql, params, { rowMode: "array" }),
          catch: toSqlError("Failed to execute statement")
        }).pipe(Effect.map((result) => result.rows)),
      executeUnprepared: (sql, params, transform) =>
        transform ? Effect.map(run(sql, params), transform) : run(sql, params),
      // PGlite holds the whole result in memory anyway; a stream over it keeps the interface complete.
      executeStream: (sql, params, transform) =>
        Stream.fromIterableEffect(transform ? Effect.map(run(sql, params), transform) : run(sql, params))
    }

    // The permit is held for the acquirer's scope: one statement, or a whole transaction. Waiting for it stays
    // interruptible (a request timing out behind a long transaction gives up); once taken, its release is registered.
    const acquirer = Effect.uninterruptibleMask((restore) =>
      restore(semaphore.take(1)).pipe(
        Effect.zipRight(Effect.addFinalizer(() => semaphore.release(1))),
        Effect.as(connection)
      )
    )

    const client = yield* SqlClient.make({
      acquirer,
      compiler,
      spanAttributes: [
        ...(config.spanAttributes ? Object.entries(config.spanAttributes) : []),
        ["db.system.name", "postgresql"],
        ["db.namespace", isMemory(config.dataDir) ? "memory" : config.dataDir]
      ],
      transformRows
    })

    const exclusive = semaphore.withPermits(1)
    return Object.assign(client, {
      exclusive,
      executeSql: (text: string, values: ReadonlyArray<unknown> = []) => exclusive(runRaw(text, values))
    }) as PgliteClient
  })

/**
 * A layer providing both `PgliteClient` and `SqlClient.SqlClient`.
 *
 * @category layers
 */
export const layer = (
  config: PgliteClientConfig
): Layer.Layer<PgliteClient | SqlClient.SqlClient, SqlError | DataDirLock.DataDirLocked> =>
  Layer.scopedContext(
    Effect.map(make(config), (client) =>
      Context.make(PgliteClient, client).pipe(Context.add(SqlClient.SqlClient, client)))
  ).pipe(Layer.provide(Reactivity.layer))
