/**
 * OAuth 2.0 for remote MCP clients: authorization server metadata (RFC 8414), dynamic client registration (RFC 7591,
 * public clients), the authorization code grant with PKCE (S256 only) and the refresh token grant. An access token is a
 * real API key of the person's organization, expiring after an hour, whose permissions follow the granted scopes
 * (`api.read`: every `:read` permission and `data:execute`; `api.write`: all), so the API pipeline meters, limits and
 * enforces it like any key. Codes and refresh tokens are stored hashed; codes are single-use and live 10 minutes. Every
 * token remembers the code it descends from (through any number of refreshes): a code presented a second time is
 * refused and, as RFC 6749 §4.1.2 asks, every access and refresh token issued from it is revoked, since the code has
 * evidently leaked.
 *
 * The person signs in on the authorization page with the accounts of the agent claim flow. The tables and every
 * statement on them are auth's (`OAuthGrants`); this module is the HTTP protocol.
 *
 * @since 0.1.0
 */
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { OAuthGrants, Permissions, Users } from "@sift/auth"
import { Effect, Option } from "effect"
import { createHash } from "node:crypto"
import type * as Tools from "./Tools.js"

/** Access tokens live this long (seconds). */
export const ACCESS_TOKEN_SECONDS = OAuthGrants.ACCESS_TOKEN_SECONDS

/** The permissions a set of scopes grants its access token. */
export const permissionsFor = (scopes: ReadonlyArray<Tools.Scope>): ReadonlyArray<string> =>
  scopes.includes("api.write") ? Permissions.all : Permissions.all.filter((name) => name.endsWith(":read") || name === "data:execute")

/** The scopes an authenticated key holds: `api.write` when it may write monitors (or has every permission). */
export const scopesOf = (permissions: ReadonlyArray<string> | null): ReadonlyArray<Tools.Scope> =>
  permissions === null || permissions.includes("monitors:write") ? ["api.read", "api.write"] : ["api.read"]

const SCOPE_NAMES: ReadonlyArray<Tools.Scope> = ["api.read", "api.write"]

/** The authorization server metadata document (RFC 8414) for `origin`. */
export const metadata = (origin: string) => ({
  issuer: origin,
  authorization_endpoint: `${origin}/oauth2/authorize`,
  token_endpoint: `${origin}/oauth2/token`,
  registration_endpoint: `${origin}/oauth2/register`,
  scopes_supported: SCOPE_NAMES,
  response_types_supported: ["code"],
  grant_types_supported: ["authorization_code", "refresh_token"],
  code_challenge_methods_supported: ["S256"],
  token_endpoint_auth_methods_supported: ["none"]
})

const oauthError = (status: number, error: string, description: string) =>
  HttpServerResponse.unsafeJson({ error, error_description: description }, { status, headers: { "cache-control": "no-store" } })

const parseScopes = (text: string | undefined): ReadonlyArray<Tools.Scope> | undefined => {
  const names = (text ?? "api.read api.write").split(/\s+/).filter((name) => name !== "")
  if (names.length === 0 || names.some((name) => !(SCOPE_NAMES as ReadonlyArray<string>).includes(name))) return undefined
  return SCOPE_NAMES.filter((name) => names.includes(name))
}

const isRedirectUri = (value: unknown): value is string => {
  if (typeof value !== "string" || value.length > 2000) return false
  try {
    const url = new URL(value)
    // https anywhere; plain http only back to this machine (native and CLI clients); custom schemes for apps.
    return url.hash === "" && (url.protocol === "https:" || (url.protocol === "http:" && ["127.0.0.1", "localhost", "[::1]"].includes(url.hostname)) ||
      /^[a-z][a-z0-9+.-]*\.[a-z0-9+.-]+:$/.test(url.protocol))
  } catch {
    return false
  }
}

/** `POST /oauth2/register`: a public client (no secret) with its redirect URIs. */
export const register = Effect.gen(function*() {
  const request = yield* HttpServerRequest.HttpServerRequest
  const body = yield* Effect.orElseSucceed(request.json, () => undefined)
  if (typeof body !== "object" || body === null) return oauthError(400, "invalid_client_metadata", "The body must be a JSON object")
  const input = body as Record<string, unknown>
  const uris = input.redirect_uris
  if (!Array.isArray(uris) || uris.length === 0 || uris.length > 10 || !uris.every(isRedirectUri)) {
    return oauthError(400, "invalid_redirect_uri", "redirect_uris: 1 to 10 absolute URIs, https (or http to localhost), without fragment")
  }
  const method = input.token_endpoint_auth_method ?? "none"
  if (method !== "none") return oauthError(400, "invalid_client_metadata", "token_endpoint_auth_method: only none (public clients with PKCE)")
  const name = typeof input.client_name === "string" && input.client_name.trim() !== "" ? input.client_name.trim().slice(0, 100) : "MCP client"
  const { clientId } = yield* OAuthGrants.registerClient({ name, redirectUris: uris })
  return HttpServerResponse.unsafeJson({
    client_id: clientId,
    client_id_issued_at: Math.floor(Date.now() / 1000),
    client_name: name,
    redirect_uris: uris,
    grant_types: ["authorization_code", "refresh_token"],
    response_types: ["code"],
    token_endpoint_auth_method: "none"
  }, { status: 201, headers: { "cache-control": "no-store" } })
})

type Client = OAuthGrants.Client

const escape = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", "\"": "&quot;", "'": "&#39;" })[c]!)

const page = (title: string, body: string, status = 200) =>
  HttpServerResponse.text(
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">` +
      `<title>${escape(title)} · Sift</title><style>body{font:16px system-ui,sans-serif;max-width:32rem;margin:3rem auto;padding:0 1rem}` +
      `input,button{font:inherit;padding:.5rem;width:100%;box-sizing:border-box;margin:.25rem 0 1rem}.error{color:#a00}</style></head>` +
      `<body><h1>${escape(title)}</h1>${body}</body></html>`,
    {
      status,
      contentType: "text/html; charset=utf-8",
      // No CSP form-action: Chromium applies it to the redirect back to the client that follows the form.
      headers: { "cache-control": "no-store", "x-frame-options": "DENY", "content-security-policy": "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'" }
    }
  )

const AUTHORIZE_FIELDS = ["response_type", "client_id", "redirect_uri", "code_challenge", "code_challenge_method", "scope", "state", "resource"] as const
type AuthorizeParams = Partial<Record<typeof AUTHORIZE_FIELDS[number], string>>

const redirectWith = (redirectUri: string, params: Record<string, string | undefined>) => {
  const url = new URL(redirectUri)
  for (const [key, value] of Object.entries(params)) if (value !== undefined) url.searchParams.set(key, value)
  return HttpServerResponse.empty({ status: 302, headers: { location: url.toString(), "cache-control": "no-store" } })
}

/**
 * Checks an authorization request. Errors the client cannot be told about (unknown client, unregistered redirect) are
 * shown on the page; the rest go back to the client's redirect URI (RFC 6749 §4.1.2.1).
 */
const checkAuthorize = (params: AuthorizeParams) =>
  Effect.gen(function*() {
    const client = params.client_id === undefined ? Option.none<Client>() : yield* OAuthGrants.findClient(params.client_id)
    if (Option.isNone(client)) return { _tag: "page" as const, response: page("Unknown application", `<p class="error">This application is not registered with Sift.</p>`, 400) }
    const redirectUri = params.redirect_uri ?? (client.value.redirectUris.length === 1 ? client.value.redirectUris[0]! : undefined)
    if (redirectUri === undefined || !client.value.redirectUris.includes(redirectUri)) {
      return { _tag: "page" as const, response: page("Invalid redirect", `<p class="error">The redirect address is not registered for this application.</p>`, 400) }
    }
    const back = (error: string, description: string) => ({
      _tag: "page" as const,
      response: redirectWith(redirectUri, { error, error_description: description, state: params.state })
    })
    if (params.response_type !== "code") return back("unsupported_response_type", "response_type must be code")
    if (params.code_challenge_method !== "S256") return back("invalid_request", "PKCE with code_challenge_method S256 is required")
    if (params.code_challenge === undefined || !/^[A-Za-z0-9_-]{43}$/.test(params.code_challenge)) {
      return back("invalid_request", "code_challenge must be a base64url SHA-256 digest")
    }
    const scopes = parseScopes(params.scope)
    if (scopes === undefined) return back("invalid_scope", "scope: api.read and/or api.write")
    return { _tag: "ok" as const, client: client.value, redirectUri, scopes, challenge: params.code_challenge }
  })

const consentForm = (client: Client, params: AuthorizeParams, scopes: ReadonlyArray<Tools.Scope>, error?: string) =>
  page(
    `Connect ${client.name} to Sift`,
    `<p><strong>${escape(client.name)}</strong> asks to use Sift's tools for your organization with ` +
      (scopes.includes("api.write") ? "read and write access (it may create and run monitors)." : "read-only access.") +
      `</p>${error === undefined ? "" : `<p class="error" role="alert">${escape(error)}</p>`}` +
      `<form method="post" action="/oauth2/authorize">` +
      AUTHORIZE_FIELDS.map((name) => params[name] === undefined ? "" : `<input type="hidden" name="${name}" value="${escape(params[name]!)}">`).join("") +
      `<p>Sign in with your Sift account (the one an agent's claim page created, or yours).</p>` +
      `<label for="email">Email</label><input id="email" name="email" type="email" autocomplete="username" required>` +
      `<label for="password">Password</label>` +
      `<input id="password" name="password" type="password" autocomplete="current-password" required>` +
      `<button type="submit" name="decision" value="allow">Allow</button>` +
      `<button type="submit" name="decision" value="deny" formnovalidate>Deny</button></form>`,
    error === undefined ? 200 : 401
  )

const pick = (source: Readonly<Record<string, string | ReadonlyArray<string> | undefined>>): AuthorizeParams =>
  Object.fromEntries(AUTHORIZE_FIELDS.flatMap((name) => {
    const value = source[name]
    const text = typeof value === "string" ? value : value?.[0]
    return text === undefined || text === "" ? [] : [[name, text]]
  })) as AuthorizeParams

/** `GET /oauth2/authorize`: the sign-in and consent page. */
export const authorizePage = Effect.gen(function*() {
  const request = yield* HttpServerRequest.HttpServerRequest
  const params = pick(Object.fromEntries(new URL(request.url, "http://sift.local").searchParams))
  const checked = yield* checkAuthorize(params)
  if (checked._tag === "page") return checked.response
  return consentForm(checked.client, params, checked.scopes)
})

/** `POST /oauth2/authorize`: the person's decision; on allow, a single-use code back to the client. */
export const authorizeDecision = Effect.gen(function*() {
  const request = yield* HttpServerRequest.HttpServerRequest
  const form = Object.fromEntries(yield* request.urlParamsBody) as Record<string, string>
  const params = pick(form)
  const checked = yield* checkAuthorize(params)
  if (checked._tag === "page") return checked.response
  if (form.decision !== "allow") return redirectWith(checked.redirectUri, { error: "access_denied", error_description: "The person denied access", state: params.state })
  // The person signs in with the same accounts as the agent claim flow (password checks, lockout after five failures);
  // the grant is for their organization. No session is kept, so there is no ambient sign-in to forge a post with.
  const signedIn = yield* Users.signIn({ email: form.email ?? "", password: form.password ?? "" })
  if (signedIn._tag === "Refused") {
    return consentForm(checked.client, params, checked.scopes, signedIn.reason === "locked"
      ? "Too many failed sign-ins: try again in 15 minutes."
      : "The email or password is not right.")
  }
  if (!signedIn.user.emailVerified) {
    return consentForm(checked.client, params, checked.scopes, "Verify your email address first (see the link we sent).")
  }

  const code = yield* OAuthGrants.storeCode({
    clientId: checked.client.clientId,
    orgId: signedIn.user.orgId,
    redirectUri: checked.redirectUri,
    codeChallenge: checked.challenge,
    scopes: checked.scopes
  })
  return redirectWith(checked.redirectUri, { code, state: params.state, iss: undefined })
})

/** The token response (RFC 6749 §5.1) for freshly issued tokens. */
const tokenResponse = (tokens: OAuthGrants.Tokens) =>
  HttpServerResponse.unsafeJson({
    access_token: tokens.accessToken,
    token_type: "Bearer",
    expires_in: tokens.expiresIn,
    scope: tokens.scopes.join(" "),
    refresh_token: tokens.refreshToken
  }, { headers: { "cache-control": "no-store", pragma: "no-cache" } })

const issueFor = (scopes: ReadonlyArray<Tools.Scope>): OAuthGrants.Decision<never> => ({ _tag: "Issue", scopes, permissions: permissionsFor(scopes) })
const refuse = (error: string, description: string): OAuthGrants.Decision<HttpServerResponse.HttpServerResponse> => ({
  _tag: "Refuse",
  refusal: oauthError(400, error, description)
})

/** The grants this module answers at the one token endpoint (the claim and jwt-bearer grants live beside them). */
export const GRANTS = ["authorization_code", "refresh_token"] as const

/** `POST /oauth2/token` for `authorization_code` (with the PKCE verifier) and `refresh_token` (rotated on use). */
export const tokenGrant = (form: Readonly<Record<string, string>>) =>
  Effect.gen(function*() {
    const clientId = form.client_id
    if (clientId === undefined) return oauthError(400, "invalid_request", "client_id is required")
    if (form.grant_type === "authorization_code") {
      if (form.code === undefined || form.code_verifier === undefined) return oauthError(400, "invalid_request", "code and code_verifier are required")
      if (!/^[A-Za-z0-9._~-]{43,128}$/.test(form.code_verifier)) return oauthError(400, "invalid_request", "code_verifier must be 43 to 128 unreserved characters")
      const verifier = form.code_verifier
      const outcome = yield* OAuthGrants.redeemCode(form.code, (code) => {
        if (code.expiresAt.getTime() < Date.now()) return refuse("invalid_grant", "The code is invalid, expired or already used")
        if (code.clientId !== clientId) return refuse("invalid_grant", "The code was issued to another client")
        if (form.redirect_uri !== undefined && form.redirect_uri !== code.redirectUri) return refuse("invalid_grant", "redirect_uri does not match")
        const challenge = createHash("sha256").update(verifier).digest("base64url")
        if (challenge !== code.codeChallenge) return refuse("invalid_grant", "The code_verifier does not match the code_challenge")
        return issueFor(code.scope.split(" ") as Array<Tools.Scope>)
      })
      if (outcome._tag === "Issued") return tokenResponse(outcome.tokens)
      if (outcome._tag === "Refused") return outcome.refusal
      if (outcome._tag === "Replayed" && outcome.refreshTokens + outcome.accessTokens > 0) {
        yield* Effect.logWarning(`an authorization code was used twice: its ${outcome.refreshTokens} refresh and ${outcome.accessTokens} access token(s) revoked`)
      }
      return oauthError(400, "invalid_grant", "The code is invalid, expired or already used")
    }
    if (form.refresh_token === undefined) return oauthError(400, "invalid_request", "refresh_token is required")
    const outcome = yield* OAuthGrants.refresh(form.refresh_token, (stored) => {
      if (stored.clientId !== clientId) return refuse("invalid_grant", "The refresh token is invalid or already used")
      const granted = stored.scope.split(" ") as Array<Tools.Scope>
      const asked = form.scope === undefined ? granted : parseScopes(form.scope)
      if (asked === undefined || asked.some((scope) => !granted.includes(scope))) return refuse("invalid_scope", "Only scopes of the original grant")
      return issueFor(asked)
    })
    if (outcome._tag === "Issued") return tokenResponse(outcome.tokens)
    if (outcome._tag === "Refused") return outcome.refusal
    return oauthError(400, "invalid_grant", "The refresh token is invalid or already used")
  })
