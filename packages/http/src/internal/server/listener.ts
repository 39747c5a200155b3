/**
 * The Node listener under the API: a `node:http` or `node:https` server handed to `NodeHttpServer`, wrapped so that
 * everything served on it passes the HTTPS rule and the access log first, and counted so shutdown can wait for the
 * requests in flight. Requests under `/v1/` are answered by the API front (`apiFront.ts`) on the same application;
 * the rest by the platform's handler.
 */
import * as HttpMiddleware from "@effect/platform/HttpMiddleware"
import * as HttpServer from "@effect/platform/HttpServer"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import * as NodeHttpServerRequest from "@effect/platform-node/NodeHttpServerRequest"
import { Data, Deferred, Effect, Exit, Option, type Redacted, type Scope } from "effect"
import { randomUUID } from "node:crypto"
import * as fs from "node:fs"
import * as http from "node:http"
import * as https from "node:https"
import * as Metrics from "../../Metrics.js"
import type { ServiceConfig } from "../../ServiceConfig.js"
import * as ApiFront from "./apiFront.js"
import * as ClientError from "./clientError.js"
import { isLoopbackBind, refusal } from "./httpsRule.js"
import * as Readiness from "./readiness.js"

/** What the listener reads of the service configuration. */
export type ListenerConfig = Pick<ServiceConfig, "host" | "port" | "tls" | "trustedProxies">

/** The running listener: the Node server, its public URL and what shutdown needs. */
export interface Listener {
  readonly server: http.Server
  readonly url: string
  readonly httpServer: HttpServer.HttpServer
  /** Requests whose response has not finished yet. */
  readonly inFlight: () => number
  /** Stops accepting connections and closes idle keep-alive ones; in-flight requests carry on. */
  readonly stopAccepting: Effect.Effect<void>
  /** Resolves when no request is in flight (immediately if none is). */
  readonly drained: Effect.Effect<void>
}

const formatHost = (host: string) => host.includes(":") ? `[${host}]` : host

/** The port could not be opened; the message says why in the operator's terms (which setting to change). */
export class ListenFailed extends Data.TaggedError("ListenFailed")<{ readonly message: string; readonly cause: unknown }> {}

/** Turns Node's `listen` error into a sentence naming the port or address and the setting to change. */
const listenFailure = (config: ListenerConfig) => (error: unknown): ListenFailed => {
  const cause = (error as { cause?: unknown }).cause ?? error
  const code = (cause as { code?: unknown }).code
  const where = `${formatHost(config.host)}:${config.port}`
  const message = code === "EADDRINUSE"
    ? `port ${config.port} is already in use on ${config.host} (set SIFT_PORT or --port)`
    : code === "EACCES"
    ? `no permission to listen on ${where} (ports below 1024 need privileges; set SIFT_PORT or --port)`
    : code === "EADDRNOTAVAIL" || code === "ENOTFOUND" || code === "EAI_AGAIN"
    ? `cannot listen on ${where}: the address ${config.host} is not one of this machine's (set SIFT_HOST or --host)`
    : `cannot listen on ${where}: ${cause instanceof Error ? cause.message : String(cause)}`
  return new ListenFailed({ message, cause })
}

/** Options of `make`: the `/ready` probe (default: ready once an application is served). */
export interface ListenerOptions {
  readonly probe?: Readiness.Probe | undefined
  /** The process's metrics (observed per request, served at `/metrics`), and the bearer token `/metrics` requires. */
  readonly metrics?: Metrics.Metrics | undefined
  readonly metricsToken?: Option.Option<Redacted.Redacted> | undefined
  /** A `worker` process: no application is served; requests other than the probes and `/metrics` get 404. */
  readonly jobsOnly?: boolean | undefined
}

/** Whether a request asks for `/metrics` (a cheap first test: every API request pays it). */
const isMetricsRequest = (method: string | undefined, url: string | undefined): boolean =>
  url !== undefined && url.charCodeAt(1) === 109 && (method === "GET" || method === "HEAD") && url.split("?", 1)[0] === "/metrics" // "m"

/** The answer of a `worker` process to anything but its probes and metrics. */
const workerOnly = (response: http.ServerResponse): void => {
  const requestId = randomUUID()
  const text = JSON.stringify({
    request_id: requestId,
    error_code: "NOT_FOUND",
    message: "This process runs jobs only (SIFT_ROLE=worker); send API requests to an api process"
  })
  response.writeHead(404, { "content-type": "application/json", "content-length": String(Buffer.byteLength(text)), "x-request-id": requestId })
  response.end(text)
}

/** The middleware every request passes first: the HTTPS rule, then the access log around the app. */
const frontDoor = (config: ListenerConfig): HttpMiddleware.HttpMiddleware => {
  const loopbackBind = isLoopbackBind(config.host)
  const tls = Option.isSome(config.tls)
  return (app) =>
    Effect.gen(function*() {
      const request = yield* HttpServerRequest.HttpServerRequest
      const started = Date.now()
      const incoming = NodeHttpServerRequest.toIncomingMessage(request)
      const why = refusal({
        loopbackBind,
        tls,
        trustedProxies: config.trustedProxies,
        remoteAddress: incoming.socket.remoteAddress,
        forwardedProto: request.headers["x-forwarded-proto"]
      })
      const path = request.url.split("?")[0] ?? request.url
      const exit = yield* Effect.exit(
        why === undefined ? app : Effect.sync(() => {
          const requestId = randomUUID()
          return HttpServerResponse.unsafeJson(
            { request_id: requestId, error_code: "FORBIDDEN", message: why },
            { status: 403, headers: { "x-request-id": requestId } }
          )
        })
      )
      const status = Exit.isSuccess(exit) ? exit.value.status : 500
      const requestId = Exit.isSuccess(exit) ? exit.value.headers["x-request-id"] : undefined
      yield* Effect.log(`${request.method} ${path} ${status}`).pipe(
        Effect.annotateLogs({
          request_id: requestId ?? null,
          method: request.method,
          path,
          status,
          latency_ms: Date.now() - started
        })
      )
      return yield* exit
    })
}

/**
 * Opens the listener for the scope: HTTPS when TLS files are configured, else HTTP; fails if the port is taken.
 * The Node server closes when the scope closes (after `stopAccepting`, that is immediate).
 */
export const make = (config: ListenerConfig, options: ListenerOptions = {}): Effect.Effect<Listener, unknown, Scope.Scope> =>
  Effect.gen(function*() {
    const server: http.Server = Option.match(config.tls, {
      onNone: () => http.createServer(),
      onSome: (files) =>
        https.createServer({ cert: fs.readFileSync(files.certFile), key: fs.readFileSync(files.keyFile) }) as unknown as http.Server
    })
    let inFlight = 0
    let waiters: Array<() => void> = []
    const finished = () => {
      inFlight--
      if (inFlight === 0) {
        const ready = waiters
        waiters = []
        for (const wake of ready) wake()
      }
    }
    // The one "request" listener: counts, then hands the request to the API front or to the platform's handler.
    type Handler = (req: http.IncomingMessage, res: http.ServerResponse) => void
    let served: { readonly platform: Handler; readonly api: Handler } | undefined
    // Requests Node's parser refuses (headers over maxHeaderSize, malformed HTTP) get the contract's JSON error body.
    server.on("clientError", ClientError.handler)
    let wasServed = false
    const probe: Readiness.Probe = options.probe ?? (() =>
      Promise.resolve({
        ready: served !== undefined,
        checks: { application: { ok: served !== undefined, state: served !== undefined ? "serving" : "not serving" } }
      }))
    const metrics = options.metrics
    const metricsToken = options.metricsToken ?? Option.none()
    // Set by `stopAccepting`: a request that still arrives on a kept-alive connection is answered, and its connection
    // closed after the answer, so the client opens its next one elsewhere instead of losing it at the final close.
    let stopping = false
    server.on("request", (req: http.IncomingMessage, res: http.ServerResponse) => {
      inFlight++
      res.once("close", finished)
      if (stopping) res.setHeader("connection", "close")
      // Probes first: no key, no HTTPS rule, no access or request log (load balancers poll them).
      const probePath = Readiness.probeOf(req.method, req.url)
      if (probePath !== undefined) return Readiness.answer(probePath, probe, res)
      // Metrics likewise (their own bearer token, not an API key); 404 while they are off.
      if (isMetricsRequest(req.method, req.url)) return Metrics.answer(metrics, metricsToken, req, res)
      if (metrics !== undefined) {
        const arrived = performance.now()
        res.once("close", () => metrics.observe(req.method, req.url, res.statusCode, (performance.now() - arrived) / 1000))
      }
      if (options.jobsOnly === true) return workerOnly(res)
      // Before the application serves (start-up) and after it stopped (shutdown): answered, never left open.
      if (served === undefined) return Readiness.unavailable(res, wasServed ? "stopping" : "starting")
      if (ApiFront.isApiRequest(req.url)) served.api(req, res)
      else served.platform(req, res)
    })
    const inner = yield* NodeHttpServer.make(() => server, { host: config.host, port: config.port }).pipe(
      Effect.mapError(listenFailure(config))
    )
    const address = inner.address
    const port = address._tag === "TcpAddress" ? address.port : config.port
    const scheme = Option.isSome(config.tls) ? "https" : "http"
    const door = frontDoor(config)
    const loopbackBind = isLoopbackBind(config.host)
    const tls = Option.isSome(config.tls)
    const front: ApiFront.FrontOptions = {
      refusal: (req) =>
        refusal({
          loopbackBind,
          tls,
          trustedProxies: config.trustedProxies,
          remoteAddress: req.socket.remoteAddress,
          forwardedProto: req.headers["x-forwarded-proto"] as string | undefined
        })
    }
    const serve = (app: any, middleware?: HttpMiddleware.HttpMiddleware) =>
      Effect.gen(function*() {
        if (served !== undefined) return yield* Effect.dieMessage("listener: an application is already served")
        // The platform registers its own "request" listener (and the upgrade one); it is taken over so that every
        // request is counted first and `/v1/` never reaches it.
        const before = new Set(server.listeners("request"))
        yield* inner.serve(app, (handled: any) => door(middleware === undefined ? handled : middleware(handled)))
        const added = server.listeners("request").filter((listener) => !before.has(listener))
        if (added.length !== 1) return yield* Effect.dieMessage(`listener: expected one platform request handler, found ${added.length}`)
        const platform = added[0] as Handler
        server.off("request", platform)
        const api = yield* ApiFront.makeHandler(middleware === undefined ? app : middleware(app), front)
        served = { platform, api }
        wasServed = true
        yield* Effect.addFinalizer(() => Effect.sync(() => {
          served = undefined
        }))
      })
    const httpServer = HttpServer.make({ address, serve: serve as any })
    const drained = Effect.gen(function*() {
      if (inFlight === 0) return
      const done = yield* Deferred.make<void>()
      waiters.push(() => Deferred.unsafeDone(done, Exit.void))
      yield* Deferred.await(done)
    })
    return {
      server,
      url: `${scheme}://${formatHost(config.host)}:${port}`,
      httpServer,
      inFlight: () => inFlight,
      stopAccepting: Effect.sync(() => {
        stopping = true
        if (server.listening) server.close()
        server.closeIdleConnections()
      }),
      drained
    }
  })
