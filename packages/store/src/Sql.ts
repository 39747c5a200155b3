/**
 * The one SQL client of Sift: embedded PGlite in a data directory by default, a real PostgreSQL when `DATABASE_URL`
 * is set. Both provide `SqlClient.SqlClient` (same dialect, same queries) and `Database`, which says which backend runs
 * and gives raw access for tools that bring their own SQL (pg-boss).
 *
 * @since 0.1.0
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { SqlError } from "@effect/sql/SqlError"
import * as PgClient from "@effect/sql-pg/PgClient"
import { Config, type ConfigError, Context, Effect, Layer, Option, Redacted } from "effect"
import * as path from "node:path"
import Pg from "pg"
import type * as DataDirLock from "./DataDirLock.js"
import * as PgliteClient from "./PgliteClient.js"

/** A text parameter given as parts and a separator, never joined into one string on the request thread. */
export { JoinedText } from "./internal/joinedText.js"

/** Which engine backs the store. */
export type Backend = "pglite" | "postgres"

/**
 * The running backend and raw access to it.
 *
 * @category models
 */
export interface DatabaseShape {
  readonly backend: Backend
  /** PostgreSQL only: the connection string, for tools that open their own pool (pg-boss). */
  readonly url: Option.Option<Redacted.Redacted>
  /** PGlite in a directory only: the Sift data directory (beside `pgdata`), for files kept with the database. */
  readonly dataDir: Option.Option<string>
  /** Raw SQL outside any transaction (on PGlite it waits for the single session); several statements without values. */
  readonly executeSql: (
    text: string,
    values?: ReadonlyArray<unknown>
  ) => Effect.Effect<PgliteClient.RawResult, SqlError>
}

/** @category tags */
export class Database extends Context.Tag("@sift/store/Database")<Database, DatabaseShape>() {}

/** The sub-directory of the data directory that holds PGlite's files. */
export const pgdataDir = "pgdata"

/**
 * Options for the embedded backend: `dir` is the Sift data directory (the database lives in `<dir>/pgdata`, the lock in
 * `<dir>/sift.lock`), or `memory://` for a throw-away database.
 *
 * @category models
 */
export interface PgliteOptions {
  readonly dir: string
  readonly lockInfo?: DataDirLock.LockInfo | undefined
  /** PostgreSQL's `shared_buffers` inside PGlite, in MB (default 16). */
  readonly sharedBuffersMb?: number | undefined
}

/**
 * Embedded PGlite in a data directory.
 *
 * @category layers
 */
export const layerPglite = (
  options: PgliteOptions
): Layer.Layer<SqlClient.SqlClient | PgliteClient.PgliteClient | Database, SqlError | DataDirLock.DataDirLocked> => {
  const memory = PgliteClient.isMemory(options.dir)
  const client = PgliteClient.layer({
    dataDir: memory ? "memory://" : path.join(options.dir, pgdataDir),
    lockDir: options.dir,
    lockInfo: options.lockInfo,
    sharedBuffersMb: options.sharedBuffersMb
  })
  const database = Layer.effect(
    Database,
    Effect.map(PgliteClient.PgliteClient, (pglite) => ({
      backend: "pglite" as const,
      url: Option.none(),
      dataDir: memory ? Option.none() : Option.some(options.dir),
      executeSql: pglite.executeSql
    }))
  )
  return Layer.provideMerge(database, client)
}

/**
 * Marks a statement to keep prepared on each PostgreSQL connection: SQL text that begins with it (a comment, so
 * PGlite and logs read it as nothing) is sent as a named statement, parsed once per connection instead of every call,
 * and its plan kept (PostgreSQL re-plans it itself after DDL on what it reads). For hot statements whose text is the
 * same whatever their values (a group as one JSON parameter); the result's columns must not depend on a table's.
 */
export const PREPARED = "/* sift:prepared */"

/** Texts kept prepared, at most (past it they run unnamed as any other: a text built per call must not grow this). */
const MAX_PREPARED = 64

/**
 * Sends the `PREPARED` statements of `pool`'s connections as named statements. node-postgres parses a name on a
 * connection the first time it is used there (a new connection after a lost one parses again), and refuses one name for
 * two texts: names are given per text, once per process.
 */
const preparing = (pool: Pg.Pool): Pg.Pool => {
  const names = new Map<string, string>()
  pool.on("connect", (client) => {
    const query = client.query as (...args: Array<unknown>) => unknown
    client.query = function(this: Pg.PoolClient, ...args: Array<unknown>) {
      const [text, values, callback] = args
      if (typeof text === "string" && text.startsWith(PREPARED) && Array.isArray(values) && typeof callback === "function") {
        let name = names.get(text)
        if (name === undefined && names.size < MAX_PREPARED) names.set(text, name = `sift_${names.size + 1}`)
        if (name !== undefined) return query.call(this, { name, text, values }, callback)
      }
      return query.apply(this, args)
    } as typeof client.query
  })
  return pool
}

/** node-postgres's pool size unless set. */
const DEFAULT_MAX_CONNECTIONS = 10

/**
 * A real PostgreSQL through `@effect/sql-pg`, on a pool of node-postgres's made here (to keep `PREPARED` statements
 * prepared), as `@effect/sql-pg` makes its own.
 *
 * @category layers
 */
export const layerPg = (
  options: {
    readonly url: Redacted.Redacted
    /** The pool's size (default 10). */
    readonly maxConnections?: number | undefined
    /**
     * Keeps every connection the pool opens (up to its size) instead of closing one idle for `idleTimeoutMs`: a server
     * under bursty traffic (monitors firing each minute, batches) then does not close and reopen PostgreSQL backends
     * between bursts, and the connections it holds stay at the most it has needed.
     */
    readonly holdConnections?: boolean | undefined
    /** How long a connection the pool does not hold may stay idle (default 10 s). */
    readonly idleTimeoutMs?: number | undefined
  }
): Layer.Layer<SqlClient.SqlClient | PgClient.PgClient | Database, SqlError> => {
  const database = Layer.effect(
    Database,
    Effect.map(PgClient.PgClient, (pg) => ({
      backend: "postgres" as const,
      url: Option.some(options.url),
      dataDir: Option.none(),
      executeSql: (text: string, values: ReadonlyArray<unknown> = []) =>
        // Outside any transaction the pool hands out a fresh connection; `raw` keeps node-postgres's result shape.
        Effect.map(
          pg.withoutTransforms().unsafe(text, values).raw,
          (result) => (Array.isArray(result) ? result[result.length - 1] : result) as PgliteClient.RawResult
        ).pipe(Effect.mapInputContext(Context.omit(SqlClient.TransactionConnection)))
    }))
  )
  const acquire = Effect.acquireRelease(
    Effect.tryPromise({
      try: async () => {
        const max = options.maxConnections ?? DEFAULT_MAX_CONNECTIONS
        const pool = preparing(new Pg.Pool({
          connectionString: Redacted.value(options.url),
          max,
          min: options.holdConnections === true ? max : 0,
          idleTimeoutMillis: options.idleTimeoutMs ?? 10_000,
          application_name: "@effect/sql-pg"
        }))
        // A connection's error reaches the query that was using it; the pool drops the connection.
        pool.on("error", () => {})
        try {
          await pool.query("SELECT 1")
        } catch (cause) {
          await pool.end().catch(() => {})
          throw cause
        }
        return pool
      },
      catch: (cause) => new SqlError({ cause, message: "PgClient: Failed to connect" })
    }),
    (pool) => Effect.promise(() => pool.end()).pipe(Effect.interruptible, Effect.timeoutOption(1000))
  ).pipe(Effect.timeoutFail({ duration: "5 seconds", onTimeout: () => new SqlError({ cause: new Error("Connection timed out"), message: "PgClient: Connection timed out" }) }))
  return Layer.provideMerge(database, PgClient.layerFromPool({ acquire, applicationName: "@effect/sql-pg" }))
}

/**
 * Reads `DATABASE_URL` (PostgreSQL when set), `SIFT_DATA_DIR` (default `./.sift`) and
 * `SIFT_PGLITE_SHARED_BUFFERS_MB` (default 16) through `Config`.
 *
 * @category layers
 */
export const layerConfig = (
  options: {
    readonly lockInfo?: DataDirLock.LockInfo | undefined
    /** On PostgreSQL, the pool keeps the connections it opens (`layerPg`'s `holdConnections`): for a server. */
    readonly holdConnections?: boolean | undefined
  } = {}
): Layer.Layer<
  SqlClient.SqlClient | Database,
  SqlError | DataDirLock.DataDirLocked | ConfigError.ConfigError
> =>
  Layer.unwrapEffect(
    Effect.gen(function*() {
      const url = yield* Config.option(Config.redacted("DATABASE_URL"))
      if (Option.isSome(url) && Redacted.value(url.value) !== "") {
        return layerPg({ url: url.value, holdConnections: options.holdConnections }) as Layer.Layer<SqlClient.SqlClient | Database, SqlError>
      }
      const dir = yield* Config.withDefault(Config.string("SIFT_DATA_DIR"), "./.sift")
      const sharedBuffersMb = yield* Config.withDefault(
        Config.integer("SIFT_PGLITE_SHARED_BUFFERS_MB").pipe(
          Config.validate({ message: "Expected an integer from 1 to 1024", validation: (mb) => mb >= 1 && mb <= 1024 })
        ),
        16
      )
      return layerPglite({ dir, lockInfo: options.lockInfo, sharedBuffersMb }) as Layer.Layer<
        SqlClient.SqlClient | Database,
        SqlError | DataDirLock.DataDirLocked
      >
    })
  )
