import { describe, expect, it } from "@effect/vitest"
import { Schema } from "effect"
import { readFileSync } from "node:fs"
import { parse } from "../src/Html.js"
import * as Metadata from "../src/Metadata.js"

const fixture = (name: string) => readFileSync(new URL(`./fixtures/page/${name}`, import.meta.url), "utf8")
const articleUrl = "https://herald.example/news/2024/harbour-bridge-reopens?utm_source=feed"

describe("Metadata.extract", () => {
  const tree = parse(fixture("news-article.html"))
  const metadata = Metadata.extract(tree, { url: articleUrl, statusCode: 200, contentType: "text/html; charset=utf-8" })

  it("reads the dedicated fields of a news article", () => {
    expect(metadata.title).toBe("Harbour bridge reopens after two-year repair | The Coastal Herald")
    expect(metadata.description).toBe("The old harbour bridge carries traffic again after a two-year, 40 million repair.")
    expect(metadata.author).toBe("Maria Okafor")
    expect(metadata.keywords).toEqual(["harbour", "bridge", "infrastructure", "city council"])
    expect(metadata.robots).toBe("index, follow, max-image-preview:large")
    expect(metadata.language).toBe("en-GB")
    expect(metadata.siteName).toBe("The Coastal Herald")
    expect(metadata.publishedTime).toBe("2024-03-05T07:30:00+00:00")
    expect(metadata.modifiedTime).toBe("2024-03-05T11:02:00+00:00")
    expect(metadata.statusCode).toBe(200)
    expect(metadata.contentType).toBe("text/html; charset=utf-8")
  })

  it("makes URLs absolute against the page URL", () => {
    expect(metadata.canonicalUrl).toBe("https://herald.example/news/2024/harbour-bridge-reopens")
    expect(metadata.favicon).toBe("https://herald.example/static/favicon-32.png")
    expect(metadata.image).toBe("https://herald.example/media/bridge-hero.jpg")
    expect(metadata.alternates).toEqual([
      { href: "https://herald.example/de/news/2024/hafenbruecke", hreflang: "de" },
      { href: "https://herald.example/news/2024/harbour-bridge-reopens", hreflang: "x-default" },
      { href: "https://herald.example/feeds/city.xml", title: "Coastal Herald: City", type: "application/rss+xml" }
    ])
  })

  it("groups Open Graph, Twitter and the other named meta tags", () => {
    expect(metadata.openGraph).toMatchObject({
      type: "article",
      title: "Harbour bridge reopens after two-year repair",
      site_name: "The Coastal Herald",
      image: "/media/bridge-hero.jpg",
      "image:alt": "The harbour bridge at dawn",
      "image:width": "1200"
    })
    expect(metadata.twitter).toEqual({
      card: "summary_large_image",
      site: "@coastalherald",
      title: "Harbour bridge reopens",
      image: "https://herald.example/media/bridge-hero.jpg"
    })
    expect(metadata.additionalMeta).toMatchObject({
      viewport: "width=device-width, initial-scale=1",
      "theme-color": "#0a3d62",
      "article:section": "City"
    })
    // Values that have their own field are not repeated among the others.
    expect(Object.keys(metadata.additionalMeta ?? {})).not.toContain("description")
    expect(Object.keys(metadata.additionalMeta ?? {})).not.toContain("keywords")
  })

  it("parses JSON-LD blocks, flattening arrays and skipping broken JSON", () => {
    expect(metadata.jsonLd?.map((object) => object["@type"])).toEqual(["NewsArticle", "WebSite"])
    expect(metadata.jsonLd?.[0]).toMatchObject({ datePublished: "2024-03-05T07:30:00Z" })
  })

  it("lists the headings of the whole page in document order, whitespace collapsed", () => {
    expect(metadata.headings).toEqual([
      { level: 1, text: "Harbour bridge reopens after two-year repair" },
      { level: 2, text: "What was repaired" },
      { level: 2, text: "What comes next" },
      { level: 2, text: "Most read" }
    ])
    expect(Metadata.headings(tree)).toEqual(metadata.headings)
  })

  it("produces a value of the PageMetadata schema", () => {
    expect(Schema.is(Metadata.PageMetadata)(metadata)).toBe(true)
  })

  it("resolves against <base href> and defaults the favicon", () => {
    const relative = Metadata.extract(parse(fixture("relative-base.html")), { url: "https://docs.example.com/start/page.html" })
    expect(relative.canonicalUrl).toBe("https://docs.example.com/site/v2/index.html")
    expect(relative.favicon).toBe("https://docs.example.com/site/v2/img/favicon.ico")
    expect(relative.image).toBe("https://docs.example.com/site/v2/img/share.png")
    expect(relative.alternates).toEqual([
      { href: "https://docs.example.com/site/v2/fr/index.html", hreflang: "fr", title: "Accueil" }
    ])
    const bare = Metadata.extract(parse("<p>No head at all</p>"), { url: "https://bare.example/a/b.html" })
    expect(bare.favicon).toBe("https://bare.example/favicon.ico")
    expect(bare.title).toBeUndefined()
    expect(bare.headings).toEqual([])
  })

  it("falls back to og:title, then the first h1, for the title", () => {
    const og = Metadata.extract(parse(`<head><meta property="og:title" content="From OG"></head><h1>Heading</h1>`), {
      url: "https://x.example/"
    })
    expect(og.title).toBe("From OG")
    const h1 = Metadata.extract(parse(`<title>  </title><h2>Sub</h2><h1>The <b>real</b>\n title</h1>`), {
      url: "https://x.example/"
    })
    expect(h1.title).toBe("The real title")
  })

  it("takes dates from JSON-LD, then from an unambiguous <time>", () => {
    const jsonLd = Metadata.extract(
      parse(`<script type="application/ld+json">{"@graph":[{"@type":"WebPage"},{"@type":"Article",
        "datePublished":"2023-01-02","dateModified":"2023-01-05","author":{"name":"Ada"}}]}</script>`),
      { url: "https://x.example/" }
    )
    expect(jsonLd.publishedTime).toBe("2023-01-02")
    expect(jsonLd.modifiedTime).toBe("2023-01-05")
    expect(jsonLd.author).toBe("Ada")
    const single = Metadata.extract(parse(`<p>Posted <time datetime="2022-07-01">July 1</time></p>`), {
      url: "https://x.example/"
    })
    expect(single.publishedTime).toBe("2022-07-01")
    const several = Metadata.extract(
      parse(`<time datetime="2022-07-01">a</time><time datetime="2022-08-01">b</time>`),
      { url: "https://x.example/" }
    )
    expect(several.publishedTime).toBeUndefined()
    const marked = Metadata.extract(
      parse(`<time datetime="2022-07-01">a</time><time itemprop="datePublished" datetime="2021-05-05">b</time>`),
      { url: "https://x.example/" }
    )
    expect(marked.publishedTime).toBe("2021-05-05")
  })

  it("reads the language from content-language when <html> has none", () => {
    const page = parse(`<head><meta http-equiv="Content-Language" content="pt-BR"></head><p>x</p>`)
    expect(Metadata.extract(page, { url: "https://x.example/" }).language).toBe("pt-BR")
  })

  it("caps headings at 500 and their text at 1000 characters", () => {
    const long = "word ".repeat(400)
    const page = parse(`<h1>${long}</h1>` + Array.from({ length: 600 }, (_, i) => `<h3>Section ${i}</h3>`).join(""))
    const found = Metadata.headings(page)
    expect(found).toHaveLength(500)
    expect(found[0]!.text).toHaveLength(1000)
    expect(found[499]).toEqual({ level: 3, text: "Section 498" })
  })

  it("does not change the tree it reads", () => {
    const page = parse(fixture("news-article.html"))
    const before = JSON.stringify(page)
    Metadata.extract(page, { url: articleUrl })
    expect(JSON.stringify(page)).toBe(before)
  })
})
