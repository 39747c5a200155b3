import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as ScrapeRequest from "../src/ScrapeRequest.js"

const base = { url: "https://example.com/a", formats: { markdown: true } }
const fails = (input: unknown) => Effect.flip(ScrapeRequest.decode(input))

describe("ScrapeRequest.decode", () => {
  it.effect("accepts a minimal request and fills the defaults", () =>
    Effect.gen(function*() {
      const request = yield* ScrapeRequest.decode(base)
      expect(request.url).toBe("https://example.com/a")
      expect(request.timeoutMs).toBe(60_000)
      expect(request.timeoutBehavior).toBe("fail")
      expect(request.wants("markdown")).toBe(true)
      expect(request.wants("html")).toBe(false)
    }))

  it.effect("accepts every member of decisions §2", () =>
    Effect.gen(function*() {
      const request = yield* ScrapeRequest.decode({
        url: "http://example.com/",
        formats: { html: true, markdown: true, screenshot: true, images: true, bytes: true, parse: true },
        sharedParams: {
          actions: [{ type: "wait", milliseconds: 100 }, { type: "perform", action: "click \"More\"" },
            { type: "scroll", amount: "viewport", direction: "down", maxScrolls: 3 }, { type: "waitFor", selector: "#x" }],
          country: "DE",
          dismissCookies: true,
          dismissPopups: true,
          includeSelectors: ["main", "article"],
          excludeSelectors: [".ad"],
          headers: { "X-Test": "1" },
          includeFrames: false,
          mainContentOnly: true,
          parsers: { pdf: { startPage: 1, endPage: 3, ocr: "auto" } },
          settleAnimations: true,
          theme: "dark",
          viewport: { width: 1280 },
          waitFor: 500
        },
        markdownParams: { includeLinks: false, includeImages: true, inlineImages: "preserve" },
        screenshotParams: { format: "webp", area: { selector: "#hero" } },
        imageParams: { dedupe: "visual", enrich: ["dimensions"] },
        parseParams: { rules: { title: "h1", links: { selector: "a", type: "list", output: "href" } } },
        maxAgeMs: 0,
        timeoutOpts: { milliseconds: 30_000, behavior: "return-partial" },
        zdr: "disabled",
        tags: ["a", "b"]
      })
      expect(request.sharedParams?.country).toBe("DE")
      expect(request.timeoutBehavior).toBe("return-partial")
    }))

  const invalidCases: ReadonlyArray<readonly [string, unknown, string, string]> = [
    ["a missing url", { formats: { markdown: true } }, "url", "INPUT_VALIDATION_ERROR"],
    ["a non-http url", { ...base, url: "ftp://example.com/" }, "url", "INPUT_VALIDATION_ERROR"],
    ["no format enabled", { ...base, formats: { markdown: false } }, "formats", "INPUT_VALIDATION_ERROR"],
    ["a non-boolean format", { ...base, formats: { markdown: "yes" } }, "formats.markdown", "INPUT_VALIDATION_ERROR"],
    ["an unknown member", { ...base, colour: "red" }, "colour", "INPUT_VALIDATION_ERROR"],
    ["an unknown nested member", { ...base, sharedParams: { mainContent: true } }, "sharedParams.mainContent", "INPUT_VALIDATION_ERROR"],
    ["51 selectors", { ...base, sharedParams: { includeSelectors: Array(51).fill("p") } }, "sharedParams.includeSelectors", "INPUT_VALIDATION_ERROR"],
    ["an empty selector", { ...base, sharedParams: { excludeSelectors: ["p", ""] } }, "sharedParams.excludeSelectors[1]", "INPUT_VALIDATION_ERROR"],
    ["a 2049-character selector", { ...base, sharedParams: { includeSelectors: ["p".repeat(2049)] } }, "sharedParams.includeSelectors[0]", "INPUT_VALIDATION_ERROR"],
    ["21 tags", { ...base, tags: Array(21).fill("t") }, "tags", "INPUT_VALIDATION_ERROR"],
    ["a 51-character tag", { ...base, tags: ["t".repeat(51)] }, "tags[0]", "INPUT_VALIDATION_ERROR"],
    ["a header value with a newline", { ...base, sharedParams: { headers: { "X-A": "a\r\nInjected: 1" } } }, "sharedParams.headers.X-A", "INPUT_VALIDATION_ERROR"],
    ["a header value over 8192 characters", { ...base, sharedParams: { headers: { "X-A": "a".repeat(8193) } } }, "sharedParams.headers.X-A", "INPUT_VALIDATION_ERROR"],
    ["a zero timeout", { ...base, timeoutOpts: { milliseconds: 0 } }, "timeoutOpts.milliseconds", "INPUT_VALIDATION_ERROR"],
    ["a timeout over the maximum", { ...base, timeoutOpts: { milliseconds: 300_001 } }, "timeoutOpts.milliseconds", "TIMEOUT_EXCEEDS_MAXIMUM"],
    ["an unknown timeout behavior", { ...base, timeoutOpts: { milliseconds: 1000, behavior: "retry" } }, "timeoutOpts.behavior", "INPUT_VALIDATION_ERROR"],
    ["an extra timeout member", { ...base, timeoutOpts: { milliseconds: 1000, extra: 1 } }, "timeoutOpts.extra", "INPUT_VALIDATION_ERROR"],
    ["waitFor over 30 s", { ...base, sharedParams: { waitFor: 30_001 } }, "sharedParams.waitFor", "INPUT_VALIDATION_ERROR"],
    ["a timeout too short for waitFor", { ...base, sharedParams: { waitFor: 5_000 }, timeoutOpts: { milliseconds: 14_999 } }, "timeoutOpts.milliseconds", "TIMEOUT_TOO_SHORT_FOR_WAIT"],
    ["a timeout too short for wait actions", { ...base, sharedParams: { waitFor: 1_000, actions: [{ type: "wait", milliseconds: 20_000 }] }, timeoutOpts: { milliseconds: 30_000 } }, "timeoutOpts.milliseconds", "TIMEOUT_TOO_SHORT_FOR_WAIT"],
    ["six actions", { ...base, sharedParams: { actions: Array(6).fill({ type: "wait", milliseconds: 1 }) } }, "sharedParams.actions", "INPUT_VALIDATION_ERROR"],
    ["markdownParams without markdown", { ...base, formats: { html: true }, markdownParams: { includeLinks: false } }, "markdownParams", "INPUT_VALIDATION_ERROR"],
    ["screenshotParams without screenshot", { ...base, screenshotParams: { format: "png" } }, "screenshotParams", "INPUT_VALIDATION_ERROR"],
    ["imageParams without images", { ...base, imageParams: { dedupe: "visual" } }, "imageParams", "INPUT_VALIDATION_ERROR"],
    ["parse without parseParams", { ...base, formats: { parse: true } }, "parseParams", "INPUT_VALIDATION_ERROR"],
    ["maxAgeMs over 30 days", { ...base, maxAgeMs: 2_592_000_001 }, "maxAgeMs", "INPUT_VALIDATION_ERROR"],
    ["a three-letter country", { ...base, sharedParams: { country: "deu" } }, "sharedParams.country", "INPUT_VALIDATION_ERROR"],
    ["a bad zdr value", { ...base, zdr: "on" }, "zdr", "INPUT_VALIDATION_ERROR"],
    ["a pdf range that ends before it starts", { ...base, sharedParams: { parsers: { pdf: { startPage: 3, endPage: 2 } } } }, "sharedParams.parsers.pdf.endPage", "INPUT_VALIDATION_ERROR"],
    ["an invalid include selector", { ...base, sharedParams: { includeSelectors: ["main", "div[["] } }, "sharedParams.includeSelectors[1]", "INPUT_VALIDATION_ERROR"],
    ["an invalid parse rule selector", { ...base, formats: { parse: true }, parseParams: { rules: { title: "h1[" } } }, "parseParams.rules.title", "INPUT_VALIDATION_ERROR"],
    ["an invalid waitFor selector", { ...base, sharedParams: { waitFor: "div[" } }, "sharedParams.waitFor", "INPUT_VALIDATION_ERROR"],
    ["a waitFor selector only Playwright knows", { ...base, sharedParams: { waitFor: "text=Sign in" } }, "sharedParams.waitFor", "INPUT_VALIDATION_ERROR"],
    ["a waitFor selector with a pseudo-class Chromium lacks", { ...base, sharedParams: { waitFor: "a:contains('x')" } }, "sharedParams.waitFor", "INPUT_VALIDATION_ERROR"],
    ["an invalid waitFor action selector", { ...base, sharedParams: { actions: [{ type: "waitFor", selector: "##x" }] } }, "sharedParams.actions[0].selector", "INPUT_VALIDATION_ERROR"],
    ["an invalid scroll container", { ...base, sharedParams: { actions: [{ type: "wait", milliseconds: 1 }, { type: "scroll", selector: "ul:not(" }] } }, "sharedParams.actions[1].selector", "INPUT_VALIDATION_ERROR"],
    ["an invalid css target of a perform action", { ...base, sharedParams: { actions: [{ type: "perform", action: "click css div[" }] } }, "sharedParams.actions[0].action", "INPUT_VALIDATION_ERROR"],
    ["an invalid bare css target of a perform action", { ...base, sharedParams: { actions: [{ type: "perform", action: "type \"x\" into #q:nope" }] } }, "sharedParams.actions[0].action", "INPUT_VALIDATION_ERROR"],
    ["an invalid screenshot area selector", { ...base, formats: { screenshot: true }, screenshotParams: { area: { selector: "p::before" } } }, "screenshotParams.area.selector", "INPUT_VALIDATION_ERROR"]
  ]
  it.effect("accepts the selectors the browser takes; a perform instruction's own grammar is left to its outcome", () =>
    Effect.gen(function*() {
      const request = yield* ScrapeRequest.decode({
        ...base,
        formats: { markdown: true, screenshot: true },
        sharedParams: {
          waitFor: "main article:has(> h1):not(.ad)",
          actions: [
            { type: "waitFor", selector: "li:nth-child(2n+1 of .item)" },
            { type: "scroll", selector: "[data-list='results' i]" },
            { type: "perform", action: "click css button.primary:hover" },
            { type: "perform", action: "click \"Next: page 2\"" },
            { type: "perform", action: "jump over the fence" }
          ]
        },
        screenshotParams: { area: { selector: "#chart > svg" } },
        timeoutOpts: { milliseconds: 30_000 }
      })
      expect(request.sharedParams?.actions).toHaveLength(5)
      // The message names the selector's problem.
      const error = yield* fails({ ...base, sharedParams: { waitFor: "div[" } })
      expect(error.message).toMatch(/^sharedParams\.waitFor: invalid CSS selector: /)
    }))

  for (const [name, input, field, code] of invalidCases) {
    it.effect(`rejects ${name} with ${code} naming ${field}`, () =>
      Effect.gen(function*() {
        const error = yield* fails(input)
        expect(error._tag).toBe("InvalidRequest")
        expect(error.errorCode).toBe(code)
        expect(error.field).toBe(field)
        expect(error.message.startsWith(`${field}: `)).toBe(true)
      }))
  }
})
