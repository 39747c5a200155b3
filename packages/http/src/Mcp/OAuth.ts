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
 * Sign-in on the authorization page is, until the user accounts of the claim flow land, a stand-in: the person proves
 * membership of an organization with one of its API keys (full access needed to grant `api.write`).
 *
 * @since 0.1.0
 */
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { SqlClient } from "@effect/sql"
import { ApiKeys, Permissions, Users } from "@sift/auth"
import { Effect, Option } from "effect"
import { createHash, randomBytes } from "node:crypto"
import type * as Tools from "./Tools.js"

/** Access tokens live this long (seconds). */
export const ACCESS_TOKEN_SECONDS = 3600
const CODE_MS = 10 * 60_000

/** The permissions a set of scopes grants its access token. */
export const permissionsFor = (scopes: ReadonlyArray<Tools.Scope>): ReadonlyArray<string> =>
  scopes.includes("api.write") ? Permissions.all : Permissions.all.filter((name) => name.endsWith(":read") || name === "data:execute")

/** The scopes an authenticated key holds: `api.write` when it may write monitors (or has every permission). */
export const scopesOf = (permissions: ReadonlyArray<string> | null): ReadonlyArray<Tools.Scope> =>
  permissions === null || permissions.includes("monitors:write") ? ["api.read", "api.write"] : ["api.read"]

/** The tables of this module. */
export const migrations = {
  "0001_oauth": Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.all([
      sql`CREATE TABLE oauth_clients (
        client_id text PRIMARY KEY,
        client_name text NOT NULL,
        redirect_uris text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`,
      sql`CREATE TABLE oauth_codes (
        code_hash text PRIMARY KEY,
        client_id text NOT NULL,
        org_id text NOT NULL,
        redirect_uri text NOT NULL,
        code_challenge text NOT NULL,
        scope text NOT NULL,
        expires_at timestamptz NOT NULL,
        used_at timestamptz
      )`,
      sql`CREATE TABLE oauth_refresh_tokens (
        token_hash text PRIMARY KEY,
        client_id text NOT NULL,
        org_id text NOT NULL,
        scope text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        revoked_at timestamptz
      )`
    ], { discard: true })),
  // The grant (the hash of the authorization code) each token descends from, so a replayed code can revoke them.
  "0002_oauth_grants": Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.all([
      sql`ALTER TABLE oauth_refresh_tokens ADD COLUMN grant_id text`,
      sql`CREATE INDEX oauth_refresh_tokens_grant ON oauth_refresh_tokens (grant_id)`,
      sql`CREATE TABLE oauth_access_tokens (
        key_id text PRIMARY KEY,
        grant_id text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`,
      sql`CREATE INDEX oauth_access_tokens_grant ON oauth_access_tokens (grant_id)`
    ], { discard: true }))
}

const hash = (secret: string) => createHash("sha256").update(secret).digest("hex")
const token = (prefix: string) => prefix + randomBytes(32).toString("base64url")
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
  const clientId = token("mcpc_")
  const sql = yield* SqlClient.SqlClient
  yield* sql`INSERT INTO oauth_clients (client_id, client_name, redirect_uris) VALUES (${clientId}, ${name}, ${JSON.stringify(uris)})`
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

interface Client {
  readonly clientId: string
  readonly name: string
  readonly redirectUris: ReadonlyArray<string>
}

const findClient = (clientId: string) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql<{ client_id: string; client_name: string; redirect_uris: string }>`
      SELECT client_id, client_name, redirect_uris FROM oauth_clients WHERE client_id = ${clientId}`
    const row = rows[0]
    return row === undefined
      ? Option.none<Client>()
      : Option.some<Client>({ clientId: row.client_id, name: row.client_name, redirectUris: JSON.parse(row.redirect_uris) as Array<string> })
  })

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
    const client = params.client_id === undefined ? Option.none<Client>() : yield* findClient(params.client_id)
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

  const code = token("mcpcode_")
  const sql = yield* SqlClient.SqlClient
  yield* sql`INSERT INTO oauth_codes (code_hash, client_id, org_id, redirect_uri, code_challenge, scope, expires_at)
    VALUES (${hash(code)}, ${checked.client.clientId}, ${signedIn.user.orgId}, ${checked.redirectUri}, ${checked.challenge},
      ${checked.scopes.join(" ")}, ${new Date(Date.now() + CODE_MS)}::timestamptz)`
  return redirectWith(checked.redirectUri, { code, state: params.state, iss: undefined })
})

/** Issues an access token (an expiring API key) and a refresh token for an organization, both of grant `grantId`. */
const issue = (clientId: string, orgId: string, scopes: ReadonlyArray<Tools.Scope>, grantId: string | null) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const clients = yield* findClient(clientId)
    const name = `MCP: ${Option.match(clients, { onNone: () => clientId, onSome: (c) => c.name })}`.slice(0, 60)
    const created = yield* (yield* ApiKeys.ApiKeys).create({
      orgId,
      name,
      permissions: permissionsFor(scopes),
      expiresAt: new Date(Date.now() + ACCESS_TOKEN_SECONDS * 1000)
    })
    const refresh = token("mcprt_")
    yield* sql`INSERT INTO oauth_refresh_tokens (token_hash, client_id, org_id, scope, grant_id)
      VALUES (${hash(refresh)}, ${clientId}, ${orgId}, ${scopes.join(" ")}, ${grantId})`
    if (grantId !== null) yield* sql`INSERT INTO oauth_access_tokens (key_id, grant_id) VALUES (${created.key.id}, ${grantId})`
    return HttpServerResponse.unsafeJson({
      access_token: created.secret,
      token_type: "Bearer",
      expires_in: ACCESS_TOKEN_SECONDS,
      scope: scopes.join(" "),
      refresh_token: refresh
    }, { headers: { "cache-control": "no-store", pragma: "no-cache" } })
  })

/**
 * Revokes the refresh tokens of a grant and answers them with the keys that are its live access tokens, which the
 * caller revokes once the transaction is committed (see the code grant).
 */
const revokeRefreshTokens = (grantId: string) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const refreshTokens = yield* sql`UPDATE oauth_refresh_tokens SET revoked_at = now() WHERE grant_id = ${grantId} AND revoked_at IS NULL RETURNING token_hash`
    const live = yield* sql<{ key_id: string }>`SELECT t.key_id FROM oauth_access_tokens t JOIN api_keys k ON k.id = t.key_id
      WHERE t.grant_id = ${grantId} AND k.revoked_at IS NULL`
    return { refreshTokens: refreshTokens.length, keyIds: live.map((row) => row.key_id) }
  })

/** The grants this module answers at the one token endpoint (the claim and jwt-bearer grants live beside them). */
export const GRANTS = ["authorization_code", "refresh_token"] as const

/** `POST /oauth2/token` for `authorization_code` (with the PKCE verifier) and `refresh_token` (rotated on use). */
export const tokenGrant = (form: Readonly<Record<string, string>>) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const clientId = form.client_id
    if (clientId === undefined) return oauthError(400, "invalid_request", "client_id is required")
    if (form.grant_type === "authorization_code") {
      if (form.code === undefined || form.code_verifier === undefined) return oauthError(400, "invalid_request", "code and code_verifier are required")
      if (!/^[A-Za-z0-9._~-]{43,128}$/.test(form.code_verifier)) return oauthError(400, "invalid_request", "code_verifier must be 43 to 128 unreserved characters")
      const grantId = hash(form.code)
      const verifier = form.code_verifier
      // Single use: the row is claimed atomically, so a replayed code finds nothing. Claim and issue are one
      // transaction, so a replay racing the first exchange waits for its tokens and then revokes them.
      const outcome = yield* sql.withTransaction(Effect.gen(function*() {
        const rows = yield* sql<{ client_id: string; org_id: string; redirect_uri: string; code_challenge: string; scope: string; expires_at: Date | string }>`
          UPDATE oauth_codes SET used_at = now() WHERE code_hash = ${grantId} AND used_at IS NULL
          RETURNING client_id, org_id, redirect_uri, code_challenge, scope, expires_at`
        const row = rows[0]
        if (row === undefined) {
          // Unknown, or used before: whatever was issued from it is revoked (RFC 6749 §4.1.2), the code having leaked.
          // The code's row is locked first, as a refresh does, so a refresh under way ends before (its new tokens are
          // revoked here) or finds its token revoked.
          yield* sql`SELECT code_hash FROM oauth_codes WHERE code_hash = ${grantId} FOR UPDATE`
          return { _tag: "Replayed" as const, ...yield* revokeRefreshTokens(grantId) }
        }
        const refuse = (description: string) => ({ _tag: "Answer" as const, response: oauthError(400, "invalid_grant", description) })
        if (new Date(row.expires_at).getTime() < Date.now()) return refuse("The code is invalid, expired or already used")
        if (row.client_id !== clientId) return refuse("The code was issued to another client")
        if (form.redirect_uri !== undefined && form.redirect_uri !== row.redirect_uri) return refuse("redirect_uri does not match")
        const challenge = createHash("sha256").update(verifier).digest("base64url")
        if (challenge !== row.code_challenge) return refuse("The code_verifier does not match the code_challenge")
        return { _tag: "Answer" as const, response: yield* issue(clientId, row.org_id, row.scope.split(" ") as Array<Tools.Scope>, grantId) }
      }))
      if (outcome._tag === "Answer") return outcome.response
      // The keys only after the commit: `ApiKeys.revoke` forgets remembered lookups, so they answer 401 at once on this
      // replica (within ApiKeys.CACHE_MS on others), and no lookup can remember them again from a row not yet revoked.
      const keys = yield* ApiKeys.ApiKeys
      yield* Effect.forEach(outcome.keyIds, (keyId) => keys.revoke(keyId), { discard: true })
      if (outcome.refreshTokens + outcome.keyIds.length > 0) {
        yield* Effect.logWarning(`an authorization code was used twice: its ${outcome.refreshTokens} refresh and ${outcome.keyIds.length} access token(s) revoked`)
      }
      return oauthError(400, "invalid_grant", "The code is invalid, expired or already used")
    }
    if (form.refresh_token === undefined) return oauthError(400, "invalid_request", "refresh_token is required")
    const tokenHash = hash(form.refresh_token)
    return yield* sql.withTransaction(Effect.gen(function*() {
      // The grant's code row first (the order a replayed code takes too): a revocation of the grant under way ends
      // before this token is rotated, and then it is found revoked.
      const grant = (yield* sql<{ grant_id: string | null }>`SELECT grant_id FROM oauth_refresh_tokens WHERE token_hash = ${tokenHash}`)[0]
      if (grant?.grant_id != null) yield* sql`SELECT code_hash FROM oauth_codes WHERE code_hash = ${grant.grant_id} FOR UPDATE`
      const rows = yield* sql<{ client_id: string; org_id: string; scope: string; grant_id: string | null }>`
        UPDATE oauth_refresh_tokens SET revoked_at = now() WHERE token_hash = ${tokenHash} AND revoked_at IS NULL
        RETURNING client_id, org_id, scope, grant_id`
      const row = rows[0]
      if (row === undefined || row.client_id !== clientId) return oauthError(400, "invalid_grant", "The refresh token is invalid or already used")
      const granted = row.scope.split(" ") as Array<Tools.Scope>
      const asked = form.scope === undefined ? granted : parseScopes(form.scope)
      if (asked === undefined || asked.some((scope) => !granted.includes(scope))) return oauthError(400, "invalid_scope", "Only scopes of the original grant")
      return yield* issue(clientId, row.org_id, asked, row.grant_id)
    }))
  })
