import { describe, expect, it } from "@effect/vitest"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import * as BlockDetection from "../../src/BlockDetection.js"

const fixture = (name: string) => readFileSync(join(import.meta.dirname, "fixtures", name), "utf8")

describe("BlockDetection", () => {
  const cases: ReadonlyArray<readonly [string, string, string | undefined, string | undefined]> = [
    ["cloudflare-challenge.html", "https://shop.example/", "challenge", "WEBSITE_BLOCKED"],
    ["datadome.html", "https://shop.example/", "captcha", "WEBSITE_BLOCKED"],
    ["recaptcha-wall.html", "https://shop.example/", "captcha", "WEBSITE_BLOCKED"],
    ["login-wall.html", "https://members.example/account", "loginWall", "WEBSITE_BLOCKED"],
    ["soft-404.html", "https://news.example/missing", "soft404", "WEBSITE_ACCESS_ERROR"],
    ["login-article.html", "https://help.example/login-help", undefined, undefined],
    ["onetrust.html", "https://ferries.example/", undefined, undefined],
    ["newsletter-popup.html", "https://news.example/", undefined, undefined]
  ]
  for (const [name, url, kind, code] of cases) {
    it(`${name} → ${kind ?? "content"}`, () => {
      const verdict = BlockDetection.inspect({ url, status: 200, html: fixture(name) })
      expect(verdict?.kind).toBe(kind)
      if (verdict !== undefined) expect(BlockDetection.toError(url, verdict).errorCode).toBe(code)
    })
  }
  it("a real 404 status is not re-judged as a soft 404", () => {
    expect(BlockDetection.inspect({ url: "https://x.example/", status: 404, html: fixture("soft-404.html") })).toBeUndefined()
  })
  it("every signature is still found when the one-pass hint scan gates it: any case, and a marker starting inside another", () => {
    const article = `<p>${"Ordinary words of a long article. ".repeat(400)}</p>`
    const page = (head: string) => `<html><head><title>Shop</title>${head}</head><body>${article}</body></html>`
    const cases: ReadonlyArray<readonly [string, string]> = [
      [`<script src="https://JS.DataDome.co/tags.js"></script>`, "a DataDome CAPTCHA"],
      // "captcha-delivery" begins inside "h-captcha": a scan that consumed the first would miss it.
      [`<link rel="preconnect" href="https://h-captcha-delivery.com/">`, "a DataDome CAPTCHA"],
      [`<script>window._pxAppId = 1</script><script src="https://client.PX-CDN.net/x.js"></script>`, "a PerimeterX (HUMAN) challenge"],
      [`<script src="/cdn-cgi/challenge-platform/h/b/orchestrate/jsch/v1"></script>`, "a Cloudflare challenge page"],
      [`<script>var t = "aws-waf-token"</script>`, "an AWS WAF CAPTCHA"],
      [`<script src="/_Incapsula_Resource?SWJIYLWA=1"></script>`, "an Imperva (Incapsula) challenge"]
    ]
    for (const [head, detail] of cases) expect(BlockDetection.inspect({ url: "https://shop.example/", status: 200, html: page(head) })?.detail).toBe(detail)
    // A long page with a CAPTCHA widget on its form, and a sign-in box, is content.
    const withForm = page("").replace("</body>", `<form><input type="password" name="pw"><div class="g-recaptcha"></div></form></body>`)
    expect(BlockDetection.inspect({ url: "https://shop.example/login", status: 200, html: withForm })).toBeUndefined()
  })
})
