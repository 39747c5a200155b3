/**
 * The typed error channel (issue 17, item 1): a handler fails only with errors carrying their `error_code` (the
 * `@ts-expect-error` lines below are checked by `npx tsc -p tsconfig.test.json`: each fails to compile, so removing the
 * constraint makes the type-check fail), codes map to statuses in one table covering the contract, and an
 * infrastructure failure inside a handler is a defect: the 500 body that says nothing was charged, the reservation
 * released, and the cause logged (it was a silent 500 before).
 */
import { createServer } from "node:http"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import * as HttpServer from "@effect/platform/HttpServer"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as SqlClient from "@effect/sql/SqlClient"
import { SqlError } from "@effect/sql/SqlError"
import * as Auth from "@sift/auth"
import { Errors } from "@sift/core"
import { Migrations, Sql } from "@sift/store"
import { Cause, Effect, Layer, Logger, LogLevel, ManagedRuntime, Schema } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as App from "../../src/App.js"
import * as ErrorMapping from "../../src/ErrorMapping.js"
import * as MonitorRoutes from "../../src/Monitors/Http.js"
import { RequestLog } from "../../src/RequestLog.js"
import * as RequestPipeline from "../../src/RequestPipeline.js"

const api = { bucket: "api" } as const
const plan = { input: undefined, credits: 2, zdr: false, tags: [], holdMs: 60_000 }
const delivered = { body: { ok: true }, credits: 2 }

class Uncoded extends Schema.TaggedError<Uncoded>()("Uncoded", { detail: Schema.String }) {}

describe("the error channel's types", () => {
  it("refuses handlers that fail without an error_code, and takes coded ones", () => {
    // @ts-expect-error a plain Error carries no error_code
    RequestPipeline.serve(api, { validate: () => Effect.succeed(plan), run: () => Effect.fail(new Error("x")) })
    // @ts-expect-error a raw SqlError is infrastructure: a defect at the service edge, never a handler's failure
    RequestPipeline.serve(api, { validate: () => Effect.succeed(plan), run: () => Effect.fail(new SqlError({ cause: "x" })) })
    // @ts-expect-error validation too: a tagged error without a code
    RequestPipeline.serve(api, { validate: () => Effect.fail(new Uncoded({ detail: "x" })), run: () => Effect.succeed(delivered) })
    // @ts-expect-error the mapping takes coded errors only
    ErrorMapping.map(new Error("x"))
    // @ts-expect-error a code no package declares is not a code
    const teapot = () => new ErrorMapping.ApiFailure({ code: "TEAPOT", detail: "x" })

    const coded = RequestPipeline.serve(api, {
      validate: () => Effect.fail(new Errors.InvalidRequest({ reason: "Invalid", detail: "x" })),
      run: () => Effect.fail(new ErrorMapping.ApiFailure({ code: "NOT_FOUND", detail: "x" }))
    })
    // A SQL failure turned into a defect at the edge leaves the handler's channel coded.
    const edged = RequestPipeline.serve(api, {
      validate: () => Effect.succeed(plan),
      run: () => Effect.as(ErrorMapping.dieOnInfrastructure(Effect.fail(new SqlError({ cause: "x" }))), delivered)
    })
    expect(Effect.isEffect(coded) && Effect.isEffect(edged)).toBe(true)
    expect(teapot).toThrow()
  })

  it("gives every code of the contract its status, and maps a coded error's members", () => {
    // interface.md, Errors: the table's codes and the "other codes in the set".
    const contract = [
      "INPUT_VALIDATION_ERROR", "TIMEOUT_EXCEEDS_MAXIMUM", "TIMEOUT_TOO_SHORT_FOR_WAIT", "WEBSITE_ACCESS_ERROR", "WEBSITE_NOT_FOUND",
      "PDF_SKIPPED", "PDF_IMAGES_ONLY", "UNAUTHORIZED", "FORBIDDEN", "USAGE_EXCEEDED", "DISABLED", "INSUFFICIENT_PERMISSIONS",
      "ZDR_NOT_ENABLED", "REQUEST_TIMEOUT", "MONITOR_NO_WEBHOOK", "CONTENT_TOO_LARGE", "FREE_EMAIL_DETECTED", "DISPOSABLE_EMAIL_DETECTED",
      "COLD_DOMAIN_TIMEOUT_TOO_LOW", "RATE_LIMITED", "INTERNAL_ERROR", "VALID", "NOT_FOUND", "PAID_PLAN_REQUIRED", "ZDR_NOT_SUPPORTED",
      "EXTERNAL_PROVIDER_ERROR", "WEBSITE_BLOCKED", "UNSUPPORTED_CONTENT", "MONITOR_PAUSED", "COLLECTION_PAUSED", "MONITOR_LIMIT_EXCEEDED",
      "SEARCH_UNAVAILABLE", "BATCH_LIMIT_EXCEEDED", "BATCH_NOT_CANCELLABLE", "BATCH_NOT_COMPLETED", "IDEMPOTENCY_KEY_CONFLICT",
      "DELIVERY_IN_PROGRESS", "DELIVERY_ALREADY_DELIVERED", "DELIVERY_EXPIRED", "DELIVERY_CANCELLED"
    ]
    expect(Object.keys(ErrorMapping.statusOf).sort()).toEqual([...contract].sort())
    expect(contract.every(Schema.is(ErrorMapping.ErrorCode))).toBe(true)
    expect(Schema.is(ErrorMapping.ErrorCode)("TEAPOT")).toBe(false)
    expect(ErrorMapping.map(new Auth.AuthErrors.InsufficientPermissions({ required: "monitors:write" }))).toEqual({
      status: 403,
      errorCode: "INSUFFICIENT_PERMISSIONS",
      message: "This API key lacks the monitors:write permission",
      requiredPermission: "monitors:write"
    })
    expect(ErrorMapping.map(new Errors.WebsiteError({ reason: "SearchUnavailable", url: "Acme" }))).toMatchObject({ status: 503, errorCode: "SEARCH_UNAVAILABLE" })
    expect(ErrorMapping.isCoded(new SqlError({ cause: "x" }))).toBe(false)
  })

  it("turns only infrastructure failures into defects, completed effects staying completed", () => {
    const sqlFailed = ErrorMapping.dieOnInfrastructure(Effect.fail(new SqlError({ cause: "down" })))
    expect(Cause.isDie(Effect.runSyncExit(sqlFailed).pipe((exit) => exit._tag === "Failure" ? exit.cause : Cause.empty))).toBe(true)
    const refused = Effect.runSyncExit(ErrorMapping.dieOnInfrastructure(Effect.fail(new Auth.AuthErrors.Unauthorized({ detail: "no" }))))
    expect(refused._tag === "Failure" && Cause.isFailType(refused.cause) && refused.cause.error._tag).toBe("Unauthorized")
    // Not yet completed: through the fiber, same outcome.
    const later = ErrorMapping.dieOnInfrastructure(Effect.suspend(() => Effect.fail(new SqlError({ cause: "down" }))))
    const exit = Effect.runSyncExit(later)
    expect(exit._tag === "Failure" && Cause.isDie(exit.cause)).toBe(true)
  })
})

describe("an infrastructure failure inside a handler", () => {
  const logged: Array<string> = []
  const collecting = Logger.make(({ cause, logLevel, message }) => {
    logged.push(`${logLevel.label} ${String(message)} ${Cause.pretty(cause)}`)
  })
  let runtime: ManagedRuntime.ManagedRuntime<HttpServer.HttpServer | Auth.Accounts.Accounts | Auth.ApiKeys.ApiKeys | Auth.CreditLedger.CreditLedger | SqlClient.SqlClient, unknown>
  let base = ""

  // Charged 2 credits; its work reads a table that does not exist (the store failing under it).
  const broken: RequestPipeline.Handler<undefined, never, never, never, SqlClient.SqlClient> = {
    validate: () => Effect.succeed(plan),
    run: () =>
      Effect.flatMap(SqlClient.SqlClient, (sql) => ErrorMapping.dieOnInfrastructure(sql`SELECT * FROM no_such_table`)).pipe(Effect.as(delivered))
  }

  // What the auth services' infrastructure failures meet in the pipeline (and a failure a cast let through): a
  // failure without a code reaching the one failure path.
  const smuggled: RequestPipeline.Handler<undefined, never, never, never, never> = {
    validate: () => Effect.succeed(plan),
    run: () => Effect.fail(new SqlError({ cause: "connection lost", message: "the database went away" })) as unknown as Effect.Effect<typeof delivered>
  }

  beforeAll(async () => {
    const app = Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
      if (request.url.startsWith("/v1/broken")) return RequestPipeline.serve(api, broken)
      if (request.url.startsWith("/v1/smuggled")) return RequestPipeline.serve(api, smuggled)
      return RequestPipeline.serve(api, MonitorRoutes.list)
    })
    const database = Layer.tap(Sql.layerPglite({ dir: "memory://" }), (context) =>
      Effect.provide(Migrations.run({ store: Migrations.store, ...App.migrations }), context))
    const layer = HttpServer.serve(app).pipe(
      Layer.provideMerge(Layer.mergeAll(Auth.layer, RequestLog.Default)),
      Layer.provideMerge(NodeHttpServer.layer(createServer, { port: 0, host: "127.0.0.1" })),
      Layer.provideMerge(database),
      Layer.provide(Layer.merge(Logger.replace(Logger.defaultLogger, collecting), Logger.minimumLogLevel(LogLevel.Info)))
    )
    runtime = ManagedRuntime.make(layer)
    const address = await runtime.runPromise(Effect.map(HttpServer.HttpServer, (server) => server.address))
    base = `http://127.0.0.1:${address._tag === "TcpAddress" ? address.port : 0}/v1`
  })
  afterAll(async () => {
    await runtime?.dispose()
  })

  const key = () =>
    runtime.runPromise(Effect.gen(function*() {
      const accounts = yield* Auth.Accounts.Accounts
      const org = yield* accounts.createOrg({ name: `org-${Math.random().toString(36).slice(2)}`, plan: "scale", zdr: false })
      yield* accounts.setOverrides(org.id, { credits: 10 })
      const created = yield* (yield* Auth.ApiKeys.ApiKeys).create({ orgId: org.id, name: "test" })
      return { secret: created.secret, orgId: org.id }
    }))

  const get = async (secret: string, path: string) => {
    const response = await fetch(`${base}${path}`, { headers: { authorization: `Bearer ${secret}` } })
    return { status: response.status, body: await response.json() as Record<string, any> }
  }

  it("answers the 500 that says nothing was charged, releases the reservation, and logs the SqlError", async () => {
    const { orgId, secret } = await key()
    logged.length = 0
    const answer = await get(secret, "/broken")
    expect(answer.status).toBe(500)
    expect(answer.body).toEqual({
      request_id: expect.any(String),
      error_code: "INTERNAL_ERROR",
      message: "Internal error; the request was not charged",
      key_metadata: { credits_consumed: 0, credits_remaining: 10 }
    })
    const balance = await runtime.runPromise(Effect.flatMap(Auth.CreditLedger.CreditLedger, (ledger) => ledger.balance(orgId)))
    expect(balance.remaining).toBe(10)
    const rows = await runtime.runPromise(Effect.flatMap(SqlClient.SqlClient, (sql) =>
      sql<{ status_code: number; error_code: string; credits_used: number }>`
        SELECT status_code, error_code, credits_used FROM request_logs WHERE request_id = ${answer.body.request_id}`))
    expect(rows).toEqual([{ status_code: 500, error_code: "INTERNAL_ERROR", credits_used: 0 }])
    const charges = await runtime.runPromise(Effect.flatMap(SqlClient.SqlClient, (sql) =>
      sql`SELECT 1 FROM credit_events WHERE org_id = ${orgId}`))
    expect(charges).toEqual([])
    // Not silent: the defect is logged with its cause.
    expect(logged.some((line) => line.startsWith("ERROR request failed unexpectedly") && line.includes("SqlError"))).toBe(true)
  })

  it("answers an uncoded failure reaching the pipeline's failure path as the same logged 500, the reservation released", async () => {
    const { orgId, secret } = await key()
    logged.length = 0
    const answer = await get(secret, "/smuggled")
    expect([answer.status, answer.body.error_code, answer.body.message]).toEqual([500, "INTERNAL_ERROR", "Internal error; the request was not charged"])
    expect(answer.body.key_metadata).toEqual({ credits_consumed: 0, credits_remaining: 10 })
    const balance = await runtime.runPromise(Effect.flatMap(Auth.CreditLedger.CreditLedger, (ledger) => ledger.balance(orgId)))
    expect(balance.remaining).toBe(10)
    expect(logged.some((line) => line.startsWith("ERROR request failed unexpectedly") && line.includes("the database went away"))).toBe(true)
  })

  it("does the same for a real route whose store fails (GET /monitors without its table)", async () => {
    const { secret } = await key()
    expect((await get(secret, "/monitors")).status).toBe(200)
    await runtime.runPromise(Effect.flatMap(SqlClient.SqlClient, (sql) => sql`ALTER TABLE monitors RENAME TO monitors_away`))
    logged.length = 0
    try {
      const answer = await get(secret, "/monitors")
      expect([answer.status, answer.body.error_code, answer.body.message]).toEqual([500, "INTERNAL_ERROR", "Internal error; the request was not charged"])
      expect(logged.some((line) => line.startsWith("ERROR request failed unexpectedly") && line.includes("SqlError"))).toBe(true)
    } finally {
      await runtime.runPromise(Effect.flatMap(SqlClient.SqlClient, (sql) => sql`ALTER TABLE monitors_away RENAME TO monitors`))
    }
  })
})
