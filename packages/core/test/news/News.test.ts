/**
 * core News without a network: JSON Feed and RDF read into articles, the feed size bound, OPML lists, the feeds and
 * newsroom links a site page announces, clustering keys of syndicated copies, and entity matching.
 */
import { describe, expect, it } from "vitest"
import * as News from "../../src/News.js"

const source: News.FeedSource = { domain: "pub.test", name: "", direct: false, type: "editorial" }

describe("News.readFeedText", () => {
  it("reads a JSON Feed: title, link, summary, authors, image, language, date; the feed's title names the source", () => {
    const feed = JSON.stringify({
      version: "https://jsonfeed.org/version/1.1",
      title: "Pub Daily",
      language: "fr-FR",
      items: [
        { id: "1", url: "https://pub.test/a", title: "Acme ouvre une usine", content_html: "<p>Acme ouvre une usine &amp; recrute.</p>", date_published: "2026-11-20T08:00:00Z", authors: [{ name: "Lou" }], image: "/a.jpg" },
        { id: "2", title: "No link: its id is not a URL either" }
      ]
    })
    const [article, ...rest] = News.readFeedText(feed, "https://pub.test/feed.json", source)
    expect(rest).toEqual([])
    expect(article).toMatchObject({
      url: "https://pub.test/a",
      title: "Acme ouvre une usine",
      description: "Acme ouvre une usine & recrute.",
      authors: ["Lou"],
      imageUrl: "https://pub.test/a.jpg",
      language: "fr",
      publishedAt: new Date("2026-11-20T08:00:00Z"),
      source: { domain: "pub.test", name: "Pub Daily", direct: false }
    })
    // Stable: the same link gives the same id in every read.
    expect(News.readFeedText(feed, "https://pub.test/feed.json", source)[0]!.id).toBe(article!.id)
  })

  it("reads RSS 1.0 (RDF) and refuses a text that is no feed or is over the size bound", () => {
    const rdf = `<?xml version="1.0"?><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns="http://purl.org/rss/1.0/" xmlns:dc="http://purl.org/dc/elements/1.1/"><channel rdf:about="https://pub.test/"><title>Pub RDF</title><link>https://pub.test/</link><description>d</description></channel><item rdf:about="https://pub.test/r"><title>Acme in RDF</title><link>https://pub.test/r</link><dc:date>2026-11-19T10:00:00Z</dc:date><dc:creator>Kim</dc:creator></item></rdf:RDF>`
    expect(News.readFeedText(rdf, "https://pub.test/rdf", source).map((a) => [a.url, a.title, a.authors])).toEqual([["https://pub.test/r", "Acme in RDF", ["Kim"]]])
    expect(() => News.readFeedText("<html><body>not a feed</body></html>", "https://pub.test/x", source)).toThrow(News.FeedError)
    expect(() => News.readFeedText(" ".repeat(News.limits.maxFeedBytes + 1), "https://pub.test/big", source)).toThrow(/over/)
  })

  it("detects the language of items whose feed states none, when confident", () => {
    const rss = `<rss version="2.0"><channel><title>T</title>
      <item><title>Acme ouvre sa première usine européenne</title><link>https://pub.test/fr</link><description>Acme Robotics ouvre sa première usine européenne à Lyon, avec trois cents emplois.</description></item>
      <item><title>Acme eröffnet ein Werk</title><link>https://pub.test/de</link><description>Acme Robotics eröffnet sein erstes europäisches Werk in Lyon mit dreihundert Arbeitsplätzen.</description></item>
      <item><title>kalo mira tevu</title><link>https://pub.test/x</link><description>zone pisu dofa giho juwe</description></item>
    </channel></rss>`
    expect(News.readFeedText(rss, "https://pub.test/rss", source).map((a) => a.language)).toEqual(["fr", "de", null])
  })

  it("keeps at most maxItems items, and a date in the future is no date", () => {
    const items = Array.from({ length: News.limits.maxItems + 50 }, (_, i) => `<item><title>Item ${i}</title><link>https://pub.test/${i}</link><pubDate>not a date</pubDate></item>`).join("")
    const articles = News.readFeedText(`<rss version="2.0"><channel><title>T</title>${items}<item><title>Later</title><link>https://pub.test/later</link><pubDate>${new Date(Date.now() + 30 * 86_400_000).toUTCString()}</pubDate></item></channel></rss>`, "https://pub.test/rss", source)
    expect(articles).toHaveLength(News.limits.maxItems)
    expect(articles[0]!.publishedAt).toBeNull()
  })
})

describe("News discovery and clustering", () => {
  it("reads an OPML list's feeds, nested outlines included", () => {
    const opml = `<?xml version="1.0"?><opml version="2.0"><head><title>Feeds</title></head><body><outline text="Wire" xmlUrl="https://wire.test/rss"/><outline text="Tech"><outline text="Daily" type="rss" xmlUrl="https://daily.test/atom"/></outline></body></opml>`
    expect(News.opmlFeeds(opml)).toEqual(["https://wire.test/rss", "https://daily.test/atom"])
  })

  it("finds the feeds a page announces and its newsroom/press links on the same site", () => {
    const html = `<html><head><link rel="alternate" type="application/rss+xml" href="/feed.xml"><link rel="alternate" type="application/feed+json" href="https://acme.test/feed.json"><link rel="alternate" hreflang="de" href="/de/"></head>
      <body><a href="/newsroom/">Newsroom</a><a href="/press">Press</a><a href="https://other.test/news">Elsewhere</a><a href="/pricing">Pricing</a></body></html>`
    expect(News.feedLinks(html, "https://acme.test/")).toEqual({
      feeds: ["https://acme.test/feed.xml", "https://acme.test/feed.json"],
      newsPages: ["https://acme.test/newsroom/", "https://acme.test/press"]
    })
    expect(News.siteName(`<title>Acme Robotics | Home</title>`)).toBe("Acme Robotics")
  })

  it("gives syndicated copies one headline key and similar sketches; another story differs", () => {
    const body = "Acme Robotics today introduced the R2 welding arm, a six-axis industrial robot that welds steel frames twice as fast as its predecessor."
    expect(News.titleKey("Acme launches R2 - Wire Daily")).toBe(News.titleKey("Acme Launches R2 | The Daily"))
    expect(News.similarity(News.minhash(body), News.minhash(body.replace("today introduced", "introduced on Tuesday")))).toBeGreaterThanOrEqual(0.5)
    expect(News.similarity(News.minhash(body), News.minhash("Rain and wind are expected over the whole weekend in the north, clearing slowly on Monday morning."))).toBeLessThan(0.2)
  })

  it("matches an entity in the headline (primary) or the body (secondary), on word boundaries", () => {
    const entity: News.Entity = { name: "Acme Corp.", domain: "acme.test", aliases: [], cik: undefined }
    const article = (title: string, description: string) => ({ title, description, source: { domain: "pub.test", name: "Pub", direct: false } })
    expect(News.match(article("Acme raises prices", ""), entity, false)).toEqual({ level: "primary", confidence: 0.9 })
    expect(News.match(article("Prices rise", "Acme said so; Acme Corp. agrees."), entity, false)).toEqual({ level: "secondary", confidence: 0.7 })
    expect(News.match(article("Acmeville fair opens", "Acmeville"), entity, false)).toBeUndefined()
    expect(News.match(article("Anything", ""), entity, true)).toEqual({ level: "primary", confidence: 1 })
  })
})
