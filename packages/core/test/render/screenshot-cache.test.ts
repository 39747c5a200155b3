import { describe, expect, it } from "@effect/vitest"
import { Effect, TestClock } from "effect"
import * as Cache from "../../src/Cache.js"
import * as ScrapeRequest from "../../src/ScrapeRequest.js"
import * as Screenshot from "../../src/Screenshot.js"

// `Screenshot.cached` over the in-memory cache, with a capture that counts its calls and stamps each shot with its
// number, so a hit is told from a render by its bytes. The HTTP tests (http/test/api/Screenshot.test.ts) cover the same
// rules end to end with Chromium on both database backends.

const request = (input: Record<string, unknown> = {}) =>
  Effect.runSync(ScrapeRequest.decode({ url: "https://example.com/", formats: { screenshot: true }, ...input }))

/** A capture stand-in: the nth call returns bytes [n], at the test clock's time; `complete` as given. */
const counter = (complete = true) => {
  let calls = 0
  const capture = Effect.map(Effect.clockWith((clock) => clock.currentTimeMillis), (now) => {
    calls++
    return {
      screenshot: { contentType: "image/png", bytes: new Uint8Array([calls]), width: 10, height: 20, url: "https://example.com/", capturedAt: now },
      complete
    }
  })
  return { capture, calls: () => calls }
}

const withMemoryCache = <A, E>(effect: Effect.Effect<A, E, Cache.Cache>) =>
  Effect.provideService(effect, Cache.Cache, Cache.makeMemory({ now: () => 0 }))

describe("Screenshot.cached", () => {
  it.effect("a second request is a hit with the first capture and its age; maxAgeMs decides freshness; 0 renders and updates", () =>
    withMemoryCache(Effect.gen(function*() {
      const { capture, calls } = counter()
      const first = yield* Screenshot.cached(request(), capture)
      expect([first.cache, [...first.screenshot.bytes], first.complete]).toEqual([{ status: "miss", age_ms: 0 }, [1], true])
      yield* TestClock.adjust("1500 millis")
      const second = yield* Screenshot.cached(request(), capture)
      expect([second.cache, [...second.screenshot.bytes], calls()]).toEqual([{ status: "hit", age_ms: 1500 }, [1], 1])
      expect([second.screenshot.width, second.screenshot.height, second.screenshot.url]).toEqual([10, 20, "https://example.com/"])
      // Older than asked: rendered again and stored.
      const stale = yield* Screenshot.cached(request({ maxAgeMs: 1000 }), capture)
      expect([stale.cache.status, [...stale.screenshot.bytes], calls()]).toEqual(["miss", [2], 2])
      yield* TestClock.adjust("10 millis")
      const fresh = yield* Screenshot.cached(request({ maxAgeMs: 0 }), capture)
      expect([fresh.cache, [...fresh.screenshot.bytes], calls()]).toEqual([{ status: "miss", age_ms: 0 }, [3], 3])
      yield* TestClock.adjust("5 millis")
      const after = yield* Screenshot.cached(request(), capture)
      expect([after.cache, [...after.screenshot.bytes], calls()]).toEqual([{ status: "hit", age_ms: 5 }, [3], 3])
    })))

  it.effect("zdr, forwarded headers and actions neither read nor write the cache", () =>
    withMemoryCache(Effect.gen(function*() {
      const { capture, calls } = counter()
      yield* Screenshot.cached(request(), capture)
      const zdr = yield* Screenshot.cached(request({ zdr: "enabled" }), capture)
      expect([zdr.cache, calls()]).toEqual([{ status: "zdr", age_ms: 0 }, 2])
      const headers = yield* Screenshot.cached(request({ sharedParams: { headers: { "x-team": "a" } } }), capture)
      expect([headers.cache, calls()]).toEqual([{ status: "miss", age_ms: 0 }, 3])
      const actions = yield* Screenshot.cached(request({ sharedParams: { actions: [{ type: "wait", milliseconds: 10 }] } }), capture)
      expect([actions.cache.status, calls()]).toEqual(["miss", 4])
      // None of them replaced the entry of the plain request.
      const plain = yield* Screenshot.cached(request(), capture)
      expect([plain.cache.status, [...plain.screenshot.bytes], calls()]).toEqual(["hit", [1], 4])
    })))

  it.effect("a partial capture is returned but never stored", () =>
    withMemoryCache(Effect.gen(function*() {
      const partial = counter(false)
      const first = yield* Screenshot.cached(request(), partial.capture)
      expect([first.cache.status, first.complete]).toEqual(["miss", false])
      const second = yield* Screenshot.cached(request(), partial.capture)
      expect([second.cache.status, partial.calls()]).toEqual(["miss", 2])
    })))

  it.effect("a failed capture stores nothing and fails as it did", () =>
    withMemoryCache(Effect.gen(function*() {
      const failed = yield* Effect.flip(Screenshot.cached(request(), Effect.fail("unreachable" as const)))
      expect(failed).toBe("unreachable")
      const { capture, calls } = counter()
      const next = yield* Screenshot.cached(request(), capture)
      expect([next.cache.status, calls()]).toEqual(["miss", 1])
    })))
})

describe("Screenshot.cacheKey", () => {
  const key = (input: Record<string, unknown>, extra?: Record<string, unknown>) => Screenshot.cacheKey(request(input), extra)

  it("differs by every option that changes the pixels", () => {
    const variants: Array<Record<string, unknown>> = [
      {},
      { url: "https://example.com/other" },
      { sharedParams: { country: "de" } },
      { sharedParams: { viewport: { width: 800, height: 600 } } },
      { sharedParams: { theme: "dark" } },
      { sharedParams: { waitFor: 100 } },
      { sharedParams: { waitFor: "#ready" } },
      { sharedParams: { settleAnimations: false } },
      { sharedParams: { dismissCookies: true } },
      { sharedParams: { dismissPopups: true } },
      { sharedParams: { includeFrames: true } },
      { screenshotParams: { format: "jpeg" } },
      { screenshotParams: { format: "webp" } },
      { screenshotParams: { area: "fullPage" } },
      { screenshotParams: { area: { selector: "#hero" } } },
      { screenshotParams: { area: { x: 0, y: 0, width: 100, height: 100 } } },
      { screenshotParams: { area: { x: 0, y: 10, width: 100, height: 100 } } }
    ]
    const keys = variants.map((variant) => key(variant))
    expect(new Set(keys).size).toBe(variants.length)
    expect(key({}, { page: "pricing" })).not.toBe(key({}))
    expect(key({}, { page: "pricing" })).not.toBe(key({}, { page: "blog" }))
  })

  it("is the same for what leaves the pixels alone, for spelled-out defaults and for any member order", () => {
    const base = key({})
    expect(key({ maxAgeMs: 5, tags: ["a"], timeoutOpts: { milliseconds: 9000 }, zdr: "disabled" })).toBe(base)
    expect(key({ formats: { screenshot: true, markdown: true }, markdownParams: { includeLinks: false } })).toBe(base)
    expect(key({ screenshotParams: { format: "png", area: "viewport" } })).toBe(base)
    expect(key({ sharedParams: { viewport: { width: 1920, height: 1080 }, dismissCookies: false } })).toBe(base)
    expect(key({ sharedParams: { country: "DE" } })).toBe(key({ sharedParams: { country: "de" } }))
    expect(key({ screenshotParams: { area: { x: 1, y: 2, width: 30, height: 40 } } }))
      .toBe(key({ screenshotParams: { area: { height: 40, width: 30, y: 2, x: 1 } } }))
  })
})

describe("Screenshot cache entries", () => {
  const shot = { contentType: "image/webp", bytes: new Uint8Array([9, 8, 7, 6]), width: 640, height: 480, url: "https://example.com/a", capturedAt: 1_700_000_000_123 }

  it("round-trip the bytes and the description", () => {
    const decoded = Screenshot.decodeCached(Screenshot.encodeCached(shot))
    expect(decoded).toEqual(shot)
  })

  it("read damaged or foreign entries as a miss, never as a screenshot", () => {
    const entry = Screenshot.encodeCached(shot)
    expect(Screenshot.decodeCached(entry.subarray(0, 3))).toBeUndefined()
    expect(Screenshot.decodeCached(entry.subarray(0, 20))).toBeUndefined()
    expect(Screenshot.decodeCached(new TextEncoder().encode("<html>a page entry</html>"))).toBeUndefined()
    const noImage = Screenshot.encodeCached({ ...shot, bytes: new Uint8Array(0) })
    expect(Screenshot.decodeCached(noImage)).toBeUndefined()
  })

  it.effect("a damaged entry in the cache is a miss that is rendered and replaced", () =>
    withMemoryCache(Effect.gen(function*() {
      const cache = yield* Cache.Cache
      yield* cache.set(Screenshot.cacheKey(request()), new Uint8Array([0, 0, 0, 200, 1, 2]))
      const { capture, calls } = counter()
      const first = yield* Screenshot.cached(request(), capture)
      expect([first.cache.status, calls()]).toEqual(["miss", 1])
      const second = yield* Screenshot.cached(request(), capture)
      expect([second.cache.status, [...second.screenshot.bytes], calls()]).toEqual(["hit", [1], 1])
    })))
})
