/**
 * The Sift service as one process: configuration, then the database (PGlite in the data directory, or PostgreSQL) with
 * every package's migrations, then the Fetcher, the store-backed cache and the browser pool (`Renderer`), then the Node listener (HTTP, or HTTPS when
 * TLS files are configured; the HTTPS rule and the access log in front), then the application on it. `run` serves until
 * SIGINT/SIGTERM and then shuts down gracefully: stop accepting, let in-flight requests finish (bounded by
 * `SIFT_SHUTDOWN_TIMEOUT_MS`), close the application (request logs flush there), the database and the data-dir lock.
 *
 * @since 0.1.0
 */
import * as HttpServer from "@effect/platform/HttpServer"
import type * as SqlClient from "@effect/sql/SqlClient"
import { Cache, Fetcher, Renderer } from "@sift/core"
import { CacheStore, Migrations, Sql } from "@sift/store"
import { Cause, Effect, Exit, Layer, Option, Scope } from "effect"
import * as path from "node:path"
import { parseTrustedProxies, type TrustedProxies } from "./internal/server/httpsRule.js"
import * as listener from "./internal/server/listener.js"
import * as logger from "./internal/server/logger.js"
import * as ServiceConfig from "./ServiceConfig.js"

/**
 * What the server gives the application it runs.
 *
 * @category models
 */
export type Platform =
  | HttpServer.HttpServer
  | SqlClient.SqlClient
  | Sql.Database
  | Fetcher.Fetcher
  | Cache.Cache
  | Renderer.Renderer
  | ServiceConfig.CurrentConfig

/**
 * An application: the layer that serves on the platform's `HttpServer` (and starts whatever else it needs), and the
 * migrations of the packages it uses (the store's always run first).
 *
 * @category models
 */
export interface Application<E> {
  readonly layer: Layer.Layer<never, E, Platform>
  readonly migrations: Migrations.MigrationRecords
}

/** Options of `run`: `until` ends the service instead of a signal (tests, embedding). */
export interface RunOptions {
  readonly until?: Effect.Effect<unknown> | undefined
}

/**
 * The storage part of the platform: the database from the configuration, migrated.
 *
 * @category layers
 */
export const layerDatabase = (
  migrations: Migrations.MigrationRecords,
  role: string = "serve"
): Layer.Layer<SqlClient.SqlClient | Sql.Database, unknown> =>
  Layer.tap(
    Sql.layerConfig({ lockInfo: { role } }),
    (context) => Effect.provide(Migrations.run({ store: Migrations.store, ...migrations }), context)
  )

/**
 * The service's listener alone, as an `HttpServer` layer (HTTP on `host`:`port`, loopback by default; the HTTPS rule,
 * the access log and the API front as `run` has them): for embedding the application and for benchmarks.
 *
 * @category layers
 */
export const layerListener = (
  options: { readonly host?: string; readonly port?: number } = {}
): Layer.Layer<HttpServer.HttpServer, unknown> =>
  Layer.scoped(
    HttpServer.HttpServer,
    Effect.map(
      listener.make({
        host: options.host ?? "127.0.0.1",
        port: options.port ?? 0,
        tls: Option.none(),
        trustedProxies: noTrustedProxies
      }),
      (open) => open.httpServer
    )
  )

const noTrustedProxies = parseTrustedProxies("") as TrustedProxies

/** Resolves with the name of the first SIGINT or SIGTERM; a second one ends the process at once. */
const awaitSignal: Effect.Effect<string> = Effect.async<string>((resume) => {
  const handlers = (["SIGINT", "SIGTERM"] as const).map((signal) => {
    const handler = () => {
      process.once("SIGINT", forceExit)
      process.once("SIGTERM", forceExit)
      resume(Effect.succeed(signal))
    }
    process.once(signal, handler)
    return [signal, handler] as const
  })
  return Effect.sync(() => handlers.forEach(([signal, handler]) => process.off(signal, handler)))
})

const forceExit = () => {
  process.stderr.write(JSON.stringify({ time: new Date().toISOString(), level: "warn", msg: "second signal: exiting now" }) + "\n")
  process.exit(1)
}

const describeDatabase = (config: ServiceConfig.ServiceConfig, backend: Sql.Backend) =>
  backend === "postgres"
    ? { backend, data_dir: null }
    : { backend, data_dir: path.resolve(config.dataDir) }

/**
 * Serves `application` until a signal (or `options.until`), then shuts down gracefully. Fails when start-up fails
 * (configuration, data directory locked, migrations, port in use).
 *
 * @category running
 */
export const run = <E>(application: Application<E>, options: RunOptions = {}): Effect.Effect<void, unknown> =>
  Effect.gen(function*() {
    const config = yield* ServiceConfig.config
    return yield* runWith(config, application, options).pipe(Effect.provide(logger.layer(config.logLevel)))
  })

const runWith = <E>(config: ServiceConfig.ServiceConfig, application: Application<E>, options: RunOptions) =>
  Effect.gen(function*() {
    const scope = yield* Scope.make()
    const started = yield* Effect.gen(function*() {
      const storage = yield* Layer.buildWithScope(layerDatabase(application.migrations), scope)
      const services = yield* Layer.buildWithScope(
        // One browser pool per process: Chromium starts on the first page that needs it and closes with this scope.
        Layer.mergeAll(Fetcher.layerConfig, CacheStore.layer(), Renderer.layerConfig, Layer.succeed(ServiceConfig.CurrentConfig, config)),
        scope
      ).pipe(Effect.provide(storage))
      const open = yield* listener.make(config).pipe(Scope.extend(scope))
      yield* Layer.buildWithScope(application.layer, scope).pipe(
        Effect.provide(storage),
        Effect.provide(services),
        Effect.provideService(HttpServer.HttpServer, open.httpServer)
      )
      const backend = (yield* Effect.provide(Sql.Database, storage)).backend
      return { open, database: describeDatabase(config, backend) }
    }).pipe(Effect.onError(() => Scope.close(scope, Exit.void)))

    const { open } = started
    yield* Effect.log(`listening on ${open.url}`).pipe(Effect.annotateLogs({ url: open.url, ...started.database }))

    const reason = yield* (options.until === undefined ? awaitSignal : Effect.as(options.until, "stop requested"))
    yield* Effect.log(`shutting down (${reason}): waiting for ${open.inFlight()} request(s) in flight`)
    yield* open.stopAccepting
    const drained = yield* Effect.timeoutOption(open.drained, config.shutdownTimeoutMs)
    if (Option.isNone(drained)) {
      yield* Effect.logWarning(`shutdown: ${open.inFlight()} request(s) still running after ${config.shutdownTimeoutMs} ms; closing them`)
    }
    open.server.closeAllConnections()
    const closed = yield* Effect.exit(Scope.close(scope, Exit.void))
    if (Exit.isFailure(closed)) yield* Effect.logError("shutdown: closing resources failed", Cause.squash(closed.cause))
    yield* Effect.log("stopped")
  })
