/**
 * The path every API request takes (issue: "one pipeline"): request id → authentication (401) → permission (403 with
 * `required_permission`) → rate limit (headers; 429 with `Retry-After`) → validation → paid plan (403
 * `PAID_PLAN_REQUIRED`) → ZDR → credits reserved (403
 * `USAGE_EXCEEDED` before any work) → handler → charge what was delivered, release the rest, and the request log
 * (ZDR and redaction honoured), durable together → response, with errors mapped in one place (`ErrorMapping`).
 * Where the rate limit is a round trip (PostgreSQL) the hit is counted while the body is read, validated and its credits
 * reserved; the answer is the one this order gives (a 429 first, the reservation it overlapped released), and a key
 * refused in its current window goes in order, so a client hammering through 429s reserves nothing.
 *
 * @since 0.1.0
 */
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { ApiKeys, CreditLedger, Permissions, Plans, RateLimiter } from "@sift/auth"
import { Cause, Clock, Context, Effect, Exit, Fiber, Option } from "effect"
import { randomUUID } from "node:crypto"
import * as ConsoleSession from "./Console/Session.js"
import * as ErrorMapping from "./ErrorMapping.js"
import * as Body from "./internal/body.js"
import * as Callers from "./internal/server/callers.js"
import * as Tracing from "./Tracing.js"
import * as Json from "./internal/json.js"
import * as Metrics from "./Metrics.js"
import { stringify } from "./internal/json.js"
import { redact, redactJsonParts, redactJsonText, redactQuery } from "./internal/redaction.js"
import * as QueryParams from "./QueryParams.js"
import { type Entry, type PendingBalance, RequestLog } from "./RequestLog.js"
import { andThen, interruptibly } from "./internal/steps.js"
import * as Target from "./internal/target.js"

/** What a route declares about itself. */
export interface Route {
  /** The rate-limit window it counts against. */
  readonly bucket: "api" | "logs"
  /** Outside rate limits (`POST /utility/prefetch`): no window is counted and no rate-limit headers are sent. */
  readonly unlimited?: boolean
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
  /**
   * Set when the request asks for what only paid plans get (e.g. browser actions): the refusal's detail. The pipeline
   * answers 403 `PAID_PLAN_REQUIRED` to a free organization before any credit is held (decisions §3).
   */
  readonly paidPlanFor?: string
}

/** A handler's result: the body members besides `request_id` and `key_metadata`, and what it actually cost. */
export interface Delivered {
  readonly body: Record<string, unknown>
  /**
   * Members of the body already serialized by `stringify` (JSON members without the braces, e.g. `"a":1,"b":[2]`; the
   * request log relies on it: no raw control character), sent before those
   * of `body`: a handler that answers the same large members again and again serializes them once.
   */
  readonly serialized?: string
  /** Credits to charge (at most the reserved amount; 0 for nothing delivered). */
  readonly credits: number
  /**
   * Credits the handler charged itself, in a transaction of its own (a batch's reservation; its Plan reserves 0):
   * reported as `credits_consumed` and in the log row, with the balance after them.
   */
  readonly charged?: { readonly credits: number; readonly remaining: number }
  readonly headers?: Readonly<Record<string, string>>
}

/**
 * A route's validation and work. Both fail only with coded errors (`ErrorMapping.CodedError`): a failure without its
 * `error_code` (a plain `Error`, a raw `SqlError`) does not compile; infrastructure failures are defects.
 */
export interface Handler<A, E1 extends ErrorMapping.CodedError, R1, E2 extends ErrorMapping.CodedError, R2> {
  readonly validate: (caller: Caller) => Effect.Effect<Plan<A>, E1, R1>
  readonly run: (caller: Caller, input: A) => Effect.Effect<Delivered, E2, R2>
}

const BEARER = /^Bearer\s+(\S+)\s*$/i

// The body is serialized once: the same text is sent and (redacted) logged. It stays a string (the Node writer
// encodes it into the socket), with its byte length declared, rather than being copied into bytes first. The content
// headers are set here, so the response takes the record as it is instead of copying it to add them.
const json = (status: number, text: string, byteLength: number, headers: Record<string, string>) => {
  headers["content-type"] = "application/json"
  headers["content-length"] = String(byteLength)
  return HttpServerResponse.raw(text, { status, headers })
}

/** The JSON body of a POST, or undefined for GET; malformed JSON is a validation error. */
const hasNoBody = (method: string) => method === "GET" || method === "HEAD" || method === "DELETE"

const unreadable = () => new ErrorMapping.ApiFailure({ code: "INPUT_VALIDATION_ERROR", detail: "body: could not be read" })

/**
 * The JSON body: at most `Body.MAX_JSON_BODY_BYTES` (else 413 `CONTENT_TOO_LARGE`, told before reading when declared)
 * and `Json.MAX_DEPTH` levels deep (checked on the text before parsing, so no walk over the value can overflow).
 */
const readBody = (request: HttpServerRequest.HttpServerRequest) =>
  Effect.flatMap(
    Effect.mapError(Body.read(request, Body.MAX_JSON_BODY_BYTES), (why) =>
      why === "TooLarge"
        ? new ErrorMapping.ApiFailure({ code: "CONTENT_TOO_LARGE", detail: `body: a JSON body may have at most ${Body.MAX_JSON_BODY_BYTES} bytes (2 MiB)` })
        : unreadable()),
    (bytes) => {
      const text = Body.text(bytes)
      if (text.trim() === "") return Effect.succeed({} as unknown)
      if (Json.textNestsDeeper(text)) return Effect.fail(new ErrorMapping.ApiFailure({ code: "INPUT_VALIDATION_ERROR", detail: Json.tooDeep("body") }))
      return Effect.try({
        try: () => JSON.parse(text) as unknown,
        catch: (error) => new ErrorMapping.ApiFailure({ code: "INPUT_VALIDATION_ERROR", detail: `body: malformed JSON (${(error as Error).message})` })
      })
    }
  )

/** The raw bytes of an upload; more than `limit` is 413 `CONTENT_TOO_LARGE`, told before reading when declared. */
const readBytes = (request: HttpServerRequest.HttpServerRequest, limit: number) =>
  Effect.mapError(Body.read(request, limit), (why) =>
    why === "TooLarge"
      ? new ErrorMapping.ApiFailure({ code: "CONTENT_TOO_LARGE", detail: `body: the upload exceeds ${limit} bytes` })
      : unreadable())

/**
 * What a request came to: its status, its body without `key_metadata` (and members already serialized), its error
 * code for the log, what it cost, and the balance to report, or the charge still to make durable (whose balance the
 * answer reports once it is).
 */
interface Outcome {
  readonly status: number
  readonly body: Record<string, unknown>
  readonly serialized: string | undefined
  readonly errorCode: string | null
  readonly consumed: number
  /** The balance for `key_metadata` (undefined: no key, no `key_metadata`, unless `charge` gives one). */
  readonly remaining: number | undefined
  readonly charge: CreditLedger.Charge | undefined
}

/**
 * Keys (per bucket) refused in their current window, until it ends: their next requests count their hit before
 * anything else, so a client hammering through 429s makes no reservations. Bounded: past windows are dropped first.
 */
const refusedUntil = new Map<string, number>()
const MAX_REFUSED = 10_000

const refusedKey = (keyId: string, bucket: string) => `${keyId}\u0000${bucket}`

const isRefused = (key: string, nowMs: number) => {
  const until = refusedUntil.get(key)
  if (until === undefined) return false
  if (until > nowMs) return true
  refusedUntil.delete(key)
  return false
}

const noteRefused = (key: string, untilMs: number, nowMs: number) => {
  if (refusedUntil.size >= MAX_REFUSED) {
    for (const [k, until] of refusedUntil) if (until <= nowMs) refusedUntil.delete(k)
    if (refusedUntil.size >= MAX_REFUSED) refusedUntil.delete(refusedUntil.keys().next().value!)
  }
  refusedUntil.set(key, untilMs)
}

type Services = HttpServerRequest.HttpServerRequest | RequestLog | CreditLedger.CreditLedger | ApiKeys.ApiKeys | RateLimiter.RateLimiter

/**
 * Serves one route through the whole pipeline. Written as plain continuations rather than a generator: a cache hit is
 * little more than these steps, and every step of the fiber (or resumption of a generator) was a visible share of it
 * (bench/http). Steps that services answer from memory continue at once (`andThen`).
 */
export const serve = <A, E1 extends ErrorMapping.CodedError, R1, E2 extends ErrorMapping.CodedError, R2>(
  route: Route,
  handler: Handler<A, E1, R1, E2, R2>
) =>
  Effect.withFiberRuntime<HttpServerResponse.HttpServerResponse, never, Services | R1 | R2>((fiber) => {
    const services = fiber.currentContext as Context.Context<Services>
    const clock = Context.get(fiber.currentDefaultServices, Clock.Clock)
    const request = Context.get(services, HttpServerRequest.HttpServerRequest)
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
    let plan: Plan<A> | undefined
    let body: unknown = undefined
    let held: CreditLedger.Reservation | undefined
    // Authenticated by a console session: its reads of the log itself are not logged (the page would list itself).
    let viaConsole = false

    // Every failure of the path is typed: coded errors (the pipeline's own, auth's refusals, the handler's) and the
    // auth services' infrastructure failures, which the one failure path (`failed`) answers as the defects they are.
    // They are not turned into defects on the way: that would cost a step of the fiber per service call (bench/http).
    type Step = Effect.Effect<Outcome, ErrorMapping.CodedError | ErrorMapping.Infrastructure, R1 | R2>

    const authenticated = (caller: ApiKeys.AuthContext): Step => {
      auth = caller
      Callers.note(request, caller.org.id, caller.keyId)
      const apiPath = path.startsWith("/v1/") ? path.slice(3) : path
      const required = Permissions.requiredFor(request.method, apiPath)
      return required === undefined
        ? limited(caller)
        : andThen(Permissions.check(caller, required), () => limited(caller))
    }

    /** The window's headers; the 429 when it refused the request (remembered until the window ends). */
    const counted = (caller: ApiKeys.AuthContext, window: RateLimiter.Hit): Step | undefined => {
      headers["x-ratelimit-limit"] = String(window.limit)
      headers["x-ratelimit-remaining"] = String(window.remaining)
      headers["x-ratelimit-reset"] = String(window.resetAt)
      if (window.allowed) return undefined
      headers["retry-after"] = String(window.retryAfter)
      noteRefused(refusedKey(caller.keyId, route.bucket), window.resetAt * 1000, clock.unsafeCurrentTimeMillis())
      return Effect.fail(
        new ErrorMapping.ApiFailure({
          code: "RATE_LIMITED",
          detail: `Rate limit of ${window.limit} requests per minute exceeded; retry in ${window.retryAfter} s`
        })
      )
    }

    const limited = (caller: ApiKeys.AuthContext): Step => {
      if (route.unlimited === true) return bodyRead(caller, worked)
      const limiter = Context.get(services, RateLimiter.RateLimiter)
      const limit = route.bucket === "logs" ? Plans.LOGS_REQUESTS_PER_MINUTE : caller.org.requestsPerMinute
      const hit = Tracing.stage("rate limit", limiter.hit(caller.keyId, route.bucket, limit))
      // Counted in memory (embedded, or from a lease), or a key already refused in this window: the hit first, then the rest.
      const nowMs = clock.unsafeCurrentTimeMillis()
      if (limiter.local || limiter.leased(caller.keyId, route.bucket, limit, nowMs) || isRefused(refusedKey(caller.keyId, route.bucket), nowMs)) {
        return andThen(hit, (window): Step => counted(caller, window) ?? bodyRead(caller, worked))
      }
      // A round trip: the body is read, validated and its credits reserved while the hit is counted. The answer is
      // the one the hit first would give: a refusal (429) before the others' errors, its reservation released.
      return Effect.flatMap(Effect.fork(hit), (counting) =>
        Effect.flatMap(
          Effect.exit(bodyRead(caller, (prepared, decided, reservation) => {
            held = reservation
            return Effect.succeed([prepared, decided, reservation] as const)
          })),
          (prepared) =>
            Effect.flatMap(Fiber.join(counting), (window): Step => {
              const refused = counted(caller, window)
              if (refused !== undefined) {
                // Logged as a 429 always was: nothing of the body or the plan (`failed` releases what was held).
                body = undefined
                plan = undefined
                return refused
              }
              return Exit.isSuccess(prepared) ? worked(...prepared.value) : Effect.failCause(prepared.cause)
            })
        ))
    }

    /** What comes after validation and the reservation: the work (`worked`), or what the caller makes of them. */
    type Next<T> = (caller: Caller, decided: Plan<A>, reservation: CreditLedger.Reservation | undefined) => Effect.Effect<T, ErrorMapping.CodedError | ErrorMapping.Infrastructure, R1 | R2>

    const bodyRead = <T>(caller: ApiKeys.AuthContext, next: Next<T>): Effect.Effect<T, ErrorMapping.CodedError | ErrorMapping.Infrastructure, R1 | R2> =>
      route.rawBodyLimit !== undefined
        ? andThen(readBytes(request, route.rawBodyLimit), (bytes) => validated(caller, bytes, next))
        : hasNoBody(request.method)
        ? validated(caller, undefined, next)
        : andThen(readBody(request), (json) => validated(caller, json, next))

    const validated = <T>(authContext: ApiKeys.AuthContext, read: unknown, next: Next<T>): Effect.Effect<T, ErrorMapping.CodedError | ErrorMapping.Infrastructure, R1 | R2> => {
      body = read
      let query: QueryParams.Query | undefined
      const caller: Caller = {
        requestId,
        auth: authContext,
        search,
        get query() {
          return query ??= QueryParams.parse(params())
        },
        body
      }
      return andThen(Tracing.stage("validate", interruptibly(handler.validate(caller))), (decided): Effect.Effect<T, ErrorMapping.CodedError | ErrorMapping.Infrastructure, R1 | R2> => {
        plan = decided
        if (decided.paidPlanFor !== undefined && authContext.org.plan === "free") {
          return Effect.fail(new ErrorMapping.ApiFailure({ code: "PAID_PLAN_REQUIRED", detail: decided.paidPlanFor }))
        }
        if (decided.zdr && !authContext.org.zdrEnabled) {
          return Effect.fail(new ErrorMapping.ApiFailure({
            code: "ZDR_NOT_ENABLED",
            detail: "Zero data retention is not enabled for this organization"
          }))
        }
        return decided.credits > 0
          ? andThen(Tracing.stage("reserve credits", ledger.reserve(authContext.org.id, decided.credits, { ttlMs: decided.holdMs })), (reservation) =>
            next(caller, decided, reservation))
          : next(caller, decided, undefined)
      })
    }

    // `@effect/platform` runs handlers uninterruptibly (HttpApp.toHandled); the work itself must be interruptible, or a
    // deadline (or a client gone away) waits for a slow site instead of ending the work. Bookkeeping stays whole.
    // A reservation the work's failure (or interruption) leaves held is released by `failed`.
    const worked = (caller: Caller, decided: Plan<A>, reservation: CreditLedger.Reservation | undefined): Step => {
      held = reservation
      return andThen(Tracing.stage("handler", interruptibly(handler.run(caller, decided.input))), (result): Step => {
        held = undefined
        const consumed = result.charged !== undefined ? result.charged.credits : Math.min(result.credits, decided.credits)
        if (decided.zdr) headers["x-service-zdr"] = "true"
        Object.assign(headers, result.headers)
        const outcome = (remaining: number | undefined, charge: CreditLedger.Charge | undefined): Outcome => ({
          status: 200,
          body: { ...result.body, request_id: requestId },
          serialized: result.serialized,
          errorCode: null,
          consumed,
          remaining,
          charge
        })
        // The charge is made durable with the log row, before the answer is sent (`respond`).
        return reservation !== undefined
          ? Effect.succeed(outcome(undefined, { reservation, credits: consumed, requestId }))
          : result.charged !== undefined
          ? Effect.succeed(outcome(result.charged.remaining, undefined))
          : andThen(ledger.balance(caller.auth.org.id), ({ remaining }) => Effect.succeed(outcome(remaining, undefined)))
      })
    }

    const attempt = (): Step => {
      const secret = BEARER.exec(request.headers.authorization ?? "")?.[1]
      if (secret === undefined) {
        // The web console's session cookie stands for a key when no Authorization header is sent, with the session's
        // CSRF token on every request (Console/Session.ts).
        const consoleAuth = request.headers.authorization === undefined ? Context.getOption(services, ConsoleSession.ConsoleAuth) : Option.none()
        const session = Option.isSome(consoleAuth) ? ConsoleSession.secretOf(request) : undefined
        if (session !== undefined) {
          return andThen(Option.getOrThrow(consoleAuth).authenticate(session, true, request.headers[ConsoleSession.CSRF_HEADER]), (signedIn) => {
            viaConsole = true
            return authenticated(signedIn.context)
          })
        }
        return Effect.fail(new ErrorMapping.ApiFailure({ code: "UNAUTHORIZED", detail: "Missing API key: send Authorization: Bearer <API_KEY>" }))
      }
      return andThen(Tracing.stage("authenticate", Context.get(services, ApiKeys.ApiKeys).authenticate(secret)), authenticated)
    }

    const failed = (cause: Cause.Cause<ErrorMapping.CodedError | ErrorMapping.Infrastructure>): Effect.Effect<Outcome> => {
      // Only coded failures have a status of their own; infrastructure failures (and any failure a cast let through
      // without its code) are defects: a 500, logged with its cause, never a silent one.
      const failure = Option.filter(Cause.failureOption(cause), ErrorMapping.isCoded).pipe(Option.getOrUndefined)
      const mapped = failure === undefined ? ErrorMapping.defect : ErrorMapping.map(failure)
      const outcome = (remaining: number | undefined): Outcome => ({
        status: mapped.status,
        body: {
          request_id: requestId,
          error_code: mapped.errorCode,
          message: mapped.message,
          ...(mapped.requiredPermission === undefined ? {} : { required_permission: mapped.requiredPermission })
        },
        serialized: undefined,
        errorCode: mapped.errorCode,
        consumed: 0,
        remaining,
        charge: undefined
      })
      const balance = auth === undefined
        ? Effect.succeed(outcome(undefined))
        : ledger.balance(auth.org.id).pipe(
          Effect.map((b) => outcome(b.remaining)),
          Effect.orElseSucceed(() => outcome(auth!.org.creditsRemaining))
        )
      const released = held === undefined ? balance : Effect.zipRight(Effect.ignore(ledger.release(held)), balance)
      held = undefined
      return failure === undefined ? Effect.zipRight(Effect.logError("request failed unexpectedly", cause), released) : released
    }

    /** The response of an outcome, given the balance it reports; the text and members are kept for the log. */
    const answer = (outcome: Outcome, remaining: number | string | undefined) => {
      const members = stringify(remaining === undefined ? outcome.body : {
        ...outcome.body,
        key_metadata: { credits_consumed: outcome.consumed, credits_remaining: remaining }
      })
      const text = outcome.serialized === undefined ? members : `{${outcome.serialized},${members.slice(1)}`
      // Measured by parts: the joined text is not flattened into a copy just to be measured.
      const byteLength = outcome.serialized === undefined
        ? Buffer.byteLength(members, "utf8")
        : 1 + Buffer.byteLength(outcome.serialized, "utf8") + Buffer.byteLength(members, "utf8")
      return { response: json(outcome.status, text, byteLength, headers), text, members }
    }

    // Set once the log row (and charge) of this request could not be made durable: its 500 is then sent regardless.
    let unrecorded = false

    /**
     * Sends nothing before the request's charge and log row are durable (`RequestLog.settle`: one group transaction
     * with the other requests finishing meanwhile), so a crash never loses what an answer reported. If they cannot be
     * written the answer is not the success: a 500, charged nothing (its own row is tried once more).
     */
    const respond = (outcome: Outcome): Effect.Effect<HttpServerResponse.HttpServerResponse> => {
      if (auth === undefined || (viaConsole && route.bucket === "logs")) return Effect.succeed(answer(outcome, outcome.remaining).response)
      const caller = auth
      let answered: ReturnType<typeof answer> | undefined
      // Whether the logged response stood a placeholder for the balance: the answer is then made with the one written.
      let placeheld = false
      const entry = (remaining: number | PendingBalance | undefined): Entry => {
        placeheld = outcome.charge !== undefined && typeof remaining === "object"
        const sent = answered = answer(
          outcome,
          outcome.charge === undefined ? outcome.remaining : typeof remaining === "object" ? remaining.placeholder : remaining
        )
        const zdr = plan?.zdr === true
        return {
          requestId,
          orgId: caller.org.id,
          keyId: caller.keyId,
          timestamp: new Date(started),
          method: request.method,
          path,
          statusCode: outcome.status,
          errorCode: outcome.errorCode,
          latencyMs: clock.unsafeCurrentTimeMillis() - started,
          creditsUsed: outcome.status === 200 ? outcome.consumed : 0,
          tags: zdr ? [] : plan?.tags ?? [],
          zdr,
          userAgent: request.headers["user-agent"] ?? null,
          input: zdr ? null : { query: redactQuery(search, params), ...(body === undefined ? {} : { body: redact(body) }) },
          response: zdr ? null : outcome.serialized === undefined ? redactJsonText(sent.text) : redactJsonParts(outcome.serialized, sent.members),
          // Both made by `stringify` (a handler's serialized members too), and redaction adds no control character.
          responseIsJson: true
        }
      }
      const settled = Tracing.stage("charge and log", log.settle({ charge: outcome.charge === undefined ? undefined : { ledger, charge: outcome.charge }, entry }))
      // Journaled at once (PGlite in a directory): no step of the fiber to wait for it.
      if (Exit.isExit(settled) && Exit.isSuccess(settled)) {
        Metrics.countCharged(outcome.consumed)
        return Effect.succeed(placeheld ? answer(outcome, settled.value as number | undefined).response : answered!.response)
      }
      return Effect.matchCauseEffect(settled, {
        onSuccess: (remaining) => {
          Metrics.countCharged(outcome.consumed)
          return Effect.succeed(placeheld ? answer(outcome, remaining).response : answered!.response)
        },
        onFailure: (cause) => {
          const logged = Effect.logError(`request ${requestId}: its log row${outcome.charge === undefined ? "" : " and charge"} could not be written`, cause)
          if (unrecorded) return Effect.as(logged, answer(outcome, outcome.remaining).response)
          unrecorded = true
          // Nothing was charged: the reservation is released, and the answer says so.
          if (outcome.charge !== undefined) held = outcome.charge.reservation
          const internal = new ErrorMapping.ApiFailure({ code: "INTERNAL_ERROR", detail: "the request could not be recorded" })
          return Effect.zipRight(logged, Effect.flatMap(failed(Cause.fail(internal)), respond))
        }
      })
    }

    return Effect.flatMap(Effect.catchAllCause(Effect.suspend(attempt), failed), respond)
  })
