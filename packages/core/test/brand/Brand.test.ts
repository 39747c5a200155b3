import { Effect, Layer } from "effect"
import sharp from "sharp"
import { crc32 } from "node:zlib"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as Brand from "../../src/Brand.js"
import * as Renderer from "../../src/Renderer.js"
import { allPairs } from "../../src/internal/brand/eic.js"
import { fetcherFor, startSites } from "../discovery/support/sites.js"
import * as FixtureSite from "../support/FixtureSite.js"
import * as Acme from "./support/acme.js"

/** A real PNG whose header claims 50,000 x 50,000 pixels (CRC fixed): a decompression bomb as sharp sees it. */
const bombPng = async (): Promise<Uint8Array> => {
  const png = Buffer.from(await sharp({ create: { width: 8, height: 8, channels: 3, background: "#ff0000" } }).png().toBuffer())
  // IHDR: length (4) + "IHDR" (4) at offset 8; width and height at 16 and 20; its CRC over type + data at 29.
  png.writeUInt32BE(50_000, 16)
  png.writeUInt32BE(50_000, 20)
  png.writeUInt32BE(crc32(png.subarray(12, 29)), 29)
  return png
}

const WALL = `<!doctype html><html><head><title>Just a moment...</title><link rel="icon" href="/favicon.ico"></head>
<body><div id="challenge-form">Checking your browser before accessing the site.</div></body></html>`

let site: FixtureSite.Site
beforeAll(async () => {
  site = await startSites({
    "acme.test": await Acme.routes("acme.test"),
    // Titles whose longer end is the brand: a page word, or the domain, tells the ends apart.
    "zbikes.test": { "/": FixtureSite.html("<html><head><title>Welcome - Zephyr Bikes</title></head><body><h1>Bikes</h1></body></html>") },
    // Hostile: a pixel bomb as the logo, a manifest over its 256 KiB cap.
    "bomb.test": {
      "/": FixtureSite.html(`<html><head><title>Bomb Co</title><link rel="manifest" href="/m.json"><script type="application/ld+json">${JSON.stringify({ "@type": "Organization", name: "Bomb Co", logo: "/bomb.png" })}</script></head><body></body></html>`),
      "/bomb.png": FixtureSite.html(await bombPng(), { contentType: "image/png" }),
      "/m.json": FixtureSite.html(JSON.stringify({ name: "x".repeat(1024 * 1024), theme_color: "#ff0000" }), { contentType: "application/json" })
    },
    // Drawn by script, its button colored inline: only the rendered page's computed styles show the accent.
    "drawn.test": {
      "/": FixtureSite.html(`<!doctype html><html lang="en"><head><title>Drawn</title><script src="/app.js"></script></head><body><div id="root"></div></body></html>`),
      "/app.js": FixtureSite.html(`document.addEventListener("DOMContentLoaded", () => { document.getElementById("root").innerHTML =
        '<h1>Drawn</h1><button style="background:#16a34a;color:#fff">Buy now</button><a class="btn" style="background-color:rgb(22,163,74)" href="/buy">Buy</a>' })`, { contentType: "text/javascript" })
    },
    "zephyr.test": { "/": FixtureSite.html("<html><head><title>Shop bikes | Zephyr</title></head><body><h1>Bikes</h1></body></html>") },
    // A challenge page in place of the home page, answered 200 and 403: no brand is read from it.
    "wall.test": { "/": FixtureSite.html(WALL) },
    "wall403.test": { "/": FixtureSite.html(WALL, { status: 403 }) }
  })
})
afterAll(async () => {
  await site?.close()
})

const retrieve = (target: Brand.Target, options?: Brand.RetrieveOptions) =>
  Effect.runPromise(Brand.retrieve(target, options).pipe(Effect.provide(fetcherFor(site))))

describe("Brand.retrieve", () => {
  it("reads the fixture brand's stated facts exactly", async () => {
    const { assets, brand } = await retrieve({ domain: "acme.test" })
    expect(brand.title).toBe("Acme Rockets")
    expect(brand.description).toBe("Acme Rockets builds small reusable rockets for hobbyists and schools.")
    expect(brand.slogan).toBe("Rockets for every backyard")
    expect(brand.address).toEqual({ street: "1 Launch Way", city: "Springfield", state_code: "OR", postal_code: "97477", country_code: "US", country: "United States" })
    expect(brand.phone).toBe("+1-555-0100")
    expect(brand.email).toBe("hello@acme.test")
    expect(brand.stock).toEqual({ ticker: "ACME", exchange: "NASDAQ" })
    expect(brand.employees).toEqual({ exact: 120, range: "51 to 200" })
    expect(brand.primary_language).toBe("english")
    expect(brand.is_nsfw).toBe(false)
    expect(brand.socials).toEqual([
      { type: "x", url: "https://twitter.com/acmerockets" },
      { type: "linkedin", url: "https://www.linkedin.com/company/acme-rockets" },
      { type: "github", url: "https://github.com/acme-rockets" },
      { type: "facebook", url: "https://www.facebook.com/acmerockets" },
      { type: "instagram", url: "https://www.instagram.com/acmerockets/" }
    ])
    expect(brand.links).toEqual({
      pricing: "http://acme.test/pricing",
      blog: "http://acme.test/blog/",
      careers: "http://acme.test/careers",
      contact: "http://acme.test/contact-us",
      privacy: "http://acme.test/legal/privacy",
      terms: "http://acme.test/legal/terms"
    })
    // SVG ahead of its raster twin; the dark-mode variant's light marks make it a logo for dark pages.
    expect(brand.logos.map((l) => [l.url, l.asset.ext, l.type, l.mode, l.resolution.width, l.resolution.height])).toEqual([
      ["http://acme.test/img/logo.svg", "svg", "logo", "light", 400, 100],
      ["http://acme.test/img/logo.png", "png", "logo", "light", 400, 100],
      ["http://acme.test/img/logo-dark.png", "png", "logo", "dark", 400, 100],
      ["http://acme.test/img/apple-touch-icon.png", "png", "icon", "has_opaque_background", 180, 180],
      ["http://acme.test/img/icon-192.png", "png", "icon", "has_opaque_background", 192, 192]
    ])
    expect(brand.logos[0]!.colors.map((c) => c.hex)).toEqual([Acme.NAVY, Acme.ORANGE])
    expect(brand.colors).toEqual([
      { hex: Acme.ORANGE, name: "Tomato", source: "site" },
      { hex: "#ffffff", name: "White", source: "site" },
      { hex: Acme.LINK_BLUE, name: expect.any(String), source: "site" },
      { hex: Acme.NAVY, name: expect.any(String), source: "logo" }
    ])
    expect(brand.backdrops.map((b) => [b.url, b.resolution, b.colors[0]?.hex])).toEqual([
      ["http://acme.test/img/og.jpg", { width: 1200, height: 630, aspect_ratio: 1.905 }, Acme.NAVY]
    ])
    // A maker of rockets: the NAICS classifier's aerospace manufacturing (3364), through the EIC table.
    expect(brand.industries?.eic[0]).toEqual({ industry: "Aerospace & Defense", subindustry: "Aerospace Manufacturing" })
    // Every asset named by a logo or backdrop is returned once, under its hash.
    const hashes = new Set(assets.map((a) => a.sha256))
    for (const ref of [...brand.logos, ...brand.backdrops]) expect(hashes.has(ref.asset.sha256)).toBe(true)
    expect(assets.length).toBe(hashes.size)
  })

  it("takes the brand from the end of the title that is not a page word, or that names the domain", async () => {
    expect((await retrieve({ domain: "zbikes.test" })).brand).toMatchObject({ title: "Zephyr Bikes", slogan: "Welcome" })
    expect((await retrieve({ domain: "zephyr.test" })).brand).toMatchObject({ title: "Zephyr", slogan: "Shop bikes" })
  })

  it("skips a logo claiming more pixels than the decode bound and a manifest over its cap, and still answers", async () => {
    const started = Date.now()
    const { assets, brand } = await retrieve({ domain: "bomb.test" })
    expect(brand.title).toBe("Bomb Co")
    expect(brand.logos).toEqual([])
    expect(assets).toEqual([])
    // The manifest's theme color was never read: the manifest was refused at its cap.
    expect(brand.colors).toEqual([])
    expect(Date.now() - started).toBeLessThan(10_000)
  })

  it("reads a script-drawn page in the browser, its buttons' computed colors among the site colors", async () => {
    const hostRules = `MAP *.test 127.0.0.1:${site.port}`
    const result = await Effect.runPromise(Brand.retrieve({ domain: "drawn.test" }).pipe(
      Effect.provide(Layer.merge(fetcherFor(site), Renderer.layer({ size: 1, addressPolicy: () => true, hostRules })))
    ))
    expect(result.rendered).toBe(true)
    expect(result.brand.colors).toEqual([{ hex: "#16a34a", name: expect.any(String), source: "site" }])
  }, 60_000)

  it("a bot wall or challenge in place of the home page fails, never a brand named 'Just a moment...'", async () => {
    const fail = (domain: string) => Effect.runPromise(Effect.flip(Brand.retrieve({ domain }).pipe(Effect.provide(fetcherFor(site)))))
    // Answered 200, only the page says what it is.
    const walled = await fail("wall.test")
    expect([walled._tag, walled._tag === "WebsiteError" ? walled.reason : undefined]).toEqual(["WebsiteError", "Blocked"])
    // Answered 403: the status already fails the fetch (WEBSITE_ACCESS_ERROR).
    const refused = await fail("wall403.test")
    expect([refused._tag, refused._tag === "WebsiteError" ? [refused.reason, refused.errorCode] : undefined]).toEqual(["WebsiteError", ["HttpStatus", "WEBSITE_ACCESS_ERROR"]])
  })

  it("each NAICS→EIC pair is a value of the SDK's enums", async () => {
    const { readFileSync } = await import("node:fs")
    const sdk = readFileSync(new URL("../../../../node_modules/context.dev/src/resources/brand.ts", import.meta.url), "utf8")
    for (const pair of allPairs()) {
      expect(sdk).toContain(`| '${pair.industry}'`)
      expect(sdk).toContain(`| '${pair.subindustry}'`)
    }
  })
})
