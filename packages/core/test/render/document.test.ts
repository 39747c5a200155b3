import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { type Browser, chromium } from "playwright-core"
import { documentHtml } from "../../src/internal/render/document.js"

// Functions passed to `page.evaluate` run in the browser.
declare const document: any

let browser: Browser

beforeAll(async () => {
  browser = await chromium.launch({ executablePath: "/usr/lib/chromium/chromium", args: ["--disable-dev-shm-usage", "--no-sandbox"] })
}, 30_000)

afterAll(async () => {
  await browser?.close()
})

describe("documentHtml", { timeout: 30_000 }, () => {
  it("gives exactly what page.content() gives, whatever the page's scripts did to the serializers", async () => {
    const context = await browser.newContext()
    try {
      const page = await context.newPage()
      const pages = [
        `<!DOCTYPE html><html lang="en"><head><title>Tides</title></head><body><p>a &amp; b <b>c</b> “quoted”</p>
<template><i>t</i></template><div id="s"></div><svg><rect width="1"/></svg>
<script>document.getElementById("s").attachShadow({ mode: "open" }).innerHTML = "<em>shadow</em>";
document.body.insertAdjacentHTML("beforeend", "<p id=late>Drawn by script</p>"); window.XMLSerializer = null</script></body></html>`,
        `<p>No doctype, quirks mode</p>`,
        `<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Strict//EN" "http://www.w3.org/TR/xhtml1/DTD/xhtml1-strict.dtd"><html><body>old</body></html>`
      ]
      for (const html of pages) {
        await page.setContent(html)
        const read = await documentHtml(page)
        expect(read).toBe(await page.content())
        if (html.includes("shadow")) expect(read).toContain(`<p id="late">Drawn by script</p>`)
      }
      expect(await documentHtml(page)).toContain("old</body>")
      await page.setContent(`<!DOCTYPE html><html><body><p>Real words</p>
<script>Object.defineProperty(Element.prototype, "outerHTML", { get: () => "fake" })</script></body></html>`)
      expect(await page.evaluate(() => document.documentElement.outerHTML)).toBe("fake")
      expect(await documentHtml(page)).toMatch(/^<!DOCTYPE html><html><head><\/head><body><p>Real words<\/p>/)
    } finally {
      await context.close()
    }
  })

  it("fails on a closed page, as page.content() does", async () => {
    const context = await browser.newContext()
    const page = await context.newPage()
    await page.setContent("<p>soon gone</p>")
    expect(await documentHtml(page)).toContain("soon gone")
    await context.close()
    await expect(documentHtml(page)).rejects.toThrow()
  })
})
