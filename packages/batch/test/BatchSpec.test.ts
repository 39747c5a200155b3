import { describe, expect, it } from "@effect/vitest"
import { Fetcher } from "@sift/core"
import { Effect, Either, Schema } from "effect"
import * as BatchSpec from "../src/BatchSpec.js"
import * as Intake from "../src/internal/intake.js"

const decode = Schema.decodeUnknownEither(BatchSpec.SubmitBody, { onExcessProperty: "error" })
const urls = (n: number) => Array.from({ length: n }, (_, i) => ({ url: `https://example.com/${i}` }))

describe("the submit body", () => {
  it("takes 25,000 URLs and refuses one more, naming the limit", () => {
    expect(Either.isRight(decode({ input: { mode: "scrape", data: { format: "markdown", urls: urls(25_000) } } }))).toBe(true)
    const over = decode({ input: { mode: "scrape", data: { format: "markdown", urls: urls(25_001) } } })
    expect(Either.isLeft(over) && String(over.left)).toContain("at most 25,000 URLs")
  })

  it("refuses webhook with webhookUrl, unknown members, html options on an html batch it does not have, and a bad pdf range", () => {
    const both = decode({ input: { mode: "scrape", data: { format: "html", urls: urls(1) } }, webhook: { url: "https://h.example/" }, webhookUrl: "https://h.example/" })
    expect(Either.isLeft(both) && String(both.left)).toContain("cannot be combined with webhook")
    expect(Either.isLeft(decode({ input: { mode: "scrape", data: { format: "html", urls: urls(1), options: { includeHTML: true } } } }))).toBe(true)
    expect(Either.isLeft(decode({ input: { mode: "scrape", data: { format: "markdown", urls: urls(1) } }, extra: 1 }))).toBe(true)
    const range = decode({ input: { mode: "scrape", data: { format: "markdown", urls: urls(1), options: { pdf: { start: 3, end: 2 } } } } })
    expect(Either.isLeft(range) && String(range.left)).toContain("end must be at least start")
  })

  it("reads page options into the scrape request every page uses (filtered pages read fresh)", () => {
    expect(BatchSpec.pageRequest("markdown", { includeSelectors: ["main"], useMainContentOnly: true, includeHTML: true })).toEqual({
      formats: { markdown: true, html: true },
      sharedParams: { includeSelectors: ["main"], mainContentOnly: true },
      markdownParams: { includeLinks: true, includeImages: false, inlineImages: "placeholder" },
      maxAgeMs: 0
    })
    expect(BatchSpec.pageRequest("html", undefined)).toEqual({ formats: { markdown: false, html: true }, sharedParams: {}, maxAgeMs: 86_400_000 })
  })
})

describe("intake", () => {
  it.effect("refuses a crawl pattern that is not RE2 before reading anything, naming its field", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(Intake.plan({
        mode: "crawl",
        data: { format: "markdown", source: { type: "start_url", url: "https://example.com/", controls: { regex: "(a)\\1" } } }
      }))
      expect(error.message).toMatch(/input\.data\.source\.controls\.regex.*not a valid RE2 pattern/)
    }).pipe(Effect.provide(Fetcher.layer())))

  it.effect("a crawl's start URL that does not answer is refused with the site's error (nothing stored, nothing charged)", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(Intake.plan({ mode: "crawl", data: { format: "markdown", source: { type: "start_url", url: "http://127.0.0.1:9/" } } }))
      expect("errorCode" in error && error.errorCode).toMatch(/^WEBSITE_/)
    }).pipe(Effect.provide(Fetcher.layer())))

  it.effect("a scrape of nothing usable is refused, naming the first reason", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(Intake.plan({ mode: "scrape", data: { format: "markdown", urls: [{ url: "mailto:a@b.c" }] } }))
      expect(error.message).toContain("only http and https URLs can be scraped")
    }).pipe(Effect.provide(Fetcher.layer())))
})
