import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as ChangeDetection from "../src/ChangeDetection.js"

describe("selectSitemapUrls", () => {
  it.effect("dedupes, sorts, includes, excludes (exclusion wins) and caps", () =>
    Effect.sync(() => {
      const urls = [
        "https://a.test/blog/b",
        "https://a.test/blog/a",
        "https://a.test/blog/a",
        "https://a.test/blog/draft-1",
        "https://a.test/about",
        "https://a.test/docs/x"
      ]
      expect(ChangeDetection.selectSitemapUrls(urls, {})).toEqual([
        "https://a.test/about",
        "https://a.test/blog/a",
        "https://a.test/blog/b",
        "https://a.test/blog/draft-1",
        "https://a.test/docs/x"
      ])
      expect(ChangeDetection.selectSitemapUrls(urls, { include: ["/blog/", "/docs/"], exclude: ["draft"] })).toEqual([
        "https://a.test/blog/a",
        "https://a.test/blog/b",
        "https://a.test/docs/x"
      ])
      expect(ChangeDetection.selectSitemapUrls(urls, { include: ["/blog/"], exclude: ["/blog/"] })).toEqual([])
      expect(ChangeDetection.selectSitemapUrls(urls, { include: ["/blog/"], max_urls: 2 })).toEqual([
        "https://a.test/blog/a",
        "https://a.test/blog/b"
      ])
    }))

  it.effect("caps at 10,000 by default", () =>
    Effect.sync(() => {
      const urls = Array.from({ length: 12_000 }, (_, i) => `https://a.test/p/${String(i).padStart(5, "0")}`)
      const kept = ChangeDetection.selectSitemapUrls(urls, { max_urls: 50_000 })
      expect(kept.length).toBe(10_000)
      expect(kept[9_999]).toBe("https://a.test/p/09999")
    }))

  it.effect("sitemapPatternError refuses bad RE2 syntax, backreferences and patterns over 256 characters", () =>
    Effect.sync(() => {
      expect(ChangeDetection.sitemapPatternError("/blog/.*\\.html$")).toBeUndefined()
      expect(ChangeDetection.sitemapPatternError("(unclosed")).toContain("not a valid RE2 pattern")
      expect(ChangeDetection.sitemapPatternError("(a)\\1")).toContain("not a valid RE2 pattern")
      expect(ChangeDetection.sitemapPatternError("a".repeat(257))).toBe("is 257 characters long; at most 256 are allowed")
      expect(ChangeDetection.sitemapPatternError("")).toBe("must not be empty")
    }))
})

describe("compareSitemaps", () => {
  it.effect("undefined when the sets are equal (order and duplicates aside)", () =>
    Effect.sync(() => {
      expect(ChangeDetection.compareSitemaps(["b", "a"], ["a", "b", "a"])).toBeUndefined()
    }))

  it.effect("added and removed sorted, with title and summary", () =>
    Effect.sync(() => {
      const change = ChangeDetection.compareSitemaps(["https://a.test/1", "https://a.test/2"], ["https://a.test/3", "https://a.test/1"])!
      expect(change).toEqual({
        title: "Sitemap changed: 1 added, 1 removed",
        summary: "1 URL added (https://a.test/3); 1 URL removed (https://a.test/2). The sitemap now lists 2 URLs (was 2).",
        added_urls: ["https://a.test/3"],
        removed_urls: ["https://a.test/2"],
        added_url_count: 1,
        removed_url_count: 1
      })
    }))

  it.effect("lists at most 500 each way with exact counts", () =>
    Effect.sync(() => {
      const before = Array.from({ length: 700 }, (_, i) => `https://a.test/old/${String(i).padStart(4, "0")}`)
      const after = Array.from({ length: 1200 }, (_, i) => `https://a.test/new/${String(i).padStart(4, "0")}`)
      const change = ChangeDetection.compareSitemaps(before, after)!
      expect(change.added_url_count).toBe(1200)
      expect(change.removed_url_count).toBe(700)
      expect(change.added_urls.length).toBe(500)
      expect(change.removed_urls.length).toBe(500)
      expect(change.added_urls[0]).toBe("https://a.test/new/0000")
      expect(change.removed_urls[499]).toBe("https://a.test/old/0499")
      expect(change.title).toBe("Sitemap changed: 1200 added, 700 removed")
    }))
})
