/**
 * `/v1/console/*`: what the web console needs that the public API has no endpoint for (its session, usage series,
 * API keys, members, the live tail of the log). Authenticated by the console session cookie (`Session.ts`), never by
 * an API key; a mutation carries the session's CSRF token in `X-CSRF-Token` and a JSON body (`Content-Type:
 * application/json`, which a cross-site form cannot send). Keys and members are managed by owners only. Errors have
 * the API's shape `{ request_id, error_code, message }`. These requests are not written to the request log.
 *
 * @since 0.1.0
 */
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as SqlClient from "@effect/sql/SqlClient"
import { ApiKeys, CreditLedger, Ids, Passwords, Permissions, Users } from "@sift/auth"
import { Mailer } from "@sift/store"
import { Cause, Config, Effect, Option, Schedule, Schema, Stream } from "effect"
import { createHash, randomBytes, randomUUID } from "node:crypto"
import * as ErrorMapping from "../ErrorMapping.js"
import { ApiFailure } from "../ErrorMapping.js"
import * as Body from "../internal/body.js"
import { RequestLog, Snapshot } from "../RequestLog.js"
import * as Session from "./Session.js"
import * as Usage from "./Usage.js"

/** Where the console's routes live. */
export const PREFIX = "/v1/console/"
/** Longest body a console request may send. */
const MAX_BODY = 64 * 1024
/** How long one live tail stream lasts before the browser reconnects (EventSource does so on its own). */
const TAIL_MS = 10 * 60_000

const answer = (status: number, body: Record<string, unknown>, headers: Record<string, string> = {}) => {
  const requestId = randomUUID()
  return HttpServerResponse.unsafeJson({ ...body, request_id: requestId }, {
    status,
    headers: { "x-request-id": requestId, "cache-control": "no-store", ...headers }
  })
}

const invalid = (detail: string) => new ApiFailure({ code: "INPUT_VALIDATION_ERROR", detail })

/** The JSON body of a console mutation, decoded with `schema`. */
const bodyOf = <A, I>(schema: Schema.Schema<A, I>) =>
  Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    if (!(request.headers["content-type"] ?? "").toLowerCase().startsWith("application/json")) {
      return yield* invalid("body: send JSON with Content-Type: application/json")
    }
    const bytes = yield* Effect.mapError(Body.read(request, MAX_BODY), () => invalid(`body: at most ${MAX_BODY} bytes of JSON`))
    const parsed = yield* Effect.try({ try: () => JSON.parse(Body.text(bytes)) as unknown, catch: () => invalid("body: malformed JSON") })
    return yield* Effect.mapError(Schema.decodeUnknown(schema)(parsed, { onExcessProperty: "error" }), (error) => invalid(`body: ${error.message}`))
  })

/** The signed-in caller of a console request. */
const caller = Effect.gen(function*() {
  const request = yield* HttpServerRequest.HttpServerRequest
  const secret = Session.secretOf(request)
  if (secret === undefined) return yield* new ApiFailure({ code: "UNAUTHORIZED", detail: "Sign in to the console first" })
  const auth = yield* Session.ConsoleAuth
  return yield* auth.authenticate(secret, Session.isMutation(request.method), request.headers[Session.CSRF_HEADER])
})

const ownerOnly = (person: Session.Person) =>
  person.role === "owner" ? Effect.void : Effect.fail(new ApiFailure({ code: "FORBIDDEN", detail: "Only an owner of the organization can do this" }))

const originOf = (request: HttpServerRequest.HttpServerRequest) =>
  Effect.map(Config.option(Config.string("SIFT_PUBLIC_URL")), (configured) =>
    Option.match(Option.filter(configured, (v) => v !== ""), {
      onSome: (url) => url.replace(/\/+$/, ""),
      onNone: () => `${request.headers["x-forwarded-proto"] === "https" ? "https" : "http"}://${request.headers.host ?? "127.0.0.1"}`
    }))

const isSecure = (request: HttpServerRequest.HttpServerRequest) =>
  Effect.map(originOf(request), (origin) => origin.startsWith("https:"))

const orgView = (context: Session.ConsoleCaller["context"], balance: CreditLedger.Balance) => ({
  id: context.org.id,
  name: context.org.name,
  plan: context.org.plan,
  zdr: context.org.zdrEnabled,
  credits_remaining: balance.remaining,
  credits_per_cycle: context.org.monthlyCredits,
  cycle_start: balance.cycleStart.toISOString(),
  cycle_end: balance.cycleEnd === null ? null : balance.cycleEnd.toISOString(),
  requests_per_minute: context.org.requestsPerMinute
})

const sessionView = (signedIn: Session.ConsoleCaller) =>
  Effect.map(Effect.flatMap(CreditLedger.CreditLedger, (ledger) => ledger.balance(signedIn.context.org.id)), (balance) => ({
    user: signedIn.person,
    org: orgView(signedIn.context, balance),
    csrf: signedIn.session.csrf,
    permissions: Permissions.all
  }))

const Credentials = Schema.Struct({ email: Schema.String.pipe(Schema.maxLength(254)), password: Schema.String.pipe(Schema.maxLength(200)) })

const signIn = Effect.gen(function*() {
  const request = yield* HttpServerRequest.HttpServerRequest
  const input = yield* bodyOf(Credentials)
  const result = yield* Users.signIn(input)
  if (result._tag === "Refused") {
    return result.reason === "locked"
      ? yield* new ApiFailure({ code: "RATE_LIMITED", detail: "Too many wrong passwords: sign-in to this account is locked for 15 minutes" })
      : yield* new ApiFailure({ code: "UNAUTHORIZED", detail: "Wrong email or password" })
  }
  if (!result.user.emailVerified) {
    return yield* new ApiFailure({ code: "FORBIDDEN", detail: "Verify your email address first: follow the link Sift emailed you" })
  }
  const session = yield* Users.signInSession(yield* Users.openSession, result.user.id)
  const auth = yield* Session.ConsoleAuth
  const signedIn = yield* auth.authenticate(session.id, false, undefined)
  return answer(200, yield* sessionView(signedIn), { "set-cookie": Session.cookieFor(session.id, yield* isSecure(request)) })
})

const signOut = Effect.gen(function*() {
  const signedIn = yield* caller
  const sql = yield* SqlClient.SqlClient
  yield* sql`DELETE FROM web_sessions WHERE user_id = ${signedIn.person.id} AND csrf = ${signedIn.session.csrf}`
  return answer(200, { signed_out: true }, { "set-cookie": Session.clearedCookie })
})

const NewPassword = Schema.Struct({ token: Schema.String.pipe(Schema.maxLength(200)), password: Schema.String })

/** Sets a password with a link's token (an invitation or `sift users create`); the email is verified by it. */
const setPassword = Effect.gen(function*() {
  const input = yield* bodyOf(NewPassword)
  if (input.password.length < 8 || input.password.length > 200) return yield* invalid("password: 8 to 200 characters")
  const userId = yield* Users.verifyEmail(input.token)
  if (Option.isNone(userId)) return yield* invalid("token: this link is unknown, used or expired; ask an owner for a new one")
  const sql = yield* SqlClient.SqlClient
  const hash = yield* Passwords.hash(input.password)
  yield* sql`UPDATE users SET password_hash = ${hash}, failed_sign_ins = 0, locked_until = NULL WHERE id = ${userId.value}`
  const rows = yield* sql<{ email: string }>`SELECT email FROM users WHERE id = ${userId.value}`
  return answer(200, { email: rows[0]?.email ?? null })
})

const usage = Effect.gen(function*() {
  const signedIn = yield* caller
  const request = yield* HttpServerRequest.HttpServerRequest
  const range = new URL(request.url, "http://x").searchParams.get("range") ?? "24h"
  if (!(range in Usage.ranges)) return yield* invalid("range: one of 24h, 7d, 30d")
  const series = yield* Usage.series(signedIn.context.org.id, range as Usage.Range, new Date())
  const balance = yield* Effect.flatMap(CreditLedger.CreditLedger, (ledger) => ledger.balance(signedIn.context.org.id))
  return answer(200, { range, ...series, org: orgView(signedIn.context, balance) })
})

const keyView = (key: ApiKeys.ApiKey) => ({
  id: key.id,
  name: key.name,
  prefix: key.prefix,
  permissions: key.permissions,
  expires_at: key.expiresAt?.toISOString() ?? null,
  revoked_at: key.revokedAt?.toISOString() ?? null,
  last_used_at: key.lastUsedAt?.toISOString() ?? null,
  created_at: key.createdAt.toISOString()
})

const listKeys = Effect.gen(function*() {
  const signedIn = yield* caller
  const keys = yield* Effect.flatMap(ApiKeys.ApiKeys, (service) => service.list(signedIn.context.org.id))
  return answer(200, { keys: keys.map(keyView).reverse() })
})

const NewKey = Schema.Struct({
  name: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(100)),
  permissions: Schema.optional(Schema.Array(Schema.Literal(...Permissions.all)).pipe(Schema.minItems(1))),
  expires_at: Schema.optional(Schema.DateFromString)
})

const createKey = Effect.gen(function*() {
  const signedIn = yield* caller
  yield* ownerOnly(signedIn.person)
  const input = yield* bodyOf(NewKey)
  if (input.expires_at !== undefined && (Number.isNaN(input.expires_at.getTime()) || input.expires_at.getTime() <= Date.now())) {
    return yield* invalid("expires_at: a time in the future")
  }
  const service = yield* ApiKeys.ApiKeys
  const created = yield* Effect.mapError(
    service.create({ orgId: signedIn.context.org.id, name: input.name.trim(), permissions: input.permissions, expiresAt: input.expires_at }),
    (error) => error._tag === "UnknownPermission" ? invalid(error.detail) : error
  )
  return answer(201, { key: keyView(created.key), secret: created.secret })
})

const revokeKey = (keyId: string) =>
  Effect.gen(function*() {
    const signedIn = yield* caller
    yield* ownerOnly(signedIn.person)
    const service = yield* ApiKeys.ApiKeys
    const own = (yield* service.list(signedIn.context.org.id)).some((key) => key.id === keyId)
    if (!own) return yield* new ApiFailure({ code: "NOT_FOUND", detail: `No key ${keyId} in this organization` })
    yield* service.revoke(keyId)
    return answer(200, { revoked: keyId })
  })

const listMembers = Effect.gen(function*() {
  const signedIn = yield* caller
  const sql = yield* SqlClient.SqlClient
  const rows = yield* sql<Record<string, unknown>>`
    SELECT id, email, role, email_verified_at, created_at FROM users WHERE org_id = ${signedIn.context.org.id} ORDER BY created_at, email`
  return answer(200, {
    members: rows.map((r) => ({
      id: String(r.id),
      email: String(r.email),
      role: String(r.role),
      verified: r.email_verified_at !== null,
      created_at: new Date(r.created_at as string).toISOString()
    }))
  })
})

const Invitation = Schema.Struct({ email: Schema.String.pipe(Schema.maxLength(254)), role: Schema.Literal("owner", "member") })

/**
 * Adds a person to an organization with a role and a one-time link (24 hours) to choose their password; following
 * the link verifies the email. Returns the link, which the caller mails (`POST /v1/console/members`) or prints
 * (`sift users create`).
 */
export const addPerson = (input: { readonly orgId: string; readonly email: string; readonly role: Session.Role; readonly origin: string }) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const email = input.email.trim().toLowerCase()
    if (!Users.isEmail(email)) return yield* invalid("email: not an email address")
    const taken = yield* sql`SELECT id FROM users WHERE email = ${email}`
    if (taken.length > 0) return yield* invalid(`email: ${email} already has an account`)
    const userId = Ids.id("usr_")
    const token = randomBytes(32).toString("base64url")
    // The token is stored as `Users.verifyEmail` looks it up: its SHA-256, hex.
    yield* sql.withTransaction(Effect.gen(function*() {
      yield* sql`INSERT INTO users ${sql.insert({ id: userId, org_id: input.orgId, email, role: input.role })}`
      yield* sql`INSERT INTO email_verifications ${sql.insert({ token_hash: createHash("sha256").update(token).digest("hex"), user_id: userId, expires_at: new Date(Date.now() + Users.VERIFICATION_MS) })}`
    }))
    return { id: userId, email, role: input.role, link: `${input.origin}/#/set-password?token=${token}` }
  })

const addMember = Effect.gen(function*() {
  const signedIn = yield* caller
  yield* ownerOnly(signedIn.person)
  const input = yield* bodyOf(Invitation)
  const request = yield* HttpServerRequest.HttpServerRequest
  const added = yield* addPerson({ orgId: signedIn.context.org.id, email: input.email, role: input.role, origin: yield* originOf(request) })
  yield* Effect.mapError(
    Mailer.send({
      to: added.email,
      subject: "Your Sift console account",
      text: `${signedIn.person.email} added you to the Sift organization ${signedIn.context.org.name} as ${added.role}.\n\n` +
        `Choose your password (the link works for 24 hours):\n${added.link}\n`
    }),
    () => new ApiFailure({ code: "INTERNAL_ERROR", detail: "the invitation email could not be sent; add the person again later" })
  )
  return answer(201, { member: { id: added.id, email: added.email, role: added.role, verified: false } })
})

/**
 * `text/event-stream` of the organization's new log entries (`event: entry`, oldest first), polled once a second,
 * timestamped from `?since=` (the page's moment of asking; at most an hour back), else from now. Each poll sends what
 * became visible since the previous one's database snapshot, whatever its timestamp: a request's entry is timestamped
 * when it starts and written when it ends, so a slow request's entry lands after a quicker later one's, and a tail that
 * moved its start past the newest timestamp sent would never send it. `id:` is that snapshot, and a reconnect's
 * `Last-Event-ID` resumes from it.
 */
const tail = Effect.gen(function*() {
  const signedIn = yield* caller
  const log = yield* RequestLog
  const request = yield* HttpServerRequest.HttpServerRequest
  // The Node request under it (the API front's and the platform's both keep it as `source`): polling stops once the
  // browser has gone, instead of running out the stream's time.
  const socket = (request as unknown as { readonly source?: { readonly socket?: { readonly destroyed: boolean } } }).source?.socket
  const open = () => socket === undefined || !socket.destroyed
  const orgId = signedIn.context.org.id
  const askedAt = Date.parse(new URL(request.url, "http://x").searchParams.get("since") ?? "")
  const since = new Date(Number.isNaN(askedAt) ? Date.now() : Math.min(Date.now(), Math.max(askedAt, Date.now() - 3_600_000)))
  // Undefined until the first poll (everything from `since`), unless a reconnect names the last snapshot it got.
  const resumed = request.headers["last-event-id"] ?? ""
  let sent: Snapshot | undefined = resumed.length <= Snapshot.MAX_LENGTH ? Snapshot.parse(resumed) : undefined
  const started = Date.now()
  const encoder = new TextEncoder()
  const poll = Effect.map(
    // Suspended: each poll reads up to its own now, and after the snapshot the previous one read in.
    Effect.orElseSucceed(
      Effect.suspend(() => log.list({ orgId, from: since, to: new Date(Date.now() + 1_000), page: 1, limit: 200, newerThan: sent })),
      () => undefined
    ),
    (listed) => {
      if (listed === undefined) return encoder.encode(": waiting\n\n")
      sent = listed.snapshot
      const id = Snapshot.format(listed.snapshot)
      const text = [...listed.items].reverse().map((item) => `id: ${id}\nevent: entry\ndata: ${JSON.stringify(item)}\n\n`).join("")
      return encoder.encode(text === "" ? ": waiting\n\n" : text)
    }
  )
  const stream = Stream.concat(
    Stream.make(encoder.encode("retry: 2000\n\n")),
    Stream.repeatEffectWithSchedule(poll, Schedule.spaced("1 second")).pipe(Stream.takeWhile(() => open() && Date.now() - started < TAIL_MS))
  )
  return HttpServerResponse.stream(stream, {
    contentType: "text/event-stream",
    headers: { "cache-control": "no-store", "x-accel-buffering": "no" }
  })
})

const KEY = /^\/v1\/console\/keys\/([A-Za-z0-9_-]{1,100})$/

/** What the console's routes use. */
type Services =
  | HttpServerRequest.HttpServerRequest
  | SqlClient.SqlClient
  | CreditLedger.CreditLedger
  | ApiKeys.ApiKeys
  | Session.ConsoleAuth
  | RequestLog
  | Mailer.Mailer

/** The console route of a request under `/v1/console/`. */
const routeOf = (method: string, path: string): Effect.Effect<HttpServerResponse.HttpServerResponse, unknown, Services> => {
  switch (`${method} ${path}`) {
    case "GET /v1/console/session":
      return Effect.flatMap(caller, (signedIn) => Effect.map(sessionView(signedIn), (view) => answer(200, view)))
    case "POST /v1/console/session":
      return signIn
    case "DELETE /v1/console/session":
      return signOut
    case "POST /v1/console/password":
      return setPassword
    case "GET /v1/console/usage":
      return usage
    case "GET /v1/console/keys":
      return listKeys
    case "POST /v1/console/keys":
      return createKey
    case "GET /v1/console/members":
      return listMembers
    case "POST /v1/console/members":
      return addMember
    case "GET /v1/console/logs/tail":
      return tail
  }
  const key = method === "DELETE" ? KEY.exec(path) : null
  if (key !== null) return revokeKey(key[1]!)
  return Effect.fail(new ApiFailure({ code: "NOT_FOUND", detail: `No route ${method} ${path}` }))
}

/** Answers a request under `/v1/console/`; coded failures with their status, anything else as a logged 500. */
export const serve = (method: string, path: string) =>
  Effect.catchAllCause(routeOf(method, path), (cause) => {
    const failure = Option.filter(Cause.failureOption(cause), ErrorMapping.isCoded).pipe(Option.getOrUndefined)
    if (failure !== undefined) {
      const mapped = ErrorMapping.map(failure)
      return Effect.succeed(answer(mapped.status, { error_code: mapped.errorCode, message: mapped.message }))
    }
    return Effect.as(Effect.logError("console request failed", cause), answer(500, { error_code: "INTERNAL_ERROR", message: ErrorMapping.defect.message }))
  })
