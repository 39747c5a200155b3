/**
 * The Sift API in a benchmark's own process, as the HTTP benches measure it: embedded PGlite in a temporary directory
 * with every migration, the real Fetcher (private targets allowed) and the store-backed cache, warnings only; one
 * enterprise organization with ample credits and rate limit, and its key. Also a local origin serving one article.
 */
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import * as HttpServer from "@effect/platform/HttpServer"
import * as SqlClient from "@effect/sql/SqlClient"
import * as Auth from "@sift/auth"
import { Fetcher, Renderer } from "@sift/core"
import { App, Server } from "@sift/http"
import { CacheStore, Migrations, Sql } from "@sift/store"
import { type Clock, Effect, Layer, Logger, LogLevel, ManagedRuntime, Redacted } from "effect"

/** The page every HTTP bench scrapes: a heading and forty paragraphs. */
export const page = `<html><head><title>Bench</title></head><body><main><h1>Benchmark page</h1>${"<p>Some paragraph text for the benchmark. </p>".repeat(40)}</main></body></html>`

/** Serves `page` on a free loopback port; returns its URL and a close function. */
export const startOrigin = async () => {
  const origin = createServer((_req, res) => res.writeHead(200, { "content-type": "text/html" }).end(page))
  await new Promise<void>((resolve) => origin.listen(0, "127.0.0.1", resolve))
  return { url: `http://127.0.0.1:${(origin.address() as AddressInfo).port}/`, close: () => origin.close() }
}

/**
 * Starts the service; `requestsPerMinute` is the bench organization's override; `clock` replaces the service's clock;
 * `postgres` (a DATABASE_URL) puts it on PostgreSQL, in a schema of its own dropped on close, instead of PGlite.
 */
export const startService = async (
  name: string,
  options: { readonly requestsPerMinute?: number; readonly clock?: Clock.Clock; readonly browser?: boolean; readonly postgres?: string } = {}
) => {
  const dir = mkdtempSync(join(tmpdir(), `sift-bench-${name}-`))
  const schema = `bench_${name.replace(/\W/g, "_")}_${process.pid}`
  const admin = (statement: (sql: SqlClient.SqlClient) => Effect.Effect<unknown, unknown>) =>
    Effect.runPromise(Effect.provide(Effect.flatMap(SqlClient.SqlClient, statement), Sql.layerPg({ url: Redacted.make(options.postgres!) })) as Effect.Effect<unknown>)
  let storage: Layer.Layer<SqlClient.SqlClient | Sql.Database, unknown> = Sql.layerPglite({ dir })
  if (options.postgres !== undefined) {
    await admin((sql) => sql`CREATE SCHEMA ${sql(schema)}`)
    const url = new URL(options.postgres)
    url.searchParams.set("options", `-c search_path=${schema}`)
    storage = Sql.layerPg({ url: Redacted.make(url.toString()) })
  }
  const database = Layer.tap(storage, (context) =>
    Effect.provide(Migrations.run({ store: Migrations.store, ...App.migrations }), context))
  const live = Layer.mergeAll(App.layerApi, Auth.layer, HttpServer.layerContext).pipe(
    Layer.provideMerge(Layer.mergeAll(
      // The listener `sift serve` runs (HTTPS rule, access log, the API front for /v1/).
      Server.layerListener({ port: 0, host: "127.0.0.1" }),
      Fetcher.layer({ allowPrivateTargets: true }),
      CacheStore.layer(),
      // Real Chromium (one page at a time), for the benches of rendered outputs.
      options.browser === true ? Renderer.layer({ size: 1, addressPolicy: () => true }) : Layer.empty
    )),
    Layer.provideMerge(database),
    Layer.provide(Logger.minimumLogLevel(LogLevel.Warning)),
    Layer.provide(options.clock === undefined ? Layer.empty : Layer.setClock(options.clock))
  )
  const runtime = ManagedRuntime.make(live)
  const { orgId, port, secret } = await runtime.runPromise(Effect.gen(function*() {
    const address = (yield* HttpServer.HttpServer).address
    const accounts = yield* Auth.Accounts.Accounts
    const org = yield* accounts.createOrg({ name: "bench", plan: "enterprise" })
    yield* accounts.setOverrides(org.id, { credits: 100_000_000, requestsPerMinute: options.requestsPerMinute ?? 100_000_000 })
    const created = yield* (yield* Auth.ApiKeys.ApiKeys).create({ orgId: org.id, name: "bench" })
    return { orgId: org.id, port: address._tag === "TcpAddress" ? address.port : 0, secret: created.secret }
  }))
  return {
    runtime,
    orgId,
    secret,
    /** `http://127.0.0.1:<port>` */
    origin: `http://127.0.0.1:${port}`,
    close: async () => {
      await runtime.dispose()
      rmSync(dir, { recursive: true, force: true })
      if (options.postgres !== undefined) await admin((sql) => sql`DROP SCHEMA ${sql(schema)} CASCADE`)
    }
  }
}
