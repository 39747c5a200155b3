/**
 * The unauthenticated registration endpoints are rate limited per client address (agent identities and OAuth clients
 * count together), and expired registrations and authorization codes are removed.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { removeExpired } from "../../src/Agents/Limits.js"
import * as TestService from "../support/TestService.js"

let service: TestService.TestService
let origin: string
beforeAll(async () => {
  service = await TestService.start({ env: { SIFT_REGISTRATIONS_PER_MINUTE: "5" } })
  origin = service.baseUrl.replace(/\/v1$/, "")
})
afterAll(async () => {
  await service?.close()
})

describe("registration limits", () => {
  it("the sixth registration of a minute from one address is 429 with Retry-After, identities and clients together", async () => {
    const identity = () =>
      fetch(`${origin}/agent/identity`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ type: "service_auth", login_hint: "someone@example.com" })
      })
    const client = () =>
      fetch(`${origin}/oauth2/register`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ redirect_uris: ["http://127.0.0.1:9/callback"], client_name: "limits" })
      })
    const statuses = [(await identity()).status, (await client()).status, (await identity()).status, (await client()).status, (await identity()).status]
    expect(statuses).toEqual([200, 201, 200, 201, 200])
    for (const refused of [await identity(), await client()]) {
      expect(refused.status).toBe(429)
      const retryAfter = Number(refused.headers.get("retry-after"))
      expect(retryAfter).toBeGreaterThanOrEqual(1)
      expect(retryAfter).toBeLessThanOrEqual(60)
      expect(await refused.json()).toMatchObject({ error: "rate_limited" })
    }
  })

  it("registrations, authorization codes and access-token links expired more than a day ago are removed; recent ones stay", async () => {
    const old = new Date(Date.now() - 2 * 86_400_000)
    const recent = new Date(Date.now() - 3_600_000)
    const { orgId } = await service.key()
    const removed = await service.run(Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      for (const [id, expires] of [["reg_old", old], ["reg_recent", recent]] as const) {
        yield* sql`INSERT INTO agent_registrations ${sql.insert({ id, claim_token_hash: `t-${id}`, code_hash: `c-${id}`, login_hint: "a@b.c", api_key_name: "Agent", expires_at: expires, interval_seconds: 5 })}`
        yield* sql`INSERT INTO oauth_codes ${sql.insert({ code_hash: `h-${id}`, client_id: "c", org_id: "o", redirect_uri: "r", code_challenge: "x", scope: "api.read", expires_at: expires })}`
        yield* sql`INSERT INTO api_keys ${sql.insert({ id: `key_${id}`, org_id: orgId, name: "oauth", prefix: `p-${id}`, hash: `k-${id}`, expires_at: expires })}`
        yield* sql`INSERT INTO oauth_access_tokens ${sql.insert({ key_id: `key_${id}`, grant_id: `h-${id}` })}`
      }
      const counted = yield* removeExpired
      const left = yield* sql<{ id: string }>`SELECT id FROM agent_registrations WHERE id IN ('reg_old', 'reg_recent')`
      const codes = yield* sql<{ code_hash: string }>`SELECT code_hash FROM oauth_codes WHERE code_hash IN ('h-reg_old', 'h-reg_recent')`
      const tokens = yield* sql<{ key_id: string }>`SELECT key_id FROM oauth_access_tokens WHERE key_id IN ('key_reg_old', 'key_reg_recent')`
      return { counted, left: left.map((r) => r.id), codes: codes.map((r) => r.code_hash), tokens: tokens.map((r) => r.key_id) }
    }))
    expect(removed.counted).toEqual({ registrations: 1, codes: 1, accessTokens: 1 })
    expect(removed.tokens).toEqual(["key_reg_recent"])
    expect(removed.left).toEqual(["reg_recent"])
    expect(removed.codes).toEqual(["h-reg_recent"])
  })
})
