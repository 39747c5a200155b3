/**
 * API keys: `sift_sk_` + 40 base62, shown once, stored only as a SHA-256 hash (looked up by it) with a short display
 * prefix; optional permission list (none = all), expiry and revocation. `authenticate` runs on every request, so
 * successful lookups are kept in process memory for `CACHE_MS`: a revocation bites within that time.
 *
 * @since 0.1.0
 */
import * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import { Clock, Effect } from "effect"
import { timingSafeEqual } from "node:crypto"
import { type Org, orgFromRow } from "./Accounts.js"
import { Forbidden, Unauthorized } from "./AuthErrors.js"
import { base62, hashSecret, id } from "./internal/ids.js"

/** How long a successful authentication is remembered (ms); also the longest a revocation takes to bite. */
export const CACHE_MS = 2_000
/** The shape of a secret. */
export const SECRET = /^sift_sk_[A-Za-z0-9]{40}$/

/** A stored key (never its secret). */
export interface ApiKey {
  readonly id: string
  readonly orgId: string
  readonly name: string
  readonly prefix: string
  readonly permissions: ReadonlyArray<string> | null
  readonly expiresAt: Date | null
  readonly revokedAt: Date | null
  readonly createdAt: Date
}

/** Who is calling: the key and its organization. */
export interface AuthContext {
  readonly keyId: string
  readonly keyName: string
  readonly permissions: ReadonlyArray<string> | null
  readonly org: Org
}

const date = (value: unknown): Date | null => value === null || value === undefined ? null : value instanceof Date ? value : new Date(String(value))
const permissionsOf = (value: unknown): ReadonlyArray<string> | null =>
  value === null || value === undefined ? null : (typeof value === "string" ? JSON.parse(value) : value) as ReadonlyArray<string>

const keyFromRow = (row: Record<string, unknown>): ApiKey => ({
  id: String(row.id),
  orgId: String(row.org_id),
  name: String(row.name),
  prefix: String(row.prefix),
  permissions: permissionsOf(row.permissions),
  expiresAt: date(row.expires_at),
  revokedAt: date(row.revoked_at),
  createdAt: date(row.created_at)!
})

/** API keys and authentication. */
export class ApiKeys extends Effect.Service<ApiKeys>()("@sift/auth/ApiKeys", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const remembered = new Map<string, { readonly context: AuthContext; readonly until: number }>()

    const authenticate = (secret: string): Effect.Effect<AuthContext, Unauthorized | Forbidden | SqlError> =>
      Effect.gen(function*() {
        if (!SECRET.test(secret)) return yield* new Unauthorized({ detail: "Invalid API key" })
        const hash = hashSecret(secret)
        const nowMs = yield* Clock.currentTimeMillis
        const cached = remembered.get(hash)
        if (cached !== undefined && cached.until > nowMs) return cached.context
        const rows = yield* sql<Record<string, unknown>>`
          SELECT k.id AS key_id, k.name AS key_name, k.hash, k.permissions, k.expires_at, k.revoked_at, o.*
          FROM api_keys k JOIN organizations o ON o.id = k.org_id WHERE k.hash = ${hash}`
        const row = rows[0]
        if (row === undefined || !timingSafeEqual(Buffer.from(String(row.hash)), Buffer.from(hash))) {
          return yield* new Unauthorized({ detail: "Invalid API key" })
        }
        if (row.revoked_at !== null) return yield* new Unauthorized({ detail: "This API key has been revoked" })
        const expires = date(row.expires_at)
        if (expires !== null && expires.getTime() <= nowMs) return yield* new Unauthorized({ detail: "This API key has expired" })
        const org = orgFromRow(row)
        if (org.status !== "active") return yield* new Forbidden({ reason: org.status === "disabled" ? "disabled" : "suspended" })
        const context: AuthContext = { keyId: String(row.key_id), keyName: String(row.key_name), permissions: permissionsOf(row.permissions), org }
        if (remembered.size > 10_000) remembered.clear()
        remembered.set(hash, { context, until: nowMs + CACHE_MS })
        return context
      })

    return {
      /** Creates a key; the secret is returned once and never stored. */
      create: (input: {
        readonly orgId: string
        readonly name: string
        readonly permissions?: ReadonlyArray<string> | undefined
        readonly expiresAt?: Date | undefined
      }) =>
        Effect.gen(function*() {
          const secret = "sift_sk_" + base62(40)
          const rows = yield* sql<Record<string, unknown>>`INSERT INTO api_keys ${sql.insert({
            id: id("key_"),
            org_id: input.orgId,
            name: input.name,
            prefix: secret.slice(0, 12),
            hash: hashSecret(secret),
            permissions: input.permissions === undefined ? null : JSON.stringify(input.permissions),
            expires_at: input.expiresAt ?? null
          })} RETURNING *`
          return { key: keyFromRow(rows[0]!), secret }
        }),
      /** Keys of one organization, or of all, oldest first. */
      list: (orgId?: string) =>
        Effect.map(
          orgId === undefined
            ? sql<Record<string, unknown>>`SELECT * FROM api_keys ORDER BY created_at, id`
            : sql<Record<string, unknown>>`SELECT * FROM api_keys WHERE org_id = ${orgId} ORDER BY created_at, id`,
          (rows) => rows.map(keyFromRow)
        ),
      /** Revokes a key; false when there is no such key. */
      revoke: (keyId: string) =>
        Effect.map(sql`UPDATE api_keys SET revoked_at = COALESCE(revoked_at, now()) WHERE id = ${keyId} RETURNING id`, (rows) => {
          remembered.clear()
          return rows.length > 0
        }),
      authenticate
    } as const
  })
}) {}
