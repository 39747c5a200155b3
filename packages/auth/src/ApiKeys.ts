/**
 * API keys: `sift_sk_` + 40 base62, shown once, stored only as a SHA-256 hash next to its first 12 characters (the
 * indexed lookup prefix, also what listings show); the hash of the presented secret is compared in constant time.
 * Optional permission list (none = all), expiry and revocation. `authenticate` runs on every request, so successful
 * lookups are kept in process memory for `CACHE_MS`: a revocation, expiry or suspension bites within that time on
 * every replica (at once on the replica that revoked). A key in use is looked up again in the background once half
 * that time has passed, and requests arriving together for a key not in memory share one lookup, so a busy key never
 * waits for the database. `last_used_at` is written at most once a minute per key.
 *
 * @since 0.1.0
 */
import * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import { Clock, Deferred, Effect, FiberId } from "effect"
import { timingSafeEqual } from "node:crypto"
import { type Org, orgFromRow } from "./Accounts.js"
import { Forbidden, Unauthorized, UnknownPermission } from "./AuthErrors.js"
import { base62, hashSecret, id } from "./internal/ids.js"
import * as Permissions from "./Permissions.js"

/** How long a successful authentication is remembered (ms); also the longest a revocation takes to bite. */
export const CACHE_MS = 2_000
/** How stale `lastUsedAt` may get (ms): it is written only when older than this, to keep requests read-only. */
export const LAST_USED_RESOLUTION_MS = 60_000
/** The length of the stored lookup prefix (`sift_sk_` and four characters). */
export const PREFIX_LENGTH = 12
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
  readonly lastUsedAt: Date | null
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
  value === null || value === undefined ? null : Array.isArray(value) ? value.map(String) : parseArray(String(value))
// A text[] in its literal form (`{a,b}`), should a driver hand it over unparsed; permission names need no quoting.
const parseArray = (literal: string): ReadonlyArray<string> =>
  literal.replace(/^\{|\}$/g, "").split(",").filter((item) => item !== "").map((item) => item.replace(/^"|"$/g, ""))
const sameHash = (stored: unknown, presented: Buffer) => {
  const bytes = Buffer.from(String(stored), "hex")
  return bytes.length === presented.length && timingSafeEqual(bytes, presented)
}

const keyFromRow = (row: Record<string, unknown>): ApiKey => ({
  id: String(row.id),
  orgId: String(row.org_id),
  name: String(row.name),
  prefix: String(row.prefix),
  permissions: permissionsOf(row.permissions),
  expiresAt: date(row.expires_at),
  revokedAt: date(row.revoked_at),
  lastUsedAt: date(row.last_used_at),
  createdAt: date(row.created_at)!
})

/** API keys and authentication. */
export class ApiKeys extends Effect.Service<ApiKeys>()("@sift/auth/ApiKeys", {
  scoped: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const remembered = new Map<string, { readonly context: AuthContext; readonly until: number; readonly refreshAt: number }>()
    // The hashes of the secrets of remembered keys: hashing a secret cost more than the rest of a remembered lookup.
    const hashes = new Map<string, string>()
    // Lookups under way, one per key: requests arriving together share it instead of each querying the database.
    const lookups = new Map<string, Deferred.Deferred<AuthContext, Unauthorized | Forbidden | SqlError>>()
    const scope = yield* Effect.scope

    const lookup = (secret: string, hash: string): Effect.Effect<AuthContext, Unauthorized | Forbidden | SqlError> =>
      Effect.gen(function*() {
        const nowMs = yield* Clock.currentTimeMillis
        const rows = yield* sql<Record<string, unknown>>`
          SELECT k.id AS key_id, k.name AS key_name, k.hash, k.permissions, k.expires_at, k.revoked_at, k.last_used_at AS key_last_used_at, o.*
          FROM api_keys k JOIN organizations o ON o.id = k.org_id WHERE k.prefix = ${secret.slice(0, PREFIX_LENGTH)}`
        // Every candidate sharing the prefix is compared, in constant time, so timing tells nothing about the hash.
        const presented = Buffer.from(hash, "hex")
        let row: Record<string, unknown> | undefined
        for (const candidate of rows) if (sameHash(candidate.hash, presented)) row = candidate
        if (row === undefined) return yield* new Unauthorized({ detail: "Invalid API key" })
        if (row.revoked_at !== null) return yield* new Unauthorized({ detail: "This API key has been revoked" })
        const expires = date(row.expires_at)
        if (expires !== null && expires.getTime() <= nowMs) return yield* new Unauthorized({ detail: "This API key has expired" })
        const org = orgFromRow(row)
        if (org.status !== "active") return yield* new Forbidden({ reason: org.status === "disabled" ? "disabled" : "suspended" })
        const lastUsed = date(row.key_last_used_at)
        if (lastUsed === null || lastUsed.getTime() <= nowMs - LAST_USED_RESOLUTION_MS) {
          yield* sql`UPDATE api_keys SET last_used_at = ${new Date(nowMs)} WHERE id = ${String(row.key_id)}`
        }
        const context: AuthContext = { keyId: String(row.key_id), keyName: String(row.key_name), permissions: permissionsOf(row.permissions), org }
        if (remembered.size > 10_000) {
          remembered.clear()
          hashes.clear()
        }
        remembered.set(hash, { context, until: nowMs + CACHE_MS, refreshAt: nowMs + CACHE_MS / 2 })
        hashes.set(secret, hash)
        return context
      }).pipe(
        // A key found invalid is forgotten at once; a database error leaves it to expire as remembered.
        Effect.tapError((error) =>
          error._tag === "SqlError" ? Effect.void : Effect.sync(() => {
            remembered.delete(hash)
            hashes.delete(secret)
          })
        )
      )

    /** The key's lookup under way, or a new one (run in the service's scope, so no caller's interruption ends it). */
    const start = (secret: string, hash: string) =>
      Effect.suspend(() => {
        const running = lookups.get(hash)
        if (running !== undefined) return Effect.succeed(running)
        const done = Deferred.unsafeMake<AuthContext, Unauthorized | Forbidden | SqlError>(FiberId.none)
        lookups.set(hash, done)
        return Effect.as(
          Effect.forkIn(Effect.ensuring(Deferred.complete(done, lookup(secret, hash)), Effect.sync(() => lookups.delete(hash))), scope),
          done
        )
      })

    // A remembered key is answered from memory. Past half its life it is looked up again in the background (requests
    // keep being answered meanwhile); past its life it is not used at all, so a revocation still bites within CACHE_MS.
    const authenticate = (secret: string): Effect.Effect<AuthContext, Unauthorized | Forbidden | SqlError> =>
      Effect.clockWith((clock) => {
        const nowMs = clock.unsafeCurrentTimeMillis()
        const hash = hashes.get(secret) ?? (SECRET.test(secret) ? hashSecret(secret) : undefined)
        if (hash === undefined) return Effect.fail(new Unauthorized({ detail: "Invalid API key" }))
        const cached = remembered.get(hash)
        if (cached === undefined || cached.until <= nowMs) return Effect.flatMap(start(secret, hash), Deferred.await)
        if (cached.refreshAt <= nowMs && !lookups.has(hash)) return Effect.as(start(secret, hash), cached.context)
        return Effect.succeed(cached.context)
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
          const unknown = (input.permissions ?? []).filter((name) => !(Permissions.all as ReadonlyArray<string>).includes(name))
          if (unknown.length > 0) {
            return yield* new UnknownPermission({ names: unknown, detail: `Unknown permission ${unknown.join(", ")}; one of ${Permissions.all.join(", ")}` })
          }
          const secret = "sift_sk_" + base62(40)
          // The list goes through JSON so both drivers pass it the same way; null means every permission.
          const list = input.permissions === undefined ? null : JSON.stringify([...new Set(input.permissions)])
          const rows = yield* sql<Record<string, unknown>>`
            INSERT INTO api_keys (id, org_id, name, prefix, hash, permissions, expires_at)
            VALUES (${id("key_")}, ${input.orgId}, ${input.name}, ${secret.slice(0, PREFIX_LENGTH)}, ${hashSecret(secret)},
              CASE WHEN ${list}::jsonb IS NULL THEN NULL ELSE ARRAY(SELECT jsonb_array_elements_text(${list}::jsonb)) END,
              ${input.expiresAt ?? null}::timestamptz)
            RETURNING *`
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
          hashes.clear()
          return rows.length > 0
        }),
      authenticate
    } as const
  })
}) {}
