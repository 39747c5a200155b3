/**
 * The real API in the test process: a Node HTTP server on a free port, embedded PGlite (or PostgreSQL when given) with
 * every migration, the real Fetcher (private targets allowed for fixture sites) and the store-backed cache. The test
 * gets the base URL and a runtime to run auth operations directly (organizations with set credits, keys).
 */
import { createServer } from "node:http"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import * as HttpServer from "@effect/platform/HttpServer"
import * as Auth from "@sift/auth"
import { Fetcher, Renderer } from "@sift/core"
import { CacheStore, Migrations, Sql } from "@sift/store"
import type * as SqlClient from "@effect/sql/SqlClient"
import { ConfigProvider, Effect, Layer, ManagedRuntime, Redacted } from "effect"
import * as App from "../../src/App.js"
import * as Server from "../../src/Server.js"
import { jobsSchema as testJobsSchema } from "../../../store/test/support/backends.js"

export interface TestService {
  /** `http://127.0.0.1:<port>/v1` */
  readonly baseUrl: string
  /** pg-boss's schema (`pgboss` on PGlite); a test reading the job table directly reads this one. */
  readonly jobsSchema: string
  readonly run: <A, E>(effect: Effect.Effect<A, E, Auth.Accounts.Accounts | Auth.ApiKeys.ApiKeys | Auth.CreditLedger.CreditLedger | SqlClient.SqlClient>) => Promise<A>
  /** Creates an organization (with its credits set when given) and a key; returns the secret and ids. */
  readonly key: (options?: {
    readonly plan?: Auth.Plans.PlanName
    readonly credits?: number
    readonly requestsPerMinute?: number
    readonly permissions?: ReadonlyArray<string>
    readonly zdr?: boolean
  }) => Promise<{ readonly secret: string; readonly keyId: string; readonly orgId: string }>
  readonly close: () => Promise<void>
}

/**
 * Starts the service; `databaseUrl` selects PostgreSQL instead of a fresh PGlite directory; `dataDir` reopens a PGlite
 * directory of an earlier run (kept on close); `hostRules` maps fixture "domains" (`SIFT_HOST_RESOLVER_RULES` syntax).
 */
export const start = async (options: {
  readonly databaseUrl?: string | undefined
  readonly dataDir?: string | undefined
  readonly hostRules?: string | undefined
  /** Provides a browser pool (real Chromium, launched on first use) for screenshots and rendering. */
  readonly browser?: boolean | undefined
  /** The browser's address guard (default: every address allowed, as fixture sites are on loopback). */
  readonly browserAddressPolicy?: ((ip: string, host: string) => boolean) | undefined
  /** Settings read from the environment by the application (monitors), over the defaults below. */
  readonly env?: Readonly<Record<string, string>> | undefined
  /** Serves on the listener `sift serve` runs (the API front for /v1/) instead of the platform's Node server. */
  readonly listener?: boolean | undefined
  /** False: the Fetcher's address guard refuses loopback and private targets, as in production (default true). */
  readonly allowPrivateTargets?: boolean | undefined
} = {}): Promise<TestService> => {
  const dir = options.dataDir ?? mkdtempSync(join(tmpdir(), "sift-api-"))
  const storage = options.databaseUrl === undefined ? Sql.layerPglite({ dir }) : Sql.layerPg({ url: Redacted.make(options.databaseUrl) })
  const database = Layer.tap(storage, (context) =>
    Effect.provide(Migrations.run({ store: Migrations.store, ...App.migrations }), context))
  const platform = Layer.mergeAll(
    options.listener === true
      ? Layer.mergeAll(Server.layerListener({ port: 0, host: "127.0.0.1" }), NodeHttpServer.layerContext)
      : NodeHttpServer.layer(createServer, { port: 0, host: "127.0.0.1" }),
    Fetcher.layer({ allowPrivateTargets: options.allowPrivateTargets ?? true, ...(options.hostRules === undefined ? {} : { hostRules: options.hostRules }) }),
    CacheStore.layer(),
    options.browser === true
      ? Renderer.layer({ size: 1, addressPolicy: options.browserAddressPolicy ?? (() => true), ...(options.hostRules === undefined ? {} : { hostRules: options.hostRules }) })
      : Layer.empty
  )
  // Webhook receivers of the tests are local; the monitor scheduler ticks every second.
  // Suites register many agents and clients from one address on a shared database: their own limit test sets it low.
  // On PostgreSQL each vitest worker has a job queue of its own (`jobsSchema`): otherwise a file's worker takes another
  // file's jobs, such as a URL enrichment of a fixture host its host rules cannot resolve.
  const jobsSchema = options.databaseUrl === undefined ? "pgboss" : options.env?.SIFT_JOBS_SCHEMA ?? testJobsSchema()
  const env = new Map(Object.entries({
    SIFT_ALLOW_PRIVATE_TARGETS: String(options.allowPrivateTargets ?? true),
    SIFT_MONITOR_TICK_MS: "1000",
    SIFT_REGISTRATIONS_PER_MINUTE: "100000",
    SIFT_JOBS_SCHEMA: jobsSchema,
    ...options.env
  }))
  const config = Layer.setConfigProvider(ConfigProvider.fromMap(env).pipe(ConfigProvider.orElse(() => ConfigProvider.fromEnv())))
  const live = Layer.mergeAll(App.layerApi.pipe(Layer.provide(config)), Auth.layer, HttpServer.layerContext).pipe(
    Layer.provideMerge(platform),
    Layer.provideMerge(database)
  )
  const runtime = ManagedRuntime.make(live)
  const address = await runtime.runPromise(Effect.map(HttpServer.HttpServer, (server) => server.address))
  if (address._tag !== "TcpAddress") throw new Error("expected a TCP address")
  const run: TestService["run"] = (effect) => runtime.runPromise(effect)
  return {
    baseUrl: `http://127.0.0.1:${address.port}/v1`,
    jobsSchema,
    run,
    key: (opts = {}) =>
      run(Effect.gen(function*() {
        const accounts = yield* Auth.Accounts.Accounts
        const keys = yield* Auth.ApiKeys.ApiKeys
        const org = yield* accounts.createOrg({ name: `org-${Math.random().toString(36).slice(2)}`, plan: opts.plan ?? "scale", zdr: opts.zdr ?? false })
        if (opts.credits !== undefined || opts.requestsPerMinute !== undefined) {
          yield* accounts.setOverrides(org.id, { credits: opts.credits, requestsPerMinute: opts.requestsPerMinute })
        }
        const created = yield* keys.create({ orgId: org.id, name: "test", permissions: opts.permissions })
        return { secret: created.secret, keyId: created.key.id, orgId: org.id }
      })),
    close: async () => {
      await runtime.dispose()
      if (options.dataDir === undefined) rmSync(dir, { recursive: true, force: true })
    }
  }
}
