import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import sharp from "sharp"
import * as Fetcher from "../src/Fetcher.js"
import * as ImageEnrich from "../src/ImageEnrich.js"
import type * as Images from "../src/Images.js"
import * as FixtureSite from "./support/FixtureSite.js"

// Real images made by sharp, served by a real local site and fetched through the real Fetcher.
const svg = (width: number, height: number, body: string) =>
  Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">${body}</svg>`)

const makeImages = async () => {
  // A "photograph": smooth light and shade in several hues plus per-channel grain (many colours, none dominant),
  // from a seeded generator so every run sees the same picture.
  const photograph = (seed: number) => {
    const width = 480, height = 320
    const pixels = Buffer.alloc(width * height * 3)
    let state = seed
    const random = () => ((state = (state * 1103515245 + 12345) % 2147483648) / 2147483648)
    for (let y = 0; y < height; y++) {
      for (let x = 0; x < width; x++) {
        const i = (y * width + x) * 3
        const shade = Math.sin((x + seed) / 37) * Math.cos(y / 23)
        pixels[i] = Math.max(0, Math.min(255, 120 + 90 * shade + 50 * Math.sin(y / 41) + (random() - 0.5) * 50))
        pixels[i + 1] = Math.max(0, Math.min(255, 110 + 70 * Math.cos((x - y) / 53) + (random() - 0.5) * 50))
        pixels[i + 2] = Math.max(0, Math.min(255, 100 + 80 * Math.sin((x * y) / 9000 + seed) + (random() - 0.5) * 50))
      }
    }
    return sharp(pixels, { raw: { width, height, channels: 3 } }).jpeg({ quality: 90 }).toBuffer()
  }
  const photo = await photograph(7)
  const photoSmall = await sharp(photo).resize(240, 160).jpeg({ quality: 80 }).toBuffer()
  const otherPhoto = await photograph(1234)
  // A brand mark: a flat two-colour shape on a transparent background.
  const logo = await sharp(svg(200, 200, `<circle cx="100" cy="100" r="80" fill="#e63946"/><rect x="70" y="70" width="60" height="60" fill="#1d3557"/>`)).png().toBuffer()
  // A wide transparent mark: letters drawn as flat bars.
  const wordmark = await sharp(svg(480, 120, `<g fill="#264653"><polygon points="20,100 60,20 100,100 80,100 60,55 40,100"/>
    <path d="M190 30 A40 40 0 1 0 190 90 L180 80 A26 26 0 1 1 180 40 Z"/><rect x="230" y="20" width="18" height="80"/>
    <polygon points="248,20 290,70 332,20 332,100 314,100 314,58 290,88 266,58 266,100 248,100"/><rect x="360" y="20" width="70" height="16"/>
    <rect x="360" y="52" width="55" height="16"/><rect x="360" y="84" width="70" height="16"/><rect x="360" y="20" width="18" height="80"/></g>`)).png().toBuffer()
  const favicon = await sharp(svg(32, 32, `<rect width="32" height="32" fill="#2a9d8f"/><circle cx="16" cy="16" r="8" fill="#ffffff"/>`)).png().toBuffer()
  // A checkerboard tile.
  const squares = Array.from({ length: 64 }, (_, i) => ((Math.floor(i / 8) + i) % 2 === 0 ? `<rect x="${(i % 8) * 32}" y="${Math.floor(i / 8) * 32}" width="32" height="32" fill="#333333"/>` : "")).join("")
  const tile = await sharp(svg(256, 256, `<rect width="256" height="256" fill="#f1faee"/>${squares}`)).png().toBuffer()
  // A bar chart: flat bars in three colours on white.
  const bars = [120, 220, 90, 300].map((h, i) => `<rect x="${60 + i * 130}" y="${360 - h}" width="90" height="${h}" fill="${["#457b9d", "#e76f51", "#457b9d", "#2a9d8f"][i]}"/>`).join("")
  const chart = await sharp(svg(600, 400, `<rect width="600" height="400" fill="#ffffff"/>${bars}<rect x="40" y="360" width="540" height="3" fill="#000000"/>`)).png().toBuffer()
  // A drawing: shaded shapes (gradients) over a sky, more colours than a chart, far fewer than a photograph.
  const drawing = await sharp(svg(500, 400, `
    <defs><linearGradient id="sky" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="#8ecae6"/><stop offset="1" stop-color="#ffffff"/></linearGradient>
    <radialGradient id="sun"><stop offset="0" stop-color="#ffb703"/><stop offset="1" stop-color="#fb8500"/></radialGradient></defs>
    <rect width="500" height="400" fill="url(#sky)"/><circle cx="380" cy="100" r="60" fill="url(#sun)"/>
    <polygon points="0,400 160,180 320,400" fill="#2d6a4f"/><polygon points="180,400 330,220 500,400" fill="#40916c"/>`)).png().toBuffer()
  return { photo, photoSmall, otherPhoto, logo, wordmark, favicon, tile, chart, drawing }
}

let site: FixtureSite.Site
let made: Awaited<ReturnType<typeof makeImages>>

beforeAll(async () => {
  made = await makeImages()
  const png = (bytes: Buffer, type = "image/png") => FixtureSite.html(bytes, { contentType: type })
  site = await FixtureSite.start({
    "/img/photo.jpg": png(made.photo, "image/jpeg"),
    "/img/photo-small.jpg": png(made.photoSmall, "image/jpeg"),
    "/img/beach.jpg": png(made.otherPhoto, "image/jpeg"),
    "/img/a1.png": png(made.logo),
    "/img/header-mark.png": png(made.wordmark),
    "/favicon.png": png(made.favicon),
    "/img/bg1.png": png(made.tile),
    "/img/q3.png": png(made.chart),
    "/img/scene.png": png(made.drawing),
    "/img/not-an-image.png": FixtureSite.html("<html>oops</html>")
  })
}, 30_000)

afterAll(() => site?.close())

const image = (path: string, alt = ""): Images.Image => ({ url: `${site.url}${path}`, alt })

const run = <E>(effect: Effect.Effect<ImageEnrich.Enriched, E, Fetcher.Fetcher>) =>
  Effect.runPromise(effect.pipe(Effect.provide(Fetcher.layer({ allowPrivateTargets: true }))))

describe("ImageEnrich.enrich", () => {
  it("classifies photographs, logos, wordmarks, icons, patterns, graphics and illustrations", async () => {
    const { images } = await run(ImageEnrich.enrich([
      image("/img/a1.png"),
      image("/img/header-mark.png"),
      image("/favicon.png"),
      image("/img/photo.jpg", "A street at night"),
      image("/img/bg1.png"),
      image("/img/q3.png", "Revenue by quarter"),
      image("/img/scene.png", "Hills at sunset")
    ], { enrich: ["classification"] }))
    expect(images.map((item) => [item.url.slice(site.url.length), item.classification])).toEqual([
      ["/img/a1.png", "logo"],
      ["/img/header-mark.png", "wordmark"],
      ["/favicon.png", "icon"],
      ["/img/photo.jpg", "photography"],
      ["/img/bg1.png", "pattern"],
      ["/img/q3.png", "graphic"],
      ["/img/scene.png", "illustration"]
    ])
    // Classification alone adds no dimensions.
    expect(images.every((item) => item.width === undefined)).toBe(true)
  })

  it("names decide what the pixels leave open: a logo further down the page is still a logo when it says so", async () => {
    const plain = await run(ImageEnrich.enrich([image("/img/photo.jpg"), image("/img/q3.png"), image("/img/scene.png"), image("/img/a1.png")], { enrich: ["classification"] }))
    expect(plain.images[3]!.classification).toBe("graphic")
    const named = await run(ImageEnrich.enrich([image("/img/photo.jpg"), image("/img/q3.png"), image("/img/scene.png"), image("/img/a1.png", "Acme logo")], { enrich: ["classification"] }))
    expect(named.images[3]!.classification).toBe("logo")
  })

  it("sets dimensions from the decoded pixels, not from the markup", async () => {
    const { images } = await run(ImageEnrich.enrich([
      { ...image("/img/photo.jpg"), width: 10, height: 10 },
      image("/img/header-mark.png"),
      { url: `data:image/svg+xml;base64,${svg(48, 24, `<rect width="48" height="24" fill="#000"/>`).toString("base64")}`, alt: "inline" }
    ], { enrich: ["dimensions"] }))
    expect(images.map((item) => [item.width, item.height])).toEqual([[480, 320], [480, 120], [48, 24]])
  })

  it("keeps images it cannot download or decode, as the page described them", async () => {
    const { images, complete } = await run(ImageEnrich.enrich([
      { ...image("/img/missing.png"), width: 5, height: 6 },
      image("/img/not-an-image.png", "broken"),
      image("/favicon.png")
    ], { enrich: ["dimensions", "classification"] }))
    expect(complete).toBe(true)
    expect(images).toEqual([
      { url: `${site.url}/img/missing.png`, alt: "", width: 5, height: 6 },
      { url: `${site.url}/img/not-an-image.png`, alt: "broken" },
      { url: `${site.url}/favicon.png`, alt: "", width: 32, height: 32, classification: "icon" }
    ])
  })

  it("dedupe visual keeps the largest of near-identical images, at the place of the first", async () => {
    const { images } = await run(ImageEnrich.enrich([
      image("/img/photo-small.jpg", "small"),
      image("/img/a1.png"),
      image("/img/photo.jpg", "large"),
      image("/img/beach.jpg"),
      image("/favicon.png")
    ], { dedupe: "visual" }))
    expect(images.map((item) => item.url.slice(site.url.length))).toEqual(["/img/photo.jpg", "/img/a1.png", "/img/beach.jpg", "/favicon.png"])
    // No enrichment asked: nothing added.
    expect(images[0]).toEqual({ url: `${site.url}/img/photo.jpg`, alt: "large" })
  })

  it("dedupe none keeps every image", async () => {
    const { images } = await run(ImageEnrich.enrich([image("/img/photo-small.jpg"), image("/img/photo.jpg")], { dedupe: "none", enrich: ["dimensions"] }))
    expect(images.map((item) => item.width)).toEqual([240, 480])
  })

  it("file hands the real bytes to the host and sets fileUrl", async () => {
    const hosted: Array<ImageEnrich.ImageFile> = []
    const { images } = await run(ImageEnrich.enrich([image("/img/a1.png"), image("/img/missing.png")], {
      enrich: ["file"],
      hostFile: (file) => Effect.sync(() => {
        hosted.push(file)
        return `https://sift.test/v1/files/${hosted.length}`
      })
    }))
    expect(images).toEqual([
      { url: `${site.url}/img/a1.png`, alt: "", fileUrl: "https://sift.test/v1/files/1" },
      { url: `${site.url}/img/missing.png`, alt: "" }
    ])
    expect(hosted).toHaveLength(1)
    expect(hosted[0]!.contentType).toBe("image/png")
    expect(Buffer.compare(Buffer.from(hosted[0]!.bytes), made.logo)).toBe(0)
  })

  it("returns the images gathered so far when its time runs out", async () => {
    site.route("/img/slow.png", FixtureSite.slow({ headersAfterMs: 5_000 }))
    const started = Date.now()
    const { images, complete } = await run(ImageEnrich.enrich([image("/favicon.png"), image("/img/slow.png", "slow")], { enrich: ["dimensions"], concurrency: 1 }, 1_000))
    expect(Date.now() - started).toBeLessThan(4_000)
    expect(complete).toBe(false)
    expect(images).toEqual([
      { url: `${site.url}/favicon.png`, alt: "", width: 32, height: 32 },
      { url: `${site.url}/img/slow.png`, alt: "slow" }
    ])
  })

  it("fetches images through the address guard", async () => {
    const before = site.exchanges.length
    const { images } = await Effect.runPromise(ImageEnrich.enrich([image("/favicon.png")], { enrich: ["dimensions"] })
      .pipe(Effect.provide(Fetcher.layer({ allowPrivateTargets: false }))))
    expect(images).toEqual([{ url: `${site.url}/favicon.png`, alt: "" }])
    expect(site.exchanges.length).toBe(before)
  })
})
