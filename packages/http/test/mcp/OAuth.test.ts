import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { type OAuthClientProvider, UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js"
import type { OAuthClientInformationMixed, OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js"
import * as Auth from "@sift/auth"
import { Effect } from "effect"
import { createHash, randomBytes } from "node:crypto"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { chromium } from "playwright-core"
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest"
import * as FixtureSite from "../../../core/test/support/FixtureSite.js"
import * as ToolServer from "../../src/Mcp/ToolServer.js"
import * as Tools from "../../src/Mcp/Tools.js"
import * as TestService from "../support/TestService.js"

const page = `<!doctype html><html><head><title>Tin lanterns</title></head><body><main><h1>Tin lanterns</h1>
<p>Punched tin lanterns for candles.</p></main></body></html>`

let site: FixtureSite.Site
let service: TestService.TestService
let origin: string

const backends = [
  { name: "pglite", url: undefined as string | undefined },
  { name: "postgres", url: inject("databaseUrl") ?? undefined }
]

/** Starts the service on a backend for the describe block around it. */
const onBackend = (backend: typeof backends[number]) => {
  beforeAll(async () => {
    service = await TestService.start({ databaseUrl: backend.url })
    origin = service.baseUrl.replace(/\/v1$/, "")
  })
  afterAll(async () => {
    await service?.close()
  })
}
// The client's redirect target: a local page that records the code and state the browser brings back.
let callback: Server
let callbackUrl: string
const arrivals: Array<URLSearchParams> = []

beforeAll(async () => {
  site = await FixtureSite.start({ "/lanterns": FixtureSite.html(page) })
  callback = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1")
    if (url.pathname === "/callback") arrivals.push(url.searchParams)
    res.writeHead(200, { "content-type": "text/html" }).end("<p>You can close this window.</p>")
  })
  await new Promise<void>((resolve) => callback.listen(0, "127.0.0.1", resolve))
  callbackUrl = `http://127.0.0.1:${(callback.address() as AddressInfo).port}/callback`
})
afterAll(async () => {
  await new Promise((resolve) => callback?.close(resolve))
  await site?.close()
})

const balance = (orgId: string) => service.run(Effect.flatMap(Auth.CreditLedger.CreditLedger, (l) => l.balance(orgId)))

/** An MCP client's OAuth state, in memory, as a desktop client keeps it. */
class MemoryProvider implements OAuthClientProvider {
  info: OAuthClientInformationMixed | undefined
  saved: OAuthTokens | undefined
  verifier = ""
  authorizationUrl: URL | undefined
  constructor(readonly scope: string) {}
  get redirectUrl() {
    return callbackUrl
  }
  get clientMetadata() {
    return { client_name: "Lantern Agent", redirect_uris: [callbackUrl], grant_types: ["authorization_code", "refresh_token"], response_types: ["code"], token_endpoint_auth_method: "none", scope: this.scope }
  }
  clientInformation() {
    return this.info
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.info = info
  }
  tokens() {
    return this.saved
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier
  }
  codeVerifier() {
    return this.verifier
  }
}

const withBrowser = async <A>(use: (browser: import("playwright-core").Browser) => Promise<A>): Promise<A> => {
  const browser = await chromium.launch({ executablePath: "/usr/lib/chromium/chromium", args: ["--no-sandbox", "--disable-dev-shm-usage"] })
  try {
    return await use(browser)
  } finally {
    await browser.close()
  }
}

type ToolResult = { isError?: boolean; structuredContent?: Record<string, any> }

for (const backend of backends) describe.skipIf(backend.name === "postgres" && backend.url === undefined)(`OAuth 2.0 + PKCE for remote MCP clients (${backend.name})`, () => {
  onBackend(backend)

  it("publishes authorization server metadata (S256 only, registration, code and refresh grants)", async () => {
    const metadata = await (await fetch(`${origin}/.well-known/oauth-authorization-server`)).json()
    expect(metadata).toMatchObject({
      issuer: origin,
      authorization_endpoint: `${origin}/oauth2/authorize`,
      token_endpoint: `${origin}/oauth2/token`,
      registration_endpoint: `${origin}/oauth2/register`,
      code_challenge_methods_supported: ["S256"],
      scopes_supported: ["api.read", "api.write"]
    })
    expect(metadata.grant_types_supported).toEqual(expect.arrayContaining(["authorization_code", "refresh_token"]))

    const unknown = await fetch(`${origin}/oauth2/token`, { method: "POST", body: new URLSearchParams({ grant_type: "password", username: "a", password: "b" }) })
    expect(unknown.status).toBe(400)
    expect((await unknown.json()).error).toBe("unsupported_grant_type")
  })

  /** A person with an account (the same accounts as the agent claim flow): signed up, email verified unless asked not to. */
  let people = 0
  const person = async (options: { readonly verified?: boolean } = {}) => {
    const email = `person${++people}.${randomBytes(4).toString("hex")}@example.test`
    const password = "brass-lantern-9"
    const orgId = await service.run(Effect.gen(function*() {
      const signed = yield* Auth.Users.signUp({ email, password })
      if (signed._tag !== "SignedUp") return yield* Effect.die(new Error(signed.reason))
      if (options.verified !== false) yield* Auth.Users.verifyEmail(signed.verificationToken)
      return signed.user.orgId
    }) as never) as string
    return { email, password, orgId }
  }

  it("an SDK client registers, the person signs in and allows in Chromium, and the token calls a tool (charged to the organization)", async () => {
    const { email, password, orgId } = await person()
    const provider = new MemoryProvider("api.read api.write")
    const url = new URL(`${origin}/mcp`)
    const first = new StreamableHTTPClientTransport(url, { authProvider: provider })
    await expect(new Client({ name: "lantern", version: "1.0.0" }).connect(first)).rejects.toBeInstanceOf(UnauthorizedError)
    expect(provider.info?.client_id).toMatch(/^mcpc_/)
    const authorizationUrl = provider.authorizationUrl!
    expect(authorizationUrl.origin + authorizationUrl.pathname).toBe(`${origin}/oauth2/authorize`)
    expect(authorizationUrl.searchParams.get("code_challenge_method")).toBe("S256")

    const before = arrivals.length
    await withBrowser(async (browser) => {
      const tab = await browser.newPage()
      await tab.goto(authorizationUrl.toString())
      await expect(tab.locator("h1").textContent()).resolves.toBe("Connect Lantern Agent to Sift")
      expect(await tab.locator("body").textContent()).toContain("read and write access")
      // A wrong password is refused on the page, and nothing goes back to the client.
      await tab.fill("#email", email)
      await tab.fill("#password", "not-the-password")
      await tab.click("button[value=allow]")
      await expect(tab.locator("[role=alert]").textContent()).resolves.toContain("email or password is not right")
      await tab.fill("#email", email)
      await tab.fill("#password", password)
      await Promise.all([tab.waitForURL((target) => target.pathname === "/callback"), tab.click("button[value=allow]")])
    })
    expect(arrivals.length).toBe(before + 1)
    const returned = arrivals.at(-1)!
    expect(returned.get("state")).toBe(authorizationUrl.searchParams.get("state"))
    const code = returned.get("code")!
    expect(code).toMatch(/^mcpcode_/)

    await first.finishAuth(code)
    expect(provider.saved).toMatchObject({ token_type: "Bearer", scope: "api.read api.write", expires_in: 3600 })
    expect(provider.saved!.refresh_token).toMatch(/^mcprt_/)

    const start = (await balance(orgId)).remaining
    const client = new Client({ name: "lantern", version: "1.0.0" })
    await client.connect(new StreamableHTTPClientTransport(url, { authProvider: provider }))
    try {
      const result = await client.callTool({ name: "scrape_markdown", arguments: { url: `${site.url}/lanterns` } }) as ToolResult
      expect(result.isError).toBe(false)
      expect(result.structuredContent!.markdown).toContain("# Tin lanterns")
      expect((await balance(orgId)).remaining).toBe(start - 1)
    } finally {
      await client.close()
    }

    // The refresh token rotates: the new pair works, the old refresh token does not.
    const refreshed = await fetch(`${origin}/oauth2/token`, {
      method: "POST",
      body: new URLSearchParams({ grant_type: "refresh_token", refresh_token: provider.saved!.refresh_token!, client_id: String(provider.info!.client_id) })
    })
    expect(refreshed.status).toBe(200)
    const pair = await refreshed.json()
    expect(pair.access_token).not.toBe(provider.saved!.access_token)
    const logs = await fetch(`${service.baseUrl}/logs`, { headers: { authorization: `Bearer ${pair.access_token}` } })
    expect(logs.status).toBe(200)
    const again = await fetch(`${origin}/oauth2/token`, {
      method: "POST",
      body: new URLSearchParams({ grant_type: "refresh_token", refresh_token: provider.saved!.refresh_token!, client_id: String(provider.info!.client_id) })
    })
    expect((await again.json()).error).toBe("invalid_grant")

    // The code is single-use; presented again, it is refused and takes down what was issued from it, the rotated pair too.
    const replay = await fetch(`${origin}/oauth2/token`, {
      method: "POST",
      body: new URLSearchParams({ grant_type: "authorization_code", code, code_verifier: provider.verifier, client_id: String(provider.info!.client_id), redirect_uri: callbackUrl })
    })
    expect(replay.status).toBe(400)
    expect((await replay.json()).error).toBe("invalid_grant")
    expect((await fetch(`${service.baseUrl}/logs`, { headers: { authorization: `Bearer ${pair.access_token}` } })).status).toBe(401)
  }, 90_000)

  /** Registers a client and runs the authorization by hand (the page's form, posted as a browser would). */
  const authorizeByHand = async (scope: string, who: { readonly email: string; readonly password: string }, challengeMethod = "S256") => {
    const registered = await (await fetch(`${origin}/oauth2/register`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ client_name: "Hand", redirect_uris: [callbackUrl] })
    })).json()
    const verifier = randomBytes(32).toString("base64url")
    const params = {
      response_type: "code",
      client_id: registered.client_id,
      redirect_uri: callbackUrl,
      code_challenge: createHash("sha256").update(verifier).digest("base64url"),
      code_challenge_method: challengeMethod,
      scope,
      state: "s1"
    }
    const decision = await fetch(`${origin}/oauth2/authorize`, {
      method: "POST",
      redirect: "manual",
      body: new URLSearchParams({ ...params, email: who.email, password: who.password, decision: "allow" })
    })
    return { clientId: registered.client_id as string, verifier, decision }
  }

  /** Exchanges a code for tokens (the code grant, with the PKCE verifier). */
  const exchange = (clientId: string, code: string, verifier: string) =>
    fetch(`${origin}/oauth2/token`, {
      method: "POST",
      body: new URLSearchParams({ grant_type: "authorization_code", code, code_verifier: verifier, client_id: clientId, redirect_uri: callbackUrl })
    })
  const refresh = (clientId: string, refreshToken: string) =>
    fetch(`${origin}/oauth2/token`, { method: "POST", body: new URLSearchParams({ grant_type: "refresh_token", refresh_token: refreshToken, client_id: clientId }) })
  const logsStatus = async (accessToken: string) => (await fetch(`${service.baseUrl}/logs`, { headers: { authorization: `Bearer ${accessToken}` } })).status
  /** The status of an MCP initialize request with a bearer token. */
  const mcpStatus = async (accessToken: string) => {
    const response = await fetch(`${origin}/mcp`, {
      method: "POST",
      headers: { authorization: `Bearer ${accessToken}`, "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "replay", version: "1.0.0" } } })
    })
    await response.body?.cancel()
    return response.status
  }

  it("a code used twice is refused, and every token issued from it is revoked at once: access tokens get 401 on /v1 and /mcp, refresh tokens invalid_grant", async () => {
    const who = await person()
    const { clientId, verifier, decision } = await authorizeByHand("api.read api.write", who)
    const code = new URL(decision.headers.get("location")!).searchParams.get("code")!
    const first = await exchange(clientId, code, verifier)
    expect(first.status).toBe(200)
    const tokens = await first.json()
    expect(await logsStatus(tokens.access_token)).toBe(200)
    expect(await mcpStatus(tokens.access_token)).toBe(200)

    // A refresh descends from the same code: its pair must die with it. The first refresh token is used up by it.
    const rotated = await (await refresh(clientId, tokens.refresh_token)).json()
    expect(rotated.access_token).toMatch(/^sift_sk_/)
    expect(await logsStatus(rotated.access_token)).toBe(200)

    // Another grant of the same person and client stands apart.
    const other = await authorizeByHand("api.read", who)
    const otherCode = new URL(other.decision.headers.get("location")!).searchParams.get("code")!
    const otherTokens = await (await exchange(other.clientId, otherCode, other.verifier)).json()
    expect(await logsStatus(otherTokens.access_token)).toBe(200)

    const replay = await exchange(clientId, code, verifier)
    expect(replay.status).toBe(400)
    expect(await replay.json()).toMatchObject({ error: "invalid_grant" })
    // At once, not after the key cache's CACHE_MS: the revocation forgets remembered lookups.
    expect(await logsStatus(tokens.access_token)).toBe(401)
    expect(await mcpStatus(tokens.access_token)).toBe(401)
    expect(await logsStatus(rotated.access_token)).toBe(401)
    expect(await mcpStatus(rotated.access_token)).toBe(401)
    const refused = await refresh(clientId, rotated.refresh_token)
    expect(refused.status).toBe(400)
    expect((await refused.json()).error).toBe("invalid_grant")
    const keys = await service.run(Effect.flatMap(Auth.ApiKeys.ApiKeys, (k) => k.list(who.orgId)))
    expect(keys.filter((key) => key.name === "MCP: Hand" && key.revokedAt !== null)).toHaveLength(2)

    // The other grant still works, and refreshes.
    expect(await logsStatus(otherTokens.access_token)).toBe(200)
    expect(await mcpStatus(otherTokens.access_token)).toBe(200)
    expect((await refresh(other.clientId, otherTokens.refresh_token)).status).toBe(200)
  }, 60_000)

  it("a read-only token lists tools and reads, but its key cannot write; sign-in needs the right password and a verified email", async () => {
    const full = await person()
    const { clientId, verifier, decision } = await authorizeByHand("api.read", full)
    expect(decision.status).toBe(302)
    const code = new URL(decision.headers.get("location")!).searchParams.get("code")!
    const tokens = await (await fetch(`${origin}/oauth2/token`, {
      method: "POST",
      body: new URLSearchParams({ grant_type: "authorization_code", code, code_verifier: verifier, client_id: clientId, redirect_uri: callbackUrl })
    })).json()
    expect(tokens.scope).toBe("api.read")
    const keys = await service.run(Effect.flatMap(Auth.ApiKeys.ApiKeys, (k) => k.list(full.orgId)))
    const issued = keys.find((key) => key.name === "MCP: Hand")!
    expect(issued.permissions).not.toContain("monitors:write")
    expect(issued.permissions).toEqual(expect.arrayContaining(["data:execute", "logs:read", "monitors:read"]))
    expect(issued.expiresAt!.getTime()).toBeGreaterThan(Date.now() + 3500_000)

    const client = new Client({ name: "reader", version: "1.0.0" })
    await client.connect(new StreamableHTTPClientTransport(new URL(`${origin}/mcp`), { requestInit: { headers: { authorization: `Bearer ${tokens.access_token}` } } }))
    try {
      const listed = await client.callTool({ name: "logs", arguments: {} }) as ToolResult
      expect(listed.isError).toBe(false)
    } finally {
      await client.close()
    }

    // A wrong password, or an account whose email is not verified yet, gets the page again with the reason; no code.
    const refused = await authorizeByHand("api.read api.write", { email: full.email, password: "wrong-password" })
    expect(refused.decision.status).toBe(401)
    expect(await refused.decision.text()).toContain("The email or password is not right")
    const unverified = await authorizeByHand("api.read", await person({ verified: false }))
    expect(unverified.decision.status).toBe(401)
    expect(await unverified.decision.text()).toContain("Verify your email address first")

    // PKCE is S256 only: plain is sent back to the client as invalid_request.
    const plain = await authorizeByHand("api.read", full, "plain")
    expect(plain.decision.status).toBe(302)
    const location = new URL(plain.decision.headers.get("location")!)
    expect(location.searchParams.get("error")).toBe("invalid_request")
    expect(location.searchParams.get("code")).toBeNull()

    // A wrong verifier is refused.
    const other = await authorizeByHand("api.read", full)
    const otherCode = new URL(other.decision.headers.get("location")!).searchParams.get("code")!
    const wrong = await fetch(`${origin}/oauth2/token`, {
      method: "POST",
      body: new URLSearchParams({ grant_type: "authorization_code", code: otherCode, code_verifier: randomBytes(32).toString("base64url"), client_id: other.clientId })
    })
    expect(wrong.status).toBe(400)
    expect((await wrong.json()).error).toBe("invalid_grant")
  }, 60_000)

  it("scopes are enforced per tool: a read-only caller cannot call a write tool, which never reaches the API", async () => {
    const calls: Array<Tools.InternalRequest> = []
    const writeTool = Tools.tools.find((tool) => tool.name === "monitors_create")!
    expect(writeTool.scope).toBe("api.write")
    const dispatch: Tools.Dispatch = async (request) => {
      calls.push(request)
      return { status: 200, body: { ok: true } }
    }
    for (const [scopes, expectRefused] of [[["api.read"], true], [["api.read", "api.write"], false]] as const) {
      const server = ToolServer.make(dispatch, scopes, Tools.tools)
      const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
      await server.connect(serverSide)
      const client = new Client({ name: "scope", version: "1.0.0" })
      await client.connect(clientSide)
      const listed = await client.listTools()
      expect(listed.tools.find((tool) => tool.name === "monitors_create")!.annotations?.readOnlyHint).toBe(false)
      expect(listed.tools.find((tool) => tool.name === "scrape_markdown")!.annotations?.readOnlyHint).toBe(true)
      const result = await client.callTool({
        name: "monitors_create",
        arguments: { name: "Docs", target: { type: "page", url: "https://example.com" } }
      }) as ToolResult
      if (expectRefused) {
        expect(result.isError).toBe(true)
        expect(result.structuredContent).toMatchObject({ error_code: "INSUFFICIENT_SCOPE", required_scope: "api.write" })
        expect(calls).toHaveLength(0)
      } else {
        expect(result.isError).toBe(false)
        expect(calls).toEqual([{ method: "POST", path: "/v1/monitors", body: { name: "Docs", target: { type: "page", url: "https://example.com" } } }])
      }
      await client.close()
    }
  })
})
