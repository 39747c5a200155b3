import { describe, expect, it } from "@effect/vitest"
import { readFileSync } from "node:fs"
import * as ContentFilter from "../src/ContentFilter.js"
import { parse } from "../src/Html.js"
import * as Images from "../src/Images.js"

const fixture = (name: string) => readFileSync(new URL(`./fixtures/page/${name}`, import.meta.url), "utf8")
const baseUrl = "https://gallery.example/albums/summer/"
const site = (path: string) => `https://gallery.example${path}`

describe("Images.collect", () => {
  const tree = parse(fixture("images.html"))
  const images = Images.collect(tree, { baseUrl })
  const urls = images.map((image) => image.url)

  it("finds every visible image in document order, og:image first", () => {
    expect(urls).toEqual([
      "https://img.example/social/cover.jpg",
      site("/photos/plain.jpg"),
      site("/photos/large.jpg"),
      site("/photos/dense@3x.jpg"),
      site("/photos/lazy.jpg"),
      site("/photos/lazy-set-1200.jpg"),
      site("/photos/wp-lazy.jpg"),
      site("/photos/original.jpg"),
      site("/photos/pic-1600.avif"),
      site("/photos/pic.jpg"),
      site("/photos/same.jpg"),
      expect.stringMatching(/^data:image\/svg\+xml;base64,/),
      site("/photos/hero-bg.jpg"),
      site("/photos/lazy-bg.jpg"),
      site("/photos/noscript-fallback.jpg"),
      site("/photos/visible.jpg"),
      site("/buttons/submit.png"),
      site("/video/poster.jpg"),
      site("/photos/dimension-px.jpg")
    ])
  })

  it("knows where each image was found", () => {
    const elementAt = (url: string) => Images.elementOf(images.find((image) => image.url === url)!)
    expect(elementAt("https://img.example/social/cover.jpg")).toBe("meta")
    expect(elementAt(site("/photos/plain.jpg"))).toBe("img")
    expect(elementAt(site("/photos/pic-1600.avif"))).toBe("source")
    expect(elementAt(site("/photos/hero-bg.jpg"))).toBe("background")
    expect(elementAt(site("/video/poster.jpg"))).toBe("video")
    expect(Images.elementOf({ url: "https://elsewhere.example/x.png", alt: "" })).toBeUndefined()
  })

  it("keeps alt text, the most descriptive one for repeated images", () => {
    const byUrl = new Map(images.map((image) => [image.url, image]))
    expect(byUrl.get("https://img.example/social/cover.jpg")?.alt).toBe("Gallery cover")
    expect(byUrl.get(site("/photos/plain.jpg"))).toEqual({
      url: site("/photos/plain.jpg"),
      alt: "A plain photo, again, with a longer description",
      width: 800,
      height: 600
    })
    expect(byUrl.get(site("/photos/pic-1600.avif"))?.alt).toBe("A picture element")
    expect(byUrl.get(site("/photos/hero-bg.jpg"))?.alt).toBe("Hero background")
    expect(byUrl.get(site("/photos/lazy.jpg"))?.alt).toBe("Lazy photo")
  })

  it("reads numeric dimensions only", () => {
    const odd = images.find((image) => image.url === site("/photos/dimension-px.jpg"))
    expect(odd).toEqual({ url: site("/photos/dimension-px.jpg"), alt: "Odd dimensions", width: 300 })
  })

  it("drops tracking pixels, spacers, hidden images and redundant noscript copies", () => {
    expect(urls.some((url) => url.includes("tracker.example"))).toBe(false)
    expect(urls.some((url) => url.includes("spacer.gif") || url.includes("placeholder.png"))).toBe(false)
    expect(urls.some((url) => url.startsWith("data:image/gif"))).toBe(false)
    expect(urls).not.toContain(site("/photos/hidden.jpg"))
    expect(urls).not.toContain(site("/photos/visible-noscript.jpg"))
    expect(new Set(urls).size).toBe(urls.length)
  })

  it("takes og:image from the full page when the filtered tree has lost it", () => {
    const filtered = ContentFilter.select(tree, { includeSelectors: ["picture"] })
    const withMeta = Images.collect(filtered, { baseUrl, metaTree: tree }).map((image) => image.url)
    expect(withMeta).toEqual([
      "https://img.example/social/cover.jpg",
      site("/photos/pic-1600.avif"),
      site("/photos/pic.jpg"),
      site("/photos/same.jpg")
    ])
    const bodyOnly = parse(`<body><img src="a.png" alt="A"></body>`)
    expect(Images.collect(bodyOnly, { baseUrl, metaTree: tree }).map((image) => image.url)).toEqual([
      "https://img.example/social/cover.jpg",
      "https://gallery.example/albums/summer/a.png"
    ])
  })

  it("resolves against <base href>", () => {
    const relative = Images.collect(parse(fixture("relative-base.html")), { baseUrl: "https://docs.example.com/start/" })
    expect(relative).toEqual([
      { url: "https://docs.example.com/site/v2/img/share.png", alt: "" },
      { url: "https://docs.example.com/site/v2/img/diagram@2x.png", alt: "Architecture diagram", width: 640, height: 360 },
      { url: "https://docs.example.com/site/v2/media/poster.jpg", alt: "" },
      { url: "https://docs.example.com/site/v2/img/banner.jpg", alt: "Banner" }
    ])
  })

  it("reads Foundation interchange lazy attributes and keeps real data URIs", () => {
    const page = parse(`<img src="/blank.gif" data-lazy="[/s.jpg, (default)], [/l.jpg, (large)]" alt="Team">
      <img src="data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAABAAAAAQCAYAAAAf8/9hAAAAAXNSR0IArs4c6QAAAARnQU1B" alt="Icon">`)
    expect(Images.collect(page, { baseUrl: "https://t.example/" }).map((image) => [image.url.slice(0, 30), image.alt]))
      .toEqual([["https://t.example/l.jpg", "Team"], ["data:image/png;base64,iVBORw0K", "Icon"]])
  })
})
