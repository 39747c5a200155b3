import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import * as Auth from "@sift/auth"
import ContextDev from "context.dev"
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as DesignSite from "../../../core/test/support/DesignSite.js"
import * as FixtureSite from "../../../core/test/support/FixtureSite.js"
import * as TestService from "../support/TestService.js"

// The design fixture (accent #ff5500, a self-hosted hashed family, a Google Fonts link, buttons, cards, a dark block),
// read by real Chromium through the official SDK. "blocked.test" stands for a private address (the browser's guard
// refuses it; it maps to the fixture site); "gone.test" does not resolve.
describe("styleguide and fonts endpoints (pglite, Chromium, official SDK)", { timeout: 120_000 }, () => {
  let service: TestService.TestService
  let site: FixtureSite.Site
  beforeAll(async () => {
    site = await FixtureSite.start(DesignSite.routes())
    service = await TestService.start({
      browser: true,
      hostRules: "MAP blocked.test 127.0.0.1, MAP gone.test ~NOTFOUND",
      browserAddressPolicy: (_ip, host) => !host.endsWith("blocked.test")
    })
  }, 60_000)
  afterAll(async () => {
    await service?.close()
    await site?.close()
  })
  const balance = (orgId: string) => service.run(Effect.flatMap(Auth.CreditLedger.CreditLedger, (l) => l.balance(orgId))).then((b) => b.remaining)
  const clientFor = (secret: string) => new ContextDev({ apiKey: secret, baseURL: service.baseUrl, maxRetries: 0 })

  it("extractStyleguide: exact colors, typography, buttons, card and font links; a repeat is a cache hit for 1 credit; maxAgeMs 0 reads fresh", async () => {
    const { orgId, secret } = await service.key()
    const client = clientFor(secret)
    const before = await balance(orgId)
    const home = await client.web.extractStyleguide({ directUrl: `${site.url}/`, tags: ["design"] })
    const guide = home.styleguide!
    expect([home.status, home.code, home.domain, home.finalDOMState]).toEqual(["ok", 200, "127.0.0.1", "loaded"])
    expect(home.cache_metadata).toEqual({ status: "miss", age_ms: 0 })
    expect(home.key_metadata?.credits_consumed).toBe(1)
    expect(guide.colors).toEqual({ accent: "#ff5500", background: "#ffffff", text: "#1a1a1a" })
    expect(guide.mode).toBe("light")
    expect(guide.typography.headings.h1).toEqual({
      fontFamily: "Playfair Display", fontFallbacks: ["Playfair Display", "Georgia", "serif"], fontSize: "48px", fontWeight: 700, lineHeight: "56px", letterSpacing: "-1px"
    })
    expect(guide.typography.p?.fontFamily).toBe("BrandSans_4f2a9c1e")
    expect(guide.components.button.primary).toMatchObject({ backgroundColor: "#ff5500", color: "#ffffff", borderRadius: "8px", padding: "12px 24px", fontWeight: 600, minHeight: "48px", minWidth: "160px" })
    expect(guide.components.button.secondary).toMatchObject({ borderColor: "#cccccc", borderStyle: "solid", borderWidth: "1px", color: "#1a1a1a" })
    expect(guide.components.button.link).toMatchObject({ color: "#ff5500", textDecoration: "underline" })
    expect(guide.components.card).toMatchObject({ backgroundColor: "#ffffff", borderColor: "#e5e5e5", borderRadius: "12px", padding: "24px", boxShadow: "rgba(0, 0, 0, 0.1) 0px 4px 12px 0px" })
    expect(guide.shadows.inner).toBe("rgba(0, 0, 0, 0.2) 0px 1px 2px 0px inset")
    expect(guide.elementSpacing).toEqual({ xs: "8px", sm: "12px", md: "16px", lg: "24px", xl: "24px" })
    expect(guide.fontLinks["BrandSans_4f2a9c1e"]).toEqual({
      type: "custom", displayName: "Brand Sans",
      files: { "400": `${site.url}/fonts/brand-sans-400.ttf`, "700": `${site.url}/fonts/brand-sans-700.ttf` }
    })
    expect(guide.fontLinks["Playfair Display"]).toEqual({
      type: "google", category: "serif",
      files: {
        "400": "https://fonts.googleapis.com/css2?family=Playfair+Display:wght@400&display=swap",
        "700": "https://fonts.googleapis.com/css2?family=Playfair+Display:wght@700&display=swap"
      }
    })
    const pagesRead = site.exchanges.filter((e) => e.path === "/").length
    const again = await client.web.extractStyleguide({ directUrl: `${site.url}/` })
    expect(again.cache_metadata.status).toBe("hit")
    expect(again.cache_metadata.age_ms).toBeGreaterThanOrEqual(0)
    expect(again.styleguide).toEqual(guide)
    expect(again.key_metadata?.credits_consumed).toBe(1)
    expect(site.exchanges.filter((e) => e.path === "/").length).toBe(pagesRead)
    const fresh = await client.web.extractStyleguide({ directUrl: `${site.url}/`, maxAgeMs: 0 })
    expect(fresh.cache_metadata.status).toBe("miss")
    expect(site.exchanges.filter((e) => e.path === "/").length).toBe(pagesRead + 1)
    // Negative and over-a-year maxAgeMs are clamped, not refused.
    expect((await client.web.extractStyleguide({ directUrl: `${site.url}/`, maxAgeMs: -5 })).cache_metadata.status).toBe("miss")
    expect((await client.web.extractStyleguide({ directUrl: `${site.url}/`, maxAgeMs: 99_999_999_999 })).cache_metadata.status).toBe("hit")
    expect(await balance(orgId)).toBe(before - 5)
  })

  it("colorScheme dark is emulated and keyed apart from light", async () => {
    const { secret } = await service.key()
    const client = clientFor(secret)
    await client.web.extractStyleguide({ directUrl: `${site.url}/` })
    const dark = await client.web.extractStyleguide({ directUrl: `${site.url}/`, colorScheme: "dark" })
    expect(dark.cache_metadata.status).toBe("miss")
    expect(dark.styleguide?.colors).toEqual({ accent: "#ff5500", background: "#0f1115", text: "#f2f2f2" })
    expect(dark.styleguide?.mode).toBe("dark")
    const darkAgain = await client.web.extractStyleguide({ directUrl: `${site.url}/`, colorScheme: "dark" })
    expect([darkAgain.cache_metadata.status, darkAgain.styleguide?.mode]).toEqual(["hit", "dark"])
  })

  it("extractFonts: families with element and word counts, shares, fallbacks, uses and files, for 1 credit", async () => {
    const { orgId, secret } = await service.key()
    const client = clientFor(secret)
    const before = await balance(orgId)
    const body = await client.web.extractFonts({ directUrl: `${site.url}/` })
    expect([body.status, body.code, body.domain]).toEqual(["ok", 200, "127.0.0.1"])
    expect(body.fonts).toEqual([
      { font: "BrandSans_4f2a9c1e", fallbacks: ["Arial", "sans-serif"], num_elements: 10, num_words: 43, percent_elements: 66.67, percent_words: 78.18, uses: ["a", "button", "p"] },
      { font: "Playfair Display", fallbacks: ["Georgia", "serif"], num_elements: 4, num_words: 9, percent_elements: 26.67, percent_words: 16.36, uses: ["h1", "h2", "h3", "h4"] },
      { font: "Courier New", fallbacks: ["monospace"], num_elements: 1, num_words: 3, percent_elements: 6.67, percent_words: 5.45, uses: ["code"] }
    ])
    expect(Object.keys(body.fontLinks ?? {}).sort()).toEqual(["BrandSans_4f2a9c1e", "Playfair Display"])
    expect(body.fontLinks?.["Playfair Display"]?.category).toBe("serif")
    expect(body.key_metadata?.credits_consumed).toBe(1)
    expect(await balance(orgId)).toBe(before - 1)
  })

  it("zdr: the cache is neither read nor written, and the answer says so", async () => {
    const { secret } = await service.key({ zdr: true })
    const response = await fetch(`${service.baseUrl}/web/styleguide?directUrl=${encodeURIComponent(`${site.url}/?zdr`)}&zdr=enabled`, { headers: { authorization: `Bearer ${secret}` } })
    const body = await response.json() as any
    expect(response.status).toBe(200)
    expect(response.headers.get("x-service-zdr")).toBe("true")
    expect(body.cache_metadata).toEqual({ status: "zdr", age_ms: 0 })
    const client = clientFor(secret)
    expect((await client.web.extractStyleguide({ directUrl: `${site.url}/?zdr` })).cache_metadata.status).toBe("miss")
  })

  it("timeoutOpts: return-partial reads a page still streaming (charged, not cached); fail is 408 uncharged", async () => {
    // The design arrives at once; the document ends only 16 s later, so the page never finishes loading in time.
    site.route("/streaming", FixtureSite.slow({ chunks: [DesignSite.home, "<p>late words</p>", "<p>later</p>"], intervalMs: 8_000 }))
    const { orgId, secret } = await service.key()
    const client = clientFor(secret)
    // The browser starts on first use: started here, so the deadlines below measure the pages, not its launch.
    await client.web.extractFonts({ directUrl: `${site.url}/` })
    const before = await balance(orgId)
    const partial = await client.web.extractStyleguide({ directUrl: `${site.url}/streaming`, timeoutOpts: { milliseconds: 6_000, behavior: "return-partial" } })
    expect(partial.finalDOMState).toBe("still-loading")
    expect(partial.styleguide?.colors.accent).toBe("#ff5500")
    expect(partial.key_metadata?.credits_consumed).toBe(1)
    const response = await fetch(`${service.baseUrl}/web/styleguide?directUrl=${encodeURIComponent(`${site.url}/streaming`)}&timeoutOpts[milliseconds]=3000`, {
      headers: { authorization: `Bearer ${secret}` }
    })
    const failed = await response.json() as any
    // Had the partial read been cached, this would be a hit, not a timeout.
    expect([response.status, failed.error_code, failed.key_metadata?.credits_consumed ?? 0]).toEqual([408, "REQUEST_TIMEOUT", 0])
    // A page that has shown no text by the deadline (its head arrived, its body not yet) has no partial result: 408, uncharged.
    site.route("/silent", FixtureSite.slow({ chunks: ["<!doctype html><html><head><title>Soon</title>", "</head><body><p>Late text</p></body></html>"], intervalMs: 20_000 }))
    const silent = await fetch(`${service.baseUrl}/web/fonts?directUrl=${encodeURIComponent(`${site.url}/silent`)}&timeoutOpts[milliseconds]=5000&timeoutOpts[behavior]=return-partial`, {
      headers: { authorization: `Bearer ${secret}` }
    })
    const silentBody = await silent.json() as any
    expect([silent.status, silentBody.error_code, silentBody.key_metadata?.credits_consumed ?? 0]).toEqual([408, "REQUEST_TIMEOUT", 0])
    expect(await balance(orgId)).toBe(before - 1)
  })

  it("MCP tools styleguide and fonts: the endpoints' answers, 1 credit each", async () => {
    const { orgId, secret } = await service.key()
    const client = new Client({ name: "sift-test", version: "1.0.0" })
    await client.connect(new StreamableHTTPClientTransport(new URL(`${service.baseUrl.replace(/\/v1$/, "")}/mcp`), { requestInit: { headers: { authorization: `Bearer ${secret}` } } }))
    try {
      const before = await balance(orgId)
      const names = (await client.listTools()).tools.map((tool) => tool.name)
      expect(names).toEqual(expect.arrayContaining(["styleguide", "fonts"]))
      const guide = await client.callTool({ name: "styleguide", arguments: { directUrl: `${site.url}/`, colorScheme: "dark", tags: ["mcp"] } }) as { isError?: boolean; structuredContent?: any }
      expect(guide.isError ?? false).toBe(false)
      expect(guide.structuredContent?.styleguide?.colors).toEqual({ accent: "#ff5500", background: "#0f1115", text: "#f2f2f2" })
      const fonts = await client.callTool({ name: "fonts", arguments: { directUrl: `${site.url}/` } }) as { isError?: boolean; structuredContent?: any }
      expect(fonts.structuredContent?.fonts?.map((font: any) => font.font)).toEqual(["BrandSans_4f2a9c1e", "Playfair Display", "Courier New"])
      const refused = await client.callTool({ name: "fonts", arguments: { directUrl: "not a url" } }) as { isError?: boolean; content: Array<{ text?: string }> }
      expect(refused.isError).toBe(true)
      expect(refused.content[0]?.text).toContain("INPUT_VALIDATION_ERROR")
      expect(await balance(orgId)).toBe(before - 2)
    } finally {
      await client.close()
    }
  })

  it("bad input and unreadable pages answer the contract's codes and charge nothing", async () => {
    const { orgId, secret } = await service.key()
    const before = await balance(orgId)
    const call = async (path: string) => {
      const response = await fetch(`${service.baseUrl}${path}`, { headers: { authorization: `Bearer ${secret}` } })
      const body = await response.json() as any
      return [response.status, body.error_code, body.key_metadata?.credits_consumed ?? 0]
    }
    const q = (url: string) => encodeURIComponent(url)
    expect(await call(`/web/styleguide`)).toEqual([400, "INPUT_VALIDATION_ERROR", 0])
    expect(await call(`/web/styleguide?domain=a.test&directUrl=${q(`${site.url}/`)}`)).toEqual([400, "INPUT_VALIDATION_ERROR", 0])
    expect(await call(`/web/fonts?directUrl=not%20a%20url`)).toEqual([400, "INPUT_VALIDATION_ERROR", 0])
    expect(await call(`/web/fonts?directUrl=${q("file:///etc/passwd")}`)).toEqual([400, "INPUT_VALIDATION_ERROR", 0])
    expect(await call(`/web/styleguide?domain=${q("not a domain")}`)).toEqual([400, "INPUT_VALIDATION_ERROR", 0])
    expect(await call(`/web/styleguide?directUrl=${q(`${site.url}/`)}&colorScheme=sepia`)).toEqual([400, "INPUT_VALIDATION_ERROR", 0])
    expect(await call(`/web/styleguide?directUrl=${q(`${site.url}/`)}&timeoutOpts[milliseconds]=4000&timeoutOpts[behavior]=return-partial`)).toEqual([400, "INPUT_VALIDATION_ERROR", 0])
    expect(await call(`/web/styleguide?directUrl=${q(`${site.url}/`)}&timeoutOpts[milliseconds]=300001`)).toEqual([400, "TIMEOUT_EXCEEDS_MAXIMUM", 0])
    expect(await call(`/web/styleguide?directUrl=${q(`http://blocked.test:${site.port}/`)}`)).toEqual([400, "WEBSITE_ACCESS_ERROR", 0])
    expect(await call(`/web/fonts?domain=gone.test`)).toEqual([400, "WEBSITE_NOT_FOUND", 0])
    expect(await call(`/web/styleguide?directUrl=${q(`${site.url}/missing`)}`)).toEqual([400, "WEBSITE_ACCESS_ERROR", 0])
    expect(await call(`/web/fonts?directUrl=${q(`${site.url}/challenge`)}`)).toEqual([400, "WEBSITE_BLOCKED", 0])
    expect(await balance(orgId)).toBe(before)
    // The SDK's own errors for the same: a bad request is an APIError with status 400.
    const client = clientFor(secret)
    await expect(client.web.extractStyleguide({})).rejects.toMatchObject({ status: 400 })
  })
})
