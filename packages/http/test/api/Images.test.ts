import * as Auth from "@sift/auth"
import ContextDev from "context.dev"
import { Effect } from "effect"
import sharp from "sharp"
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest"
import * as FixtureSite from "../../../core/test/support/FixtureSite.js"
import * as TestService from "../support/TestService.js"

const svg = (width: number, height: number, body: string) =>
  Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">${body}</svg>`)

/** A photograph-like picture: smooth shading in several hues plus grain, from a seeded generator. */
const photograph = (width: number, height: number) => {
  const pixels = Buffer.alloc(width * height * 3)
  let state = 42
  const random = () => ((state = (state * 1103515245 + 12345) % 2147483648) / 2147483648)
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 3
      const u = x / width, v = y / height
      pixels[i] = Math.max(0, Math.min(255, 120 + 90 * Math.sin(u * 13) * Math.cos(v * 14) + 50 * Math.sin(v * 8) + (random() - 0.5) * 50))
      pixels[i + 1] = Math.max(0, Math.min(255, 110 + 70 * Math.cos((u - v) * 9) + (random() - 0.5) * 50))
      pixels[i + 2] = Math.max(0, Math.min(255, 100 + 80 * Math.sin(u * v * 20) + (random() - 0.5) * 50))
    }
  }
  return sharp(pixels, { raw: { width, height, channels: 3 } }).jpeg({ quality: 90 }).toBuffer()
}

const page = `<!doctype html><html><head><title>Gallery</title>
<meta property="og:image" content="/img/hero-large.jpg"></head><body>
<header><img src="/img/logo.png" alt="Acme logo"></header>
<main><h1>Gallery</h1>
<img src="/img/hero-small.jpg" alt="Harbour at dawn" width="10" height="10">
<img src="/img/icon.png" alt="">
<div class="promo"><img src="/img/promo.png" alt="Promo"></div>
</main></body></html>`

const backends = [
  { name: "pglite", url: undefined as string | undefined },
  { name: "postgres", url: inject("databaseUrl") ?? undefined }
]

for (const backend of backends) {
  describe.skipIf(backend.name === "postgres" && backend.url === undefined)(`GET /web/scrape/images (${backend.name})`, () => {
    let service: TestService.TestService
    let site: FixtureSite.Site
    let logo: Buffer
    beforeAll(async () => {
      const large = await photograph(800, 500)
      const small = await sharp(large).resize(400, 250).jpeg({ quality: 80 }).toBuffer()
      logo = await sharp(svg(200, 200, `<circle cx="100" cy="100" r="80" fill="#e63946"/><rect x="70" y="70" width="60" height="60" fill="#1d3557"/>`)).png().toBuffer()
      const icon = await sharp(svg(32, 32, `<rect width="32" height="32" fill="#2a9d8f"/>`)).png().toBuffer()
      const image = (bytes: Buffer, type: string) => FixtureSite.html(bytes, { contentType: type })
      site = await FixtureSite.start({
        "/": FixtureSite.html(page),
        "/img/hero-large.jpg": image(large, "image/jpeg"),
        "/img/hero-small.jpg": image(small, "image/jpeg"),
        "/img/logo.png": image(logo, "image/png"),
        "/img/icon.png": image(icon, "image/png"),
        "/img/promo.png": image(icon, "image/png"),
        "/slow-images": FixtureSite.html(`<img src="/img/icon.png"><img src="/img/stall.png" alt="stalled">`),
        "/img/stall.png": FixtureSite.slow({ headersAfterMs: 30_000 })
      })
      service = await TestService.start({ databaseUrl: backend.url })
    }, 60_000)
    afterAll(async () => {
      await service?.close()
      await site?.close()
    })

    const balance = (orgId: string) => service.run(Effect.flatMap(Auth.CreditLedger.CreditLedger, (l) => l.balance(orgId))).then((b) => b.remaining)

    it("lists the page's images through the official SDK for 1 credit, og:image first, after content filters", async () => {
      const { secret, orgId } = await service.key()
      const client = new ContextDev({ apiKey: secret, baseURL: service.baseUrl, maxRetries: 0 })
      const before = await balance(orgId)
      const body = await client.web.webScrapeImages({ url: `${site.url}/`, excludeSelectors: [".promo"] } as never) as unknown as Record<string, any>
      expect(body.success).toBe(true)
      expect(body.url).toBe(`${site.url}/`)
      expect(body.images.map((image: any) => image.url)).toEqual([
        `${site.url}/img/hero-large.jpg`, `${site.url}/img/logo.png`, `${site.url}/img/hero-small.jpg`, `${site.url}/img/icon.png`
      ])
      expect(body.images[1]).toMatchObject({ alt: "Acme logo", src: `${site.url}/img/logo.png`, type: "url", element: "img" })
      expect(body.images[0].element).toBe("meta")
      // Without enrichment, sizes are what the markup states.
      expect(body.images[2]).toMatchObject({ width: 10, height: 10 })
      expect(body.finalDOMState).toBe("loaded")
      expect(body.partial).toBeUndefined()
      expect(body.cache_metadata).toEqual({ status: "miss", age_ms: 0 })
      expect(body.key_metadata.credits_consumed).toBe(1)
      expect(await balance(orgId)).toBe(before - 1)
    })

    it("dedupe keeps the largest copy; enrichment measures, classifies and hosts for 5 credits", async () => {
      const { secret, orgId } = await service.key()
      const client = new ContextDev({ apiKey: secret, baseURL: service.baseUrl, maxRetries: 0 })
      const before = await balance(orgId)
      const body = await client.web.webScrapeImages({
        url: `${site.url}/`,
        dedupe: true,
        enrichment: { resolution: true, classification: true, hostedUrl: true },
        maxAgeMs: 0
      }) as unknown as Record<string, any>
      const paths = body.images.map((image: any) => image.url.slice(site.url.length))
      // hero-small is the same picture as hero-large at half the size; icon and promo are the same bytes.
      expect(paths).toEqual(["/img/hero-large.jpg", "/img/logo.png", "/img/icon.png"])
      expect(body.images.map((image: any) => [image.width, image.height, image.classification])).toEqual([
        [800, 500, "photography"], [200, 200, "logo"], [32, 32, "icon"]
      ])
      expect(body.images[1].enrichment).toMatchObject({ width: 200, height: 200, type: "logo" })
      expect(body.key_metadata.credits_consumed).toBe(5)
      expect(await balance(orgId)).toBe(before - 5)
      // The hosted copy is served without a key, byte for byte, as an image.
      const fileUrl: string = body.images[1].fileUrl
      expect(fileUrl).toMatch(new RegExp(`^${service.baseUrl}/files/file_[0-9A-Za-z]{32}$`))
      expect(body.images[1].enrichment.url).toBe(fileUrl)
      const file = await fetch(fileUrl)
      expect(file.status).toBe(200)
      expect(file.headers.get("content-type")).toBe("image/png")
      expect(Buffer.compare(Buffer.from(await file.arrayBuffer()), logo)).toBe(0)
      const unknown = await fetch(`${service.baseUrl}/files/file_${"x".repeat(32)}`)
      expect(unknown.status).toBe(404)
      expect(((await unknown.json()) as any).error_code).toBe("NOT_FOUND")
    })

    it("POST /web/scrape applies imageParams for its single credit", async () => {
      const { secret } = await service.key()
      const response = await fetch(`${service.baseUrl}/web/scrape`, {
        method: "POST",
        headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" },
        body: JSON.stringify({ url: `${site.url}/`, formats: { images: true }, imageParams: { dedupe: "visual", enrich: ["dimensions"] } })
      })
      const body = await response.json() as any
      expect(response.status).toBe(200)
      expect(body.images.data.map((image: any) => [image.url.slice(site.url.length), image.width])).toEqual([
        ["/img/hero-large.jpg", 800], ["/img/logo.png", 200], ["/img/icon.png", 32]
      ])
      expect(body.images.data[0].classification).toBeUndefined()
      expect(body.key_metadata.credits_consumed).toBe(1)
    })

    it("return-partial returns the images gathered so far, charged 1 credit; fail is 408 and free", async () => {
      const { secret, orgId } = await service.key()
      const client = new ContextDev({ apiKey: secret, baseURL: service.baseUrl, maxRetries: 0 })
      const before = await balance(orgId)
      const body = await client.web.webScrapeImages({
        url: `${site.url}/slow-images`,
        enrichment: { resolution: true },
        timeoutOpts: { milliseconds: 6_000, behavior: "return-partial" }
      }) as unknown as Record<string, any>
      expect(body.partial).toBe(true)
      expect(body.images).toEqual([
        expect.objectContaining({ url: `${site.url}/img/icon.png`, width: 32, height: 32 }),
        expect.objectContaining({ url: `${site.url}/img/stall.png`, alt: "stalled" })
      ])
      expect(body.images[1].width).toBeUndefined()
      expect(body.key_metadata.credits_consumed).toBe(1)
      const failed = await fetch(`${service.baseUrl}/web/scrape/images?url=${encodeURIComponent(`${site.url}/slow-images`)}&enrichment[resolution]=true&timeoutOpts[milliseconds]=3000`, {
        headers: { authorization: `Bearer ${secret}` }
      })
      expect(failed.status).toBe(408)
      const error = await failed.json() as any
      expect(error.error_code).toBe("REQUEST_TIMEOUT")
      expect(error.key_metadata.credits_consumed).toBe(0)
      expect(await balance(orgId)).toBe(before - 1)
    }, 30_000)

    it("the OpenAPI document lists the image, screenshot and hosted file paths", async () => {
      const doc = await fetch(`${service.baseUrl}/openapi.json`).then((r) => r.json()) as any
      expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(["/web/scrape/images", "/web/scrape/screenshot", "/web/screenshot", "/files/{id}"]))
      expect(doc.paths["/web/scrape/images"].get.parameters.map((p: any) => p.name)).toEqual(expect.arrayContaining(["dedupe", "enrichment"]))
    })

    it("refuses bad enrichment names and free-plan actions without charge", async () => {
      const { secret } = await service.key()
      const get = (query: string) => fetch(`${service.baseUrl}/web/scrape/images?url=${encodeURIComponent(`${site.url}/`)}&${query}`, { headers: { authorization: `Bearer ${secret}` } })
      const bad = await get("enrichment[colour]=true")
      expect(bad.status).toBe(400)
      const badBody = await bad.json() as any
      expect(badBody.error_code).toBe("INPUT_VALIDATION_ERROR")
      expect(badBody.message).toContain("enrichment[colour]")
      expect(badBody.key_metadata.credits_consumed).toBe(0)
      const free = await service.key({ plan: "free" })
      const actions = await fetch(`${service.baseUrl}/web/scrape/images?url=${encodeURIComponent(`${site.url}/`)}&actions=${encodeURIComponent(JSON.stringify([{ do: "wait", timeMs: 100 }]))}`, { headers: { authorization: `Bearer ${free.secret}` } })
      expect(actions.status).toBe(403)
      expect(((await actions.json()) as any).error_code).toBe("PAID_PLAN_REQUIRED")
    })
  })
}
