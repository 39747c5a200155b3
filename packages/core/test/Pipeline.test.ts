import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import * as Cache from "../src/Cache.js"
import * as Fetcher from "../src/Fetcher.js"
import * as Pipeline from "../src/Pipeline.js"
import * as FixtureSite from "./support/FixtureSite.js"

const article = `<!doctype html>
<html lang="en"><head>
  <title>Tide tables | Harbour News</title>
  <meta name="description" content="When the tide turns.">
  <meta property="og:image" content="/img/og.jpg">
  <script>window.tracking = true</script>
  <style>body { color: red }</style>
</head><body>
  <header><nav><h2>Site menu</h2><a href="/">Home</a> <a href="/about">About</a></nav></header>
  <main>
    <article>
      <h1>Tide tables</h1>
      <p>The <a href="/tides/today">tide tables</a> for the harbour are published every morning at six.</p>
      <p class="price">€12.50</p>
      <img src="/img/chart.png" alt="Chart of the tides" width="640" height="480">
      <h2>How to read them</h2>
      <ul><li>High water<ul><li>Morning</li><li>Evening</li></ul></li><li>Low water</li></ul>
      <div class="share">Share this on social media</div>
    </article>
  </main>
  <aside class="sidebar"><h3>Related</h3><a href="/other">Other stories you might like</a></aside>
  <footer>© Harbour News. All rights reserved.</footer>
</body></html>`

const shiftJis = new Uint8Array([
  ...new TextEncoder().encode('<html><head><meta charset="shift_jis"><title>t</title></head><body><p>'),
  0x93, 0xfa, 0x96, 0x7b, // 日本
  ...new TextEncoder().encode("</p></body></html>")
])

const routes: FixtureSite.Routes = {
  "/article": FixtureSite.html(article),
  "/counted": FixtureSite.html("<p>Counted page</p>"),
  "/sjis": FixtureSite.html(shiftJis, { contentType: "text/html" }),
  "/notes.txt": FixtureSite.html("First paragraph\nstill first.\n\nSecond paragraph.", { contentType: "text/plain; charset=utf-8" }),
  "/file.bin": FixtureSite.html(new Uint8Array([0, 1, 2, 3, 255]), { contentType: "application/x-custom" }),
  "/missing": FixtureSite.status(404),
  "/slow": FixtureSite.slow({ headersAfterMs: 5_000, chunks: ["<p>late</p>"] })
}

const TestLayer = Layer.mergeAll(
  FixtureSite.layer(routes),
  Fetcher.layer({ allowPrivateTargets: true }),
  Cache.layerMemory()
)

describe("Pipeline", () => {
  it.layer(TestLayer, { timeout: 30_000 })((it) => {
    it.effect("produces every requested static output from one fetch", () =>
      Effect.gen(function*() {
        const site = yield* FixtureSite.FixtureSite
        const url = `${site.url}/article`
        const result = yield* Pipeline.scrape({
          url,
          formats: { markdown: true, html: true, images: true, bytes: true, parse: true },
          parseParams: { rules: { title: "h1", price: ".price", links: { selector: "a", type: "list", output: "href" } } },
          maxAgeMs: 0
        })
        expect(result.url).toBe(url)
        expect(result.markdown.requested).toBe(true)
        expect(result.markdown.data).toContain("# Tide tables")
        expect(result.markdown.data).toContain(`[tide tables](${site.url}/tides/today)`)
        expect(result.markdown.data).toMatch(/- High water\n\s+- Morning\n\s+- Evening\n- Low water/)
        expect(result.markdown.data).not.toContain("window.tracking")
        expect(result.html.data).toContain(`href="${site.url}/tides/today"`)
        expect(result.html.data).not.toContain("<script")
        expect(result.images.data?.map((image) => image.url)).toContain(`${site.url}/img/chart.png`)
        expect(result.images.data?.find((image) => image.url.endsWith("chart.png"))?.alt).toBe("Chart of the tides")
        expect(Buffer.from(result.bytes.data!.base64, "base64").toString("utf8")).toBe(article)
        expect(result.bytes.data!.contentType).toContain("text/html")
        expect(result.parsed.data).toEqual({
          title: "Tide tables",
          price: "€12.50",
          links: [`${site.url}/`, `${site.url}/about`, `${site.url}/tides/today`, `${site.url}/other`]
        })
        expect(result.screenshot).toEqual({ requested: false, data: null })
        expect(result.metadata.title).toBe("Tide tables | Harbour News")
        expect(result.metadata.description).toBe("When the tide turns.")
        expect(result.metadata.language).toBe("en")
        expect(result.metadata.statusCode).toBe(200)
        expect(result.cache_metadata).toEqual({ status: "miss", age_ms: 0 })
        expect(result.isPartial).toBeUndefined()
      }))

    it.effect("include/exclude selectors filter the outputs but not the metadata headings", () =>
      Effect.gen(function*() {
        const site = yield* FixtureSite.FixtureSite
        const result = yield* Pipeline.scrape({
          url: `${site.url}/article`,
          formats: { markdown: true, html: true },
          sharedParams: { includeSelectors: ["article", "aside"], excludeSelectors: [".share", "aside h3"] }
        })
        const markdown = result.markdown.data!
        expect(markdown).toContain("Tide tables")
        expect(markdown).toContain("Other stories you might like")
        expect(markdown).not.toContain("Share this")
        expect(markdown).not.toContain("Related")
        expect(markdown).not.toContain("Site menu")
        expect(result.html.data).not.toContain("Share this")
        expect(result.metadata.headings?.map((h) => h.text)).toEqual(["Site menu", "Tide tables", "How to read them", "Related"])
      }))

    it.effect("main-content extraction drops navigation, sidebars and footers", () =>
      Effect.gen(function*() {
        const site = yield* FixtureSite.FixtureSite
        const result = yield* Pipeline.scrape({
          url: `${site.url}/article`,
          formats: { markdown: true },
          sharedParams: { mainContentOnly: true }
        })
        const markdown = result.markdown.data!
        expect(markdown).toContain("published every morning at six")
        expect(markdown).not.toContain("Site menu")
        expect(markdown).not.toContain("All rights reserved")
        expect(markdown).not.toContain("Other stories you might like")
      }))

    it.effect("decodes a Shift_JIS page from its meta charset", () =>
      Effect.gen(function*() {
        const site = yield* FixtureSite.FixtureSite
        const result = yield* Pipeline.scrape({ url: `${site.url}/sjis`, formats: { markdown: true } })
        expect(result.markdown.data?.trim()).toBe("日本")
      }))

    it.effect("plain text becomes paragraphs; unknown binary types are refused unless only bytes are asked for", () =>
      Effect.gen(function*() {
        const site = yield* FixtureSite.FixtureSite
        const text = yield* Pipeline.scrape({ url: `${site.url}/notes.txt`, formats: { markdown: true } })
        expect(text.markdown.data).toBe("First paragraph\nstill first.\n\nSecond paragraph.\n")
        const textHtml = yield* Pipeline.scrape({ url: `${site.url}/notes.txt`, formats: { html: true } })
        expect(textHtml.html.data).toContain("<pre>First paragraph\nstill first.")
        const refused = yield* Effect.flip(Pipeline.scrape({ url: `${site.url}/file.bin`, formats: { markdown: true } }))
        expect(refused._tag).toBe("ContentError")
        expect(refused.errorCode).toBe("UNSUPPORTED_CONTENT")
        const bytes = yield* Pipeline.scrape({ url: `${site.url}/file.bin`, formats: { bytes: true } })
        expect(bytes.bytes.data).toEqual({ base64: Buffer.from([0, 1, 2, 3, 255]).toString("base64"), contentType: "application/x-custom" })
      }))

    it.effect("a target's 404 is a WEBSITE_ACCESS_ERROR naming the status", () =>
      Effect.gen(function*() {
        const site = yield* FixtureSite.FixtureSite
        const error = yield* Effect.flip(Pipeline.scrape({ url: `${site.url}/missing`, formats: { markdown: true } }))
        expect(error.errorCode).toBe("WEBSITE_ACCESS_ERROR")
        expect(error.message).toContain("404")
      }))

    it.effect("requests that need a browser fail clearly while no renderer is configured", () =>
      Effect.gen(function*() {
        const site = yield* FixtureSite.FixtureSite
        const error = yield* Effect.flip(Pipeline.scrape({ url: `${site.url}/article`, formats: { screenshot: true } }))
        expect(error._tag).toBe("ContentError")
        expect(error.message).toContain("formats.screenshot")
      }))

    it.effect("invalid input never reaches the network", () =>
      Effect.gen(function*() {
        const site = yield* FixtureSite.FixtureSite
        const before = site.exchanges.length
        const error = yield* Effect.flip(Pipeline.scrape({ url: `${site.url}/article`, formats: {} }))
        expect(error.errorCode).toBe("INPUT_VALIDATION_ERROR")
        expect(site.exchanges.length).toBe(before)
      }))
  })

  it.live("serves a repeat from the cache with its age; maxAgeMs 0 fetches fresh; headers and zdr bypass", () =>
    Effect.gen(function*() {
      const site = yield* FixtureSite.scoped(routes)
      const url = `${site.url}/counted`
      const hits = () => site.exchanges.filter((exchange) => exchange.path === "/counted").length
      const first = yield* Pipeline.scrape({ url, formats: { markdown: true } })
      expect(first.cache_metadata.status).toBe("miss")
      yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 20)))
      const second = yield* Pipeline.scrape({ url, formats: { html: true } })
      expect(second.cache_metadata.status).toBe("hit")
      expect(second.cache_metadata.age_ms).toBeGreaterThanOrEqual(15)
      expect(second.html.data).toContain("Counted page")
      expect(hits()).toBe(1)
      const fresh = yield* Pipeline.scrape({ url, formats: { markdown: true }, maxAgeMs: 0 })
      expect(fresh.cache_metadata).toEqual({ status: "miss", age_ms: 0 })
      expect(hits()).toBe(2)
      const withHeaders = yield* Pipeline.scrape({ url, formats: { markdown: true }, sharedParams: { headers: { "X-Token": "1" } } })
      expect(withHeaders.cache_metadata.status).toBe("miss")
      const zdr = yield* Pipeline.scrape({ url, formats: { markdown: true }, zdr: "enabled" })
      expect(zdr.cache_metadata).toEqual({ status: "zdr", age_ms: 0 })
      expect(hits()).toBe(4)
      const tooOld = yield* Pipeline.scrape({ url, formats: { markdown: true }, maxAgeMs: 1 })
      expect(tooOld.cache_metadata.status).toBe("miss")
      expect(hits()).toBe(5)
    }).pipe(Effect.scoped, Effect.provide(Layer.merge(Fetcher.layer({ allowPrivateTargets: true }), Cache.layerMemory()))))

  it.live("the deadline interrupts a slow page: fail → REQUEST_TIMEOUT, return-partial with nothing loaded → REQUEST_TIMEOUT", () =>
    Effect.gen(function*() {
      const site = yield* FixtureSite.scoped(routes)
      const started = Date.now()
      const failed = yield* Effect.flip(Pipeline.scrape({
        url: `${site.url}/slow`,
        formats: { markdown: true },
        timeoutOpts: { milliseconds: 400 }
      }))
      expect(failed.errorCode).toBe("REQUEST_TIMEOUT")
      expect(failed.message).toContain("400 ms")
      expect(Date.now() - started).toBeLessThan(1_500)
      const partial = yield* Effect.flip(Pipeline.scrape({
        url: `${site.url}/slow`,
        formats: { markdown: true },
        timeoutOpts: { milliseconds: 400, behavior: "return-partial" }
      }))
      expect(partial.errorCode).toBe("REQUEST_TIMEOUT")
      expect(partial.message).toContain("nothing had loaded")
    }).pipe(Effect.scoped, Effect.provide(Layer.merge(Fetcher.layer({ allowPrivateTargets: true }), Cache.layerNone))))

  it.effect("private targets are refused by default", () =>
    Effect.gen(function*() {
      const site = yield* FixtureSite.scoped(routes)
      const error = yield* Effect.flip(Pipeline.scrape({ url: `${site.url}/article`, formats: { markdown: true } }))
      expect(error.errorCode).toBe("WEBSITE_ACCESS_ERROR")
      expect(error.message).toMatch(/private|loopback/i)
    }).pipe(Effect.scoped, Effect.provide(Layer.merge(Fetcher.layer({ allowPrivateTargets: false }), Cache.layerNone))))
})
