import { describe, expect, it } from "@effect/vitest"
import { gzipSync } from "node:zlib"
import { MAX_SITEMAP_BYTES, read, Unreadable } from "../../src/internal/discovery/sitemapRead.js"
import { scan } from "../../src/internal/discovery/xmlScan.js"

const bytes = (text: string) => Buffer.from(text, "utf8")

describe("sitemapRead", () => {
  it("reads a urlset with lastmod, entities, CDATA, namespaces and hreflang alternates, not image locations", async () => {
    const result = await read(bytes(`\uFEFF<?xml version="1.0"?>
<!-- generated -->
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:image="http://www.google.com/schemas/sitemap-image/1.1" xmlns:xhtml="http://www.w3.org/1999/xhtml">
  <url>
    <image:image><image:loc>https://e.com/img.png</image:loc></image:image>
    <loc> https://e.com/a?x=1&amp;y=2 </loc>
    <lastmod>2024-03-01</lastmod>
    <xhtml:link rel="alternate" hreflang="de" href="https://e.com/de/a"/>
  </url>
  <url><loc><![CDATA[https://e.com/b]]></loc></url>
  <sm:url xmlns:sm="x"><sm:loc>https://e.com/c&#x2F;d</sm:loc></sm:url>
</urlset>`))
    expect(result).toEqual({
      kind: "urls",
      entries: [
        { loc: "https://e.com/a?x=1&y=2", lastmod: "2024-03-01" },
        { loc: "https://e.com/de/a" },
        { loc: "https://e.com/b", lastmod: undefined },
        { loc: "https://e.com/c/d", lastmod: undefined }
      ],
      count: 4,
      damage: undefined
    })
  })

  it("gives page URLs to take as it reads them and stops reading where take says so, damage after that unread", async () => {
    const urls = Array.from({ length: 1000 }, (_, i) => `<url><loc>https://e.com/${i}</loc><lastmod>2024-01-0${i % 9 + 1}</lastmod></url>`)
    const taken: Array<{ loc: string; lastmod?: string | undefined }> = []
    const take = (entry: { loc: string; lastmod?: string | undefined }) => {
      taken.push(entry)
      return taken.length < 10
    }
    // The document breaks after the 500th entry: a reader that stopped at the 10th never meets it.
    const xml = `<urlset>${urls.slice(0, 500).join("")}<url><loc>https://e.com/cut</lo${urls.slice(500).join("")}`
    expect(await read(gzipSync(bytes(xml)), take)).toEqual({ kind: "urls", entries: [], count: 10, damage: undefined })
    expect(taken).toEqual(Array.from({ length: 10 }, (_, i) => ({ loc: `https://e.com/${i}`, lastmod: `2024-01-0${i % 9 + 1}` })))

    // An index's entries are sitemaps to walk: always returned, never given to take.
    const index = `<sitemapindex><sitemap><loc>https://e.com/1.xml</loc></sitemap><sitemap><loc>https://e.com/2.xml</loc></sitemap></sitemapindex>`
    expect(await read(bytes(index), () => false)).toMatchObject({ kind: "index", count: 2, entries: [{ loc: "https://e.com/1.xml" }, { loc: "https://e.com/2.xml" }] })

    // Text sitemaps and feeds stop alike.
    const lines: Array<string> = []
    const text = Array.from({ length: 100 }, (_, i) => `https://e.com/t${i}`).join("\r\n")
    expect(await read(bytes(text), (entry) => lines.push(entry.loc) < 3)).toEqual({ kind: "text", entries: [], count: 3 })
    expect(lines).toEqual(["https://e.com/t0", "https://e.com/t1", "https://e.com/t2"])
    const items = Array.from({ length: 50 }, (_, i) => `<item><link>https://e.com/p${i}</link></item>`).join("")
    const feed: Array<string> = []
    expect(await read(bytes(`<rss><channel>${items}</channel></rss>`), (entry) => feed.push(entry.loc) < 5)).toMatchObject({ kind: "feed", count: 5 })
    expect(feed).toHaveLength(5)
  })

  it("reads sitemap indexes, gzip by magic bytes, text sitemaps, RSS, RDF and Atom", async () => {
    const index = `<sitemapindex><sitemap><loc>https://e.com/1.xml.gz</loc><lastmod>2024</lastmod></sitemap></sitemapindex>`
    expect(await read(gzipSync(bytes(index)))).toMatchObject({ kind: "index", entries: [{ loc: "https://e.com/1.xml.gz" }] })
    expect(await read(bytes("https://e.com/1\r\n# comment\nhttps://e.com/2\n"))).toMatchObject({
      kind: "text",
      entries: [{ loc: "https://e.com/1" }, { loc: "https://e.com/2" }]
    })
    const rss = `<rss><channel><link>https://e.com/</link><item><link>https://e.com/p1</link><pubDate>Tue</pubDate></item></channel></rss>`
    expect(await read(bytes(rss))).toMatchObject({ kind: "feed", entries: [{ loc: "https://e.com/p1", lastmod: "Tue" }] })
    const rdf = `<rdf:RDF><channel><link>https://e.com/</link></channel><item><link>https://e.com/r1</link><dc:date>2024</dc:date></item></rdf:RDF>`
    expect(await read(bytes(rdf))).toMatchObject({ kind: "feed", entries: [{ loc: "https://e.com/r1", lastmod: "2024" }] })
    const atom = `<feed><link href="https://e.com/"/><entry><link rel="edit" href="https://e.com/edit/1"/>` +
      `<link rel="alternate" href="https://e.com/a1"/><updated>2024-01-01</updated></entry></feed>`
    expect(await read(bytes(atom))).toMatchObject({ kind: "feed", entries: [{ loc: "https://e.com/a1", lastmod: "2024-01-01" }] })
  })

  it("says 'none' for HTML soft 404s, other XML and empty bodies", async () => {
    expect((await read(bytes("<!DOCTYPE html><html><body>Not found</body></html>"))).kind).toBe("none")
    expect((await read(bytes("<?xml version='1.0'?><config><loc>https://e.com/x</loc></config>"))).kind).toBe("none")
    expect((await read(bytes("   "))).kind).toBe("none")
    expect((await read(bytes("just words"))).kind).toBe("none")
  })

  it("keeps the complete entries of damaged XML and reports the damage", async () => {
    const cut = await read(bytes(`<urlset><url><loc>https://e.com/1</loc></url><url><loc>https://e.com/2</loc><lastm`))
    expect(cut.entries.map((e) => e.loc)).toEqual(["https://e.com/1", "https://e.com/2"])
    expect(cut.damage).toMatch(/^malformed XML: tag cut off/)
    const unclosed = await read(bytes(`<urlset><url><loc>https://e.com/1</loc></url><url><loc>https://e.com/2`))
    expect(unclosed.entries.map((e) => e.loc)).toEqual(["https://e.com/1"])
    expect(unclosed.damage).toMatch(/ends inside <loc>/)
    const stray = await read(bytes(`<urlset><url><loc>https://e.com/1</loc></url></bogus><url><loc>https://e.com/2</loc></url></urlset>`))
    expect(stray.entries.map((e) => e.loc)).toEqual(["https://e.com/1"])
    expect(stray.damage).toMatch(/unexpected <\/bogus>/)
  })

  it("refuses gzip that decompresses past 50 MB, and corrupt gzip", async () => {
    const bomb = gzipSync(Buffer.alloc(MAX_SITEMAP_BYTES + 1024, " "))
    await expect(read(bomb)).rejects.toMatchObject({ tooLarge: true })
    const corrupt = gzipSync(bytes("<urlset></urlset>")).subarray(0, 12)
    const error = await read(corrupt).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(Unreadable)
    expect((error as Unreadable).tooLarge).toBe(false)
  })
})

describe("xmlScan", () => {
  it("reports open, text and close events with local names and attributes", () => {
    const events: Array<string> = []
    const damage = scan(`<a:root x="1"><b y='2 &amp; 3'/>t&lt;u<c>v</c></a:root>`, {
      open: (name, attribute, selfClosing) => events.push(`open ${name} ${attribute("x") ?? attribute("y") ?? ""}${selfClosing ? " /" : ""}`),
      text: (text) => events.push(`text ${text}`),
      wantsText: () => true,
      close: (name) => events.push(`close ${name}`)
    })
    expect(damage).toBeUndefined()
    expect(events).toEqual(["open root 1", "open b 2 & 3 /", "close b", "text t<u", "open c ", "text v", "close c", "close root"])
  })

  it("decodes &nbsp; and capitalised entities, and stops at unterminated comments, CDATA sections and stray or cut tags", () => {
    const read = (source: string) => {
      const texts: Array<string> = []
      const damage = scan(source, { open: () => {}, text: (text) => texts.push(text), wantsText: () => true, close: () => {} })
      return { texts, damage }
    }
    expect(read(`<a>x&nbsp;y &AMP; &#x41;</a>`)).toEqual({ texts: ["x\u00a0y & A"], damage: undefined })
    expect(read(`<a>kept<!-- never closed`)).toEqual({ texts: ["kept"], damage: "unterminated comment at offset 7" })
    expect(read(`<a><![CDATA[never closed`)).toEqual({ texts: [], damage: "unterminated CDATA section at offset 3" })
    expect(read(`<a>1 < 2</a>`)).toEqual({ texts: ["1 "], damage: "stray \"<\" at offset 5" })
    expect(read(`<a><b x="1<c>`).damage).toBe("tag cut off at offset 3")
    expect(read(`<a>x</a><`).damage).toBe("tag cut off at offset 8")
  })
})
