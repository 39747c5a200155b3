/**
 * The stored side of OAuth for MCP clients: registered public clients, single-use authorization codes, refresh tokens
 * (rotated on use) and the link from each access token (an expiring API key) to the grant it descends from. The grant
 * of a token is the hash of the authorization code at its origin, kept through any number of refreshes, so a code
 * presented a second time revokes every token issued from it (RFC 6749 §4.1.2). Codes and refresh tokens are stored
 * hashed. The HTTP protocol (metadata, registration input, the consent page, PKCE, scopes) lives in `@sift/http`;
 * its checks are handed in as a `decide` function, run inside this module's transactions.
 *
 * @since 0.1.0
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { Effect, Option } from "effect"
import { randomBytes } from "node:crypto"
import { ApiKeys } from "./ApiKeys.js"
import { hashSecret } from "./internal/ids.js"

/** Access tokens live this long (seconds). */
export const ACCESS_TOKEN_SECONDS = 3600
/** Authorization codes live this long (ms). */
export const CODE_MS = 10 * 60_000

/**
 * Auth migration `0005_oauth`: the tables as `mcp/0001_oauth` and `mcp/0002_oauth_grants` left them. Guarded, because
 * a database migrated before the tables moved to auth has them already (under the old `mcp` key).
 */
export const migrationSql = `
  CREATE TABLE IF NOT EXISTS oauth_clients (
    client_id text PRIMARY KEY,
    client_name text NOT NULL,
    redirect_uris text NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
  );
  CREATE TABLE IF NOT EXISTS oauth_codes (
    code_hash text PRIMARY KEY,
    client_id text NOT NULL,
    org_id text NOT NULL,
    redirect_uri text NOT NULL,
    code_challenge text NOT NULL,
    scope text NOT NULL,
    expires_at timestamptz NOT NULL,
    used_at timestamptz
  );
  CREATE TABLE IF NOT EXISTS oauth_refresh_tokens (
    token_hash text PRIMARY KEY,
    client_id text NOT NULL,
    org_id text NOT NULL,
    scope text NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    revoked_at timestamptz
  );
  ALTER TABLE oauth_refresh_tokens ADD COLUMN IF NOT EXISTS grant_id text;
  CREATE INDEX IF NOT EXISTS oauth_refresh_tokens_grant ON oauth_refresh_tokens (grant_id);
  CREATE TABLE IF NOT EXISTS oauth_access_tokens (
    key_id text PRIMARY KEY,
    grant_id text NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
  );
  CREATE INDEX IF NOT EXISTS oauth_access_tokens_grant ON oauth_access_tokens (grant_id);`

/** A registered public client. */
export interface Client {
  readonly clientId: string
  readonly name: string
  readonly redirectUris: ReadonlyArray<string>
}

/** An authorization code as stored, handed to `decide` when it is redeemed. */
export interface StoredCode {
  readonly clientId: string
  readonly orgId: string
  readonly redirectUri: string
  readonly codeChallenge: string
  /** Space-separated scopes. */
  readonly scope: string
  readonly expiresAt: Date
}

/** A refresh token as stored, handed to `decide` when it is used. */
export interface StoredRefreshToken {
  readonly clientId: string
  readonly orgId: string
  /** Space-separated scopes. */
  readonly scope: string
}

/** What the protocol decides for a presented code or refresh token: refuse (with its own answer) or issue tokens. */
export type Decision<R> =
  | { readonly _tag: "Refuse"; readonly refusal: R }
  | { readonly _tag: "Issue"; readonly scopes: ReadonlyArray<string>; readonly permissions: ReadonlyArray<string> }

/** A fresh access token (an API key's secret) and refresh token. */
export interface Tokens {
  readonly accessToken: string
  readonly refreshToken: string
  readonly expiresIn: number
  readonly scopes: ReadonlyArray<string>
  /** The API key that is the access token. */
  readonly keyId: string
}

/** The outcome of presenting a code or a refresh token. */
export type Exchanged<R> =
  | { readonly _tag: "Issued"; readonly tokens: Tokens }
  | { readonly _tag: "Refused"; readonly refusal: R }
  /** Unknown, or a refresh token already used or revoked. */
  | { readonly _tag: "Unknown" }
  /** A code presented again (or unknown): what was issued from it has been revoked. */
  | { readonly _tag: "Replayed"; readonly refreshTokens: number; readonly accessTokens: number }

const token = (prefix: string) => prefix + randomBytes(32).toString("base64url")

/** Registers a public client (no secret) with its redirect URIs; answers it with its new id (`mcpc_…`). */
export const registerClient = (input: { readonly name: string; readonly redirectUris: ReadonlyArray<string> }) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const clientId = token("mcpc_")
    yield* sql`INSERT INTO oauth_clients (client_id, client_name, redirect_uris)
      VALUES (${clientId}, ${input.name}, ${JSON.stringify(input.redirectUris)})`
    return { clientId, name: input.name, redirectUris: input.redirectUris } satisfies Client
  })

/** The registered client `clientId`, if any. */
export const findClient = (clientId: string) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql<{ client_id: string; client_name: string; redirect_uris: string }>`
      SELECT client_id, client_name, redirect_uris FROM oauth_clients WHERE client_id = ${clientId}`
    const row = rows[0]
    return row === undefined
      ? Option.none<Client>()
      : Option.some<Client>({ clientId: row.client_id, name: row.client_name, redirectUris: JSON.parse(row.redirect_uris) as Array<string> })
  })

/** Stores a single-use authorization code (living `CODE_MS`) and answers the code, which is never stored. */
export const storeCode = (input: {
  readonly clientId: string
  readonly orgId: string
  readonly redirectUri: string
  readonly codeChallenge: string
  readonly scopes: ReadonlyArray<string>
}) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const code = token("mcpcode_")
    yield* sql`INSERT INTO oauth_codes (code_hash, client_id, org_id, redirect_uri, code_challenge, scope, expires_at)
      VALUES (${hashSecret(code)}, ${input.clientId}, ${input.orgId}, ${input.redirectUri}, ${input.codeChallenge},
        ${input.scopes.join(" ")}, ${new Date(Date.now() + CODE_MS)}::timestamptz)`
    return code
  })

/** Issues an access token (an expiring API key) and a refresh token for an organization, both of grant `grantId`. */
const issue = (clientId: string, orgId: string, decision: { readonly scopes: ReadonlyArray<string>; readonly permissions: ReadonlyArray<string> }, grantId: string | null) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const client = yield* findClient(clientId)
    const name = `MCP: ${Option.match(client, { onNone: () => clientId, onSome: (c) => c.name })}`.slice(0, 60)
    const created = yield* (yield* ApiKeys).create({
      orgId,
      name,
      permissions: decision.permissions,
      expiresAt: new Date(Date.now() + ACCESS_TOKEN_SECONDS * 1000)
    })
    const refreshToken = token("mcprt_")
    yield* sql`INSERT INTO oauth_refresh_tokens (token_hash, client_id, org_id, scope, grant_id)
      VALUES (${hashSecret(refreshToken)}, ${clientId}, ${orgId}, ${decision.scopes.join(" ")}, ${grantId})`
    if (grantId !== null) yield* sql`INSERT INTO oauth_access_tokens (key_id, grant_id) VALUES (${created.key.id}, ${grantId})`
    return {
      accessToken: created.secret,
      refreshToken,
      expiresIn: ACCESS_TOKEN_SECONDS,
      scopes: decision.scopes,
      keyId: created.key.id
    } satisfies Tokens
  })

/**
 * Revokes the refresh tokens of a grant and answers them with the keys that are its live access tokens, which the
 * caller revokes once the transaction is committed.
 */
const revokeRefreshTokens = (grantId: string) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const refreshTokens = yield* sql`UPDATE oauth_refresh_tokens SET revoked_at = now() WHERE grant_id = ${grantId} AND revoked_at IS NULL RETURNING token_hash`
    const live = yield* sql<{ key_id: string }>`SELECT t.key_id FROM oauth_access_tokens t JOIN api_keys k ON k.id = t.key_id
      WHERE t.grant_id = ${grantId} AND k.revoked_at IS NULL`
    return { refreshTokens: refreshTokens.length, keyIds: live.map((row) => row.key_id) }
  })

/**
 * Redeems an authorization code: claims it (single use), lets `decide` check it, and issues tokens of its grant. A
 * code presented a second time (or unknown) revokes every refresh and access token issued from it.
 */
export const redeemCode = <R>(code: string, decide: (stored: StoredCode) => Decision<R>) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const grantId = hashSecret(code)
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
      const decision = decide({
        clientId: row.client_id,
        orgId: row.org_id,
        redirectUri: row.redirect_uri,
        codeChallenge: row.code_challenge,
        scope: row.scope,
        expiresAt: new Date(row.expires_at)
      })
      if (decision._tag === "Refuse") return { _tag: "Refused" as const, refusal: decision.refusal }
      return { _tag: "Issued" as const, tokens: yield* issue(row.client_id, row.org_id, decision, grantId) }
    }))
    if (outcome._tag !== "Replayed") return outcome as Exchanged<R>
    // The keys only after the commit: `ApiKeys.revoke` forgets remembered lookups, so they answer 401 at once on this
    // replica (within ApiKeys.CACHE_MS on others), and no lookup can remember them again from a row not yet revoked.
    const keys = yield* ApiKeys
    yield* Effect.forEach(outcome.keyIds, (keyId) => keys.revoke(keyId), { discard: true })
    return { _tag: "Replayed", refreshTokens: outcome.refreshTokens, accessTokens: outcome.keyIds.length } as Exchanged<R>
  })

/**
 * Uses a refresh token: revokes it (rotation), lets `decide` check it, and issues new tokens of the same grant. A
 * token refused by `decide` stays used.
 */
export const refresh = <R>(refreshToken: string, decide: (stored: StoredRefreshToken) => Decision<R>) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const tokenHash = hashSecret(refreshToken)
    return yield* sql.withTransaction(Effect.gen(function*() {
      // The grant's code row first (the order a replayed code takes too): a revocation of the grant under way ends
      // before this token is rotated, and then it is found revoked.
      const grant = (yield* sql<{ grant_id: string | null }>`SELECT grant_id FROM oauth_refresh_tokens WHERE token_hash = ${tokenHash}`)[0]
      if (grant?.grant_id != null) yield* sql`SELECT code_hash FROM oauth_codes WHERE code_hash = ${grant.grant_id} FOR UPDATE`
      const rows = yield* sql<{ client_id: string; org_id: string; scope: string; grant_id: string | null }>`
        UPDATE oauth_refresh_tokens SET revoked_at = now() WHERE token_hash = ${tokenHash} AND revoked_at IS NULL
        RETURNING client_id, org_id, scope, grant_id`
      const row = rows[0]
      if (row === undefined) return { _tag: "Unknown" } as Exchanged<R>
      const decision = decide({ clientId: row.client_id, orgId: row.org_id, scope: row.scope })
      if (decision._tag === "Refuse") return { _tag: "Refused", refusal: decision.refusal } as Exchanged<R>
      return { _tag: "Issued", tokens: yield* issue(row.client_id, row.org_id, decision, row.grant_id) } as Exchanged<R>
    }))
  })

/**
 * Removes authorization codes that expired more than a day ago, and the grant links of access tokens whose key
 * expired more than a day ago (a link only matters while its token can still be used); answers how many.
 */
export const removeExpired = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const codes = yield* sql`DELETE FROM oauth_codes WHERE expires_at < now() - interval '1 day' RETURNING code_hash`
  const tokens = yield* sql`DELETE FROM oauth_access_tokens t USING api_keys k
    WHERE k.id = t.key_id AND k.expires_at < now() - interval '1 day' RETURNING t.key_id`
  return { codes: codes.length, accessTokens: tokens.length }
})
