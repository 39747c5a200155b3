import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { WebsiteError } from "../../src/Errors.js"
import * as Html from "../../src/Html.js"
import * as Images from "../../src/Images.js"
import type * as Renderer from "../../src/Renderer.js"
import * as ScrapeRequest from "../../src/ScrapeRequest.js"

// `Images.withRendered` / `fromSession`: the markup's images joined with what the browser reported. The browser side
// (natural sizes decoded in Chromium) is tested in images-natural.test.ts.

const base = "https://shop.example/"
const collect = (html: string) => Images.collect(Html.parse(html), { baseUrl: base })

const drawn = (url: string, size: [number, number], extra: Partial<Renderer.RenderedImage> = {}): Renderer.RenderedImage => ({
  url: new URL(url, base).href,
  alt: "",
  source: "background",
  naturalWidth: size[0],
  naturalHeight: size[1],
  box: { x: 0, y: 0, width: 100, height: 100 },
  visible: true,
  ...extra
})

const markup = `<html><head><meta property="og:image" content="/og.jpg"></head><body>
<div style="background-image: url(/inline.png)"></div>
<img src="/photo.jpg" alt="Photo">
<img src="/stated.jpg" alt="Stated" width="60">
<img src="/later.jpg" alt="Later">
</body></html>`

describe("Images.withRendered", () => {
  it("gives images without a stated size the decoded size; a stated size (even half of one) stands", () => {
    const images = Images.withRendered(collect(markup), [
      drawn("/inline.png", [300, 150]),
      drawn("/photo.jpg", [1200, 800], { source: "img" }),
      drawn("/stated.jpg", [640, 480], { source: "img" }),
      drawn("/later.jpg", [0, 0], { source: "img" })
    ], { filtered: false })
    expect(images.map((image) => [image.url.replace(base, "/"), image.width, image.height])).toEqual([
      ["/og.jpg", undefined, undefined],
      ["/inline.png", 300, 150],
      ["/photo.jpg", 1200, 800],
      ["/stated.jpg", 60, undefined],
      ["/later.jpg", undefined, undefined]
    ])
    expect(images.map(Images.elementOf)).toEqual(["meta", "background", "img", "img", "img"])
  })

  it("adds visible style-sheet backgrounds after the image drawn before them; never hidden, broken or spacer ones", () => {
    const images = Images.withRendered(collect(markup), [
      drawn("/hero.png", [1600, 500], { alt: " Spring \n sale " }),
      drawn("/inline.png", [300, 150]),
      drawn("/photo.jpg", [1200, 800], { source: "img" }),
      drawn("/tile.png", [40, 40]),
      drawn("/tile.png", [40, 40]),
      drawn("/hidden.png", [50, 50], { visible: false }),
      drawn("/broken.png", [0, 0]),
      drawn("/pixel.gif", [1, 1]),
      drawn("/spacer.png", [20, 20]),
      drawn("/stated.jpg", [640, 480], { source: "img" }),
      drawn("/later.jpg", [10, 10], { source: "img" }),
      drawn("/footer.png", [200, 80])
    ], { filtered: false })
    expect(images.map((image) => [image.url.replace(base, "/"), image.alt, image.width, image.height])).toEqual([
      ["/og.jpg", "", undefined, undefined],
      ["/hero.png", "Spring sale", 1600, 500],
      ["/inline.png", "", 300, 150],
      ["/photo.jpg", "Photo", 1200, 800],
      ["/tile.png", "", 40, 40],
      ["/stated.jpg", "Stated", 60, undefined],
      ["/later.jpg", "Later", 10, 10],
      ["/footer.png", "", 200, 80]
    ])
    expect(Images.elementOf(images[1]!)).toBe("background")
  })

  it("adds nothing the markup lacks when content filters narrow the page, but still sizes what they kept", () => {
    const images = Images.withRendered(collect(markup), [drawn("/hero.png", [1600, 500]), drawn("/photo.jpg", [1200, 800], { source: "img" })], { filtered: true })
    expect(images.map((image) => image.url.replace(base, "/"))).toEqual(["/og.jpg", "/inline.png", "/photo.jpg", "/stated.jpg", "/later.jpg"])
    expect(images[2]).toMatchObject({ width: 1200, height: 800 })
  })

  it("a page with no markup images still gets its drawn backgrounds", () => {
    const images = Images.withRendered([], [drawn("/a.png", [30, 30]), drawn("/b.png", [60, 30])], { filtered: false })
    expect(images.map((image) => [image.url.replace(base, "/"), image.width])).toEqual([["/a.png", 30], ["/b.png", 60]])
  })
})

describe("Images.fromSession", () => {
  const request = (input: Record<string, unknown> = {}) =>
    Effect.runSync(ScrapeRequest.decode({ url: base, formats: { images: true }, ...input }))
  const collected = collect(markup)

  it.effect("joins the session's images; content filters of the request stop additions", () =>
    Effect.gen(function*() {
      const session = { images: Effect.succeed([drawn("/hero.png", [1600, 500])]) }
      const open = yield* Images.fromSession(request(), collected, session, 1_000)
      expect(open.map((image) => image.url.replace(base, "/"))).toContain("/hero.png")
      for (const shared of [{ includeSelectors: ["main"] }, { excludeSelectors: ["nav"] }, { mainContentOnly: true }]) {
        const narrowed = yield* Images.fromSession(request({ sharedParams: shared }), collected, session, 1_000)
        expect(narrowed.map((image) => image.url.replace(base, "/"))).not.toContain("/hero.png")
      }
    }))

  // Live clock: the slow browser really takes 2 s, and the time limit really passes.
  it.live("keeps the markup's images when the browser fails, is too slow, or no time is left", () =>
    Effect.gen(function*() {
      const slow = { images: Effect.as(Effect.sleep("2 seconds"), [drawn("/hero.png", [1600, 500])]) }
      const quick = { images: Effect.succeed([drawn("/hero.png", [1600, 500])]) }
      const urls = (images: ReadonlyArray<Images.Image>) => images.map((image) => image.url)
      expect(urls(yield* Images.fromSession(request(), collected, { images: Effect.fail(new WebsiteError({ reason: "Unreachable", url: base })) }, 1_000))).toEqual(urls(collected))
      const started = Date.now()
      expect(urls(yield* Images.fromSession(request(), collected, slow, 50))).toEqual(urls(collected))
      expect(Date.now() - started).toBeLessThan(1_500)
      expect(urls(yield* Images.fromSession(request(), collected, quick, 0))).toEqual(urls(collected))
    }), { timeout: 10_000 })
})
