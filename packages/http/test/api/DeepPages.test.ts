/**
 * Pages nested far deeper than any real one, through the service: every scrape endpoint answers 200 with the deepest
 * text (the tree builder bounds depth as Chromium does, so no walk over the page can overflow the stack), and the
 * service keeps answering afterwards.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as FixtureSite from "../../../core/test/support/FixtureSite.js"
import * as TestService from "../support/TestService.js"

const nest = (open: string, close: string, times: number, inner: string) =>
  open.repeat(times) + inner + close.repeat(times)

const bottom = (name: string) => `<p id="bottom">The bottom of the ${name}, reached at last.</p><img src="/deep.png" alt="Deep">`

const page = (name: string, body: string) =>
  `<!doctype html><html><head><title>Deep ${name}</title></head><body><h1>Deep ${name}</h1>${body}</body></html>`

const pages: Record<string, string> = {
  divs: page("divs", nest("<div>", "</div>", 50_000, bottom("divs"))),
  tables: page("tables", nest("<table><tr><td>", "</td></tr></table>", 5_000, bottom("tables"))),
  inline: page("inline", nest("<b><span>", "</span></b>", 10_000, "The bottom of the inline, reached at last.")),
  lists: page("lists", nest("<ul><li>", "</li></ul>", 10_000, bottom("lists"))),
  quotes: page("quotes", nest("<blockquote>", "</blockquote>", 10_000, bottom("quotes")))
}

describe("deep pages through the service", { timeout: 120_000 }, () => {
  let service: TestService.TestService
  let site: FixtureSite.Site
  let secret: string

  beforeAll(async () => {
    site = await FixtureSite.start(Object.fromEntries(Object.entries(pages).map(([name, html]) => [`/${name}`, FixtureSite.html(html)])))
    service = await TestService.start()
    secret = (await service.key({ credits: 1_000 })).secret
  })

  afterAll(async () => {
    await service?.close()
    await site?.close()
  })

  const call = async (path: string, init: RequestInit = {}) => {
    const response = await fetch(`${service.baseUrl}${path}`, {
      ...init,
      headers: { authorization: `Bearer ${secret}`, "content-type": "application/json", ...init.headers }
    })
    return { status: response.status, body: await response.json() as Record<string, any> }
  }

  for (const name of Object.keys(pages)) {
    const text = `The bottom of the ${name}, reached at last.`

    it(`${name}: POST /web/scrape with every format, main content on and off, is 200 with the deepest text`, async () => {
      for (const mainContentOnly of [false, true]) {
        const { body, status } = await call("/web/scrape", {
          method: "POST",
          body: JSON.stringify({
            url: `${site.url}/${name}`,
            formats: { markdown: true, html: true, images: true, parse: true },
            parseParams: { rules: { heading: "h1", nested: { selector: "div div div > p, ul ul li > p, td td > p", type: "list" } } },
            sharedParams: { mainContentOnly, excludeSelectors: ["blockquote blockquote blockquote script"] },
            maxAgeMs: 0
          })
        })
        expect(status, JSON.stringify(body).slice(0, 300)).toBe(200)
        expect(body.markdown.data).toContain(text)
        expect(body.html.data).toContain(text)
        expect(body.metadata.title).toBe(`Deep ${name}`)
        expect(Array.isArray(body.images.data)).toBe(true)
        if (name === "divs") expect(body.parsed.data.nested).toEqual([text])
        else expect(Array.isArray(body.parsed.data.nested)).toBe(true)
      }
    })

    it(`${name}: GET markdown, html and images are 200`, async () => {
      const url = encodeURIComponent(`${site.url}/${name}`)
      const markdown = await call(`/web/scrape/markdown?url=${url}&maxAgeMs=0`)
      expect(markdown.status).toBe(200)
      expect(markdown.body.markdown).toContain(text)
      const html = await call(`/web/scrape/html?url=${url}&includeSelectors=${encodeURIComponent("div div, td td, li li, blockquote blockquote, b span b")}`)
      expect(html.status).toBe(200)
      expect(html.body.html).toContain(text)
      const images = await call(`/web/scrape/images?url=${url}`)
      expect(images.status).toBe(200)
    })
  }

  it("a deep HTML upload to POST /parse is 200, and the service still answers afterwards", async () => {
    const response = await fetch(`${service.baseUrl}/parse?extension=html`, {
      method: "POST",
      body: new TextEncoder().encode(pages.divs!),
      headers: { authorization: `Bearer ${secret}`, "content-type": "application/octet-stream" }
    })
    const body = await response.json() as Record<string, any>
    expect(response.status, JSON.stringify(body).slice(0, 300)).toBe(200)
    expect(body.markdown).toContain("The bottom of the divs, reached at last.")
    const after = await call(`/web/scrape/markdown?url=${encodeURIComponent(`${site.url}/quotes`)}`)
    expect(after.status).toBe(200)
  })
})
