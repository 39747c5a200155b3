/**
 * API keys on both backends: creation (shape, hash and prefix stored, never the secret), authentication through the
 * prefix lookup, revocation, expiry, malformed secrets, permission lists and last use.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { describe, expect, it } from "@effect/vitest"
import { Effect, TestClock } from "effect"
import { createHash, randomBytes } from "node:crypto"
import * as Auth from "../src/index.js"
import { backends, codeOf, layerFor, title, unique } from "./support/database.js"

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex")

const newOrg = (plan: Auth.Plans.PlanName = "pro") =>
  Effect.flatMap(Auth.Accounts.Accounts, (accounts) => accounts.createOrg({ name: `org-${unique()}`, plan }))

/** The failure's error code and detail, or the key id it authenticated as. */
const outcome = (secret: string) =>
  Effect.flatMap(Auth.ApiKeys.ApiKeys, (keys) =>
    Effect.match(keys.authenticate(secret), {
      onFailure: (error) => ({ code: codeOf(error), detail: (error as { readonly detail?: string }).detail }),
      onSuccess: (context) => ({ keyId: context.keyId })
    }))

for (const backend of backends) {
  describe.skipIf(backend.skip !== undefined)(`API keys (${title(backend)})`, () => {
    it.layer(layerFor(backend), { timeout: 60_000 })((it) => {
      it.effect("create: the secret is shown once; the row holds its SHA-256 and its first 12 characters, never the secret", () =>
        Effect.gen(function*() {
          const keys = yield* Auth.ApiKeys.ApiKeys
          const sql = yield* SqlClient.SqlClient
          const org = yield* newOrg()
          const { key, secret } = yield* keys.create({ orgId: org.id, name: "ci" })
          expect(secret).toMatch(Auth.ApiKeys.SECRET)
          expect(key).toMatchObject({ orgId: org.id, name: "ci", prefix: secret.slice(0, 12), permissions: null, expiresAt: null, revokedAt: null, lastUsedAt: null })
          const [row] = yield* sql<Record<string, unknown>>`SELECT * FROM api_keys WHERE id = ${key.id}`
          expect(row!.hash).toBe(sha256(secret))
          expect(row!.prefix).toBe(secret.slice(0, Auth.ApiKeys.PREFIX_LENGTH))
          expect(JSON.stringify(row)).not.toContain(secret.slice(12))
          // Two keys never share a secret.
          const other = yield* keys.create({ orgId: org.id, name: "ci" })
          expect(other.secret).not.toBe(secret)
        }))

      it.effect("authenticate: the right key among every key sharing its lookup prefix; a near miss of the secret is refused", () =>
        Effect.gen(function*() {
          const keys = yield* Auth.ApiKeys.ApiKeys
          const sql = yield* SqlClient.SqlClient
          const org = yield* newOrg("scale")
          const { key, secret } = yield* keys.create({ orgId: org.id, name: "real", permissions: ["logs:read"] })
          // Other keys with the same prefix (what a prefix collision looks like), inserted before and after.
          for (let i = 0; i < 4; i++) {
            yield* sql`INSERT INTO api_keys (id, org_id, name, prefix, hash) VALUES (${`key_twin${unique()}`}, ${org.id}, 'twin', ${key.prefix}, ${randomBytes(32).toString("hex")})`
          }
          const context = yield* keys.authenticate(secret)
          expect(context).toMatchObject({ keyId: key.id, keyName: "real", permissions: ["logs:read"] })
          expect(context.org).toMatchObject({ id: org.id, plan: "scale", status: "active" })
          // Same prefix, one character off at the end: not a key.
          const last = secret.at(-1) === "a" ? "b" : "a"
          expect(yield* outcome(secret.slice(0, -1) + last)).toEqual({ code: "UNAUTHORIZED", detail: "Invalid API key" })
        }))

      it.effect("authenticate: malformed secrets are refused before any lookup", () =>
        Effect.gen(function*() {
          for (const secret of ["", "sift_sk_", "sift_sk_" + "a".repeat(39), "sift_sk_" + "a".repeat(41), "sift_pk_" + "a".repeat(40), "sift_sk_" + "a".repeat(39) + "-", " sift_sk_" + "a".repeat(40)]) {
            expect(yield* outcome(secret)).toEqual({ code: "UNAUTHORIZED", detail: "Invalid API key" })
          }
        }))

      it.effect("revoke: bites at once on this service; true for a known key (again too, keeping the first time), false for none", () =>
        Effect.gen(function*() {
          const keys = yield* Auth.ApiKeys.ApiKeys
          const org = yield* newOrg()
          const { key, secret } = yield* keys.create({ orgId: org.id, name: "r" })
          const kept = yield* keys.create({ orgId: org.id, name: "kept" })
          expect(yield* outcome(secret)).toEqual({ keyId: key.id }) // now remembered
          expect(yield* keys.revoke(key.id)).toBe(true)
          expect(yield* outcome(secret)).toEqual({ code: "UNAUTHORIZED", detail: "This API key has been revoked" })
          const revokedAt = (yield* keys.list(org.id)).find((k) => k.id === key.id)!.revokedAt
          expect(revokedAt).toBeInstanceOf(Date)
          yield* TestClock.adjust("1 minute")
          expect(yield* keys.revoke(key.id)).toBe(true)
          expect((yield* keys.list(org.id)).find((k) => k.id === key.id)!.revokedAt).toEqual(revokedAt)
          expect(yield* keys.revoke(`key_${unique()}`)).toBe(false)
          expect(yield* outcome(kept.secret)).toEqual({ keyId: kept.key.id })
        }))

      it.effect("expiry: a key works until its expiry and is refused from that instant (remembered answers included)", () =>
        Effect.gen(function*() {
          const keys = yield* Auth.ApiKeys.ApiKeys
          const org = yield* newOrg()
          const start = Date.UTC(2031, 0, 1)
          yield* TestClock.setTime(start)
          const expiring = yield* keys.create({ orgId: org.id, name: "e", expiresAt: new Date(start + 10 * Auth.ApiKeys.CACHE_MS) })
          expect(yield* outcome(expiring.secret)).toEqual({ keyId: expiring.key.id })
          yield* TestClock.setTime(start + 10 * Auth.ApiKeys.CACHE_MS - 1)
          expect(yield* outcome(expiring.secret)).toEqual({ keyId: expiring.key.id })
          yield* TestClock.setTime(start + 11 * Auth.ApiKeys.CACHE_MS)
          expect(yield* outcome(expiring.secret)).toEqual({ code: "UNAUTHORIZED", detail: "This API key has expired" })
          // Created already expired: never works.
          const stale = yield* keys.create({ orgId: org.id, name: "stale", expiresAt: new Date(start) })
          expect(yield* outcome(stale.secret)).toEqual({ code: "UNAUTHORIZED", detail: "This API key has expired" })
        }))

      it.effect("permissions: unknown names refused, duplicates kept once, an empty list grants nothing, none means all", () =>
        Effect.gen(function*() {
          const keys = yield* Auth.ApiKeys.ApiKeys
          const org = yield* newOrg()
          const refused = yield* Effect.flip(keys.create({ orgId: org.id, name: "bad", permissions: ["logs:read", "admin", "monitors:delete"] }))
          expect(codeOf(refused)).toBe("INPUT_VALIDATION_ERROR")
          expect(String((refused as { readonly detail?: string }).detail)).toContain("admin, monitors:delete")
          expect((yield* keys.list(org.id)).filter((k) => k.name === "bad")).toEqual([])
          const twice = yield* keys.create({ orgId: org.id, name: "twice", permissions: ["monitors:write", "monitors:write", "logs:read"] })
          expect(twice.key.permissions).toEqual(["monitors:write", "logs:read"])
          const none = yield* keys.create({ orgId: org.id, name: "none", permissions: [] })
          const context = yield* keys.authenticate(none.secret)
          expect(context.permissions).toEqual([])
          expect(Auth.Permissions.all.some((p) => Auth.Permissions.has(context, p))).toBe(false)
          const all = yield* keys.authenticate((yield* keys.create({ orgId: org.id, name: "all" })).secret)
          expect(all.permissions).toBeNull()
          expect(Auth.Permissions.all.every((p) => Auth.Permissions.has(all, p))).toBe(true)
        }))

      it.effect("last use is written at most once a minute; list is per organization, oldest first", () =>
        Effect.gen(function*() {
          const keys = yield* Auth.ApiKeys.ApiKeys
          const org = yield* newOrg()
          const other = yield* newOrg()
          const start = Date.UTC(2031, 5, 1)
          yield* TestClock.setTime(start)
          const first = yield* keys.create({ orgId: org.id, name: "first" })
          const second = yield* keys.create({ orgId: org.id, name: "second" })
          yield* keys.create({ orgId: other.id, name: "elsewhere" })
          const lastUsed = () => Effect.map(keys.list(org.id), (list) => list.find((k) => k.id === first.key.id)!.lastUsedAt?.getTime() ?? null)
          yield* keys.authenticate(first.secret)
          expect(yield* lastUsed()).toBe(start)
          // Past the remembered answer, within the minute: looked up again, last use not rewritten.
          yield* TestClock.setTime(start + 30_000)
          yield* keys.authenticate(first.secret)
          expect(yield* lastUsed()).toBe(start)
          yield* TestClock.setTime(start + Auth.ApiKeys.LAST_USED_RESOLUTION_MS + 5_000)
          yield* keys.authenticate(first.secret)
          expect(yield* lastUsed()).toBe(start + Auth.ApiKeys.LAST_USED_RESOLUTION_MS + 5_000)
          expect((yield* keys.list(org.id)).map((k) => k.id)).toEqual([first.key.id, second.key.id])
          expect((yield* keys.list()).some((k) => k.name === "elsewhere")).toBe(true)
        }))
    })
  })
}
