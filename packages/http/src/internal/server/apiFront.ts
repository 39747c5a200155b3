/**
 * The API front: requests under `/v1/` are answered by running the application's Effect directly on a fiber of the
 * runtime it was served with, and writing its response with `writeHead`/`end`. `@effect/platform`'s Node handler
 * (its request object, `HttpApp.toHandled`, the tracer middleware, the response writer waiting on the socket) costs
 * more than the whole pipeline of a cache hit (bench/http); everything else (MCP, the OAuth and agent routes, hosted
 * files) still goes through the platform's handler.
 *
 * Kept exactly as on the platform path: the HTTPS rule and the access log (as `listener.ts`'s front door does them),
 * the handler running uninterruptibly with a request scope (the pipeline makes the work itself interruptible), the
 * fiber interrupted when the client goes away, errors turned into responses by `HttpServerError.causeResponse`, HEAD
 * without a body, cookies as `Set-Cookie`. No tracing span is made (the Sift application disables them anyway).
 */
import type * as HttpApp from "@effect/platform/HttpApp"
import * as Cookies from "@effect/platform/Cookies"
import * as HttpServerError from "@effect/platform/HttpServerError"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Context, Effect, Exit, FiberRef, FiberRefs, LogLevel, Predicate, Runtime, RuntimeFlags, Scope } from "effect"
import { randomUUID } from "node:crypto"
import type * as http from "node:http"
import { Readable } from "node:stream"
import { routeOf } from "../../Metrics.js"
import * as Tracing from "../../Tracing.js"
import * as Callers from "./callers.js"
import { NodeServerRequest } from "./nodeRequest.js"

/** Whether a request is the API front's to answer (origin-form `/v1/...` targets). */
export const isApiRequest = (url: string | undefined): boolean => url !== undefined && url.startsWith("/v1/")

/** What the front needs to know about the listener. */
export interface FrontOptions {
  /** Why the HTTPS rule refuses this request, or undefined when it may proceed. */
  readonly refusal: (request: http.IncomingMessage) => string | undefined
}

/** A request with the response it is answered on and when it arrived (for the access log). */
class FrontRequest extends NodeServerRequest {
  constructor(source: http.IncomingMessage, readonly response: http.ServerResponse, readonly started: number) {
    super(source)
  }
}

/** Writes a response as `@effect/platform-node` does; waits only when the body is streamed. */
const write = (request: FrontRequest, response: HttpServerResponse.HttpServerResponse, runtime: Runtime.Runtime<never>): Effect.Effect<void> => {
  const res = request.response
  if (res.writableEnded) return Effect.void
  let headers: http.OutgoingHttpHeaders = response.headers
  if (!Cookies.isEmpty(response.cookies)) {
    const toSet = Cookies.toSetCookieHeaders(response.cookies)
    if (headers["set-cookie"] !== undefined) toSet.push(headers["set-cookie"] as string)
    headers = { ...headers, "set-cookie": toSet }
  }
  if (request.source.method === "HEAD") {
    res.writeHead(response.status, headers).end()
    return Effect.void
  }
  const body = response.body
  switch (body._tag) {
    case "Empty":
      res.writeHead(response.status, headers).end()
      return Effect.void
    case "Uint8Array":
      res.writeHead(response.status, headers).end(body.body)
      return Effect.void
    case "Raw":
      if (typeof body.body === "object" && body.body !== null && typeof (body.body as Readable).pipe === "function") {
        res.writeHead(response.status, headers)
        return pipe(body.body as Readable, res)
      }
      res.writeHead(response.status, headers).end(body.body as string | Uint8Array)
      return Effect.void
    default: {
      // Streams and form data (no API route sends them today): through the web conversion, within the request scope.
      const web = HttpServerResponse.toWeb(response, { runtime })
      res.writeHead(response.status, body._tag === "FormData" ? { ...headers, ...Object.fromEntries(web.headers) } : headers)
      if (web.body === null) {
        res.end()
        return Effect.void
      }
      return pipe(Readable.fromWeb(web.body as import("node:stream/web").ReadableStream), res)
    }
  }
}

const pipe = (from: Readable, to: http.ServerResponse): Effect.Effect<void> =>
  Effect.async<void>((resume) => {
    from.pipe(to)
    from.once("error", (error) => {
      to.destroy(error)
      resume(Effect.void)
    })
    to.once("close", () => resume(Effect.void))
  }).pipe(Effect.interruptible)

const refused = (why: string) => {
  const requestId = randomUUID()
  return HttpServerResponse.unsafeJson(
    { request_id: requestId, error_code: "FORBIDDEN", message: why },
    { status: 403, headers: { "x-request-id": requestId } }
  )
}

/**
 * The services of one request: the application's, shared and never copied, under the request's own (its request and
 * scope). Copying the application's map for every request cost a visible share of a cache hit in allocation alone
 * (bench/http). Effect reads a context's map with `get`/`has` and copies it by iterating it (`Context.add`, `merge`),
 * so those are answered over both layers; effect is pinned, and `ApiFront.test.ts` checks the layering.
 */
export class RequestServices extends Map<string, unknown> {
  constructor(private readonly shared: ReadonlyMap<string, unknown>, own: ReadonlyArray<readonly [string, unknown]>) {
    super(own)
  }
  override get(key: string): unknown {
    return super.has(key) ? super.get(key) : this.shared.get(key)
  }
  override has(key: string): boolean {
    return super.has(key) || this.shared.has(key)
  }
  override get size(): number {
    let size = this.shared.size
    for (const key of super.keys()) if (!this.shared.has(key)) size++
    return size
  }
  override *entries(): MapIterator<[string, unknown]> {
    yield* super.entries()
    for (const entry of this.shared) if (!super.has(entry[0])) yield entry as [string, unknown]
  }
  override [Symbol.iterator](): MapIterator<[string, unknown]> {
    return this.entries()
  }
  override *keys(): MapIterator<string> {
    for (const [key] of this.entries()) yield key
  }
  override *values(): MapIterator<unknown> {
    for (const [, value] of this.entries()) yield value
  }
  override forEach(f: (value: unknown, key: string, map: Map<string, unknown>) => void, thisArg?: unknown): void {
    for (const [key, value] of this.entries()) f.call(thisArg, value, key, this)
  }
}

/**
 * Makes request scopes synchronously. `Scope.make()` is a synchronous primitive; running it with `Effect.runSync` costs
 * a whole fiber per request, so its thunk is called directly when the primitive has the shape Effect 3 gives it
 * (effect is pinned; `ApiFront.test.ts` checks the scope), and through `runSync` otherwise.
 */
const unsafeScopeMaker = (): () => Scope.CloseableScope => {
  const primitive = Scope.make() as unknown as { readonly _op?: unknown; readonly effect_instruction_i0?: unknown }
  if (primitive._op === "Sync" && typeof primitive.effect_instruction_i0 === "function") {
    const thunk = primitive.effect_instruction_i0 as () => unknown
    const probe = thunk()
    if (Predicate.hasProperty(probe, Scope.CloseableScopeTypeId)) return thunk as () => Scope.CloseableScope
  }
  const make = Scope.make()
  return () => Effect.runSync(make)
}

/**
 * The front's Node request handler for `app`, on the runtime of the effect that makes it (the one the application
 * was served with). Only call it for requests `isApiRequest` accepts.
 */
export const makeHandler = <E, R>(
  app: HttpApp.Default<E, R>,
  options: FrontOptions
): Effect.Effect<(req: http.IncomingMessage, res: http.ServerResponse) => void, never, Exclude<R, HttpServerRequest.HttpServerRequest>> =>
  Effect.map(Effect.runtime<Exclude<R, HttpServerRequest.HttpServerRequest>>(), (runtime) => {
    // The access log is written at info; skipped entirely when the runtime logs less (benchmarks).
    const accessLog = LogLevel.greaterThanEqual(
      LogLevel.Info,
      FiberRefs.getOrDefault(runtime.fiberRefs, FiberRef.currentMinimumLogLevel)
    )
    const answer = (request: FrontRequest, response: HttpServerResponse.HttpServerResponse) => {
      const written = write(request, response, runtime as Runtime.Runtime<never>)
      if (!accessLog) return written
      const path = request.url.split("?")[0] ?? request.url
      const caller = Callers.of(request)
      return Effect.zipRight(
        written,
        Effect.log(`${request.method} ${path} ${response.status}`).pipe(Effect.annotateLogs({
          request_id: response.headers["x-request-id"] ?? null,
          org_id: caller?.orgId ?? null,
          key_id: caller?.keyId ?? null,
          method: request.method,
          path,
          status: response.status,
          latency_ms: Date.now() - request.started
        }))
      )
    }
    // The request scope closes once the response is written (the fiber is uninterruptible here). A response written
    // at once (an exit already) closes it without the steps of `Effect.exit`.
    const closing = (scope: Scope.CloseableScope, written: Effect.Effect<void>): Effect.Effect<void> =>
      Exit.isExit(written)
        ? Effect.zipRight(Scope.close(scope, written as Exit.Exit<void>), written as Exit.Exit<void>)
        : Effect.flatMap(Effect.exit(written), (exit) => Effect.zipRight(Scope.close(scope, exit), exit))
    // The program of one request; the request (with its response) and its scope are also in the fiber's context.
    const program = (request: FrontRequest, scope: Scope.CloseableScope): Effect.Effect<void> => {
      const why = options.refusal(request.source)
      if (why !== undefined) return closing(scope, answer(request, refused(why)))
      const answered = Effect.matchCauseEffect(app as unknown as Effect.Effect<HttpServerResponse.HttpServerResponse, unknown>, {
        onSuccess: (response) => closing(scope, answer(request, response)),
        onFailure: (cause) => closing(scope, Effect.flatMap(HttpServerError.causeResponse(cause), ([response]) => answer(request, response)))
      })
      // One span per request while tracing is on (the pipeline's stages are its children); none otherwise.
      if (!Tracing.enabled()) return answered
      const route = routeOf(request.url, 200)
      const status = Effect.suspend(() => Effect.annotateCurrentSpan("http.response.status_code", request.response.statusCode))
      return Effect.withSpan(Effect.zipLeft(answered, status), `${request.method} ${route}`, {
        kind: "server",
        attributes: { "http.request.method": request.method, "http.route": route, "url.path": request.url.split("?")[0] }
      })
    }
    // The fiber starts uninterruptible, with the request and a fresh scope already in its context: the same as
    // `Effect.uninterruptible`, `Effect.provideService` and `Effect.scoped` around the program, without their steps on
    // every request (`Effect.scoped` alone cost more than a cache hit's authentication, rate limit and ledger).
    const context = runtime.context as Context.Context<unknown>
    const runtimeFlags = RuntimeFlags.disable(runtime.runtimeFlags, RuntimeFlags.Interruption)
    const fiberRefs = runtime.fiberRefs
    const makeScope = unsafeScopeMaker()

    const start = (request: FrontRequest) => {
      const res = request.response
      const scope = makeScope()
      const services = new RequestServices(context.unsafeMap, [[HttpServerRequest.HttpServerRequest.key, request], [Scope.Scope.key, scope]])
      const fiber = Runtime.runFork(Runtime.make({
        context: Context.unsafeMake(services),
        runtimeFlags,
        fiberRefs
      }))(program(request, scope))
      // A response answered at once (a cache hit) is written by now: no client can abandon it any more.
      if (res.writableEnded) return
      // A client gone before its request started (its response closed already) is treated as one going away now.
      if (res.closed) return fiber.unsafeInterruptAsFork(HttpServerError.clientAbortFiberId)
      res.on("close", () => {
        if (!res.writableEnded) fiber.unsafeInterruptAsFork(HttpServerError.clientAbortFiberId)
      })
    }

    // A request starts in the event loop's check phase (`setImmediate`, in arrival order), not in the poll phase that
    // read it. Started at once, each request ran its pipeline up to its wait for the group commit before Node read the
    // next readable socket, so a database's reply (the group commit's result the writer waits on to send the next
    // group, a rate-limit lease) waited behind every request that arrived with it. Deferred, the poll phase reads all of
    // them first: cache hits on bench/http/profile.ts went from 4.8-5.0k to 5.1-5.3k requests/s on PostgreSQL (the
    // group's round trip 2.15 -> 1.97 ms) and from 4.2-4.5k to 5.0-5.2k on PGlite, with less CPU per request.
    return (req: http.IncomingMessage, res: http.ServerResponse) => {
      setImmediate(start, new FrontRequest(req, res, Date.now()))
    }
  })
