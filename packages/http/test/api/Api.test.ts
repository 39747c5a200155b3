import * as SqlClient from "@effect/sql/SqlClient"
import * as Auth from "@sift/auth"
import ContextDev from "context.dev"
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest"
import * as FixtureSite from "../../../core/test/support/FixtureSite.js"
import * as TestService from "../support/TestService.js"

const page = `<!doctype html><html lang="en"><head><title>Lanterns | Shop</title></head><body>
<nav><h2>Menu</h2><a href="/">Home</a></nav>
<main><h1>Brass lanterns</h1><p>Our <a href="/brass">brass lantern</a> burns for twelve hours on one fill of oil.</p>
<div class="promo">Sale ends Friday</div><h2>Care</h2><p>Polish monthly.</p></main>
<footer>Imprint</footer></body></html>`

const backends = [
  { name: "pglite", url: undefined as string | undefined },
  { name: "postgres", url: inject("databaseUrl") ?? undefined }
]

for (const backend of backends) {
  describe.skipIf(backend.name === "postgres" && backend.url === undefined)(`API over HTTP (${backend.name})`, () => {
    let service: TestService.TestService
    let site: FixtureSite.Site
    beforeAll(async () => {
      site = await FixtureSite.start({
        "/": FixtureSite.html(page),
        "/other": FixtureSite.html("<p>Other page with some words.</p>"),
        "/missing": FixtureSite.status(404),
        "/doc.pdf": FixtureSite.html("%PDF-1.4\n%\u00e2\u00e3\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n", { contentType: "application/pdf" }),
        "/slow": FixtureSite.slow({ headersAfterMs: 5_000 })
      })
      service = await TestService.start({ databaseUrl: backend.url })
    })
    afterAll(async () => {
      await service?.close()
      await site?.close()
    })

    const call = (secret: string | undefined, path: string, init: RequestInit = {}) =>
      fetch(`${service.baseUrl}${path}`, {
        ...init,
        headers: { ...(secret === undefined ? {} : { authorization: `Bearer ${secret}` }), "content-type": "application/json", ...init.headers }
      })
    const balance = (orgId: string) => service.run(Effect.flatMap(Auth.CreditLedger.CreditLedger, (l) => l.balance(orgId)))

    it("the official SDK scrapes Markdown, HTML and bytes through Sift, with its own query encoding", async () => {
      const { secret } = await service.key()
      const client = new ContextDev({ apiKey: secret, baseURL: service.baseUrl, maxRetries: 0 })
      const md = await client.web.webScrapeMd({
        url: `${site.url}/`,
        useMainContentOnly: true,
        excludeSelectors: [".promo", "footer"],
        timeoutOpts: { milliseconds: 20_000 },
        tags: ["sdk", "markdown"]
      } as never) as unknown as Record<string, any>
      expect(md.success).toBe(true)
      expect(md.markdown).toContain("# Brass lanterns")
      expect(md.markdown).toContain(`[brass lantern](${site.url}/brass)`)
      expect(md.markdown).not.toContain("Sale ends Friday")
      expect(md.markdown).not.toContain("Imprint")
      expect(md.contentLength).toBe(Buffer.byteLength(md.markdown, "utf8"))
      expect(md.metadata.headings.map((h: { text: string }) => h.text)).toEqual(["Menu", "Brass lanterns", "Care"])
      expect(md.cache_metadata).toEqual({ status: "miss", age_ms: 0 })
      expect(md.key_metadata.credits_consumed).toBe(1)

      const again = await client.web.webScrapeMd({ url: `${site.url}/` } as never) as unknown as Record<string, any>
      expect(again.cache_metadata.status).toBe("hit")
      expect(again.key_metadata.credits_consumed).toBe(1)

      const html = await client.web.webScrapeHTML({ url: `${site.url}/`, includeSelectors: ["main"] } as never) as unknown as Record<string, any>
      expect(html.html).toContain("<h1>Brass lanterns</h1>")
      expect(html.html).not.toContain("Imprint")
      expect(html.type).toBe("html")

      const bytes = await client.web.webScrapeBytes({ url: `${site.url}/` } as never) as unknown as Record<string, any>
      expect(Buffer.from(bytes.bytes, "base64").toString("utf8")).toBe(page)
      expect(bytes.statusCode).toBe(200)
      expect(bytes.contentType).toContain("text/html")
    })

    it("POST /web/scrape returns all six outputs, charges one credit and reports it", async () => {
      const { orgId, secret } = await service.key()
      const before = (await balance(orgId)).remaining
      const response = await call(secret, "/web/scrape", {
        method: "POST",
        body: JSON.stringify({
          url: `${site.url}/`,
          formats: { markdown: true, bytes: true, parse: true },
          parseParams: { rules: { title: "h1" } },
          maxAgeMs: 0
        })
      })
      expect(response.status).toBe(200)
      const body = await response.json() as Record<string, any>
      expect(body.request_id).toBe(response.headers.get("x-request-id"))
      expect(body.markdown.data).toContain("# Brass lanterns")
      expect(body.parsed.data).toEqual({ title: "Brass lanterns" })
      expect(body.html).toEqual({ requested: false, data: null })
      expect(body.key_metadata).toEqual({ credits_consumed: 1, credits_remaining: before - 1 })
      expect(Number(response.headers.get("x-ratelimit-limit"))).toBeGreaterThan(0)
      expect(Number(response.headers.get("x-ratelimit-reset"))).toBeGreaterThan(Date.now() / 1000 - 1)
      expect((await balance(orgId)).remaining).toBe(before - 1)
    })

    it("every error carries its code, request_id = X-Request-Id, and charges nothing", async () => {
      const { orgId, secret } = await service.key({ plan: "free" })
      const logsOnly = await service.key({ permissions: ["logs:read"] })
      const before = (await balance(orgId)).remaining
      const cases: Array<readonly [string, Promise<Response>, number, string, ((body: any) => void)?]> = [
        ["no key", call(undefined, "/web/scrape/markdown?url=" + encodeURIComponent(`${site.url}/`)), 401, "UNAUTHORIZED"],
        ["unknown key", call("sift_sk_" + "a".repeat(40), "/web/scrape/markdown?url=x"), 401, "UNAUTHORIZED"],
        ["bad url", call(secret, "/web/scrape/markdown?url=ftp://x"), 400, "INPUT_VALIDATION_ERROR", (b) => expect(b.message).toMatch(/^url: /)],
        ["malformed JSON", call(secret, "/web/scrape", { method: "POST", body: "{nope" }), 400, "INPUT_VALIDATION_ERROR"],
        ["unknown member", call(secret, "/web/scrape", { method: "POST", body: JSON.stringify({ url: `${site.url}/`, formats: { markdown: true }, colour: 1 }) }), 400, "INPUT_VALIDATION_ERROR", (b) => expect(b.message).toContain("colour")],
        ["bad selector list size", call(secret, `/web/scrape/markdown?url=${encodeURIComponent(site.url)}&includeSelectors=${encodeURIComponent(JSON.stringify(Array(51).fill("p")))}`), 400, "INPUT_VALIDATION_ERROR", (b) => expect(b.message).toMatch(/^includeSelectors/)],
        ["wait too long for timeout", call(secret, `/web/scrape/markdown?url=${encodeURIComponent(site.url)}&waitForMs=5000&timeoutMS=12000`), 400, "TIMEOUT_TOO_SHORT_FOR_WAIT"],
        ["timeout over maximum", call(secret, `/web/scrape/markdown?url=${encodeURIComponent(site.url)}&timeoutMS=300001`), 400, "TIMEOUT_EXCEEDS_MAXIMUM"],
        ["target 404", call(secret, `/web/scrape/markdown?url=${encodeURIComponent(site.url + "/missing")}`), 400, "WEBSITE_ACCESS_ERROR", (b) => expect(b.message).toContain("404")],
        ["deadline", call(secret, `/web/scrape/markdown?url=${encodeURIComponent(site.url + "/slow")}&timeoutMS=500`), 408, "REQUEST_TIMEOUT"],
        ["zdr not enabled", call(secret, `/web/scrape/markdown?url=${encodeURIComponent(site.url)}&zdr=enabled`), 403, "ZDR_NOT_ENABLED"],
        ["actions on free plan", call(secret, `/web/scrape/markdown?url=${encodeURIComponent(site.url)}&actions=${encodeURIComponent(JSON.stringify([{ do: "wait", timeMs: 10 }]))}`), 403, "PAID_PLAN_REQUIRED"],
        ["missing permission", call(logsOnly.secret, `/web/scrape/markdown?url=${encodeURIComponent(site.url)}`), 403, "INSUFFICIENT_PERMISSIONS", (b) => expect(b.required_permission).toBe("data:execute")],
        ["pdf not to be parsed", call(secret, `/web/scrape/markdown?url=${encodeURIComponent(site.url + "/doc.pdf")}&pdf[shouldParse]=false`), 400, "PDF_SKIPPED"],
        ["unknown route", call(secret, "/web/nothing-here"), 404, "NOT_FOUND"],
        ["unknown log", call(secret, "/logs/00000000-0000-4000-8000-000000000000"), 404, "NOT_FOUND"]
      ]
      for (const [name, pending, status, code, check] of cases) {
        const response = await pending
        const body = await response.json() as Record<string, any>
        expect({ name, status: response.status, code: body.error_code }).toEqual({ name, status, code })
        expect(body.request_id).toBe(response.headers.get("x-request-id"))
        expect(typeof body.message).toBe("string")
        if (body.key_metadata !== undefined) expect(body.key_metadata.credits_consumed).toBe(0)
        check?.(body)
      }
      expect((await balance(orgId)).remaining).toBe(before)
    })

    it("200 concurrent scrapes with 100 credits: exactly 100 succeed and are charged, the rest USAGE_EXCEEDED", async () => {
      const { orgId, secret } = await service.key({ plan: "enterprise", credits: 100, requestsPerMinute: 10_000 })
      const responses = await Promise.all(Array.from({ length: 200 }, (_, i) =>
        call(secret, `/web/scrape/markdown?url=${encodeURIComponent(`${site.url}/other?n=${i % 7}`)}`)))
      const statuses = responses.map((r) => r.status)
      expect(statuses.filter((s) => s === 200)).toHaveLength(100)
      const refused = await Promise.all(responses.filter((r) => r.status !== 200).map((r) => r.json() as Promise<Record<string, any>>))
      expect(refused.every((b) => b.error_code === "USAGE_EXCEEDED")).toBe(true)
      expect((await balance(orgId)).remaining).toBe(0)
      // Filtered by path: the /logs calls are logged too, and would shift the second page.
      const logs = await call(secret, "/logs?limit=100&page=1&path=/web/scrape/markdown").then((r) => r.json()) as Record<string, any>
      const logs2 = await call(secret, "/logs?limit=100&page=2&path=/web/scrape/markdown").then((r) => r.json()) as Record<string, any>
      const entries = [...logs.data, ...logs2.data].filter((e: any) => e.path === "/v1/web/scrape/markdown")
      expect(entries).toHaveLength(200)
      expect(entries.filter((e: any) => e.credits_used === 1)).toHaveLength(100)
      expect(entries.filter((e: any) => e.error_code === "USAGE_EXCEEDED" && e.credits_used === 0)).toHaveLength(100)
    })

    it("rate limit: request 31 of a 30/min plan gets 429 with Retry-After and nothing charged", async () => {
      const { orgId, secret } = await service.key({ plan: "free" })
      const before = (await balance(orgId)).remaining
      const url = `/web/scrape/markdown?url=${encodeURIComponent(`${site.url}/other`)}&zdr=disabled`
      for (let i = 0; i < 30; i++) expect((await call(secret, url)).status).toBe(200)
      const limited = await call(secret, url)
      expect(limited.status).toBe(429)
      const retryAfter = Number(limited.headers.get("retry-after"))
      expect(retryAfter).toBeGreaterThanOrEqual(1)
      expect(retryAfter).toBeLessThanOrEqual(60)
      expect(limited.headers.get("x-ratelimit-remaining")).toBe("0")
      const body = await limited.json() as Record<string, any>
      expect(body.error_code).toBe("RATE_LIMITED")
      expect(body.key_metadata.credits_consumed).toBe(0)
      expect((await balance(orgId)).remaining).toBe(before - 30)
      // The logs have their own window.
      expect((await call(secret, "/logs")).status).toBe(200)
    })

    it("rate limit: the refusal wins over validation and usage errors (the hit overlaps them on PostgreSQL), releases what it overlapped, and logs no plan", async () => {
      const url = `/web/scrape/markdown?url=${encodeURIComponent(`${site.url}/other`)}`
      const held = (orgId: string) =>
        service.run(Effect.flatMap(SqlClient.SqlClient, (sql) => sql<{ n: string | number }>`SELECT count(*) AS n FROM credit_reservations WHERE org_id = ${orgId}`))
          .then((rows) => Number(rows[0]!.n))
      // A request that would fail validation: 429 first, as when the hit was counted before anything else.
      const invalid = await service.key({ requestsPerMinute: 1 })
      expect((await call(invalid.secret, url)).status).toBe(200)
      const bad = await call(invalid.secret, "/web/scrape/markdown?url=ftp://bad")
      expect(bad.status).toBe(429)
      expect(((await bad.json()) as Record<string, any>).error_code).toBe("RATE_LIMITED")
      // One whose credits are gone: 429, not USAGE_EXCEEDED.
      const spent = await service.key({ requestsPerMinute: 1, credits: 1 })
      expect((await call(spent.secret, url)).status).toBe(200)
      const broke = await call(spent.secret, url)
      expect(broke.status).toBe(429)
      expect(((await broke.json()) as Record<string, any>).error_code).toBe("RATE_LIMITED")
      // A valid one: its reservation (made while the hit was counted) is released, nothing is charged or left held.
      const valid = await service.key({ requestsPerMinute: 1, credits: 5 })
      expect((await call(valid.secret, url)).status).toBe(200)
      const refused = await call(valid.secret, `${url}&tags=alpha`)
      expect(refused.status).toBe(429)
      const body = await refused.json() as Record<string, any>
      expect(body.key_metadata).toEqual({ credits_consumed: 0, credits_remaining: 4 })
      expect((await balance(valid.orgId)).remaining).toBe(4)
      expect(await held(valid.orgId)).toBe(0)
      // Refused again in the same window (counted first now): the same answer.
      const again = await call(valid.secret, url)
      expect(again.status).toBe(429)
      expect((await balance(valid.orgId)).remaining).toBe(4)
      expect(await held(valid.orgId)).toBe(0)
      // The 429 is logged as before: without the tags its plan would have given.
      const logged = await call(valid.secret, `/logs/${refused.headers.get("x-request-id")}`).then((r) => r.json()) as Record<string, any>
      expect(logged.data.status_code).toBe(429)
      expect(logged.data.tags).toEqual([])
    })

    it("logs: filters, newest first, isolation between organizations, ZDR keeps nothing", async () => {
      const mine = await service.key({ zdr: true })
      const theirs = await service.key()
      const target = encodeURIComponent(`${site.url}/other`)
      await call(mine.secret, `/web/scrape/markdown?url=${target}&tags=alpha,beta`)
      await call(mine.secret, `/web/scrape/markdown?url=${target}&tags=gamma&includeSelectors=SecretNeedle`)
      await call(mine.secret, `/web/scrape/markdown?url=ftp://bad`)
      await call(mine.secret, `/web/scrape/markdown?url=${target}&zdr=enabled&tags=hidden`)
      await call(mine.secret, "/web/scrape", { method: "POST", body: JSON.stringify({ url: `${site.url}/other`, formats: { html: true }, tags: ["post"] }) })
      await call(theirs.secret, `/web/scrape/markdown?url=${target}&tags=alpha`)
      const list = async (query: string, secret = mine.secret) => (await call(secret, `/logs${query}`).then((r) => r.json()) as any).data as Array<any>

      const all = await list("")
      expect(all).toHaveLength(5)
      expect(all.map((e) => Date.parse(e.timestamp))).toEqual([...all.map((e) => Date.parse(e.timestamp))].sort((a, b) => b - a))
      expect(all.every((e) => e.key_id === mine.keyId)).toBe(true)
      expect((await list("?tags=alpha,post")).map((e) => e.tags)).toEqual(expect.arrayContaining([["alpha", "beta"], ["post"]]))
      expect(await list("?tags=alpha,post")).toHaveLength(2)
      expect(await list("?path=/web/scrape")).toHaveLength(1)
      expect(await list("?path=/v1/web/scrape")).toHaveLength(1)
      expect(await list("?errors_only=true")).toHaveLength(1)
      expect(await list("?error_code=INPUT_VALIDATION_ERROR")).toHaveLength(1)
      // The /logs calls themselves are logged too: count the scrapes only.
      expect(await list("?status_code=200&path=/web/scrape/markdown")).toHaveLength(3)
      expect((await list("?path=/logs")).length).toBeGreaterThan(5)
      expect(await list("?search=secretneedle")).toHaveLength(1)
      expect(await list(`?key_id=${theirs.keyId}`)).toHaveLength(0)
      expect(await list("?limit=3&page=2&path=/web/scrape/markdown")).toHaveLength(1)
      expect(await list(`?from=${new Date(Date.now() + 60_000).toISOString()}&to=${new Date(Date.now() + 120_000).toISOString()}`)).toHaveLength(0)
      const zdr = all.find((e) => e.zdr === true)
      expect(zdr.tags).toEqual([])
      const detail = await call(mine.secret, `/logs/${zdr.request_id}`).then((r) => r.json()) as any
      expect(detail.data.input).toBeNull()
      expect(detail.data.response).toBeNull()
      const normal = all.find((e) => e.tags.includes("gamma"))
      const full = await call(mine.secret, `/logs/${normal.request_id}`).then((r) => r.json()) as any
      expect(full.data.input.query.includeSelectors).toBe("SecretNeedle")
      expect(JSON.stringify(full.data)).not.toContain(mine.secret)
      // Another organization cannot see it.
      expect((await call(theirs.secret, `/logs/${normal.request_id}`)).status).toBe(404)
      expect(await list("?path=/web/scrape/markdown", theirs.secret)).toHaveLength(1)
      const bad = await call(mine.secret, "/logs?limit=101")
      expect(bad.status).toBe(400)
    })

    it("POST /parse converts uploaded bytes, reports the type, charges 1; refuses unknown types and oversize bodies", async () => {
      const { orgId, secret } = await service.key()
      const before = (await balance(orgId)).remaining
      const csv = "name;price\nLantern;12,50\nWick;1,00\n"
      const ok = await call(secret, "/parse?extension=csv&tags=upload", { method: "POST", body: csv, headers: { "content-type": "text/csv" } })
      const body = await ok.json() as Record<string, any>
      expect(ok.status).toBe(200)
      expect(body.type).toBe("csv")
      expect(body.markdown).toMatch(/\| name\s*\| price\s*\|/)
      expect(body.markdown).toContain("Lantern")
      expect(ok.headers.get("x-parse-ocr-used")).toBe("false")
      expect(body.key_metadata.credits_consumed).toBe(1)
      const unknown = await call(secret, "/parse", { method: "POST", body: new Uint8Array([0, 159, 146, 150, 7, 1, 2, 3]), headers: { "content-type": "application/octet-stream" } })
      expect(unknown.status).toBe(415)
      expect(((await unknown.json()) as any).error_code).toBe("UNSUPPORTED_CONTENT")
      const huge = await call(secret, "/parse?extension=txt", { method: "POST", body: new Uint8Array(25 * 1024 * 1024 + 1), headers: { "content-type": "text/plain" } })
      expect(huge.status).toBe(413)
      expect(((await huge.json()) as any).error_code).toBe("CONTENT_TOO_LARGE")
      expect((await balance(orgId)).remaining).toBe(before - 1)
    })

    it("serves the OpenAPI document generated from the schemas", async () => {
      const doc = await fetch(`${service.baseUrl}/openapi.json`).then((r) => r.json()) as any
      expect(doc.openapi).toBe("3.1.0")
      expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(["/web/scrape", "/web/scrape/markdown", "/logs"]))
      expect(JSON.stringify(doc.paths["/web/scrape"].post.requestBody)).toContain("mainContentOnly")
    })
  })
}
