import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import * as Jose from "jose"
import { type Browser, chromium, type Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest"
import * as TestService from "../support/TestService.js"

const CLAIM_GRANT = "urn:workos:agent-auth:grant-type:claim"

const backends = [
  { name: "pglite", url: undefined as string | undefined },
  { name: "postgres", url: inject("databaseUrl") ?? undefined }
]

let browser: Browser
beforeAll(async () => {
  browser = await chromium.launch({ executablePath: "/usr/lib/chromium/chromium", args: ["--no-sandbox", "--disable-dev-shm-usage"] })
})
afterAll(async () => {
  await browser?.close()
})

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

for (const backend of backends) describe.skipIf(backend.name === "postgres" && backend.url === undefined)(`agent registration (${backend.name})`, () => {
  let service: TestService.TestService
  let origin: string
  beforeAll(async () => {
    service = await TestService.start({ databaseUrl: backend.url })
    origin = service.baseUrl.replace(/\/v1$/, "")
  })
  afterAll(async () => {
    await service?.close()
  })

  // The test service's runtime holds the SqlClient; reading the outbox and ageing a code go through it.
  const sql = <A>(f: (sql: SqlClient.SqlClient) => Effect.Effect<A, unknown>) =>
    service.run(Effect.flatMap(SqlClient.SqlClient, f) as unknown as Effect.Effect<A>)

  const register = (body: unknown) =>
    fetch(`${origin}/agent/identity`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) })
  const poll = (claimToken: string) =>
    fetch(`${origin}/oauth2/token`, { method: "POST", body: new URLSearchParams({ grant_type: CLAIM_GRANT, claim_token: claimToken }) })
  const logs = (key: string) => fetch(`${service.baseUrl}/logs`, { headers: { authorization: `Bearer ${key}` } })
  const unique = () => Math.random().toString(36).slice(2, 10)

  const signUp = async (page: Page, uri: string, email: string) => {
    await page.goto(uri)
    await page.fill("#signup input[name=email]", email)
    await page.fill("#signup input[name=password]", "correct horse battery")
    await page.click("#signup button")
    await page.waitForSelector("text=Signed in as")
  }

  it("discovery documents describe the agent flow", async () => {
    const server = await (await fetch(`${origin}/.well-known/oauth-authorization-server`)).json()
    expect(server.agent_registration_endpoint).toBe(`${origin}/agent/identity`)
    expect(server.token_endpoint).toBe(`${origin}/oauth2/token`)
    expect(server.grant_types_supported).toEqual(expect.arrayContaining([CLAIM_GRANT, "urn:ietf:params:oauth:grant-type:jwt-bearer", "authorization_code"]))
    expect(server.jwks_uri).toBe(`${origin}/.well-known/jwks.json`)
    const resource = await (await fetch(`${origin}/.well-known/oauth-protected-resource`)).json()
    expect(resource).toEqual({ resource: `${origin}/v1/`, authorization_servers: [origin], scopes_supported: ["api.read", "api.write"], bearer_methods_supported: ["header"] })
    const jwks = await (await fetch(server.jwks_uri)).json()
    expect(jwks.keys).toHaveLength(1)
    expect(jwks.keys[0]).toMatchObject({ kty: "OKP", crv: "Ed25519", alg: "EdDSA" })
    expect(jwks.keys[0].d).toBeUndefined()
  })

  it("bad registrations are refused with the OAuth error shape", async () => {
    const noType = await register({ login_hint: "a@b.example" })
    expect(noType.status).toBe(400)
    expect(await noType.json()).toMatchObject({ error: "invalid_request" })
    const badHint = await register({ type: "service_auth", login_hint: "not-an-email" })
    expect(badHint.status).toBe(400)
    expect(await badHint.json()).toMatchObject({ error: "invalid_login_hint" })
    const longName = await register({ type: "service_auth", login_hint: "a@b.example", api_key_name: "x".repeat(61) })
    expect((await longName.json()).error).toBe("invalid_request")
    const notJson = await fetch(`${origin}/agent/identity`, { method: "POST", headers: { "content-type": "application/json" }, body: "{" })
    expect((await notJson.json()).error).toBe("invalid_request")
    const noGrant = await fetch(`${origin}/oauth2/token`, { method: "POST", body: new URLSearchParams({ grant_type: CLAIM_GRANT, claim_token: "sift_ct_nope" }) })
    expect(await noGrant.json()).toMatchObject({ error: "invalid_grant" })
  })

  it("register, claim in Chromium (sign up, code, verify email), poll to a key that works, refresh, revoke", async () => {
    const email = `ada-${unique()}@lanterns.example`
    const registered = await register({ type: "service_auth", login_hint: email, api_key_name: "Lantern bot" })
    expect(registered.status).toBe(200)
    const registration = await registered.json()
    expect(registration).toMatchObject({
      registration_type: "service_auth",
      post_claim_scopes: ["api.read", "api.write"],
      claim: { verification_uri: `${origin}/agent/claim`, expires_in: 900, interval: 5 }
    })
    expect(registration.claim.user_code).toMatch(/^\d{6}$/)
    expect(registration.claim_token).toMatch(/^sift_ct_/)
    expect(registration.identity_assertion).toBeUndefined()
    const code: string = registration.claim.user_code

    const pending = await poll(registration.claim_token)
    expect(pending.status).toBe(400)
    expect(await pending.json()).toMatchObject({ error: "authorization_pending" })
    expect(await (await poll(registration.claim_token)).json()).toMatchObject({ error: "slow_down" })

    const context = await browser.newContext()
    const page = await context.newPage()
    try {
      await signUp(page, registration.claim.verification_uri, email)
      expect(await page.textContent("body")).toContain("verification link")
      await page.fill("#code input[name=user_code]", code)
      await page.click("#code button")
      await page.waitForSelector("#confirm")
      expect(await page.inputValue("#confirm input[name=api_key_name]")).toBe("Lantern bot")
      await page.fill("#confirm input[name=api_key_name]", "Lantern bot (laptop)")
      await page.click("#confirm button")
      await page.waitForSelector("#done")
      expect(await page.textContent("#done")).toContain("Lantern bot (laptop)")

      await sleep(5_100)
      expect(await (await poll(registration.claim_token)).json()).toEqual({ error: "authorization_pending", error_description: "email_verification_required" })

      const mail = await sql((sql) => sql<{ subject: string; body_text: string }>`SELECT subject, body_text FROM outbox WHERE recipient = ${email}`)
      expect(mail).toHaveLength(1)
      expect(mail[0]!.body_text).not.toContain(code)
      const link = /(http:\/\/\S+\/agent\/verify-email\?token=\S+)/.exec(mail[0]!.body_text)?.[1]
      expect(link).toBeDefined()
      await page.goto(link!)
      expect(await page.textContent("#verified")).toContain("verified")
    } finally {
      await context.close()
    }

    await sleep(5_100)
    const granted = await poll(registration.claim_token)
    expect(granted.status).toBe(200)
    expect(granted.headers.get("cache-control")).toBe("no-store")
    const credentials = await granted.json()
    expect(credentials).toMatchObject({ token_type: "Bearer", expires_in: 0, scope: "api.read api.write" })
    expect(credentials.access_token).toMatch(/^sift_sk_[A-Za-z0-9]{40}$/)
    const expires = Date.parse(credentials.assertion_expires)
    expect(expires - Date.now()).toBeGreaterThan(3500_000)
    expect(expires - Date.now()).toBeLessThanOrEqual(3600_000)
    const jwks = Jose.createRemoteJWKSet(new URL(`${origin}/.well-known/jwks.json`))
    const verified = await Jose.jwtVerify(credentials.identity_assertion, jwks, { issuer: origin, algorithms: ["EdDSA"] })
    expect(verified.payload).toMatchObject({ email, scope: "api.read api.write" })

    // The key is a real, non-expiring key of the person's organization, named as confirmed.
    expect((await logs(credentials.access_token)).status).toBe(200)
    const keys = await sql((sql) => sql<{ name: string; expires_at: unknown; org_id: string }>`SELECT k.name, k.expires_at, k.org_id FROM api_keys k JOIN users u ON u.org_id = k.org_id WHERE u.email = ${email}`)
    expect(keys).toEqual([{ name: "Lantern bot (laptop)", expires_at: null, org_id: verified.payload.org_id }])

    // The claim token is single-use.
    expect(await (await poll(registration.claim_token)).json()).toMatchObject({ error: "invalid_grant" })

    // Refresh by assertion: a new key and assertion, the old key revoked.
    const refreshed = await fetch(`${origin}/oauth2/token`, {
      method: "POST",
      body: new URLSearchParams({ grant_type: "urn:ietf:params:oauth:grant-type:jwt-bearer", assertion: credentials.identity_assertion, resource: `${service.baseUrl}/` })
    })
    expect(refreshed.status).toBe(200)
    const renewed = await refreshed.json()
    expect(renewed.access_token).not.toBe(credentials.access_token)
    expect((await logs(renewed.access_token)).status).toBe(200)
    expect((await logs(credentials.access_token)).status).toBe(401)
    const forged = credentials.identity_assertion.slice(0, -4) + (credentials.identity_assertion.endsWith("AAAA") ? "BBBB" : "AAAA")
    const bad = await fetch(`${origin}/oauth2/token`, { method: "POST", body: new URLSearchParams({ grant_type: "urn:ietf:params:oauth:grant-type:jwt-bearer", assertion: forged }) })
    expect(await bad.json()).toMatchObject({ error: "invalid_grant" })

    const revoked = await fetch(`${origin}/oauth2/revoke`, { method: "POST", body: new URLSearchParams({ token: renewed.access_token }) })
    expect(revoked.status).toBe(200)
    const refused = await logs(renewed.access_token)
    expect(refused.status).toBe(401)
    expect((await refused.json()).error_code).toBe("UNAUTHORIZED")
    expect((await fetch(`${origin}/oauth2/revoke`, { method: "POST", body: new URLSearchParams({ token: renewed.access_token }) })).status).toBe(200)
  }, 120_000)

  it("an expired code is refused on the page and the poll says expired_token", async () => {
    const email = `grace-${unique()}@lanterns.example`
    const registration = await (await register({ type: "service_auth", login_hint: email })).json()
    await sql((sql) => sql`UPDATE agent_registrations SET expires_at = now() - interval '1 second' WHERE id = ${registration.registration_id}`)
    expect(await (await poll(registration.claim_token)).json()).toMatchObject({ error: "expired_token" })
    const context = await browser.newContext()
    const page = await context.newPage()
    try {
      await signUp(page, registration.claim.verification_uri, email)
      await page.fill("#code input[name=user_code]", registration.claim.user_code)
      await page.click("#code button")
      await page.waitForSelector("[role=alert]")
      expect(await page.textContent("[role=alert]")).toContain("not valid or has expired")
    } finally {
      await context.close()
    }
  }, 60_000)

  it("five wrong codes lock code entry on the session, even for the right code; another email's code is refused", async () => {
    const email = `alan-${unique()}@lanterns.example`
    const registration = await (await register({ type: "service_auth", login_hint: email })).json()
    const other = await (await register({ type: "service_auth", login_hint: `someone-${unique()}@lanterns.example` })).json()
    const context = await browser.newContext()
    const page = await context.newPage()
    try {
      await signUp(page, registration.claim.verification_uri, email)
      await page.fill("#code input[name=user_code]", other.claim.user_code)
      await page.click("#code button")
      await page.waitForSelector("[role=alert]")
      expect(await page.textContent("[role=alert]")).toContain("was issued for someone-")
      const right: string = registration.claim.user_code
      const wrong = [1, 2, 3, 4, 5].map((n) => String((Number(right) + n * 7919) % 1_000_000).padStart(6, "0"))
      for (const [i, guess] of wrong.entries()) {
        await page.fill("#code input[name=user_code]", guess)
        await page.click("#code button")
        await page.waitForSelector("[role=alert]")
        expect(await page.textContent("[role=alert]")).toContain(i < 4 ? "not valid" : "locked")
      }
      await page.fill("#code input[name=user_code]", right)
      await page.click("#code button")
      await page.waitForSelector("[role=alert]")
      expect(await page.textContent("[role=alert]")).toContain("locked")
      expect(await page.$("#confirm")).toBeNull()
    } finally {
      await context.close()
    }
    expect(await (await poll(registration.claim_token)).json()).toMatchObject({ error: "authorization_pending" })
  }, 60_000)

  it("form posts without the session's CSRF token are refused", async () => {
    const anonymous = await fetch(`${origin}/agent/claim/code`, { method: "POST", body: new URLSearchParams({ user_code: "123456" }) })
    expect(anonymous.status).toBe(403)
    const first = await fetch(`${origin}/agent/claim`)
    const cookie = first.headers.get("set-cookie")!.split(";")[0]!
    expect(cookie).toMatch(/^sift_session=/)
    const forged = await fetch(`${origin}/agent/claim/signup`, {
      method: "POST",
      headers: { cookie },
      body: new URLSearchParams({ email: `eve-${unique()}@lanterns.example`, password: "correct horse battery", csrf: "guess" })
    })
    expect(forged.status).toBe(403)
  })

  it("five wrong passwords lock sign-in", async () => {
    const email = `linus-${unique()}@lanterns.example`
    const context = await browser.newContext()
    const page = await context.newPage()
    try {
      await signUp(page, `${origin}/agent/claim`, email)
      await context.clearCookies()
      for (let i = 0; i < 5; i++) {
        await page.goto(`${origin}/agent/claim`)
        await page.fill("#signin input[name=email]", email)
        await page.fill("#signin input[name=password]", `wrong password ${i}`)
        await page.click("#signin button")
        await page.waitForSelector("[role=alert]")
        expect(await page.textContent("[role=alert]")).toContain("Wrong email or password")
      }
      await page.goto(`${origin}/agent/claim`)
      await page.fill("#signin input[name=email]", email)
      await page.fill("#signin input[name=password]", "correct horse battery")
      await page.click("#signin button")
      await page.waitForSelector("[role=alert]")
      expect(await page.textContent("[role=alert]")).toContain("locked")
    } finally {
      await context.close()
    }
  }, 60_000)
})

describe("agent registration signing key", () => {
  it("is kept in the database: a restarted service publishes the same key", async () => {
    const dir = mkdtempSync(join(tmpdir(), "sift-agents-"))
    try {
      const first = await TestService.start({ dataDir: dir })
      const origin = first.baseUrl.replace(/\/v1$/, "")
      const before = await (await fetch(`${origin}/.well-known/jwks.json`)).json()
      await first.close()
      const second = await TestService.start({ dataDir: dir })
      try {
        const after = await (await fetch(`${second.baseUrl.replace(/\/v1$/, "")}/.well-known/jwks.json`)).json()
        expect(after.keys).toHaveLength(1)
        expect(after).toEqual(before)
      } finally {
        await second.close()
      }
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  }, 90_000)
})
