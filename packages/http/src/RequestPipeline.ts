/**
 * The path every API request takes (issue: "one pipeline"): request id → authentication (401) → permission (403 with
 * `required_permission`) → rate limit (headers; 429 with `Retry-After`) → validation → credits reserved (403
 * `USAGE_EXCEEDED` before any work) → handler → charge what was delivered, release the rest → request log (ZDR and
 * redaction honoured) → response, with errors mapped in one place (`ErrorMapping`).
 *
 * @since 0.1.0
 */
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { ApiKeys, CreditLedger, Permissions, Plans, RateLimiter } from "@sift/auth"
import { Cause, Context, Effect, Option } from "effect"
import { randomUUID } from "node:crypto"
import * as ErrorMapping from "./ErrorMapping.js"
import { stringify } from "./internal/json.js"
import { redact, redactJsonParts, redactJsonText, redactQuery } from "./internal/redaction.js"
import * as QueryParams from "./QueryParams.js"
import { RequestLog } from "./RequestLog.js"
import * as Target from "./internal/target.js"

/** What a route declares about itself. */
export interface Route {
  /** The rate-limit window it counts against. */
  readonly bucket: "api" | "logs"
  /** The body is raw bytes (uploads), at most this many, instead of JSON. */
  readonly rawBodyLimit?: number
}

/** The authenticated caller and the parsed request, as handlers see them. */
export interface Caller {
  readonly requestId: string
  readonly auth: ApiKeys.AuthContext
  /** The raw query string (`?a=1`, or empty), e.g. to remember what a query decoded to. */
  readonly search: string
  /** The parsed query (parsed on first use). */
  readonly query: QueryParams.Query
  readonly body: unknown
}

/** What validation decides before any work: the cost, and what the request asked of logging and ZDR. */
export interface Plan<A> {
  readonly input: A
  readonly credits: number
  readonly zdr: boolean
  readonly tags: ReadonlyArray<string>
  /** How long the reservation may be held (the request's own deadline plus slack). */
  readonly holdMs: number
}

/** A handler's result: the body members besides `request_id` and `key_metadata`, and what it actually cost. */
export interface Delivered {
  readonly body: Record<string, unknown>
  /**
   * Members of the body already serialized (JSON members without the braces, e.g. `"a":1,"b":[2]`), sent before those
   * of `body`: a handler that answers the same large members again and again serializes them once.
   */
  readonly serialized?: string
  /** Credits to charge (at most the reserved amount; 0 for nothing delivered). */
  readonly credits: number
  readonly headers?: Readonly<Record<string, string>>
}

/** A route's validation and work. */
export interface Handler<A, E1, R1, E2, R2> {
  readonly validate: (caller: Caller) => Effect.Effect<Plan<A>, E1, R1>
  readonly run: (caller: Caller, input: A) => Effect.Effect<Delivered, E2, R2>
}

const BEARER = /^Bearer\s+(\S+)\s*$/i

// The body is serialized once: the same text is sent and (redacted) logged. It stays a string (the Node writer
// encodes it into the socket), with its byte length declared, rather than being copied into bytes first.
const json = (status: number, text: string, headers: Record<string, string>) =>
  HttpServerResponse.raw(text, { status, headers, contentType: "application/json", contentLength: Buffer.byteLength(text, "utf8") })

/** The JSON body of a POST, or undefined for GET; malformed JSON is a validation error. */
const hasNoBody = (method: string) => method === "GET" || method === "HEAD" || method === "DELETE"

const readBody = (request: HttpServerRequest.HttpServerRequest) =>
  hasNoBody(request.method)
    ? Effect.succeed(undefined as unknown)
    : Effect.flatMap(request.text, (text) =>
      Effect.try({
        try: () => (text.trim() === "" ? {} : JSON.parse(text)) as unknown,
        catch: (error) => new ErrorMapping.ApiFailure({ code: "INPUT_VALIDATION_ERROR", detail: `body: malformed JSON (${(error as Error).message})` })
      })).pipe(
        Effect.catchTag("RequestError", () => Effect.fail(new ErrorMapping.ApiFailure({ code: "INPUT_VALIDATION_ERROR", detail: "body: could not be read" })))
      )

/** The raw bytes of an upload; more than `limit` is 413 `CONTENT_TOO_LARGE`, told before reading when declared. */
const readBytes = (request: HttpServerRequest.HttpServerRequest, limit: number) => {
  const tooLarge = new ErrorMapping.ApiFailure({ code: "CONTENT_TOO_LARGE", detail: `body: the upload exceeds ${limit} bytes` })
  const declared = Number(request.headers["content-length"] ?? "0")
  if (declared > limit) return Effect.fail(tooLarge)
  return Effect.flatMap(request.arrayBuffer, (buffer) =>
    buffer.byteLength > limit ? Effect.fail(tooLarge) : Effect.succeed(new Uint8Array(buffer))).pipe(
      Effect.catchTag("RequestError", () => Effect.fail(new ErrorMapping.ApiFailure({ code: "INPUT_VALIDATION_ERROR", detail: "body: could not be read" })))
    )
}

/** Serves one route through the whole pipeline. */
export const serve = <A, E1, R1, E2, R2>(route: Route, handler: Handler<A, E1, R1, E2, R2>) =>
  Effect.gen(function*() {
    // The services in one step (each `yield*` of a tag is a step of the fiber, on every request).
    const services = yield* Effect.context<
      HttpServerRequest.HttpServerRequest | RequestLog | CreditLedger.CreditLedger | ApiKeys.ApiKeys | RateLimiter.RateLimiter
    >()
    const request = Context.get(services, HttpServerRequest.HttpServerRequest)
    const clock = yield* Effect.clock
    const started = clock.unsafeCurrentTimeMillis()
    const requestId = randomUUID()
    const headers: Record<string, string> = { "x-request-id": requestId }
    const { path, search } = Target.parse(request.url)
    let searchParams: URLSearchParams | undefined
    const params = () => searchParams ??= new URLSearchParams(search)
    const log = Context.get(services, RequestLog)
    const ledger = Context.get(services, CreditLedger.CreditLedger)

    // Authentication and permission: failures here are answered without a log entry when no organization is known.
    let auth: ApiKeys.AuthContext | undefined
    let charged = 0
    let plan: Plan<A> | undefined
    let body: unknown = undefined

    const attempt = Effect.gen(function*() {
      const secret = BEARER.exec(request.headers.authorization ?? "")?.[1]
      if (secret === undefined) {
        return yield* new ErrorMapping.ApiFailure({ code: "UNAUTHORIZED", detail: "Missing API key: send Authorization: Bearer <API_KEY>" })
      }
      auth = yield* Context.get(services, ApiKeys.ApiKeys).authenticate(secret)
      const apiPath = path.startsWith("/v1/") ? path.slice(3) : path
      const required = Permissions.requiredFor(request.method, apiPath)
      if (required !== undefined) yield* Permissions.check(auth, required)

      const limit = route.bucket === "logs" ? Plans.LOGS_REQUESTS_PER_MINUTE : auth.org.requestsPerMinute
      const window = yield* Context.get(services, RateLimiter.RateLimiter).hit(auth.keyId, route.bucket, limit)
      headers["x-ratelimit-limit"] = String(window.limit)
      headers["x-ratelimit-remaining"] = String(window.remaining)
      headers["x-ratelimit-reset"] = String(window.resetAt)
      if (!window.allowed) {
        headers["retry-after"] = String(window.retryAfter)
        return yield* new ErrorMapping.ApiFailure({
          code: "RATE_LIMITED",
          detail: `Rate limit of ${window.limit} requests per minute exceeded; retry in ${window.retryAfter} s`,
          retryAfter: window.retryAfter
        })
      }

      body = route.rawBodyLimit !== undefined
        ? yield* readBytes(request, route.rawBodyLimit)
        : hasNoBody(request.method)
        ? undefined
        : yield* readBody(request)
      let query: QueryParams.Query | undefined
      const caller: Caller = {
        requestId,
        auth,
        search,
        get query() {
          return query ??= QueryParams.parse(params())
        },
        body
      }
      plan = yield* Effect.interruptible(handler.validate(caller))
      if (plan.zdr && !auth.org.zdrEnabled) {
        return yield* new ErrorMapping.ApiFailure({
          code: "ZDR_NOT_ENABLED",
          detail: "Zero data retention is not enabled for this organization"
        })
      }
      const reservation = plan.credits > 0
        ? Option.some(yield* ledger.reserve(auth.org.id, plan.credits, { ttlMs: plan.holdMs }))
        : Option.none()
      // `@effect/platform` runs handlers uninterruptibly (HttpApp.toHandled); the work itself must be interruptible, or
      // a deadline (or a client gone away) waits for a slow site instead of ending the work. Bookkeeping stays whole.
      const delivered = yield* Effect.interruptible(handler.run(caller, plan.input)).pipe(
        Effect.onError(() => Option.match(reservation, { onNone: () => Effect.void, onSome: (r) => Effect.ignore(ledger.release(r)) }))
      )
      charged = Math.min(delivered.credits, plan.credits)
      const remaining = Option.isSome(reservation)
        ? (yield* ledger.commit(reservation.value, { credits: charged, requestId })).remaining
        : (yield* ledger.balance(auth.org.id)).remaining
      if (plan.zdr) headers["x-service-zdr"] = "true"
      Object.assign(headers, delivered.headers)
      return {
        status: 200,
        body: {
          ...delivered.body,
          request_id: requestId,
          key_metadata: { credits_consumed: charged, credits_remaining: remaining }
        } as Record<string, unknown>,
        serialized: delivered.serialized,
        errorCode: null as string | null
      }
    })

    const outcome = yield* attempt.pipe(
      Effect.catchAllCause((cause) =>
        Effect.gen(function*() {
          const failure = Option.getOrUndefined(Cause.failureOption(cause))
          if (failure === undefined) yield* Effect.logError("request failed unexpectedly", cause)
          const mapped = ErrorMapping.map(failure)
          const remaining = auth === undefined
            ? undefined
            : yield* ledger.balance(auth.org.id).pipe(Effect.map((b) => b.remaining), Effect.orElseSucceed(() => auth!.org.creditsRemaining))
          return {
            status: mapped.status,
            body: {
              request_id: requestId,
              error_code: mapped.errorCode,
              message: mapped.message,
              ...(mapped.requiredPermission === undefined ? {} : { required_permission: mapped.requiredPermission }),
              ...(remaining === undefined ? {} : { key_metadata: { credits_consumed: 0, credits_remaining: remaining } })
            } as Record<string, unknown>,
            serialized: undefined as string | undefined,
            errorCode: mapped.errorCode as string | null
          }
        })
      )
    )

    const members = stringify(outcome.body)
    const text = outcome.serialized === undefined ? members : `{${outcome.serialized},${members.slice(1)}`
    if (auth !== undefined) {
      const ended = clock.unsafeCurrentTimeMillis()
      const zdr = plan?.zdr === true
      yield* log.record({
        requestId,
        orgId: auth.org.id,
        keyId: auth.keyId,
        timestamp: new Date(started),
        method: request.method,
        path,
        statusCode: outcome.status,
        errorCode: outcome.errorCode,
        latencyMs: ended - started,
        creditsUsed: outcome.status === 200 ? charged : 0,
        tags: zdr ? [] : plan?.tags ?? [],
        zdr,
        userAgent: request.headers["user-agent"] ?? null,
        input: zdr ? null : { query: redactQuery(search, params), ...(body === undefined ? {} : { body: redact(body) }) },
        response: zdr ? null : outcome.serialized === undefined ? redactJsonText(text) : redactJsonParts(outcome.serialized, members)
      })
    }
    return json(outcome.status, text, headers)
  })
