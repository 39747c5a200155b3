/**
 * The Sift service as one process: configuration, then the Node listener (HTTP, or HTTPS when TLS files are
 * configured; the HTTPS rule and the access log in front), then the database (PGlite in the data directory, or
 * PostgreSQL) with every package's migrations, then the Fetcher, the store-backed cache and the browser pool
 * (`Renderer`), then the application on the listener. The port opens first, so a busy port fails at once and a load
 * balancer sees `/health` and `/ready` during start-up; until the application serves, every other request gets 503
 * with `Retry-After` (never a socket left open). `run` serves until SIGINT/SIGTERM and then shuts down gracefully:
 * `/ready` turns 503, stop accepting, let in-flight requests finish (bounded by `SIFT_SHUTDOWN_TIMEOUT_MS`), close the
 * application (request logs flush there), the database and the data-dir lock.
 *
 * @since 0.1.0
 */
import * as HttpServer from "@effect/platform/HttpServer"
import type { SpanProcessor } from "@opentelemetry/sdk-trace-base"
import type * as SqlClient from "@effect/sql/SqlClient"
import { BrowserPool, Cache, Fetcher, Renderer } from "@sift/core"
import { CacheStore, Migrations, Sql } from "@sift/store"
import { Cause, Context, Data, Effect, Exit, Layer, LogLevel, Option, Redacted, Scope } from "effect"
import * as path from "node:path"
import { parseTrustedProxies, type TrustedProxies } from "./internal/server/httpsRule.js"
import * as listener from "./internal/server/listener.js"
import * as logger from "./internal/server/logger.js"
import * as Metrics from "./Metrics.js"
import * as Tracing from "./Tracing.js"
import type * as Readiness from "./internal/server/readiness.js"
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

/**
 * Options of `run`: `until` ends the service instead of a signal (tests, embedding); `spanProcessor` records spans
 * there instead of the OTLP exporter `OTEL_EXPORTER_OTLP_ENDPOINT` turns on (tests: an in-memory exporter).
 */
export interface RunOptions {
  readonly until?: Effect.Effect<unknown> | undefined
  readonly spanProcessor?: SpanProcessor | undefined
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

/**
 * Listens for SIGINT and SIGTERM from now on (before the caller says it is listening, so a signal sent as soon as the
 * line is read is never met by Node's default action, an exit without shutting down); the effect it gives resolves
 * with the first one's name, and a second one ends the process at once. Interrupted, it stops listening.
 */
const listenForSignals = (): Effect.Effect<string> => {
  let received: string | undefined
  let wake: ((signal: string) => void) | undefined
  const handlers = (["SIGINT", "SIGTERM"] as const).map((signal) => {
    const handler = () => {
      process.once("SIGINT", forceExit)
      process.once("SIGTERM", forceExit)
      received ??= signal
      wake?.(signal)
    }
    process.once(signal, handler)
    return [signal, handler] as const
  })
  return Effect.async<string>((resume) => {
    if (received !== undefined) return resume(Effect.succeed(received))
    wake = (signal) => resume(Effect.succeed(signal))
    return Effect.sync(() => handlers.forEach(([signal, handler]) => process.off(signal, handler)))
  })
}

const forceExit = () => {
  process.stderr.write(JSON.stringify({ time: new Date().toISOString(), level: "warn", msg: "second signal: exiting now" }) + "\n")
  process.exit(1)
}

/** `DATABASE_URL` as it may be shown: user, host, port and database, never the password. */
export const describePostgres = (url: Redacted.Redacted): string => {
  try {
    const parsed = new URL(Redacted.value(url))
    const user = parsed.username === "" ? "" : `${decodeURIComponent(parsed.username)}@`
    return `${user}${parsed.host}${parsed.pathname === "/" ? "" : parsed.pathname}`
  } catch {
    return "(DATABASE_URL, not a URL)"
  }
}

const describeDatabase = (config: ServiceConfig.ServiceConfig, backend: Sql.Backend) =>
  backend === "postgres"
    ? { backend, data_dir: null, database: Option.match(config.databaseUrl, { onNone: () => null, onSome: describePostgres }) }
    : { backend, data_dir: path.resolve(config.dataDir) }

/** The human-readable lines printed on stderr once the service is ready: where the API is, the data, the first key. */
export const startupBanner = (config: ServiceConfig.ServiceConfig, url: string, backend: Sql.Backend): string => {
  const data = backend === "postgres"
    ? `PostgreSQL ${Option.match(config.databaseUrl, { onNone: () => "", onSome: describePostgres })} (DATABASE_URL)`
    : `${path.resolve(config.dataDir)} (embedded PGlite; SIFT_DATA_DIR or --data-dir to move it)`
  // The CLI finds the same database only with the same settings: the data directory resolves against its own cwd.
  const keyCommand = "npx sift keys create --name NAME --plan scale"
  const sameDatabase = backend === "postgres"
    ? `${keyCommand}   (with the same DATABASE_URL)`
    : path.resolve(config.dataDir) === path.resolve(".sift")
    ? `${keyCommand}   (from ${process.cwd()})`
    : `SIFT_DATA_DIR=${path.resolve(config.dataDir)} ${keyCommand}`
  return [
    "",
    "Sift is ready.",
    `  API        ${url}/v1   (health: ${url}/health, readiness: ${url}/ready)`,
    `  Data       ${data}`,
    `  First key  ${sameDatabase}`,
    `  Console    ${url}/   (first account: npx sift users create EMAIL --org ORG)`,
    ""
  ].join("\n")
}

/** How long `/ready` waits for the database's answer to `SELECT 1`. */
const DATABASE_CHECK_MS = 2_000

/**
 * The start-up state `/ready` reports, advanced by `runWith` as each part comes up; the database is asked live on
 * every probe (concurrent probes share one query).
 */
const makeReadiness = () => {
  let database: Sql.DatabaseShape | undefined
  let migrated = false
  let started = false
  let stopping = false
  let role: ServiceConfig.Role = "all"
  let pool: BrowserPool.BrowserPool["Type"] | undefined
  let pending: Promise<Readiness.Check> | undefined
  const askDatabase = (shape: Sql.DatabaseShape): Promise<Readiness.Check> => {
    pending ??= Effect.runPromise(
      shape.executeSql("SELECT 1").pipe(
        Effect.timeout(DATABASE_CHECK_MS),
        Effect.match({
          onFailure: (error): Readiness.Check => ({
            ok: false,
            state: error._tag === "TimeoutException" ? `no answer within ${DATABASE_CHECK_MS} ms` : "unreachable",
            backend: shape.backend
          }),
          onSuccess: (): Readiness.Check => ({ ok: true, state: "reachable", backend: shape.backend })
        })
      )
    ).finally(() => (pending = undefined))
    return pending
  }
  const probe: Readiness.Probe = async () => {
    const checks: Record<string, Readiness.Check> = {
      database: database === undefined ? { ok: false, state: "connecting" } : await askDatabase(database),
      migrations: { ok: migrated, state: migrated ? "applied" : "pending" },
      jobs: { ok: started, state: started ? "started" : "pending" },
      browser: pool === undefined ? { ok: false, state: "pending" } : await Effect.runPromise(Effect.map(pool.stats, (stats) => ({
        // Chromium starts on the first page that needs it and is relaunched after a crash: never a reason to refuse.
        ok: true,
        state: stats.connected ? "connected" : stats.launches === 0 ? "not launched (starts on the first page that needs it)" : "relaunches on the next render",
        open_contexts: stats.openContexts
      }))),
      server: {
        ok: started && !stopping,
        state: stopping ? "stopping" : started ? role === "worker" ? "working (jobs only)" : "serving" : "starting",
        // Named when it is not the default, so a single process reports exactly what it always has.
        ...(role === "all" ? {} : { role })
      }
    }
    return { ready: Object.values(checks).every((check) => check.ok), checks }
  }
  return {
    probe,
    connected: (shape: Sql.DatabaseShape) => void (database = shape),
    migrated: () => void (migrated = true),
    browserPool: (value: BrowserPool.BrowserPool["Type"]) => void (pool = value),
    started: () => void (started = true),
    role: (value: ServiceConfig.Role) => void (role = value),
    stopping: () => void (stopping = true)
  }
}

/**
 * Serves `application` until a signal (or `options.until`), then shuts down gracefully. Fails when start-up fails
 * (configuration, port in use, data directory locked, migrations).
 *
 * @category running
 */
export const run = <E>(application: Application<E>, options: RunOptions = {}): Effect.Effect<void, unknown> =>
  Effect.gen(function*() {
    const config = yield* ServiceConfig.config
    // Around the whole run: the tracer is in every fiber the service starts, and flushed when it has stopped.
    const tracing = options.spanProcessor === undefined ? Tracing.layerConfig : Tracing.layer(options.spanProcessor)
    return yield* runWith(config, application, options).pipe(Effect.provide(tracing), Effect.provide(logger.layer(config.logLevel)))
  })

/** A role other than `all` on the embedded database: refused before anything opens. */
export class RoleNeedsPostgres extends Data.TaggedError("RoleNeedsPostgres")<{ readonly role: ServiceConfig.Role }> {
  override get message(): string {
    return `SIFT_ROLE=${this.role} (or --role ${this.role}) needs DATABASE_URL: api and worker processes share one ` +
      "PostgreSQL database, and the embedded PGlite database belongs to one process, which runs every role (SIFT_ROLE=all)"
  }
}

const runWith = <E>(config: ServiceConfig.ServiceConfig, application: Application<E>, options: RunOptions) =>
  Effect.gen(function*() {
    if (config.role !== "all" && Option.isNone(config.databaseUrl)) return yield* new RoleNeedsPostgres({ role: config.role })
    const scope = yield* Scope.make()
    const readiness = makeReadiness()
    readiness.role(config.role)
    const metrics = config.metrics || Option.isSome(config.metricsToken) ? new Metrics.Metrics() : undefined
    if (metrics !== undefined) yield* Metrics.install(metrics)
    const started = yield* Effect.gen(function*() {
      // The port first: a busy port fails before the database is touched, and probes are answered from now on.
      const open = yield* listener.make(config, {
        probe: readiness.probe,
        metrics,
        metricsToken: config.metricsToken,
        jobsOnly: config.role === "worker"
      }).pipe(Scope.extend(scope))
      yield* Effect.logDebug(`port open on ${open.url}; answering 503 until ready`)
      // A server keeps the PostgreSQL connections it opens (its job queue's too): no closing and reopening between bursts.
      const storage = yield* Layer.buildWithScope(Sql.layerConfig({ lockInfo: { role: "serve" }, holdConnections: true }), scope)
      const database = Context.get(storage, Sql.Database)
      readiness.connected(database)
      yield* Migrations.run({ store: Migrations.store, ...application.migrations }).pipe(Effect.provide(storage))
      readiness.migrated()
      const services = yield* Layer.buildWithScope(
        // One browser pool per process: Chromium starts on the first page that needs it and closes with this scope.
        Layer.mergeAll(
          Fetcher.layerConfig,
          metrics === undefined ? CacheStore.layer() : Layer.map(CacheStore.layer(), (context) =>
            Context.add(context, Cache.Cache, Metrics.countedCache(Context.get(context, Cache.Cache), metrics))),
          Layer.effect(Renderer.Renderer, Renderer.make).pipe(Layer.provideMerge(BrowserPool.layerConfig)),
          Layer.succeed(ServiceConfig.CurrentConfig, config)
        ),
        scope
      ).pipe(Effect.provide(storage))
      const pool = Context.get(services, BrowserPool.BrowserPool)
      readiness.browserPool(pool)
      metrics?.use({
        queueDepths: () => Effect.runPromise(database.executeSql(`SELECT name, state, count(*)::int AS count FROM ${database.backend === "postgres" ? config.jobsSchema : "pgboss"}.job GROUP BY name, state`).pipe(
          Effect.map((result) => (result.rows as Array<{ name: string; state: string; count: number }>).map((row) => ({ queue: row.name, state: row.state, count: Number(row.count) })))
        )),
        browser: () => Effect.runPromise(pool.stats)
      })
      // The application starts its job queue (and workers) as part of its layer. A worker serves no application: its
      // listener answers the probes and metrics only.
      const httpServer = config.role === "worker"
        ? HttpServer.make({ address: open.httpServer.address, serve: () => Effect.void })
        : open.httpServer
      yield* Layer.buildWithScope(application.layer, scope).pipe(
        Effect.provide(storage),
        Effect.provide(services),
        Effect.provideService(HttpServer.HttpServer, httpServer),
        metrics === undefined ? (effect) => effect : Effect.provideService(Metrics.CurrentMetrics, metrics)
      )
      readiness.started()
      return { open, backend: database.backend, database: describeDatabase(config, database.backend) }
    }).pipe(Effect.onError(() => Scope.close(scope, Exit.void)))

    const { open } = started
    const signalled = options.until === undefined ? listenForSignals() : undefined
    yield* Effect.log(`listening on ${open.url}`).pipe(Effect.annotateLogs({ url: open.url, role: config.role, ...started.database }))
    if (LogLevel.lessThanEqual(config.logLevel, LogLevel.Info)) {
      process.stderr.write(startupBanner(config, open.url, started.backend) + "\n")
    }

    const reason = yield* (signalled ?? Effect.as(options.until!, "stop requested"))
    readiness.stopping()
    // Draining: /ready answers 503 while everything else is still served, long enough for a load balancer polling it
    // to stop sending new requests here before the port closes (a second signal ends the process at once).
    if (config.shutdownDelayMs > 0) {
      yield* Effect.log(`shutting down (${reason}): /ready answers 503; still serving for ${config.shutdownDelayMs} ms`)
      yield* Effect.sleep(config.shutdownDelayMs)
    }
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
