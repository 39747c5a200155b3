/**
 * The auth-host routes of agent registration, at the root (decisions §0, §10): the discovery documents, the JWKS,
 * `POST /agent/identity`, the claim and jwt-bearer grants of `POST /oauth2/token`, `POST /oauth2/revoke`, and the
 * server-rendered claim page (sign up or sign in, verify the email, enter the code, confirm the key name).
 * The public origin is `SIFT_AUTH_PUBLIC_URL` when set, else `SIFT_PUBLIC_URL`, else the `Host` the client used.
 *
 * @since 0.1.0
 */
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { AgentRegistration, Users } from "@sift/auth"
import { Mailer } from "@sift/store"
import { Config, Effect, Option, Schema } from "effect"
import * as OAuth from "../Mcp/OAuth.js"
import { limitRegistrations } from "./Limits.js"
import { csrfField, escape, page, seeOther, sessionCookie, sessionSecret } from "./Pages.js"

/** The claim page's path (the `verification_uri`). */
export const CLAIM_PATH = "/agent/claim"
/** The JWKS path. */
export const JWKS_PATH = "/.well-known/jwks.json"

/** The public origin of the auth host. */
const configuredOrigin = (name: string) => Effect.orElseSucceed(Config.option(Config.string(name)), () => Option.none<string>())
const originOf = (request: HttpServerRequest.HttpServerRequest) =>
  Effect.map(Effect.zip(configuredOrigin("SIFT_AUTH_PUBLIC_URL"), configuredOrigin("SIFT_PUBLIC_URL")), ([auth, service]) => {
    const configured = Option.filter(Option.orElse(Option.filter(auth, (v) => v !== ""), () => service), (v) => v !== "")
    if (Option.isSome(configured)) return configured.value.replace(/\/+$/, "")
    const proto = request.headers["x-forwarded-proto"] === "https" ? "https" : "http"
    return `${proto}://${request.headers.host ?? "127.0.0.1"}`
  })

/** The protected-resource metadata of the API. */
export const resourceMetadata = (origin: string) => ({
  resource: `${origin}/v1/`,
  authorization_servers: [origin],
  scopes_supported: ["api.read", "api.write"],
  bearer_methods_supported: ["header"]
})

/** The authorization server metadata (RFC 8414): the MCP OAuth server's, with agent registration added. */
export const serverMetadata = (origin: string) => {
  const base = OAuth.metadata(origin)
  return {
    ...base,
    grant_types_supported: [...base.grant_types_supported, ...AgentRegistration.CLAIM_GRANTS, AgentRegistration.JWT_BEARER_GRANT],
    agent_registration_endpoint: `${origin}/agent/identity`,
    revocation_endpoint: `${origin}/oauth2/revoke`,
    jwks_uri: `${origin}${JWKS_PATH}`
  }
}

const json = (body: unknown, status = 200) => HttpServerResponse.unsafeJson(body, { status, headers: { "cache-control": "no-store", pragma: "no-cache" } })
const oauthAnswer = (result: { readonly _tag: "OAuthError"; readonly error: string; readonly description: string } | object) =>
  "_tag" in result && result._tag === "OAuthError" ? json({ error: result.error, error_description: result.description }, 400) : json(result)

const field = Schema.optional(Schema.String)

/** The form of the claim page's sign-up and sign-in posts. */
export const CredentialsForm = Schema.Struct({ csrf: field, email: field, password: field })
/** The form of the claim page's code post. */
export const CodeForm = Schema.Struct({ csrf: field, user_code: field })
/** The form of the claim page's confirmation post. */
export const ConfirmForm = Schema.Struct({ csrf: field, registration_id: field, api_key_name: field })
/** The members of `POST /oauth2/token` the agent grants read (the claim grants and jwt-bearer). */
export const TokenForm = Schema.Struct({ grant_type: field, claim_token: field, assertion: field, resource: field })
/** The form of `POST /oauth2/revoke`. */
export const RevokeForm = Schema.Struct({ token: field })

/** A form body read with its Schema (the first value of a repeated member; members it does not name are dropped). */
const formOf = <A>(request: HttpServerRequest.HttpServerRequest, schema: Schema.Schema<A, { readonly [key: string]: string | undefined }>) =>
  Effect.map(Effect.orElseSucceed(request.urlParamsBody, () => [] as Array<[string, string]>), (pairs) => {
    const form: Record<string, string> = Object.create(null)
    for (const [key, value] of pairs) if (!(key in form)) form[key] = value
    return Schema.decodeUnknownSync(schema)(form)
  })

// ---- the claim page ----

const refusals: Record<Users.Refusal, string> = {
  email_taken: "An account with this email exists; sign in instead.",
  invalid_credentials: "Wrong email or password.",
  locked: "Too many wrong passwords: sign-in is locked for 15 minutes.",
  weak_password: "Choose a password of at least 8 characters.",
  invalid_email: "Enter a valid email address."
}

const signInForms = (csrf: string, email: string, error?: string) =>
  (error === undefined ? "" : `<p class="error" role="alert">${escape(error)}</p>`) +
  `<p>An agent asked for access to Sift on your behalf. Sign in or create an account, then enter the code it showed you.</p>
<form method="post" action="${CLAIM_PATH}/signup" id="signup"><h2>Create an account</h2>${csrfField(csrf)}
<label>Email <input type="email" name="email" value="${escape(email)}" required></label>
<label>Password <input type="password" name="password" minlength="8" required></label>
<button type="submit">Create account</button></form>
<form method="post" action="${CLAIM_PATH}/signin" id="signin"><h2>Sign in</h2>${csrfField(csrf)}
<label>Email <input type="email" name="email" value="${escape(email)}" required></label>
<label>Password <input type="password" name="password" required></label>
<button type="submit">Sign in</button></form>`

const codeForm = (csrf: string, user: Users.User, code: string, error?: string) =>
  `<p>Signed in as <strong>${escape(user.email)}</strong>.</p>` +
  (user.emailVerified ? "" : `<p class="note">We sent a verification link to ${escape(user.email)}. The agent gets its key once you follow it.</p>`) +
  (error === undefined ? "" : `<p class="error" role="alert">${escape(error)}</p>`) +
  `<form method="post" action="${CLAIM_PATH}/code" id="code">${csrfField(csrf)}
<label>Code from your agent <input type="text" name="user_code" value="${escape(code)}" inputmode="numeric" autocomplete="one-time-code" pattern="[0-9 -]{6,8}" required></label>
<button type="submit">Continue</button></form>`

/** The session of the request, or a new anonymous one (then its cookie must be set). */
const currentSession = (request: HttpServerRequest.HttpServerRequest) =>
  Effect.gen(function*() {
    const secret = sessionSecret(request)
    const found = secret === undefined ? Option.none<Users.Session>() : yield* Users.findSession(secret)
    if (Option.isSome(found)) return { session: found.value, fresh: false }
    return { session: yield* Users.openSession, fresh: true }
  })

const claimPage = Effect.gen(function*() {
  const request = yield* HttpServerRequest.HttpServerRequest
  const origin = yield* originOf(request)
  const url = new URL(request.url, origin)
  const { fresh, session } = yield* currentSession(request)
  const cookie = fresh ? sessionCookie(session.id, origin) : undefined
  const user = session.userId === null ? Option.none<Users.User>() : yield* Users.getUser(session.userId)
  if (Option.isNone(user)) return yield* page("Connect your agent", signInForms(session.csrf, url.searchParams.get("email") ?? ""), { cookie })
  return yield* page("Connect your agent", codeForm(session.csrf, user.value, url.searchParams.get("code") ?? ""), { cookie })
})

/** A form post with a valid session and CSRF token, or the refusal page. */
const checkedPost = <A extends { readonly csrf?: string | undefined }>(schema: Schema.Schema<A, { readonly [key: string]: string | undefined }>) => Effect.gen(function*() {
  const request = yield* HttpServerRequest.HttpServerRequest
  const form = yield* formOf(request, schema)
  const secret = sessionSecret(request)
  const session = secret === undefined ? Option.none<Users.Session>() : yield* Users.findSession(secret)
  if (Option.isNone(session) || form.csrf === undefined || form.csrf !== session.value.csrf) {
    return { _tag: "Refused" as const, response: yield* page("Session expired", `<p class="error">Your session expired or the form was not sent from this page. <a href="${CLAIM_PATH}">Start again</a>.</p>`, { status: 403 }) }
  }
  return { _tag: "Ok" as const, form, session: session.value, origin: yield* originOf(request) }
})

const verificationMail = (origin: string, email: string, token: string) => {
  const link = `${origin}/agent/verify-email?token=${encodeURIComponent(token)}`
  // A refused SMTP delivery still leaves the message in the outbox; the page goes on (the link can be sent again).
  return Effect.flatMap(Mailer.Mailer, (mailer) => mailer.send({
    to: email,
    subject: "Verify your email for Sift",
    text: `Follow this link to verify your email address:\n\n${link}\n\nIf you did not create a Sift account, ignore this message.`,
    html: `<p>Follow this link to verify your email address:</p><p><a href="${escape(link)}">${escape(link)}</a></p>`
  })).pipe(Effect.catchTag("MailDeliveryError", (error) => Effect.logWarning("verification mail not delivered", error)))
}

const signUpPost = Effect.gen(function*() {
  const post = yield* checkedPost(CredentialsForm)
  if (post._tag === "Refused") return post.response
  const result = yield* Users.signUp({ email: post.form.email ?? "", password: post.form.password ?? "" })
  if (result._tag === "Refused") return yield* page("Connect your agent", signInForms(post.session.csrf, post.form.email ?? "", refusals[result.reason]), { status: 400 })
  yield* verificationMail(post.origin, result.user.email, result.verificationToken)
  const session = yield* Users.signInSession(post.session, result.user.id)
  return seeOther(CLAIM_PATH, sessionCookie(session.id, post.origin))
})

const signInPost = Effect.gen(function*() {
  const post = yield* checkedPost(CredentialsForm)
  if (post._tag === "Refused") return post.response
  const result = yield* Users.signIn({ email: post.form.email ?? "", password: post.form.password ?? "" })
  if (result._tag === "Refused") return yield* page("Connect your agent", signInForms(post.session.csrf, post.form.email ?? "", refusals[result.reason]), { status: result.reason === "locked" ? 429 : 400 })
  const session = yield* Users.signInSession(post.session, result.user.id)
  return seeOther(CLAIM_PATH, sessionCookie(session.id, post.origin))
})

/** The signed-in user of a checked post, or the sign-in page. */
const signedIn = (session: Users.Session) =>
  session.userId === null ? Effect.succeed(Option.none<Users.User>()) : Users.getUser(session.userId)

const codePost = Effect.gen(function*() {
  const post = yield* checkedPost(CodeForm)
  if (post._tag === "Refused") return post.response
  const user = yield* signedIn(post.session)
  if (Option.isNone(user)) return seeOther(CLAIM_PATH)
  const code = (post.form.user_code ?? "").trim()
  if (Users.codesLocked(post.session)) {
    return yield* page("Connect your agent", codeForm(post.session.csrf, user.value, "", "Too many wrong codes: code entry is locked for 15 minutes."), { status: 429 })
  }
  const pending = yield* AgentRegistration.findByCode(code)
  if (Option.isNone(pending)) {
    const after = yield* Users.recordWrongCode(post.session)
    const message = Users.codesLocked(after)
      ? "Too many wrong codes: code entry is locked for 15 minutes."
      : "That code is not valid or has expired. Check the code your agent showed you."
    return yield* page("Connect your agent", codeForm(post.session.csrf, user.value, "", message), { status: Users.codesLocked(after) ? 429 : 400 })
  }
  if (pending.value.loginHint !== user.value.email) {
    return yield* page("Connect your agent", codeForm(post.session.csrf, user.value, "", `This code was issued for ${pending.value.loginHint}. Sign in with that address to connect the agent.`), { status: 403 })
  }
  return yield* page("Confirm the agent's key", `<p>The agent will get an API key of your organization with read and write access (api.read, api.write). It does not expire; revoke it any time.</p>
<form method="post" action="${CLAIM_PATH}/confirm" id="confirm">${csrfField(post.session.csrf)}
<input type="hidden" name="registration_id" value="${escape(pending.value.id)}">
<label>Key name <input type="text" name="api_key_name" value="${escape(pending.value.apiKeyName)}" maxlength="${AgentRegistration.MAX_KEY_NAME}" required></label>
<button type="submit">Connect agent</button></form>`)
})

const confirmPost = Effect.gen(function*() {
  const post = yield* checkedPost(ConfirmForm)
  if (post._tag === "Refused") return post.response
  const user = yield* signedIn(post.session)
  if (Option.isNone(user)) return seeOther(CLAIM_PATH)
  const name = (post.form.api_key_name ?? "").trim()
  if (name.length === 0 || name.length > AgentRegistration.MAX_KEY_NAME) {
    return yield* page("Confirm the agent's key", `<p class="error" role="alert">The key name must have 1 to ${AgentRegistration.MAX_KEY_NAME} characters. <a href="${CLAIM_PATH}">Start again</a>.</p>`, { status: 400 })
  }
  const pending = yield* AgentRegistration.findPending(post.form.registration_id ?? "")
  if (Option.isNone(pending) || pending.value.loginHint !== user.value.email || !(yield* AgentRegistration.claim(pending.value.id, user.value.id, name))) {
    return yield* page("Connect your agent", `<p class="error" role="alert">This request is no longer valid (expired or already connected). <a href="${CLAIM_PATH}">Start again</a>.</p>`, { status: 400 })
  }
  const rest = user.value.emailVerified
    ? "<p>You can return to your agent: it receives its key on its next check.</p>"
    : `<p class="note">One step left: follow the verification link we sent to ${escape(user.value.email)}. The agent receives its key after that.</p>`
  return yield* page("Agent connected", `<p id="done">The agent “${escape(name)}” is connected to your account.</p>${rest}`)
})

const verifyEmailPage = Effect.gen(function*() {
  const request = yield* HttpServerRequest.HttpServerRequest
  const token = new URL(request.url, "http://sift.local").searchParams.get("token") ?? ""
  const verified = yield* Users.verifyEmail(token)
  if (Option.isNone(verified)) return yield* page("Email not verified", `<p class="error">This link is not valid or has expired.</p>`, { status: 400 })
  return yield* page("Email verified", `<p id="verified">Your email address is verified. If an agent is waiting, it receives its key on its next check.</p>`)
})

// ---- the JSON and form endpoints ----

const identity = Effect.gen(function*() {
  const request = yield* HttpServerRequest.HttpServerRequest
  const origin = yield* originOf(request)
  const body = yield* Effect.orElseSucceed(request.json, () => undefined)
  return oauthAnswer(yield* AgentRegistration.register(body, `${origin}${CLAIM_PATH}`))
})

const token = (form: typeof TokenForm.Type) =>
  Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    const origin = yield* originOf(request)
    if ((AgentRegistration.CLAIM_GRANTS as ReadonlyArray<string>).includes(form.grant_type!)) {
      return oauthAnswer(yield* AgentRegistration.pollClaim(form.claim_token, origin))
    }
    if (form.resource !== undefined && !form.resource.startsWith(origin)) {
      return json({ error: "invalid_target", error_description: `resource must be ${origin}/v1/` }, 400)
    }
    return oauthAnswer(yield* AgentRegistration.refresh(form.assertion, origin))
  })

const GRANTS: ReadonlyArray<string> = [...AgentRegistration.CLAIM_GRANTS, AgentRegistration.JWT_BEARER_GRANT]

// Storage or other unexpected failures: a 500 in the endpoint's shape, never a crash.
const failSafe = <E, R>(effect: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>, html: boolean) =>
  effect.pipe(Effect.catchAllCause((cause) =>
    Effect.zipRight(
      Effect.logError("agent registration endpoint failed", cause),
      html
        ? Effect.orDie(page("Something went wrong", "<p class=\"error\">Something went wrong. Try again.</p>", { status: 500 }))
        : Effect.succeed(json({ error: "server_error", error_description: "Internal error" }, 500))
    )))

/** `app` with the auth-host routes of agent registration answered first; everything else (and other grants) to `app`. */
export const mount = <E, R>(app: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>) =>
  Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    const path = new URL(request.url, "http://sift.local").pathname
    switch (`${request.method} ${path}`) {
      case "GET /.well-known/oauth-protected-resource":
        return HttpServerResponse.unsafeJson(resourceMetadata(yield* originOf(request)), { headers: { "cache-control": "max-age=3600" } })
      case "GET /.well-known/oauth-authorization-server":
        return HttpServerResponse.unsafeJson(serverMetadata(yield* originOf(request)), { headers: { "cache-control": "max-age=3600" } })
      case `GET ${JWKS_PATH}`:
        return yield* failSafe(Effect.map(AgentRegistration.jwks, (set) => HttpServerResponse.unsafeJson(set, { headers: { "cache-control": "max-age=300" } })), false)
      case "POST /agent/identity":
        return yield* limitRegistrations(failSafe(identity, false))
      case "POST /oauth2/token": {
        const form = yield* formOf(request, TokenForm)
        if (GRANTS.includes(form.grant_type ?? "")) return yield* failSafe(token(form), false)
        if (form.grant_type === undefined) return json({ error: "invalid_request", error_description: "grant_type is required" }, 400)
        break
      }
      case "POST /oauth2/revoke": {
        const form = yield* formOf(request, RevokeForm)
        return yield* failSafe(Effect.map(AgentRegistration.revoke(form.token), (result) => "_tag" in result ? oauthAnswer(result) : json({})), false)
      }
      case `GET ${CLAIM_PATH}`:
        return yield* failSafe(claimPage, true)
      case `POST ${CLAIM_PATH}/signup`:
        return yield* failSafe(signUpPost, true)
      case `POST ${CLAIM_PATH}/signin`:
        return yield* failSafe(signInPost, true)
      case `POST ${CLAIM_PATH}/code`:
        return yield* failSafe(codePost, true)
      case `POST ${CLAIM_PATH}/confirm`:
        return yield* failSafe(confirmPost, true)
      case "GET /agent/verify-email":
        return yield* failSafe(verifyEmailPage, true)
    }
    return yield* app
  })
