/**
 * The API front of the listener: requests under `/v1/` are run directly on the application's runtime (not through
 * `@effect/platform`'s Node handler), with the same request members, response writing, error responses, access log and
 * interruption when the client goes away; everything else still goes through the platform.
 */
import * as HttpServer from "@effect/platform/HttpServer"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Context, Deferred, Effect, Equal, Layer, Logger, LogLevel, ManagedRuntime, Option } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { RequestServices } from "../../src/internal/server/apiFront.js"
import { NodeServerRequest } from "../../src/internal/server/nodeRequest.js"
import * as Server from "../../src/Server.js"

const logged: Array<{ message: unknown; annotations: Record<string, unknown> }> = []
const collecting = Logger.make(({ annotations, message }) => {
  logged.push({ message, annotations: Object.fromEntries(annotations) })
})

describe("API front", () => {
  let runtime: ManagedRuntime.ManagedRuntime<HttpServer.HttpServer, unknown>
  let base: string
  const interrupted = Effect.runSync(Deferred.make<void>())
  const finishedAfterInterrupt = Effect.runSync(Deferred.make<void>())
  const scopeClosed = Effect.runSync(Deferred.make<void>())

  beforeAll(async () => {
    const app = Effect.gen(function*() {
      const request = yield* HttpServerRequest.HttpServerRequest
      const path = new URL(request.url, "http://x").pathname
      const front = request instanceof NodeServerRequest
      switch (`${request.method} ${path}`) {
        case "GET /v1/echo":
        case "HEAD /v1/echo":
        case "GET /other/echo":
          return HttpServerResponse.unsafeJson(
            { front, url: request.url, agent: request.headers["user-agent"] ?? null },
            { headers: { "x-request-id": "rid-1" } }
          )
        case "POST /v1/echo": {
          const first = yield* request.text
          const again = yield* request.json
          return HttpServerResponse.unsafeJson({ front, first, again })
        }
        case "GET /v1/cookie":
          return HttpServerResponse.text("ok").pipe(HttpServerResponse.unsafeSetCookie("a", "1"))
        case "GET /v1/scoped":
          // A finalizer of the request scope runs once the response is written.
          yield* Effect.addFinalizer(() => Deferred.succeed(scopeClosed, undefined))
          return HttpServerResponse.text("scoped")
        case "GET /v1/defect":
          return yield* Effect.dieMessage("boom")
        case "GET /v1/hold":
          // As the request pipeline does: the work interruptible, the bookkeeping after it whole.
          yield* Effect.interruptible(Effect.never).pipe(Effect.onInterrupt(() => Deferred.succeed(interrupted, undefined)))
          return HttpServerResponse.empty()
      }
      return HttpServerResponse.empty({ status: 404 })
    }).pipe(Effect.onInterrupt(() => Deferred.succeed(finishedAfterInterrupt, undefined)))
    const layer = HttpServer.serve(app).pipe(
      Layer.provideMerge(Server.layerListener({ port: 0 })),
      Layer.provide(Layer.merge(Logger.replace(Logger.defaultLogger, collecting), Logger.minimumLogLevel(LogLevel.Info)))
    )
    runtime = ManagedRuntime.make(layer)
    const address = await runtime.runPromise(Effect.map(HttpServer.HttpServer, (server) => server.address))
    base = `http://127.0.0.1:${address._tag === "TcpAddress" ? address.port : 0}`
  })
  afterAll(async () => {
    await runtime?.dispose()
  })

  it("answers /v1/ on the front and other paths on the platform, with the same request members and headers", async () => {
    const front = await fetch(`${base}/v1/echo?q=1`, { headers: { "user-agent": "t/1" } })
    expect(front.status).toBe(200)
    expect(front.headers.get("content-type")).toBe("application/json")
    expect(front.headers.get("x-request-id")).toBe("rid-1")
    expect(await front.json()).toEqual({ front: true, url: "/v1/echo?q=1", agent: "t/1" })
    const platform = await fetch(`${base}/other/echo`, { headers: { "user-agent": "t/2" } })
    expect(await platform.json()).toEqual({ front: false, url: "/other/echo", agent: "t/2" })
  })

  it("reads a POST body once for every reader; HEAD has no body; cookies become Set-Cookie", async () => {
    const posted = await fetch(`${base}/v1/echo`, { method: "POST", body: JSON.stringify({ a: [1, "é"] }) })
    expect(await posted.json()).toEqual({ front: true, first: "{\"a\":[1,\"é\"]}", again: { a: [1, "é"] } })
    const head = await fetch(`${base}/v1/echo`, { method: "HEAD" })
    expect(head.status).toBe(200)
    expect(await head.text()).toBe("")
    const cookie = await fetch(`${base}/v1/cookie`)
    expect(cookie.headers.get("set-cookie")).toBe("a=1")
    expect(await cookie.text()).toBe("ok")
  })

  it("closes the request scope after answering", async () => {
    expect(Effect.runSync(Deferred.isDone(scopeClosed))).toBe(false)
    const response = await fetch(`${base}/v1/scoped`)
    expect(await response.text()).toBe("scoped")
    await Effect.runPromise(Deferred.await(scopeClosed).pipe(Effect.timeout("2 seconds")))
  })

  it("turns a defect into a 500, as the platform does, and logs each request with its status", async () => {
    const response = await fetch(`${base}/v1/defect`)
    expect(response.status).toBe(500)
    await fetch(`${base}/v1/echo`)
    const lines = logged.filter((line) => String(line.message).startsWith("GET /v1/"))
    expect(lines.find((line) => String(line.message) === "GET /v1/defect 500")?.annotations).toMatchObject({ method: "GET", path: "/v1/defect", status: 500 })
    const echo = lines.find((line) => String(line.message) === "GET /v1/echo 200")
    expect(echo?.annotations).toMatchObject({ request_id: "rid-1", path: "/v1/echo", status: 200 })
    expect(typeof echo?.annotations.latency_ms).toBe("number")
  })

  it("interrupts the work when the client goes away", async () => {
    const abort = new AbortController()
    const pending = fetch(`${base}/v1/hold`, { signal: abort.signal }).catch(() => "aborted")
    await new Promise((resolve) => setTimeout(resolve, 200))
    abort.abort()
    expect(await pending).toBe("aborted")
    await Effect.runPromise(Deferred.await(interrupted).pipe(Effect.timeout("2 seconds")))
    await Effect.runPromise(Deferred.await(finishedAfterInterrupt).pipe(Effect.timeout("2 seconds")))
  })
})

describe("RequestServices (a request's services over the application's, not copied)", () => {
  class Shared extends Context.Tag("test/Shared")<Shared, string>() {}
  class Other extends Context.Tag("test/Other")<Other, number>() {}
  class Own extends Context.Tag("test/Own")<Own, string>() {}
  class Added extends Context.Tag("test/Added")<Added, string>() {}
  const application = Context.make(Shared, "shared").pipe(Context.add(Other, 7), Context.add(Own, "application's"))

  it("answers reads, copies, merges and equality over both layers as a copied map would", () => {
    const layered = Context.unsafeMake(new RequestServices(application.unsafeMap, [[Own.key, "request's"]]))
    const copied = Context.add(application, Own, "request's")
    expect(Context.get(layered, Shared)).toBe("shared")
    expect(Context.get(layered, Own)).toBe("request's")
    expect(Option.isNone(Context.getOption(layered, Added))).toBe(true)
    expect(layered.unsafeMap.size).toBe(3)
    expect([...layered.unsafeMap.keys()].sort()).toEqual([...copied.unsafeMap.keys()].sort())
    expect(new Map(layered.unsafeMap)).toEqual(new Map(copied.unsafeMap))
    const seen: Array<string> = []
    layered.unsafeMap.forEach((_value, key) => seen.push(key))
    expect(seen.sort()).toEqual(["test/Other", "test/Own", "test/Shared"])
    // What Effect builds from it (`Context.add`, `merge`, `pick`) holds the request's values, not the application's.
    const added = Context.add(layered, Added, "added")
    expect([Context.get(added, Own), Context.get(added, Added), Context.get(added, Shared)]).toEqual(["request's", "added", "shared"])
    expect(Context.get(Context.merge(Context.make(Added, "x"), layered), Own)).toBe("request's")
    expect(Context.get(Context.pick(Own)(layered), Own)).toBe("request's")
    expect(Equal.equals(layered, copied)).toBe(true)
    // The application's map is untouched.
    expect(Context.get(application, Own)).toBe("application's")
    // And an effect run on it sees the same.
    expect(Effect.runSync(Effect.provide(Effect.map(Own, (own) => own), layered))).toBe("request's")
  })
})
