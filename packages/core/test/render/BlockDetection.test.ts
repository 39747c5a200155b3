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
})
