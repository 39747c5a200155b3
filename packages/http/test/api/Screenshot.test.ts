import * as Auth from "@sift/auth"
import ContextDev from "context.dev"
import { Effect } from "effect"
import sharp from "sharp"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as FixtureSite from "../../../core/test/support/FixtureSite.js"
import * as TestService from "../support/TestService.js"

// A white page with a red block at (100, 50) of 200x120 and a blue block far below the fold, rendered by real Chromium.
const page = `<!doctype html><html><head><title>Shots</title><style>
html, body { margin: 0; background: #ffffff; }
#red { position: absolute; left: 100px; top: 50px; width: 200px; height: 120px; background: #ff0000; }
#blue { position: absolute; left: 0; top: 1300px; width: 800px; height: 200px; background: #0000ff; }
#tall { height: 1800px; }
</style></head><body><div id="tall"></div><div id="red"></div><div id="blue"></div></body></html>`

const pixels = async (dataUrl: string) => {
  const match = /^data:(image\/[a-z]+);base64,(.+)$/.exec(dataUrl)
  expect(match).not.toBeNull()
  const { data, info } = await sharp(Buffer.from(match![2]!, "base64")).removeAlpha().raw().toBuffer({ resolveWithObject: true })
  return {
    contentType: match![1],
    width: info.width,
    height: info.height,
    rgb: (x: number, y: number) => Array.from(data.subarray((y * info.width + x) * info.channels, (y * info.width + x) * info.channels + 3))
  }
}
const near = (actual: Array<number>, expected: Array<number>) => actual.every((value, i) => Math.abs(value - expected[i]!) <= 16)

describe("screenshot endpoints (pglite, Chromium)", { timeout: 90_000 }, () => {
  let service: TestService.TestService
  let site: FixtureSite.Site
  beforeAll(async () => {
    site = await FixtureSite.start({
      "/": FixtureSite.html(page),
      "/gallery": FixtureSite.html(`<!doctype html><html><body><div id="list"><img src="/img/one.png" alt="One"></div>
<button onclick="document.getElementById('list').insertAdjacentHTML('beforeend','<img src=&quot;/img/two.png&quot; alt=&quot;Two&quot;>')">Load more</button></body></html>`)
    })
    service = await TestService.start({ browser: true })
  }, 60_000)
  afterAll(async () => {
    await service?.close()
    await site?.close()
  })
  const balance = (orgId: string) => service.run(Effect.flatMap(Auth.CreditLedger.CreditLedger, (l) => l.balance(orgId))).then((b) => b.remaining)

  it("GET /web/scrape/screenshot through the SDK: a viewport PNG with the red block in place, 1 credit", async () => {
    const { secret, orgId } = await service.key()
    const client = new ContextDev({ apiKey: secret, baseURL: service.baseUrl, maxRetries: 0 })
    const before = await balance(orgId)
    const body = await client.web.webScrapeScreenshot({ url: `${site.url}/`, viewport: { width: 800, height: 600 }, waitForMs: 0 } as never) as unknown as Record<string, any>
    const shot = await pixels(body.screenshot)
    expect(shot.contentType).toBe("image/png")
    expect([body.width, body.height, shot.width, shot.height]).toEqual([800, 600, 800, 600])
    expect(near(shot.rgb(150, 100), [255, 0, 0])).toBe(true)
    expect(near(shot.rgb(50, 100), [255, 255, 255])).toBe(true)
    expect(near(shot.rgb(350, 100), [255, 255, 255])).toBe(true)
    expect(body.url).toBe(`${site.url}/`)
    expect(body.screenshotType).toBe("viewport")
    expect(body.finalDOMState).toBe("loaded")
    expect(body.cache_metadata.status).toBe("miss")
    expect(body.key_metadata.credits_consumed).toBe(1)
    expect(await balance(orgId)).toBe(before - 1)
  })

  it("GET /web/screenshot with directUrl: fullScreenshot reaches the blue block; scrollOffset returns that slice", async () => {
    const { secret } = await service.key()
    const client = new ContextDev({ apiKey: secret, baseURL: service.baseUrl, maxRetries: 0 })
    const full = await client.web.screenshot({ directUrl: `${site.url}/`, fullScreenshot: "true", viewport: { width: 800, height: 600 }, waitForMs: 0 }) as unknown as Record<string, any>
    const fullShot = await pixels(full.screenshot!)
    expect(full.screenshotType).toBe("fullPage")
    expect(fullShot.width).toBe(800)
    expect(fullShot.height).toBeGreaterThanOrEqual(1800)
    expect(near(fullShot.rgb(400, 1400), [0, 0, 255])).toBe(true)
    const slice = await client.web.screenshot({ directUrl: `${site.url}/`, scrollOffset: 1200, viewport: { width: 800, height: 600 }, waitForMs: 0 }) as unknown as Record<string, any>
    const sliceShot = await pixels(slice.screenshot!)
    expect([slice.width, slice.height]).toEqual([800, 600])
    expect(near(sliceShot.rgb(400, 50), [255, 255, 255])).toBe(true)
    expect(near(sliceShot.rgb(400, 200), [0, 0, 255])).toBe(true)
  })

  it("POST /web/scrape returns a jpeg data URL of one element with the Markdown, for 1 credit", async () => {
    const { secret } = await service.key()
    const response = await fetch(`${service.baseUrl}/web/scrape`, {
      method: "POST",
      headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" },
      body: JSON.stringify({
        url: `${site.url}/`,
        formats: { screenshot: true, markdown: true },
        sharedParams: { viewport: { width: 800, height: 600 }, waitFor: 0 },
        screenshotParams: { format: "jpeg", area: { selector: "#red" } }
      })
    })
    const body = await response.json() as any
    expect(response.status).toBe(200)
    const shot = await pixels(body.screenshot.data)
    expect(shot.contentType).toBe("image/jpeg")
    expect([shot.width, shot.height]).toEqual([200, 120])
    expect(near(shot.rgb(100, 60), [255, 0, 0])).toBe(true)
    expect(body.markdown.requested).toBe(true)
    expect(body.key_metadata.credits_consumed).toBe(1)
    const over = await fetch(`${service.baseUrl}/web/scrape`, {
      method: "POST",
      headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" },
      body: JSON.stringify({ url: `${site.url}/`, formats: { screenshot: true }, screenshotParams: { area: { x: 0, y: 0, width: 9000, height: 9000 } } })
    })
    const overBody = await over.json() as any
    expect([over.status, overBody.error_code, overBody.key_metadata.credits_consumed]).toEqual([400, "INPUT_VALIDATION_ERROR", 0])
    expect(overBody.message).toContain("40-megapixel")
  })

  it("GET /web/scrape/images with actions: images the click added are listed, with actionsApplied, for 2 credits", async () => {
    const { secret } = await service.key()
    // actions as the documented JSON array (the SDK's own bracket encoding of arrays is not read yet: reported).
    const actions = encodeURIComponent(JSON.stringify([{ do: "perform", action: `click "Load more"` }]))
    const response = await fetch(`${service.baseUrl}/web/scrape/images?url=${encodeURIComponent(`${site.url}/gallery`)}&actions=${actions}`, { headers: { authorization: `Bearer ${secret}` } })
    const body = await response.json() as any
    expect(response.status).toBe(200)
    expect(body.images.map((image: any) => [image.url, image.alt])).toEqual([[`${site.url}/img/one.png`, "One"], [`${site.url}/img/two.png`, "Two"]])
    expect(body.actionsApplied).toHaveLength(1)
    expect(body.actionsApplied[0].status).toBe("applied")
    expect(body.key_metadata.credits_consumed).toBe(2)
  })

  it("refuses bad queries with 400 and no charge", async () => {
    const { secret } = await service.key()
    const get = async (path: string) => {
      const response = await fetch(`${service.baseUrl}${path}`, { headers: { authorization: `Bearer ${secret}` } })
      return { status: response.status, body: await response.json() as any }
    }
    const both = await get(`/web/screenshot?domain=example.com&directUrl=${encodeURIComponent(`${site.url}/`)}`)
    expect([both.status, both.body.error_code, both.body.key_metadata.credits_consumed]).toEqual([400, "INPUT_VALIDATION_ERROR", 0])
    const badPage = await get(`/web/screenshot?domain=example.com&page=about`)
    expect([badPage.status, badPage.body.message]).toEqual([400, expect.stringContaining("page")])
    const scheme = await get(`/web/scrape/screenshot?url=${encodeURIComponent(`${site.url}/`)}&colorScheme=sepia`)
    expect([scheme.status, scheme.body.message]).toEqual([400, expect.stringContaining("colorScheme")])
    const past = await get(`/web/scrape/screenshot?url=${encodeURIComponent(`${site.url}/`)}&scrollOffset=90000&viewport[width]=800&viewport[height]=600&waitForMs=0`)
    expect([past.status, past.body.error_code, past.body.key_metadata.credits_consumed]).toEqual([400, "INPUT_VALIDATION_ERROR", 0])
    expect(past.body.message).toContain("scrollOffset")
  })
})
