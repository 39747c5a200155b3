/**
 * Agent registration through a browser claim (service_auth): an agent registers with its person's email and gets a
 * 6-digit user code and a claim token; the person signs in on the claim page and enters the code; the agent's polls of
 * the claim grant then return a real, non-expiring API key of the person's organization and a signed identity
 * assertion (EdDSA JWT, one hour). Codes and claim tokens are stored hashed; the signing key lives in the database so
 * restarts and replicas agree.
 *
 * @since 0.1.0
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { Effect, Option } from "effect"
import * as Jose from "jose"
import { randomBytes, randomInt } from "node:crypto"
import { ApiKeys } from "./ApiKeys.js"
import { hashSecret, id } from "./internal/ids.js"
import * as Users from "./Users.js"

/** The claim grant URNs (the auth.md standard's, and Sift's own). */
export const CLAIM_GRANTS = ["urn:workos:agent-auth:grant-type:claim", "urn:sift:agent-auth:grant-type:claim"] as const
/** The refresh grant. */
export const JWT_BEARER_GRANT = "urn:ietf:params:oauth:grant-type:jwt-bearer"
/** The scopes a claimed key carries. */
export const SCOPE = "api.read api.write"
/** How long a code and its claim token live (seconds). */
export const CODE_SECONDS = 15 * 60
/** The polling interval (seconds). */
export const INTERVAL_SECONDS = 5
/** How long an identity assertion lives (seconds). */
export const ASSERTION_SECONDS = 3600
/** The longest key name. */
export const MAX_KEY_NAME = 60

/** Auth migration `0004_agents`: users' passwords and sessions, registrations, the signing key. */
export const migrationSql = Users.migrationSql + `
  CREATE TABLE agent_registrations (
    id text PRIMARY KEY,
    claim_token_hash text NOT NULL UNIQUE,
    code_hash text NOT NULL,
    login_hint text NOT NULL,
    api_key_name text NOT NULL,
    expires_at timestamptz NOT NULL,
    interval_seconds integer NOT NULL,
    last_poll_at timestamptz,
    user_id text REFERENCES users (id),
    claimed_at timestamptz,
    key_id text,
    redeemed_at timestamptz,
    created_at timestamptz NOT NULL DEFAULT now()
  );
  CREATE INDEX agent_registrations_code ON agent_registrations (code_hash);
  CREATE TABLE agent_signing_keys (
    kid text PRIMARY KEY,
    private_jwk text NOT NULL,
    public_jwk text NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
  );`

/** An OAuth error answer (`{ error, error_description }`, 400 unless said). */
export interface OAuthError {
  readonly _tag: "OAuthError"
  readonly error: string
  readonly description: string
}
const oauthError = (error: string, description: string): OAuthError => ({ _tag: "OAuthError", error, description })

/** A registration as the agent receives it. */
export interface Registration {
  readonly registration_id: string
  readonly registration_type: "service_auth"
  readonly claim_token: string
  readonly claim_token_expires: string
  readonly post_claim_scopes: ReadonlyArray<string>
  readonly claim: { readonly user_code: string; readonly verification_uri: string; readonly expires_in: number; readonly interval: number }
}

/** The success body of the claim and refresh grants. */
export interface Credentials {
  readonly access_token: string
  readonly token_type: "Bearer"
  readonly expires_in: 0
  readonly scope: string
  readonly identity_assertion: string
  readonly assertion_expires: string
}

/** `POST /agent/identity`: validates the body and opens a registration. */
export const register = (body: unknown, verificationUri: string) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    if (typeof body !== "object" || body === null || Array.isArray(body)) return oauthError("invalid_request", "The body must be a JSON object")
    const input = body as Record<string, unknown>
    if (input.type !== "service_auth") return oauthError("invalid_request", "type must be \"service_auth\"")
    if (typeof input.login_hint !== "string" || !Users.isEmail(input.login_hint.trim())) {
      return oauthError("invalid_login_hint", "login_hint must be the user's email address")
    }
    const name = input.api_key_name === undefined ? "Agent" : input.api_key_name
    if (typeof name !== "string" || name.trim().length === 0 || name.length > MAX_KEY_NAME) {
      return oauthError("invalid_request", `api_key_name must be a non-empty string of at most ${MAX_KEY_NAME} characters`)
    }
    const claimToken = "sift_ct_" + randomBytes(32).toString("base64url")
    const expires = new Date(Date.now() + CODE_SECONDS * 1000)
    // A code must be unambiguous among live registrations; a collision draws again.
    let code = ""
    for (let attempt = 0; attempt < 20; attempt++) {
      const candidate = String(randomInt(0, 1_000_000)).padStart(6, "0")
      const live = yield* sql`SELECT 1 FROM agent_registrations WHERE code_hash = ${hashSecret(candidate)} AND expires_at > now() AND claimed_at IS NULL`
      if (live.length === 0) {
        code = candidate
        break
      }
    }
    if (code === "") return yield* Effect.die(new Error("no free user code"))
    const registrationId = id("agr_")
    yield* sql`INSERT INTO agent_registrations ${sql.insert({
      id: registrationId,
      claim_token_hash: hashSecret(claimToken),
      code_hash: hashSecret(code),
      login_hint: input.login_hint.trim().toLowerCase(),
      api_key_name: name.trim(),
      expires_at: expires,
      interval_seconds: INTERVAL_SECONDS
    })}`
    return {
      registration_id: registrationId,
      registration_type: "service_auth",
      claim_token: claimToken,
      claim_token_expires: expires.toISOString(),
      post_claim_scopes: SCOPE.split(" "),
      claim: { user_code: code, verification_uri: verificationUri, expires_in: CODE_SECONDS, interval: INTERVAL_SECONDS }
    } satisfies Registration
  })

/** A live, unclaimed registration found by its code, as the claim page shows it. */
export interface PendingClaim {
  readonly id: string
  readonly loginHint: string
  readonly apiKeyName: string
  readonly expiresAt: Date
}

/** The live, unclaimed registration of a user code. */
export const findByCode = (code: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.map(
      sql<{ id: string; login_hint: string; api_key_name: string; expires_at: Date | string }>`
        SELECT id, login_hint, api_key_name, expires_at FROM agent_registrations
        WHERE code_hash = ${hashSecret(code.replace(/\s|-/g, ""))} AND claimed_at IS NULL AND expires_at > now()`,
      (rows) => Option.map(Option.fromNullable(rows[0]), (row): PendingClaim => ({ id: row.id, loginHint: row.login_hint, apiKeyName: row.api_key_name, expiresAt: new Date(row.expires_at) }))
    ))

/** The live, unclaimed registration of an id (the claim page's confirmation step). */
export const findPending = (registrationId: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.map(
      sql<{ id: string; login_hint: string; api_key_name: string; expires_at: Date | string }>`
        SELECT id, login_hint, api_key_name, expires_at FROM agent_registrations
        WHERE id = ${registrationId} AND claimed_at IS NULL AND expires_at > now()`,
      (rows) => Option.map(Option.fromNullable(rows[0]), (row): PendingClaim => ({ id: row.id, loginHint: row.login_hint, apiKeyName: row.api_key_name, expiresAt: new Date(row.expires_at) }))
    ))

/** Binds a registration to the person who claimed it (once), with the key name they confirmed. */
export const claim = (registrationId: string, userId: string, apiKeyName: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.map(
      sql`UPDATE agent_registrations SET user_id = ${userId}, claimed_at = now(), api_key_name = ${apiKeyName}
        WHERE id = ${registrationId} AND claimed_at IS NULL AND expires_at > now() RETURNING id`,
      (rows) => rows.length > 0
    ))

// The signing key: the oldest row; the first process to need one creates it (a racing insert loses and reads the winner).
const signingKey = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const read = sql<{ kid: string; private_jwk: string; public_jwk: string }>`SELECT kid, private_jwk, public_jwk FROM agent_signing_keys ORDER BY created_at, kid LIMIT 1`
  let row = (yield* read)[0]
  if (row === undefined) {
    const pair = yield* Effect.promise(() => Jose.generateKeyPair("EdDSA", { crv: "Ed25519", extractable: true }))
    const kid = randomBytes(8).toString("hex")
    const privateJwk = yield* Effect.promise(() => Jose.exportJWK(pair.privateKey))
    const publicJwk = yield* Effect.promise(() => Jose.exportJWK(pair.publicKey))
    yield* sql`INSERT INTO agent_signing_keys ${sql.insert({ kid, private_jwk: JSON.stringify(privateJwk), public_jwk: JSON.stringify(publicJwk) })} ON CONFLICT DO NOTHING`
    row = (yield* read)[0]!
  }
  return row
})

/**
 * The JSON Web Key Set: every stored key (replicas creating the first key at the same moment may each store one before
 * they see the other's; all sign with the oldest afterwards, and any of them verifies).
 */
export const jwks = Effect.zipRight(
  signingKey,
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.map(sql<{ kid: string; public_jwk: string }>`SELECT kid, public_jwk FROM agent_signing_keys ORDER BY created_at, kid`, (rows) => ({
      keys: rows.map((row) => ({ ...JSON.parse(row.public_jwk), kid: row.kid, alg: "EdDSA", use: "sig" }))
    })))
)

const assert = (issuer: string, claims: { readonly userId: string; readonly orgId: string; readonly email: string; readonly keyId: string }) =>
  Effect.gen(function*() {
    const row = yield* signingKey
    const key = yield* Effect.promise(() => Jose.importJWK(JSON.parse(row.private_jwk), "EdDSA"))
    const expires = new Date((Math.floor(Date.now() / 1000) + ASSERTION_SECONDS) * 1000)
    const jwt = yield* Effect.promise(() =>
      new Jose.SignJWT({ org_id: claims.orgId, email: claims.email, key_id: claims.keyId, scope: SCOPE })
        .setProtectedHeader({ alg: "EdDSA", kid: row.kid, typ: "JWT" })
        .setIssuer(issuer)
        .setSubject(claims.userId)
        .setAudience(issuer)
        .setIssuedAt()
        .setExpirationTime(Math.floor(expires.getTime() / 1000))
        .setJti(randomBytes(12).toString("hex"))
        .sign(key))
    return { jwt, expires }
  })

const mint = (issuer: string, user: Users.User, keyName: string) =>
  Effect.gen(function*() {
    const keys = yield* ApiKeys
    // Both scopes: every permission, no expiry.
    const created = yield* keys.create({ orgId: user.orgId, name: keyName })
    const assertion = yield* assert(issuer, { userId: user.id, orgId: user.orgId, email: user.email, keyId: created.key.id })
    return {
      keyId: created.key.id,
      credentials: {
        access_token: created.secret,
        token_type: "Bearer",
        expires_in: 0,
        scope: SCOPE,
        identity_assertion: assertion.jwt,
        assertion_expires: assertion.expires.toISOString()
      } satisfies Credentials
    }
  })

/** `POST /oauth2/token` with a claim grant: pending, slow_down, expired, or (once) the key and the assertion. */
export const pollClaim = (claimToken: string | undefined, issuer: string) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    if (claimToken === undefined || claimToken === "") return oauthError("invalid_request", "claim_token is required")
    const row = (yield* sql<Record<string, unknown>>`SELECT * FROM agent_registrations WHERE claim_token_hash = ${hashSecret(claimToken)}`)[0]
    if (row === undefined) return oauthError("invalid_grant", "Unknown claim_token")
    if (row.redeemed_at !== null) return oauthError("invalid_grant", "The claim_token was already used")
    const now = Date.now()
    const claimed = row.claimed_at !== null
    if (!claimed && new Date(row.expires_at as string).getTime() <= now) return oauthError("expired_token", "The code expired; register again")
    // Polls closer together than the interval are refused without counting as a poll, so a steady agent is not punished.
    const last = row.last_poll_at === null ? null : new Date(row.last_poll_at as string).getTime()
    if (last !== null && now - last < Number(row.interval_seconds) * 1000) {
      return oauthError("slow_down", `Poll at most every ${row.interval_seconds} seconds`)
    }
    yield* sql`UPDATE agent_registrations SET last_poll_at = ${new Date(now)} WHERE id = ${String(row.id)}`
    if (!claimed) return oauthError("authorization_pending", "The user has not entered the code yet")
    const user = yield* Users.getUser(String(row.user_id))
    if (Option.isNone(user)) return oauthError("invalid_grant", "The claiming user no longer exists")
    if (!user.value.emailVerified) return oauthError("authorization_pending", "email_verification_required")
    // Redeemed once: the row is taken atomically before the key is minted.
    const taken = yield* sql`UPDATE agent_registrations SET redeemed_at = now() WHERE id = ${String(row.id)} AND redeemed_at IS NULL RETURNING id`
    if (taken.length === 0) return oauthError("invalid_grant", "The claim_token was already used")
    const minted = yield* mint(issuer, user.value, String(row.api_key_name))
    yield* sql`UPDATE agent_registrations SET key_id = ${minted.keyId} WHERE id = ${String(row.id)}`
    return minted.credentials
  })

/**
 * `POST /oauth2/token` with the jwt-bearer grant: a signed assertion of ours (expired ones too, for up to 30 days) whose
 * key is still live buys a fresh key and assertion; the old key is revoked (rotation).
 */
export const refresh = (assertion: string | undefined, issuer: string) =>
  Effect.gen(function*() {
    if (assertion === undefined || assertion === "") return oauthError("invalid_request", "assertion is required")
    const set = yield* jwks
    const verified = yield* Effect.tryPromise(() =>
      Jose.jwtVerify(assertion, Jose.createLocalJWKSet(set as Jose.JSONWebKeySet), { issuer, audience: issuer, algorithms: ["EdDSA"], clockTolerance: 30 * 24 * 3600 })
    ).pipe(Effect.option)
    if (Option.isNone(verified)) return oauthError("invalid_grant", "The assertion is not valid")
    const claims = verified.value.payload
    const keys = yield* ApiKeys
    const live = (yield* keys.list(String(claims.org_id))).find((key) => key.id === claims.key_id && key.revokedAt === null)
    if (live === undefined) return oauthError("invalid_grant", "The key of this assertion was revoked")
    const user = yield* Users.getUser(String(claims.sub))
    if (Option.isNone(user)) return oauthError("invalid_grant", "The user no longer exists")
    const minted = yield* mint(issuer, user.value, live.name)
    yield* keys.revoke(live.id)
    return minted.credentials
  })

/** Removes registrations that expired more than a day ago; answers how many. */
export const removeExpired = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const removed = yield* sql`DELETE FROM agent_registrations WHERE expires_at < now() - interval '1 day' RETURNING id`
  return removed.length
})

/** `POST /oauth2/revoke`: revokes the API key of an access token; idempotent, unknown tokens included. */
export const revoke = (token: string | undefined) =>
  Effect.gen(function*() {
    if (token === undefined || token === "") return oauthError("invalid_request", "token is required")
    const sql = yield* SqlClient.SqlClient
    yield* sql`UPDATE api_keys SET revoked_at = COALESCE(revoked_at, now()) WHERE hash = ${hashSecret(token)}`
    // The key cache forgets its entries through revoke.
    const keys = yield* ApiKeys
    const rows = yield* sql<{ id: string }>`SELECT id FROM api_keys WHERE hash = ${hashSecret(token)}`
    if (rows[0] !== undefined) yield* keys.revoke(rows[0].id)
    return { revoked: true as const }
  })
