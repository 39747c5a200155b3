import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import sharp from "sharp"
import * as BrowserPool from "../../src/BrowserPool.js"
import * as ImageEnrich from "../../src/ImageEnrich.js"
import * as Images from "../../src/Images.js"
import * as Pipeline from "../../src/Pipeline.js"
import { withBackgroundSizes } from "../../src/internal/render/images.js"
import * as Renderer from "../../src/Renderer.js"
import * as FixtureSite from "../support/FixtureSite.js"
import * as RenderRuntime from "../support/RenderRuntime.js"

// Real PNGs of known sizes, drawn as CSS backgrounds (from a stylesheet and inline) and as an img, in real Chromium.
const png = (width: number, height: number, colour: string) =>
  sharp({ create: { width, height, channels: 4, background: colour } }).png().toBuffer()

const page = `<!doctype html><html><head><style>
body { margin: 0; }
.hero { width: 600px; height: 100px; background: url("/img/wide.png") center / cover no-repeat; }
.tile { width: 50px; height: 50px; background-image: url(/img/wide.png); }
.gone { display: none; background-image: url('/img/hidden.png'); }
.broken { width: 30px; height: 30px; background-image: url(/img/missing.png); }
.gradient { width: 30px; height: 30px; background-image: linear-gradient(red, blue); }
</style></head><body>
<div class="hero" aria-label="Harbour"></div>
<div style="width: 20px; height: 20px; background-image: url(/img/tall.png)"></div>
<img src="/img/photo.png" alt="Photo" width="60" height="40">
<div class="tile"></div>
<div class="gone"></div>
<div class="broken"></div>
<div class="gradient"></div>
<p id="ready">Rendered</p>
</body></html>`

let site: FixtureSite.Site
let runtime: RenderRuntime.RenderRuntime

beforeAll(async () => {
  const image = async (width: number, height: number, colour: string) => FixtureSite.html(await png(width, height, colour), { contentType: "image/png" })
  const many = Object.fromEntries(await Promise.all(Array.from({ length: 5 }, async (_, i) => [`/img/n${i}.png`, await image(10 + i, 20 + i, "#336699")] as const)))
  site = await FixtureSite.start({
    "/": FixtureSite.html(page),
    "/img/wide.png": await image(300, 150, "#ff8800"),
    "/img/tall.png": await image(40, 90, "#0088ff"),
    "/img/photo.png": await image(120, 80, "#00aa00"),
    "/img/hidden.png": await image(10, 20, "#aaaaaa"),
    "/img/stall.png": FixtureSite.slow({ headersAfterMs: 20_000 }),
    ...many,
    "/many": FixtureSite.html(`<!doctype html><html><body>${
      Array.from({ length: 5 }, (_, i) => `<div style="width:10px;height:10px;background-image:url(/img/n${i}.png)"></div>`).join("")
    }</body></html>`)
  })
  runtime = RenderRuntime.make()
}, 30_000)

afterAll(async () => {
  await runtime?.dispose()
  await site?.close()
})

/** Opens a page in a fresh context of the pool and runs `use` on it; the context closes afterwards. */
const withPage = <A>(url: string, use: (page: import("playwright-core").Page) => Promise<A>) =>
  runtime.runPromise(Effect.scoped(Effect.gen(function*() {
    const lease = yield* (yield* BrowserPool.BrowserPool).context({ viewport: { width: 800, height: 600 } })
    const opened = yield* Effect.promise(() => lease.context.newPage())
    yield* Effect.promise(() => opened.goto(url, { waitUntil: "load" }))
    return yield* Effect.promise(() => use(opened))
  })))

describe("natural sizes of rendered images", { timeout: 60_000 }, () => {
  it("RenderSession.images reports the decoded size of CSS backgrounds, not their boxes, beside img sizes", async () => {
    const images = await runtime.runPromise(Effect.scoped(Effect.gen(function*() {
      const session = yield* (yield* Renderer.Renderer).open({ url: `${site.url}/`, viewport: { width: 800, height: 600 }, waitFor: 0 })
      yield* session.load
      return yield* session.images
    })))
    const summary = images.map((image) => [image.url.replace(site.url, ""), image.source, image.naturalWidth, image.naturalHeight, image.visible])
    expect(summary).toEqual([
      ["/img/wide.png", "background", 300, 150, true],
      ["/img/tall.png", "background", 40, 90, true],
      ["/img/photo.png", "img", 120, 80, true],
      ["/img/wide.png", "background", 300, 150, true],
      ["/img/hidden.png", "background", 10, 20, false],
      ["/img/missing.png", "background", 0, 0, true]
    ])
    // The box is the element's, not the picture's: the hero is drawn 600x100 from a 300x150 picture.
    expect(images[0]!.box).toMatchObject({ width: 600, height: 100 })
    expect(images[0]!.alt).toBe("Harbour")
  })

  it("decodes at most maxDecodes distinct URLs, and gives up on slow pictures when the time is up", async () => {
    const started = Date.now()
    const { capped, timed } = await withPage(`${site.url}/many`, async (opened) => {
      const found = Array.from({ length: 6 }, (_, i) => ({
        url: `${site.url}/img/${i === 5 ? "stall" : `n${i}`}.png`,
        alt: "",
        source: "background" as const,
        naturalWidth: 0,
        naturalHeight: 0,
        box: { x: 0, y: 10 * i, width: 10, height: 10 },
        visible: true
      }))
      const capped = await withBackgroundSizes(opened, found.slice(0, 5), { maxDecodes: 3 })
      const timed = await withBackgroundSizes(opened, found, { withinMs: 500 })
      return { capped, timed }
    })
    expect(capped.map((image) => [image.naturalWidth, image.naturalHeight])).toEqual([[10, 20], [11, 21], [12, 22], [0, 0], [0, 0]])
    expect(timed.map((image) => [image.naturalWidth, image.naturalHeight])).toEqual([[10, 20], [11, 21], [12, 22], [13, 23], [14, 24], [0, 0]])
    // The stalled picture answers after 20 s; the whole test finished long before.
    expect(Date.now() - started).toBeLessThan(10_000)
  })

  it("leaves images as they are when the page is gone", async () => {
    const found = [{ url: `${site.url}/img/wide.png`, alt: "", source: "background" as const, naturalWidth: 0, naturalHeight: 0, box: { x: 0, y: 0, width: 1, height: 1 }, visible: true }]
    const closed = await withPage(`${site.url}/`, async (opened) => {
      await opened.close()
      return withBackgroundSizes(opened, found)
    })
    expect(closed).toEqual(found)
  })
})

describe("the images output of a rendered page", { timeout: 60_000 }, () => {
  const scrape = (input: Record<string, unknown>) =>
    runtime.runPromise(Pipeline.scrape({ url: `${site.url}/`, formats: { images: true }, ...input }))

  it("lists style-sheet backgrounds the markup never names, with decoded sizes, and enrichment classifies them", async () => {
    // A selector wait needs the browser.
    const result = await scrape({ sharedParams: { waitFor: "#ready", viewport: { width: 800, height: 600 } } })
    const images = result.images.data!
    expect(images.map((image) => [image.url.replace(site.url, ""), image.alt, image.width, image.height])).toEqual([
      ["/img/wide.png", "Harbour", 300, 150],
      ["/img/tall.png", "", 40, 90],
      ["/img/photo.png", "Photo", 60, 40]
    ])
    expect(images.map(Images.elementOf)).toEqual(["background", "background", "img"])
    const enriched = await runtime.runPromise(ImageEnrich.enrich(images, { enrich: ["dimensions", "classification"] }))
    expect(enriched.complete).toBe(true)
    expect(enriched.images.map((image) => [image.width, image.height])).toEqual([[300, 150], [40, 90], [120, 80]])
    expect(enriched.images.every((image) => typeof image.classification === "string")).toBe(true)
  })

  it("with a content filter, only the markup's images (sized by the browser) are listed", async () => {
    const result = await scrape({ sharedParams: { waitFor: "#ready", excludeSelectors: [".gradient"] } })
    expect(result.images.data!.map((image) => [image.url.replace(site.url, ""), image.width, image.height])).toEqual([
      ["/img/tall.png", 40, 90],
      ["/img/photo.png", 60, 40]
    ])
  })

  it("a static page keeps the markup's images as they were", async () => {
    const result = await scrape({})
    expect(result.images.data!.map((image) => [image.url.replace(site.url, ""), image.width, image.height])).toEqual([
      ["/img/tall.png", undefined, undefined],
      ["/img/photo.png", 60, 40]
    ])
  })
})
