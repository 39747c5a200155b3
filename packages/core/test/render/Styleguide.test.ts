import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect, Exit } from "effect"
import * as Styleguide from "../../src/Styleguide.js"
import * as DesignSite from "../support/DesignSite.js"
import * as FixtureSite from "../support/FixtureSite.js"
import * as RenderRuntime from "../support/RenderRuntime.js"

let site: FixtureSite.Site
let runtime: RenderRuntime.RenderRuntime
// "blocked.test" stands for a private address: the guard's policy refuses it (it maps to the fixture site).
let guarded: RenderRuntime.RenderRuntime
// Google's CSS API stands in as the fixture site's /css2 (the tests have no network).
let googleFonts: RenderRuntime.RenderRuntime

beforeAll(async () => {
  site = await FixtureSite.start(DesignSite.routes())
  runtime = RenderRuntime.make()
  googleFonts = RenderRuntime.make({ pool: { hostRules: `MAP fonts.googleapis.com 127.0.0.1:${site.port}` } })
  guarded = RenderRuntime.make({ pool: { addressPolicy: (_ip, host) => !host.endsWith("blocked.test"), hostRules: "MAP blocked.test 127.0.0.1" } })
}, 30_000)

afterAll(async () => {
  await runtime?.dispose()
  await guarded?.dispose()
  await googleFonts?.dispose()
  await site?.close()
})

const failure = (exit: Exit.Exit<unknown, unknown>) =>
  Exit.isFailure(exit) && exit.cause._tag === "Fail" ? exit.cause.error as { errorCode: string; reason?: string; _tag: string } : undefined

describe("Styleguide.read (Chromium)", { timeout: 60_000 }, () => {
  it("reads colors, typography, buttons, card, scales and fonts of a page with known CSS", async () => {
    const design = await runtime.runPromise(Styleguide.read({ url: `${site.url}/` }))
    const guide = design.styleguide
    expect(design.finalDOMState).toBe("loaded")
    expect(guide.colors).toEqual({ accent: "#ff5500", background: "#ffffff", text: "#1a1a1a" })
    expect(guide.mode).toBe("light")
    expect(guide.typography.headings.h1).toEqual({
      fontFamily: "Playfair Display",
      fontFallbacks: ["Playfair Display", "Georgia", "serif"],
      fontSize: "48px",
      fontWeight: 700,
      lineHeight: "56px",
      letterSpacing: "-1px"
    })
    expect([guide.typography.headings.h2?.fontSize, guide.typography.headings.h3?.fontWeight, guide.typography.headings.h4?.lineHeight]).toEqual(["32px", 600, "28px"])
    expect(guide.typography.p).toEqual({
      fontFamily: "BrandSans_4f2a9c1e",
      fontFallbacks: ["BrandSans_4f2a9c1e", "Arial", "sans-serif"],
      fontSize: "16px",
      fontWeight: 400,
      lineHeight: "24px",
      letterSpacing: "normal"
    })
    const { link, primary, secondary } = guide.components.button
    expect(primary).toMatchObject({
      backgroundColor: "#ff5500", color: "#ffffff", borderRadius: "8px", borderStyle: "none", padding: "12px 24px",
      fontSize: "16px", fontWeight: 600, minWidth: "160px", minHeight: "48px", textDecoration: "none", fontFamily: "BrandSans_4f2a9c1e"
    })
    expect(primary?.css).toContain("background-color: #ff5500;")
    expect(primary?.css).toContain("border-radius: 8px;")
    expect(secondary).toMatchObject({
      backgroundColor: "#00000000", color: "#1a1a1a", borderColor: "#cccccc", borderStyle: "solid", borderWidth: "1px", padding: "12px 24px"
    })
    expect(secondary?.css).toContain("border: 1px solid #cccccc;")
    // The content link (not the navigation's): text in the accent, underlined.
    expect(link).toMatchObject({ color: "#ff5500", textDecoration: "underline", padding: "0px", backgroundColor: "#00000000" })
    expect(guide.components.card).toEqual({
      backgroundColor: "#ffffff",
      borderColor: "#e5e5e5",
      borderRadius: "12px",
      borderStyle: "solid",
      borderWidth: "1px",
      boxShadow: "rgba(0, 0, 0, 0.1) 0px 4px 12px 0px",
      css: "background-color: #ffffff; color: #1a1a1a; padding: 24px; border: 1px solid #e5e5e5; border-radius: 12px; box-shadow: rgba(0, 0, 0, 0.1) 0px 4px 12px 0px;",
      padding: "24px",
      textColor: "#1a1a1a"
    })
    expect(guide.shadows).toEqual({
      sm: "rgba(0, 0, 0, 0.05) 0px 1px 2px 0px",
      md: "rgba(0, 0, 0, 0.1) 0px 4px 12px 0px",
      lg: "rgba(0, 0, 0, 0.1) 0px 4px 12px 0px",
      xl: "rgba(0, 0, 0, 0.25) 0px 20px 40px 0px",
      inner: "rgba(0, 0, 0, 0.2) 0px 1px 2px 0px inset"
    })
    // Declared: p 16 (bottom), headings 8, nav 4 and gap 32, buttons 12/24, cards 24 and 16.
    expect(guide.elementSpacing).toEqual({ xs: "8px", sm: "12px", md: "16px", lg: "24px", xl: "24px" })
    expect(guide.fontLinks).toEqual({
      "Playfair Display": {
        type: "google",
        category: "serif",
        files: {
          "400": "https://fonts.googleapis.com/css2?family=Playfair+Display:wght@400&display=swap",
          "700": "https://fonts.googleapis.com/css2?family=Playfair+Display:wght@700&display=swap"
        }
      },
      BrandSans_4f2a9c1e: {
        type: "custom",
        displayName: "Brand Sans",
        files: { "400": `${site.url}/fonts/brand-sans-400.ttf`, "700": `${site.url}/fonts/brand-sans-700.ttf` }
      }
    })
    expect(design.fontLinks).toEqual(guide.fontLinks)
    expect(design.fonts).toEqual([
      { font: "BrandSans_4f2a9c1e", fallbacks: ["Arial", "sans-serif"], num_elements: 10, num_words: 43, percent_elements: 66.67, percent_words: 78.18, uses: ["a", "button", "p"] },
      { font: "Playfair Display", fallbacks: ["Georgia", "serif"], num_elements: 4, num_words: 9, percent_elements: 26.67, percent_words: 16.36, uses: ["h1", "h2", "h3", "h4"] },
      { font: "Courier New", fallbacks: ["monospace"], num_elements: 1, num_words: 3, percent_elements: 6.67, percent_words: 5.45, uses: ["code"] }
    ])
    // The self-hosted font was really used: the browser fetched its file.
    expect(site.exchanges.some((e) => e.path === "/fonts/brand-sans-400.ttf")).toBe(true)
  })

  it("a dark-first page of another make: oklch and rgba colors, an @import of Google Fonts, a submit input as primary", async () => {
    const design = await runtime.runPromise(Styleguide.read({ url: `${site.url}/night` }))
    const guide = design.styleguide
    // oklch(62.8% 0.2577 29.23) is sRGB red.
    expect(guide.colors).toEqual({ accent: "#ff0000", background: "#111827", text: "#e5e7eb" })
    expect(guide.mode).toBe("dark")
    expect(guide.typography.headings.h1).toEqual({
      fontFamily: "Inter", fontFallbacks: ["Inter", "system-ui", "sans-serif"], fontSize: "40px", fontWeight: 800, lineHeight: "44px", letterSpacing: "0.5px"
    })
    const { link, primary, secondary } = guide.components.button
    expect(primary).toMatchObject({ backgroundColor: "#ff0000", color: "#ffffff", borderRadius: "9999px", borderWidth: "2px", borderColor: "#00000000", padding: "8px 16px", fontWeight: 600 })
    // A transparent border still takes room: the CSS keeps it, so the button keeps its size.
    expect(primary?.css).toContain("border: 2px solid #00000000;")
    expect(secondary).toMatchObject({ backgroundColor: "#00000000", borderColor: "#ffffff33", borderWidth: "1px", color: "#e5e7eb" })
    expect(link).toMatchObject({ color: "#60a5fa", textDecoration: "none" })
    expect(guide.components.card).toBeUndefined()
    expect(guide.shadows).toEqual({ sm: "none", md: "none", lg: "none", xl: "none", inner: "none" })
    expect(guide.fontLinks).toEqual({
      Inter: {
        type: "google",
        category: "sans-serif",
        files: {
          "400": "https://fonts.googleapis.com/css2?family=Inter:wght@400&display=swap",
          "600": "https://fonts.googleapis.com/css2?family=Inter:wght@600&display=swap"
        }
      }
    })
    expect(design.fonts).toEqual([
      { font: "Inter", fallbacks: ["system-ui", "sans-serif"], num_elements: 6, num_words: 23, percent_elements: 100, percent_words: 100, uses: ["a", "button", "h1", "p"] }
    ])
  })

  it("a Google Fonts link whose CSS can be read gives Google's own upright files per weight, the latin subset", async () => {
    const design = await googleFonts.runPromise(Styleguide.read({ url: `${site.url}/google` }))
    expect(design.fontLinks).toEqual({
      Lora: {
        type: "google",
        category: "serif",
        files: { "400": "https://fonts.gstatic.com/s/lora/v35/latin-400.woff2", "700": "https://fonts.gstatic.com/s/lora/v35/latin-700.woff2" }
      }
    })
    // The CSS came from the stand-in for Google (the link's own load, and the page's read of it).
    expect(site.exchanges.some((e) => e.path.startsWith("/css2?family=Lora") && e.headers.host === "fonts.googleapis.com")).toBe(true)
  })

  it("an app whose body paints nothing: the root wrapper covering the page is the background (not a hero inside it)", async () => {
    const design = await runtime.runPromise(Styleguide.read({ url: `${site.url}/app` }))
    expect(design.styleguide.colors).toEqual({ accent: "#a78bfa", background: "#0b0f19", text: "#cbd5e1" })
    expect(design.styleguide.mode).toBe("dark")
  })

  it("emulates prefers-color-scheme: dark flips the background, the text and the mode", async () => {
    const design = await runtime.runPromise(Styleguide.read({ url: `${site.url}/`, colorScheme: "dark" }))
    expect(design.styleguide.colors).toEqual({ accent: "#ff5500", background: "#0f1115", text: "#f2f2f2" })
    expect(design.styleguide.mode).toBe("dark")
  })

  it("bounds what it reads: a page of more elements than the limit counts only the first ones", async () => {
    const design = await runtime.runPromise(Styleguide.read({ url: `${site.url}/`, limits: { maxElements: 6 } }))
    const words = design.fonts.reduce((sum, font) => sum + font.num_words, 0)
    // body, header, nav, two nav links, main: only the two navigation links carry words.
    expect(words).toBe(2)
    expect(design.styleguide.typography.headings.h1).toBeUndefined()
  })

  it("fails as a scrape would: a private address, a non-URL, a 404, a bot wall", async () => {
    const privateExit = await guarded.runPromiseExit(Styleguide.read({ url: `http://blocked.test:${site.port}/` }))
    expect(failure(privateExit)).toMatchObject({ _tag: "WebsiteError", reason: "PrivateAddress", errorCode: "WEBSITE_ACCESS_ERROR" })
    const notUrl = await runtime.runPromiseExit(Styleguide.read({ url: "not a url" }))
    expect(failure(notUrl)).toMatchObject({ _tag: "InvalidRequest", errorCode: "INPUT_VALIDATION_ERROR" })
    const ftp = await runtime.runPromiseExit(Styleguide.read({ url: "ftp://example.com/" }))
    expect(failure(ftp)).toMatchObject({ _tag: "InvalidRequest", errorCode: "INPUT_VALIDATION_ERROR" })
    const missing = await runtime.runPromiseExit(Styleguide.read({ url: `${site.url}/missing` }))
    expect(failure(missing)).toMatchObject({ _tag: "WebsiteError", reason: "HttpStatus", errorCode: "WEBSITE_ACCESS_ERROR" })
    const wall = await runtime.runPromiseExit(Styleguide.read({ url: `${site.url}/challenge` }))
    expect(failure(wall)).toMatchObject({ _tag: "WebsiteError", reason: "Blocked", errorCode: "WEBSITE_BLOCKED" })
  })

  it("without a renderer: CapabilityMissing, nothing rendered", async () => {
    const exit = await Effect.runPromiseExit(Styleguide.read({ url: `${site.url}/` }))
    expect(failure(exit)).toMatchObject({ _tag: "ContentError", reason: "CapabilityMissing" })
  })
})
