import { describe, expect, it } from "@effect/vitest"
import { Effect, Option } from "effect"
import * as Cache from "../src/Cache.js"

const bytes = (text: string) => new TextEncoder().encode(text)
const text = (entry: Option.Option<Cache.CacheEntry>) => Option.map(entry, (e) => new TextDecoder().decode(e.value))

describe("Cache (memory)", () => {
  it.effect("returns entries no older than maxAgeMs", () =>
    Effect.gen(function*() {
      let now = 1_000
      const cache = Cache.makeMemory({ now: () => now })
      yield* cache.set("a", bytes("alpha"))
      now += 500
      expect(text(yield* cache.get("a", 1_000))).toEqual(Option.some("alpha"))
      expect(Option.isNone(yield* cache.get("a", 499))).toBe(true)
      // A too-old read does not delete the entry: a later request with a larger maxAgeMs still gets it.
      expect(Option.map(yield* cache.get("a", 10_000), (e) => e.storedAt)).toEqual(Option.some(1_000))
      expect(Option.isNone(yield* cache.get("missing", 10_000))).toBe(true)
    }))

  it.effect("drops the least recently used entries past maxBytes", () =>
    Effect.gen(function*() {
      const cache = Cache.makeMemory({ maxBytes: 10 })
      yield* cache.set("a", bytes("aaaa"))
      yield* cache.set("b", bytes("bbbb"))
      yield* cache.get("a", 1e9) // a is now the most recently used
      yield* cache.set("c", bytes("cccc"))
      expect(Option.isSome(yield* cache.get("a", 1e9))).toBe(true)
      expect(Option.isNone(yield* cache.get("b", 1e9))).toBe(true)
      expect(Option.isSome(yield* cache.get("c", 1e9))).toBe(true)
      yield* cache.set("huge", bytes("x".repeat(11)))
      expect(Option.isNone(yield* cache.get("huge", 1e9))).toBe(true)
    }))

  it.effect("replacing a key replaces its value and age", () =>
    Effect.gen(function*() {
      let now = 0
      const cache = Cache.makeMemory({ now: () => now })
      yield* cache.set("k", bytes("one"))
      now = 100
      yield* cache.set("k", bytes("two"))
      const entry = yield* cache.get("k", 1e9)
      expect(text(entry)).toEqual(Option.some("two"))
      expect(Option.map(entry, (e) => e.storedAt)).toEqual(Option.some(100))
    }))
})
