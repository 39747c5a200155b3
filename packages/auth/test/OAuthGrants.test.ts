/**
 * The stored side of OAuth for MCP clients (auth's `OAuthGrants`): clients, single-use codes, refresh rotation, the
 * replay revocation, the clean-up, and the move of the tables from http's `mcp` migrations to auth's `0005_oauth`
 * (a database migrated by the old layout is opened by the new one without losing a row).
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { describe, expect, it } from "@effect/vitest"
import { Migrations, Sql } from "@sift/store"
import { Effect, Layer, Option, Redacted } from "effect"
import { createHash } from "node:crypto"
import * as Auth from "../src/index.js"
import { backends, codeOf, layerFor, postgresUrl, title, unique } from "./support/database.js"

const { OAuthGrants } = Auth
const sha256 = (text: string) => createHash("sha256").update(text).digest("hex")

const org = Effect.flatMap(Auth.Accounts.Accounts, (accounts) => accounts.createOrg({ name: `org-${unique()}`, plan: "scale" }))

const newGrant = (scopes: ReadonlyArray<string> = ["api.read"]) =>
  Effect.gen(function*() {
    const { id: orgId } = yield* org
    const client = yield* OAuthGrants.registerClient({ name: "Test client", redirectUris: ["http://127.0.0.1:9/cb"] })
    const code = yield* OAuthGrants.storeCode({ clientId: client.clientId, orgId, redirectUri: "http://127.0.0.1:9/cb", codeChallenge: "challenge", scopes })
    return { orgId, client, code }
  })

const issueAll = (stored: { readonly scope: string }): Auth.OAuthGrants.Decision<string> => ({
  _tag: "Issue",
  scopes: stored.scope.split(" "),
  permissions: stored.scope.includes("api.write") ? [...Auth.Permissions.all] : ["logs:read", "data:execute"]
})

const authenticates = (secret: string) =>
  Effect.flatMap(Auth.ApiKeys.ApiKeys, (keys) =>
    Effect.match(keys.authenticate(secret), { onFailure: codeOf, onSuccess: (context) => context.permissions }))

for (const backend of backends) {
  describe.skipIf(backend.skip !== undefined)(`OAuth grants (${title(backend)})`, () => {
    it.layer(layerFor(backend), { timeout: 60_000 })((it) => {
      it.effect("clients: registered with their redirect URIs and found again; an unknown id finds none", () =>
        Effect.gen(function*() {
          const client = yield* OAuthGrants.registerClient({ name: "Claude", redirectUris: ["https://a.example/cb", "http://127.0.0.1:1/cb"] })
          expect(client.clientId).toMatch(/^mcpc_[A-Za-z0-9_-]{43}$/)
          expect(Option.getOrThrow(yield* OAuthGrants.findClient(client.clientId))).toEqual(client)
          expect(Option.isNone(yield* OAuthGrants.findClient("mcpc_nope"))).toBe(true)
        }))

      it.effect("a code is stored hashed and redeemed once: the access token is an expiring key with the decided permissions", () =>
        Effect.gen(function*() {
          const sql = yield* SqlClient.SqlClient
          const { client, code, orgId } = yield* newGrant()
          expect(code).toMatch(/^mcpcode_/)
          const rows = yield* sql<Record<string, unknown>>`SELECT * FROM oauth_codes WHERE client_id = ${client.clientId}`
          expect(rows).toHaveLength(1)
          expect(JSON.stringify(rows)).not.toContain(code)
          expect(rows[0]!.code_hash).toBe(sha256(code))
          let seen: Auth.OAuthGrants.StoredCode | undefined
          const outcome = yield* OAuthGrants.redeemCode(code, (stored) => {
            seen = stored
            return issueAll(stored)
          })
          expect(seen).toMatchObject({ clientId: client.clientId, orgId, redirectUri: "http://127.0.0.1:9/cb", codeChallenge: "challenge", scope: "api.read" })
          expect(seen!.expiresAt.getTime() - Date.now()).toBeGreaterThan(OAuthGrants.CODE_MS - 60_000)
          if (outcome._tag !== "Issued") throw new Error(`not issued: ${outcome._tag}`)
          expect(outcome.tokens.refreshToken).toMatch(/^mcprt_/)
          expect(outcome.tokens.expiresIn).toBe(3600)
          expect(yield* authenticates(outcome.tokens.accessToken)).toEqual(["logs:read", "data:execute"])
          const keys = yield* Effect.flatMap(Auth.ApiKeys.ApiKeys, (keys) => keys.list(orgId))
          const key = keys.find((k) => k.id === outcome.tokens.keyId)!
          expect(key.name).toBe("MCP: Test client")
          expect(Math.abs(key.expiresAt!.getTime() - Date.now() - 3_600_000)).toBeLessThan(60_000)
          const refresh = yield* sql<Record<string, unknown>>`SELECT * FROM oauth_refresh_tokens WHERE client_id = ${client.clientId}`
          expect(refresh.map((row) => [row.token_hash, row.grant_id, row.scope])).toEqual([[sha256(outcome.tokens.refreshToken), sha256(code), "api.read"]])
        }))

      it.effect("a code presented again revokes every token of its grant, refreshed ones included", () =>
        Effect.gen(function*() {
          const { code } = yield* newGrant(["api.read", "api.write"])
          const first = yield* OAuthGrants.redeemCode(code, issueAll)
          if (first._tag !== "Issued") throw new Error(first._tag)
          const refreshed = yield* OAuthGrants.refresh(first.tokens.refreshToken, issueAll)
          if (refreshed._tag !== "Issued") throw new Error(refreshed._tag)
          expect(yield* authenticates(refreshed.tokens.accessToken)).toEqual([...Auth.Permissions.all])
          let asked = false
          const replayed = yield* OAuthGrants.redeemCode(code, (stored) => {
            asked = true
            return issueAll(stored)
          })
          expect(asked).toBe(false)
          // One live refresh token (the first was rotated away); both access tokens.
          expect(replayed).toEqual({ _tag: "Replayed", refreshTokens: 1, accessTokens: 2 })
          expect(yield* authenticates(first.tokens.accessToken)).toBe("UNAUTHORIZED")
          expect(yield* authenticates(refreshed.tokens.accessToken)).toBe("UNAUTHORIZED")
          expect((yield* OAuthGrants.refresh(refreshed.tokens.refreshToken, issueAll))._tag).toBe("Unknown")
          // An unknown code revokes nothing.
          expect(yield* OAuthGrants.redeemCode("mcpcode_unknown", issueAll)).toEqual({ _tag: "Replayed", refreshTokens: 0, accessTokens: 0 })
        }))

      it.effect("a refused code is used up; the refusal is the protocol's own answer", () =>
        Effect.gen(function*() {
          const { code } = yield* newGrant()
          const refused = yield* OAuthGrants.redeemCode(code, () => ({ _tag: "Refuse", refusal: "wrong verifier" }))
          expect(refused).toEqual({ _tag: "Refused", refusal: "wrong verifier" })
          expect(yield* OAuthGrants.redeemCode(code, issueAll)).toEqual({ _tag: "Replayed", refreshTokens: 0, accessTokens: 0 })
        }))

      it.effect("refresh tokens rotate: the old one is unknown after use, also when the protocol refused it", () =>
        Effect.gen(function*() {
          const { code, client } = yield* newGrant(["api.read", "api.write"])
          const first = yield* OAuthGrants.redeemCode(code, issueAll)
          if (first._tag !== "Issued") throw new Error(first._tag)
          let seen: Auth.OAuthGrants.StoredRefreshToken | undefined
          const second = yield* OAuthGrants.refresh(first.tokens.refreshToken, (stored) => {
            seen = stored
            return { _tag: "Issue", scopes: ["api.read"], permissions: ["logs:read"] }
          })
          expect(seen).toMatchObject({ clientId: client.clientId, scope: "api.read api.write" })
          if (second._tag !== "Issued") throw new Error(second._tag)
          expect(second.tokens.scopes).toEqual(["api.read"])
          expect(second.tokens.refreshToken).not.toBe(first.tokens.refreshToken)
          expect(yield* authenticates(second.tokens.accessToken)).toEqual(["logs:read"])
          expect((yield* OAuthGrants.refresh(first.tokens.refreshToken, issueAll))._tag).toBe("Unknown")
          expect(yield* OAuthGrants.refresh(second.tokens.refreshToken, () => ({ _tag: "Refuse", refusal: 7 }))).toEqual({ _tag: "Refused", refusal: 7 })
          expect((yield* OAuthGrants.refresh(second.tokens.refreshToken, issueAll))._tag).toBe("Unknown")
          expect((yield* OAuthGrants.refresh("mcprt_unknown", issueAll))._tag).toBe("Unknown")
        }))

      it.effect("ten concurrent redemptions of one code: exactly one issues, and its tokens end revoked", () =>
        Effect.gen(function*() {
          const { code } = yield* newGrant()
          const outcomes = yield* Effect.all(Array.from({ length: 10 }, () => OAuthGrants.redeemCode(code, issueAll)), { concurrency: "unbounded" })
          const issued = outcomes.filter((o) => o._tag === "Issued")
          expect(issued).toHaveLength(1)
          expect(outcomes.filter((o) => o._tag === "Replayed")).toHaveLength(9)
          const tokens = (issued[0] as { readonly tokens: Auth.OAuthGrants.Tokens }).tokens
          expect(yield* authenticates(tokens.accessToken)).toBe("UNAUTHORIZED")
          expect((yield* OAuthGrants.refresh(tokens.refreshToken, issueAll))._tag).toBe("Unknown")
        }))

      it.effect("removeExpired: codes and access-token links expired more than a day ago go, recent ones stay", () =>
        Effect.gen(function*() {
          const sql = yield* SqlClient.SqlClient
          const { id: orgId } = yield* org
          const tag = unique()
          const old = new Date(Date.now() - 2 * 86_400_000)
          const recent = new Date(Date.now() - 3_600_000)
          for (const [name, expires] of [["old", old], ["recent", recent]] as const) {
            yield* sql`INSERT INTO oauth_codes ${sql.insert({ code_hash: `h-${name}-${tag}`, client_id: "c", org_id: orgId, redirect_uri: "r", code_challenge: "x", scope: "api.read", expires_at: expires })}`
            yield* sql`INSERT INTO api_keys ${sql.insert({ id: `key_${name}${tag}`, org_id: orgId, name: "oauth", prefix: `p-${name}${tag}`, hash: `k-${name}${tag}`, expires_at: expires })}`
            yield* sql`INSERT INTO oauth_access_tokens ${sql.insert({ key_id: `key_${name}${tag}`, grant_id: `h-${name}-${tag}` })}`
          }
          const removed = yield* OAuthGrants.removeExpired
          // Other tests of this database may have left expired rows too: at least ours.
          expect(removed.codes).toBeGreaterThanOrEqual(1)
          expect(removed.accessTokens).toBeGreaterThanOrEqual(1)
          const codes = yield* sql<{ code_hash: string }>`SELECT code_hash FROM oauth_codes WHERE code_hash LIKE ${`%-${tag}`}`
          const links = yield* sql<{ key_id: string }>`SELECT key_id FROM oauth_access_tokens WHERE key_id LIKE ${`%${tag}`}`
          expect(codes.map((r) => r.code_hash)).toEqual([`h-recent-${tag}`])
          expect(links.map((r) => r.key_id)).toEqual([`key_recent${tag}`])
        }))
    })
  })
}

// The OAuth tables as http's `mcp` migrations made them before they moved to auth (migrations mcp/0001_oauth and
// mcp/0002_oauth_grants, verbatim): what a database migrated by an older Sift holds.
const oldMcpMigrations = {
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
const { "0005_oauth": _moved, ...oldAuthMigrations } = Auth.migrations

/**
 * A database of its own for the upgrade: PGlite in memory, or a fresh schema of the test PostgreSQL (dropped after),
 * since the shared test database has the new layout already.
 */
const isolatedDatabase = (backend: (typeof backends)[number]) => {
  if (backend.name === "pglite") return Layer.fresh(backend.layer())
  const schema = `upgrade_${unique()}`
  const url = new URL(postgresUrl ?? "")
  url.searchParams.set("options", `-c search_path=${schema}`)
  const created = Layer.scopedDiscard(Effect.acquireRelease(
    Effect.flatMap(SqlClient.SqlClient, (sql) => sql`CREATE SCHEMA ${sql(schema)}`),
    () => Effect.orDie(Effect.flatMap(SqlClient.SqlClient, (sql) => sql`DROP SCHEMA ${sql(schema)} CASCADE`))
  ).pipe(Effect.orDie)).pipe(Layer.provide(Layer.fresh(backend.layer())))
  return Layer.fresh(Sql.layerPg({ url: Redacted.make(url.toString()) })).pipe(Layer.provideMerge(created))
}

for (const backend of backends) {
  describe.skipIf(backend.skip !== undefined)(`OAuth tables moved from mcp to auth (${title(backend)})`, () => {
    it.scoped("a database migrated by the old layout keeps its clients, codes and grants; only auth/0005_oauth runs", () =>
      Effect.gen(function*() {
        const db = yield* Layer.build(isolatedDatabase(backend))
        const inDb = <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.provide(effect, db)
        const sql = yield* inDb(SqlClient.SqlClient)
        // Before: the layout of an older Sift (auth up to 0004, the OAuth tables under the mcp key), with rows.
        yield* inDb(Migrations.run({ store: Migrations.store, auth: oldAuthMigrations, mcp: oldMcpMigrations }))
        yield* sql`INSERT INTO organizations ${sql.insert({ id: "org_old", name: `old-${unique()}`, plan: "scale", credits_remaining: 10, cycle_start: new Date() })}`
        yield* sql`INSERT INTO oauth_clients ${sql.insert({ client_id: "mcpc_old", client_name: "Old client", redirect_uris: JSON.stringify(["https://old.example/cb"]) })}`
        const code = "mcpcode_" + "o".repeat(43)
        yield* sql`INSERT INTO oauth_codes ${sql.insert({ code_hash: sha256(code), client_id: "mcpc_old", org_id: "org_old", redirect_uri: "https://old.example/cb", code_challenge: "c", scope: "api.read", expires_at: new Date(Date.now() - 60_000), used_at: new Date() })}`
        yield* sql`INSERT INTO oauth_refresh_tokens ${sql.insert({ token_hash: sha256("mcprt_old"), client_id: "mcpc_old", org_id: "org_old", scope: "api.read", grant_id: sha256(code) })}`

        // After: the new layout opens it.
        const applied = yield* inDb(Migrations.run({ store: Migrations.store, auth: Auth.migrations }))
        expect(applied).toEqual([{ package: "auth", id: "0005_oauth" }])
        const services = yield* Layer.build(Layer.fresh(Auth.layer).pipe(Layer.provide(Layer.succeedContext(db))))
        const inServices = <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.provide(Effect.provide(effect, services), db)
        expect(Option.getOrThrow(yield* inServices(OAuthGrants.findClient("mcpc_old")))).toEqual({
          clientId: "mcpc_old",
          name: "Old client",
          redirectUris: ["https://old.example/cb"]
        })
        // The old code's grant still links its refresh token: a replay revokes it.
        expect(yield* inServices(OAuthGrants.redeemCode(code, issueAll))).toEqual({ _tag: "Replayed", refreshTokens: 1, accessTokens: 0 })
        // And the tables take new grants.
        const fresh = yield* inServices(OAuthGrants.storeCode({ clientId: "mcpc_old", orgId: "org_old", redirectUri: "https://old.example/cb", codeChallenge: "c", scopes: ["api.read"] }))
        expect((yield* inServices(OAuthGrants.redeemCode(fresh, issueAll)))._tag).toBe("Issued")
        // Opened again: nothing left to apply.
        expect(yield* inDb(Migrations.run({ store: Migrations.store, auth: Auth.migrations }))).toEqual([])
      }), { timeout: 60_000 })

    it.scoped("a database that stopped after mcp/0001_oauth gets the grant column and the access-token links", () =>
      Effect.gen(function*() {
        const db = yield* Layer.build(isolatedDatabase(backend))
        const inDb = <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.provide(effect, db)
        yield* inDb(Migrations.run({ store: Migrations.store, auth: oldAuthMigrations, mcp: { "0001_oauth": oldMcpMigrations["0001_oauth"] } }))
        yield* inDb(Migrations.run({ store: Migrations.store, auth: Auth.migrations }))
        const sql = yield* inDb(SqlClient.SqlClient)
        const columns = yield* sql<{ column_name: string }>`SELECT column_name FROM information_schema.columns
          WHERE table_name = 'oauth_refresh_tokens' AND table_schema = current_schema() ORDER BY column_name`
        expect(columns.map((c) => c.column_name)).toContain("grant_id")
        const tables = yield* sql<{ table_name: string }>`SELECT table_name FROM information_schema.tables
          WHERE table_schema = current_schema() AND table_name LIKE 'oauth_%' ORDER BY table_name`
        expect(tables.map((t) => t.table_name)).toEqual(["oauth_access_tokens", "oauth_clients", "oauth_codes", "oauth_refresh_tokens"])
      }), { timeout: 60_000 })
  })
}
