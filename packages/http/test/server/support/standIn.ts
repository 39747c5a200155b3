/**
 * A stand-in application run by `Server.run`, for process-level tests of the runtime alone: `/v1/ping` answers at
 * once, `/v1/slow?ms=N` after N ms. Started as a process: `node --conditions=@sift/source --import tsx standIn.ts`.
 */
import * as HttpRouter from "@effect/platform/HttpRouter"
import * as HttpServer from "@effect/platform/HttpServer"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Effect, Layer } from "effect"
import { randomUUID } from "node:crypto"
import * as Admin from "../../../src/Admin.js"
import * as Server from "../../../src/Server.js"
import * as ServiceConfig from "../../../src/ServiceConfig.js"
import { authenticate, direct } from "./standInAdmin.js"

const reply = (body: Record<string, unknown>) => {
  const requestId = randomUUID()
  return HttpServerResponse.unsafeJson({ request_id: requestId, ...body }, { headers: { "x-request-id": requestId } })
}

const router = HttpRouter.empty.pipe(
  HttpRouter.get("/v1/ping", Effect.sync(() => reply({ ok: true }))),
  HttpRouter.get(
    "/v1/whoami",
    Effect.gen(function*() {
      const request = yield* HttpServerRequest.HttpServerRequest
      const ok = yield* authenticate((request.headers.authorization ?? "").replace(/^Bearer /, "")).pipe(Effect.orDie)
      return ok ? reply({ ok }) : HttpServerResponse.unsafeJson({ error_code: "UNAUTHORIZED" }, { status: 401 })
    })
  ),
  HttpRouter.get(
    "/v1/slow",
    Effect.gen(function*() {
      const request = yield* HttpServerRequest.HttpServerRequest
      const ms = Number(new URL(request.url, "http://x").searchParams.get("ms") ?? "1000")
      yield* Effect.sleep(ms)
      return reply({ slept: ms })
    })
  )
)

const application: Server.Application<unknown> = {
  layer: Layer.mergeAll(HttpServer.serve(router), Admin.layerServer).pipe(Layer.provide(direct.layer)) as Layer.Layer<
    never,
    unknown,
    Server.Platform
  >,
  migrations: direct.migrations
}

const flags = process.argv.slice(2)
const flag = (name: string) => {
  const at = flags.indexOf(`--${name}`)
  return at === -1 ? undefined : flags[at + 1]
}

Effect.runPromiseExit(
  Server.run(application).pipe(
    Effect.withConfigProvider(ServiceConfig.providerWithFlags({
      host: flag("host"),
      port: flag("port") === undefined ? undefined : Number(flag("port")),
      dataDir: flag("data-dir")
    }))
  )
).then((exit) => {
  if (exit._tag === "Failure") {
    process.stderr.write(`stand-in failed: ${String(exit.cause)}\n`)
    process.exitCode = 1
  }
})
