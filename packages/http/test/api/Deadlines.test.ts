/**
 * Deadlines inside the HTTP service: `@effect/platform` runs every handler uninterruptibly, so the pipeline must make
 * the work interruptible itself, or a request's deadline waits for a slow site instead of ending the work on time.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as FixtureSite from "../../../core/test/support/FixtureSite.js"
import * as TestService from "../support/TestService.js"

describe("deadlines over HTTP", () => {
  let service: TestService.TestService
  let site: FixtureSite.Site
  let secret: string
  beforeAll(async () => {
    site = await FixtureSite.start({
      "/slow": FixtureSite.slow({ headersAfterMs: 8_000 }),
      "/slower": FixtureSite.slow({ headersAfterMs: 8_000 })
    })
    service = await TestService.start()
    secret = (await service.key()).secret
  })
  afterAll(async () => {
    await service?.close()
    await site?.close()
  })

  it("a 500 ms deadline on a site that answers after 8 s is a 408 within about a second, charged nothing", async () => {
    const started = performance.now()
    const response = await fetch(`${service.baseUrl}/web/scrape/markdown?url=${encodeURIComponent(`${site.url}/slow`)}&timeoutMS=500`, {
      headers: { authorization: `Bearer ${secret}` }
    })
    const elapsed = performance.now() - started
    const body = await response.json() as Record<string, any>
    expect(response.status).toBe(408)
    expect(body.error_code).toBe("REQUEST_TIMEOUT")
    expect(body.key_metadata.credits_consumed).toBe(0)
    expect(elapsed).toBeLessThan(4_000)
  })

  it("POST /web/scrape with return-partial and nothing loaded in time: 408 on time, nothing charged", async () => {
    const started = performance.now()
    const response = await fetch(`${service.baseUrl}/web/scrape`, {
      method: "POST",
      headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" },
      body: JSON.stringify({ url: `${site.url}/slower`, formats: { markdown: true }, timeoutOpts: { milliseconds: 1_000, behavior: "return-partial" } })
    })
    const elapsed = performance.now() - started
    const body = await response.json() as Record<string, any>
    expect(response.status).toBe(408)
    expect(body.key_metadata.credits_consumed).toBe(0)
    expect(elapsed).toBeLessThan(4_500)
  })
})
