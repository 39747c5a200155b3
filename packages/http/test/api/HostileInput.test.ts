/**
 * Hostile request input through the real service (issue 16): oversized JSON bodies (declared and streamed), deep JSON
 * in bodies, queries and MCP tool arguments, request lines over Node's header limit. Each is refused with the
 * contract's error code and status, fast, uncharged, logged when the key was valid, and the service keeps serving.
 * Served on `sift serve`'s listener (the API front) and, for the body limits, also on the platform's Node server.
 */
import * as Auth from "@sift/auth"
import { Effect } from "effect"
import * as http from "node:http"
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest"
import * as TestService from "../support/TestService.js"

const MiB = 1024 * 1024

/** An answer: its status, headers and JSON body. */
interface Exchange {
  readonly status: number
  readonly headers: Headers | http.IncomingHttpHeaders
  readonly body: Record<string, any>
}

const start = `{"url":"http://example.test/","formats":{"html":true},"tags":["`

/**
 * Sends the first `sent` bytes of a JSON body (declared as `declared` bytes, or chunked when undefined), then waits
 * without ending the request for the answer: a server that reads the whole body before answering never answers, and
 * the test fails.
 */
const stall = (url: string, secret: string, declared: number | undefined, sent: number) =>
  new Promise<Exchange>((resolve, reject) => {
    const target = new URL(url)
    const request = http.request({
      host: target.hostname,
      port: target.port,
      path: target.pathname,
      method: "POST",
      headers: {
        authorization: `Bearer ${secret}`,
        "content-type": "application/json",
        ...(declared === undefined ? {} : { "content-length": String(declared) })
      },
      agent: false
    }, (response) => {
      const parts: Array<Buffer> = []
      response.on("data", (part: Buffer) => parts.push(part))
      response.on("end", () => {
        clearTimeout(timer)
        request.destroy()
        resolve({ status: response.statusCode ?? 0, headers: response.headers, body: JSON.parse(Buffer.concat(parts).toString("utf8")) })
      })
    })
    const timer = setTimeout(() => {
      request.destroy()
      reject(new Error(`no answer within 20 s after ${sent} bytes of the body (${declared ?? "chunked"})`))
    }, 20_000)
    request.on("error", reject)
    request.write(Buffer.concat([Buffer.from(start), Buffer.alloc(sent - start.length, "a")]))
  })

/** Streams a chunked JSON body of `total` bytes, 64 KiB at a time as the connection takes them, until answered. */
const streamed = async (url: string, secret: string, total: number): Promise<Exchange> => {
  let sent = 0
  let answered = false
  const filler = new Uint8Array(64 * 1024).fill(0x61)
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (answered || sent >= total) return controller.close()
      const chunk = sent === 0 ? new TextEncoder().encode(start) : filler.subarray(0, Math.min(filler.length, total - sent))
      sent += chunk.length
      controller.enqueue(chunk)
    }
  }, { highWaterMark: 0 })
  const response = await fetch(url, {
    method: "POST",
    headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" },
    body,
    duplex: "half",
    signal: AbortSignal.timeout(60_000)
  } as RequestInit)
  answered = true
  return { status: response.status, headers: response.headers, body: await response.json() as Record<string, any> }
}

/** A request whose target is `path` exactly, over a fresh connection; the raw answer. */
const rawGet = (base: string, path: string, secret: string) =>
  new Promise<{ status: number; headers: http.IncomingHttpHeaders; text: string }>((resolve, reject) => {
    const target = new URL(base)
    const request = http.request({ host: target.hostname, port: target.port, path, headers: { authorization: `Bearer ${secret}` }, agent: false }, (response) => {
      const parts: Array<Buffer> = []
      response.on("data", (part: Buffer) => parts.push(part))
      response.on("end", () => resolve({ status: response.statusCode ?? 0, headers: response.headers, text: Buffer.concat(parts).toString("utf8") }))
    })
    request.on("error", reject)
    request.end()
  })

const fronts = [
  { name: "listener, pglite", listener: true, url: undefined as string | undefined },
  { name: "listener, postgres", listener: true, url: inject("databaseUrl") ?? undefined },
  { name: "platform server, pglite", listener: false, url: undefined as string | undefined }
]

for (const front of fronts) {
  describe.skipIf(front.url === undefined && front.name.includes("postgres"))(`hostile input (${front.name})`, () => {
    let service: TestService.TestService
    beforeAll(async () => {
      // A browser is configured (launched on first use) as in production: a bad selector must never reach it.
      service = await TestService.start({ databaseUrl: front.url, listener: front.listener, browser: true })
    })
    afterAll(async () => {
      await service?.close()
    })

    const balance = (orgId: string) => service.run(Effect.flatMap(Auth.CreditLedger.CreditLedger, (ledger) => ledger.balance(orgId)))
    const logged = async (secret: string, requestId: string) => {
      const response = await fetch(`${service.baseUrl}/logs/${requestId}`, { headers: { authorization: `Bearer ${secret}` } })
      expect(response.status).toBe(200)
      return (await response.json() as { data: Record<string, any> }).data
    }
    const post = (secret: string, path: string, body: string) =>
      fetch(`${service.baseUrl}${path}`, { method: "POST", headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" }, body })

    it("a declared 3 MiB JSON body is refused with 413 before it is read, uncharged, logged; the connection closes", async () => {
      const { orgId, secret } = await service.key({ credits: 100 })
      // Only 64 KiB of the declared 3 MiB ever arrive: the answer comes on the declared length alone.
      const answer = await stall(`${service.baseUrl}/web/scrape`, secret, 3 * MiB, 64 * 1024)
      expect(answer.status).toBe(413)
      expect(answer.body).toMatchObject({ error_code: "CONTENT_TOO_LARGE", key_metadata: { credits_consumed: 0, credits_remaining: 100 } })
      expect(answer.body.message).toContain(String(2 * MiB))
      expect((answer.headers as http.IncomingHttpHeaders).connection).toBe("close")
      expect((await balance(orgId)).remaining).toBe(100)
      expect(await logged(secret, answer.body.request_id)).toMatchObject({ status_code: 413, error_code: "CONTENT_TOO_LARGE", credits_used: 0 })

      // The same through fetch, which sends the whole body: the client still gets the answer.
      const whole = await post(secret, "/web/scrape", `{"url":"http://example.test/","formats":{"html":true},"tags":["${"a".repeat(3 * MiB)}"]}`)
      expect(whole.status).toBe(413)
      expect((await whole.json() as Record<string, any>).error_code).toBe("CONTENT_TOO_LARGE")
    })

    it("a chunked body is cut off once past 2 MiB, without waiting for its end: 413, uncharged, logged", async () => {
      const { orgId, secret } = await service.key({ credits: 100 })
      // 3 MiB are sent and the body never ends: the answer comes once the cap is crossed.
      const answer = await stall(`${service.baseUrl}/web/scrape`, secret, undefined, 3 * MiB)
      expect(answer.status).toBe(413)
      expect(answer.body).toMatchObject({ error_code: "CONTENT_TOO_LARGE", key_metadata: { credits_consumed: 0, credits_remaining: 100 } })
      expect((answer.headers as http.IncomingHttpHeaders).connection).toBe("close")
      expect((await balance(orgId)).remaining).toBe(100)
      expect(await logged(secret, answer.body.request_id)).toMatchObject({ status_code: 413, error_code: "CONTENT_TOO_LARGE", credits_used: 0 })
    })

    it("a client streaming 50 MB gets the 413 (the connection lingers until it stops sending), and the service serves on", async () => {
      const { orgId, secret } = await service.key({ credits: 100 })
      const answer = await streamed(`${service.baseUrl}/web/scrape`, secret, 50_000_000)
      expect(answer.status).toBe(413)
      expect(answer.body.error_code).toBe("CONTENT_TOO_LARGE")
      expect((answer.headers as Headers).get("connection")).toBe("close")
      expect((await balance(orgId)).remaining).toBe(100)
      const after = await post(secret, "/web/scrape", "{}")
      expect(after.status).toBe(400)
    })

    it("a JSON body within the limit is still read whole, streamed or declared", async () => {
      const { secret } = await service.key()
      // 1.5 MiB of tags: read and validated (a tag over 50 characters), not refused for its size.
      const body = `{"url":"http://example.test/","formats":{"html":true},"tags":["${"a".repeat(1.5 * MiB)}"]}`
      const declared = await post(secret, "/web/scrape", body)
      expect(declared.status).toBe(400)
      expect((await declared.json() as Record<string, any>).message).toMatch(/^tags\[0\]/)
      const chunked = await fetch(`${service.baseUrl}/web/scrape`, {
        method: "POST",
        headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" },
        body: new Blob([body]).stream(),
        duplex: "half"
      } as RequestInit)
      expect(chunked.status).toBe(400)
      expect((await chunked.json() as Record<string, any>).message).toMatch(/^tags\[0\]/)
    })

    it("a 10 KB body nested 5,000 deep is a 400 naming the limit, with its request id and log row; 64 levels are read", async () => {
      const { orgId, secret } = await service.key({ credits: 100 })
      const deep = `{"url":"http://example.test/","formats":{"html":true},"tags":${"[".repeat(5_000)}${"]".repeat(5_000)}}`
      const response = await post(secret, "/web/scrape", deep)
      expect(response.status).toBe(400)
      const body = await response.json() as Record<string, any>
      expect(body).toMatchObject({ error_code: "INPUT_VALIDATION_ERROR", message: "body: nested deeper than 64 levels", key_metadata: { credits_consumed: 0 } })
      expect(response.headers.get("x-request-id")).toBe(body.request_id)
      expect(await logged(secret, body.request_id)).toMatchObject({ status_code: 400, error_code: "INPUT_VALIDATION_ERROR", credits_used: 0 })

      // Brackets inside strings do not count; 64 levels are parsed (and then refused by the schema, not the depth).
      const atLimit = `{"url":"http://example.test/","formats":{"html":true},"tags":["[[[[{{{{",${"[".repeat(62)}${"]".repeat(62)}]}`
      const read = await (await post(secret, "/web/scrape", atLimit)).json() as Record<string, any>
      expect(read.error_code).toBe("INPUT_VALIDATION_ERROR")
      expect(read.message).toMatch(/^tags\[1\]/)
      expect((await balance(orgId)).remaining).toBe(100)
    })

    it("deep JSON and deep brackets in a query are 400s naming the member, never a crash", async () => {
      const { secret } = await service.key()
      const get = async (path: string) => {
        const response = await fetch(`${service.baseUrl}${path}`, { headers: { authorization: `Bearer ${secret}` } })
        return { status: response.status, body: await response.json() as Record<string, any> }
      }
      const actions = await get(`/web/scrape/markdown?url=http://example.test/&actions=${"[".repeat(4_000)}${"]".repeat(4_000)}`)
      expect(actions).toMatchObject({ status: 400, body: { error_code: "INPUT_VALIDATION_ERROR", message: "actions: nested deeper than 64 levels" } })
      const timeout = await get(`/web/scrape/markdown?url=http://example.test/&timeoutOpts=${"{\"a\":".repeat(1_000)}1${"}".repeat(1_000)}`)
      expect(timeout).toMatchObject({ status: 400, body: { error_code: "INPUT_VALIDATION_ERROR", message: "timeoutOpts: nested deeper than 64 levels" } })
      for (const path of [`/web/scrape/markdown?url=http://example.test/&timeoutOpts${"[a]".repeat(4_000)}=1`, `/web/urls?domain=example.test&headers${"[a]".repeat(4_000)}=1`]) {
        const answer = await get(path)
        expect(answer.status).toBe(400)
        expect(answer.body.error_code).toBe("INPUT_VALIDATION_ERROR")
        expect(answer.body.message).toMatch(/^(timeoutOpts|headers)/)
      }
    })

    it("MCP: tool arguments nested thousands deep get the API's own error (code, message, log row), not a stack overflow", async () => {
      const { secret } = await service.key()
      const origin = service.baseUrl.replace(/\/v1$/, "")
      // Hand-written JSON-RPC: an SDK client cannot serialize arguments this deep itself.
      const call = async (name: string, args: string) => {
        const response = await fetch(`${origin}/mcp`, {
          method: "POST",
          headers: { authorization: `Bearer ${secret}`, "content-type": "application/json", accept: "application/json, text/event-stream" },
          body: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"${name}","arguments":${args}}}`
        })
        expect(response.status).toBe(200)
        return await response.json() as { result?: { isError: boolean; structuredContent: Record<string, any> }; error?: unknown }
      }
      const deep = `${"[".repeat(50_000)}${"]".repeat(50_000)}`
      const scraped = await call("scrape", `{"url":"http://example.test/","formats":{"html":true},"tags":${deep}}`)
      expect(scraped.error).toBeUndefined()
      expect(scraped.result?.isError).toBe(true)
      expect(scraped.result?.structuredContent).toMatchObject({ error_code: "INPUT_VALIDATION_ERROR", message: "body: nested deeper than 64 levels" })
      expect(await logged(secret, scraped.result!.structuredContent.request_id)).toMatchObject({ path: "/v1/web/scrape", error_code: "INPUT_VALIDATION_ERROR" })

      // The JSON-RPC message itself has the API's 2 MiB cap.
      const oversized = await fetch(`${origin}/mcp`, {
        method: "POST",
        headers: { authorization: `Bearer ${secret}`, "content-type": "application/json", accept: "application/json, text/event-stream" },
        body: `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"scrape","arguments":{"url":"${"a".repeat(3 * MiB)}"}}}`
      })
      expect(oversized.status).toBe(413)
      expect(await oversized.json()).toMatchObject({ jsonrpc: "2.0", error: { message: expect.stringContaining(String(2 * MiB)) } })

      const mapped = await call("map", `{"domain":"example.test","tags":${deep}}`)
      expect(mapped.error).toBeUndefined()
      expect(mapped.result?.isError).toBe(true)
      expect(mapped.result?.structuredContent.error_code).toBe("INPUT_VALIDATION_ERROR")
      expect(await logged(secret, mapped.result!.structuredContent.request_id)).toMatchObject({ path: "/v1/web/urls", error_code: "INPUT_VALIDATION_ERROR" })
    })

    it("invalid browser selectors are 400s naming the field, before any browser or site is used; nothing charged, logged", async () => {
      const { orgId, secret } = await service.key({ credits: 100 })
      const url = "http://127.0.0.1:9/never-fetched"
      const cases: Array<[string, Record<string, unknown>, string]> = [
        ["div[", { sharedParams: { waitFor: "div[" } }, "sharedParams.waitFor"],
        ["text=Go", { sharedParams: { waitFor: "text=Go" } }, "sharedParams.waitFor"],
        ["##x", { sharedParams: { actions: [{ type: "waitFor", selector: "##x" }] } }, "sharedParams.actions[0].selector"],
        ["ul:not(", { sharedParams: { actions: [{ type: "scroll", selector: "ul:not(" }] } }, "sharedParams.actions[0].selector"],
        ["a:nope", { sharedParams: { actions: [{ type: "perform", action: "click css a:nope" }] } }, "sharedParams.actions[0].action"],
        ["p::before", { formats: { screenshot: true }, screenshotParams: { area: { selector: "p::before" } } }, "screenshotParams.area.selector"],
        ["h1[", { sharedParams: { excludeSelectors: ["h1["] } }, "sharedParams.excludeSelectors[0]"]
      ]
      for (const [selector, members, field] of cases) {
        const response = await post(secret, "/web/scrape", JSON.stringify({ url, formats: { html: true }, ...members }))
        const body = await response.json() as Record<string, any>
        expect([selector, response.status, body.error_code]).toEqual([selector, 400, "INPUT_VALIDATION_ERROR"])
        expect(body.message).toMatch(new RegExp(`^${field.replace(/[[\].]/g, "\\$&")}: invalid CSS selector`))
        expect(await logged(secret, body.request_id)).toMatchObject({ status_code: 400, error_code: "INPUT_VALIDATION_ERROR", credits_used: 0 })
      }
      // The GET form: a scroll action's container.
      const actions = encodeURIComponent(JSON.stringify([{ do: "scroll", container: "ul:not(" }]))
      const viaQuery = await fetch(`${service.baseUrl}/web/scrape/markdown?url=${url}&actions=${actions}`, { headers: { authorization: `Bearer ${secret}` } })
      expect(viaQuery.status).toBe(400)
      expect((await viaQuery.json() as Record<string, any>).message).toMatch(/^actions\[0\]\.selector: invalid CSS selector/)
      expect((await balance(orgId)).remaining).toBe(100)
    })

    it.skipIf(!front.listener)("a 100 KB URL is answered with the contract's JSON error body, not a bare status line", async () => {
      const { secret } = await service.key()
      const answer = await rawGet(service.baseUrl, `/v1/web/scrape/markdown?url=http://example.test/${"a".repeat(100_000)}`, secret)
      expect(answer.status).toBe(400)
      expect(answer.headers["content-type"]).toBe("application/json")
      expect(answer.headers.connection).toBe("close")
      const body = JSON.parse(answer.text) as Record<string, any>
      expect(body).toMatchObject({ error_code: "INPUT_VALIDATION_ERROR", message: expect.stringContaining("16384 bytes") })
      expect(answer.headers["x-request-id"]).toBe(body.request_id)
      // A URL within the limit is served as usual.
      expect((await rawGet(service.baseUrl, `/v1/web/scrape/markdown?url=${"a".repeat(10_000)}`, secret)).status).toBe(400)
    })
  })
}
