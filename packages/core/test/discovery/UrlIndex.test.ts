import { Effect, TestClock } from "effect"
import { describe, expect, it } from "@effect/vitest"
import * as UrlIndex from "../../src/UrlIndex.js"

describe("UrlIndex (memory)", () => {
  it.effect("records, merges metadata, looks up by any spelling and queues unenriched URLs", () =>
    Effect.gen(function*() {
      const index = yield* UrlIndex.UrlIndex
      yield* index.record("e.com", [{ url: "https://e.com/a", lastmod: "2024" }, { url: "https://e.com/b" }])
      yield* TestClock.adjust(1000)
      yield* index.record("e.com", [{ url: "https://blog.e.com/c" }, { url: "http://www.e.com/a#x" }])
      yield* index.enrich("e.com", [{ url: "https://e.com/b", title: "B", keywords: ["k"], language: "en" }])

      const found = yield* index.lookup("e.com", ["http://www.e.com/a", "https://e.com/b", "https://e.com/none"])
      expect(found.get("http://www.e.com/a")).toMatchObject({ url: "https://e.com/a", lastmod: "2024", seenAt: 1000 })
      expect(found.get("https://e.com/b")).toMatchObject({ title: "B", language: "en", seenAt: 0, enrichedAt: 1000 })
      expect(found.has("https://e.com/none")).toBe(false)

      expect((yield* index.list("e.com")).map((u) => u.url)).toEqual(["https://e.com/a", "https://e.com/b"])
      expect((yield* index.list("e.com", { includeSubdomains: true })).map((u) => u.url)).toContain("https://blog.e.com/c")
      expect(yield* index.unenriched("e.com", 10)).toEqual(["https://e.com/a"])

      // New facts win, absent ones keep what was stored.
      yield* index.record("e.com", [{ url: "https://e.com/b", description: "about b" }])
      expect((yield* index.lookup("e.com", ["https://e.com/b"])).get("https://e.com/b")).toMatchObject({
        title: "B",
        description: "about b"
      })
    }).pipe(Effect.provide(UrlIndex.layerMemory)))
})
