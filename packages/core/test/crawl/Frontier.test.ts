import { Effect, Either } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Frontier } from "../../src/internal/crawl/frontier.js"
import * as HostGate from "../../src/internal/crawl/hostGate.js"
import * as CrawlScope from "../../src/internal/crawl/scope.js"
import type * as FixtureSite from "../support/FixtureSite.js"
import { fetcherFor, type Hosts, page, requested, startSites, text } from "../discovery/support/sites.js"

const scope = (options: Partial<CrawlScope.ScopeOptions> & { start: string }) =>
  Either.getOrThrow(CrawlScope.make({ followSubdomains: false, maxDepth: undefined, pattern: undefined, ...options }))

describe("crawl scope", () => {
  it("keeps the site (www and apex alike, http and https alike) and refuses other hosts, furniture and depth", () => {
    const s = scope({ start: "https://www.shop.test/", maxDepth: 2 })
    expect(s.refusal("https://shop.test/a", 1)).toBeUndefined()
    expect(s.refusal("http://www.shop.test/b", 2)).toBeUndefined()
    expect(s.refusal("https://blog.shop.test/c", 1)).toBe("out-of-scope")
    expect(s.refusal("https://other.test/", 1)).toBe("out-of-scope")
    expect(s.refusal("https://shop.test/site.css", 1)).toBe("asset")
    expect(s.refusal("https://shop.test/deep", 3)).toBe("too-deep")
    expect(s.refusal("mailto:a@shop.test", 1)).toBe("invalid")
    expect(s.refusal("https://shop.test:8443/x", 1)).toBe("out-of-scope")
  })

  it("follows subdomains when asked, and a site on a port is that port's site", () => {
    const s = scope({ start: "http://shop.test:8080/", followSubdomains: true })
    expect(s.refusal("http://blog.shop.test:8080/post", 5)).toBeUndefined()
    expect(s.refusal("http://shop.test/", 1)).toBe("out-of-scope")
    expect(s.refusal("http://shop.test:9090/", 1)).toBe("out-of-scope")
    expect(s.refusal("http://notshop.test:8080/", 1)).toBe("out-of-scope")
  })

  it("an RE2 pattern includes URLs, but never excludes the start URL", () => {
    const s = scope({ start: "https://shop.test/", pattern: "/products/" })
    expect(s.refusal("https://shop.test/", 0)).toBeUndefined()
    expect(s.refusal("https://shop.test/products/1", 1)).toBeUndefined()
    expect(s.refusal("https://shop.test/about", 1)).toBe("not-matching")
  })

  it("refuses a pattern that is not RE2 and a start that is not a URL, naming the field", () => {
    const backref = CrawlScope.make({ start: "https://shop.test/", followSubdomains: false, maxDepth: undefined, pattern: "(a)\\1", patternField: "urlRegex" })
    expect(Either.isLeft(backref) && backref.left.errorCode).toBe("INPUT_VALIDATION_ERROR")
    expect(Either.isLeft(backref) && backref.left.message).toMatch(/urlRegex.*not a valid RE2 pattern/)
    const long = CrawlScope.make({ start: "https://shop.test/", followSubdomains: false, maxDepth: undefined, pattern: "a".repeat(300) })
    expect(Either.isLeft(long) && long.left.message).toMatch(/at most 256/)
    const bad = CrawlScope.make({ start: "ftp://shop.test/", followSubdomains: false, maxDepth: undefined, pattern: undefined })
    expect(Either.isLeft(bad) && bad.left.message).toMatch(/url.*not an http\(s\) URL/)
  })

  it("moves with a redirect of the start page within the site, not off it", () => {
    const s = scope({ start: "http://shop.test/", pattern: "^https://www\\.shop\\.test/en/" })
    const moved = s.rebase("https://www.shop.test/en/")
    expect(moved.start).toBe("https://www.shop.test/en/")
    expect(moved.refusal("https://www.shop.test/en/", 0)).toBeUndefined()
    expect(s.rebase("https://elsewhere.test/").start).toBe("http://shop.test/")
  })
})

describe("frontier", () => {
  it("dedupes spellings of one page, is breadth first, and accepts at most maxPages", () => {
    const f = new Frontier(scope({ start: "https://shop.test/" }), 3)
    expect(f.offer("https://shop.test/", 0)).toBe("queued")
    expect(f.offer("http://www.shop.test/#top", 1)).toBe("duplicate")
    expect(f.offer("/a?utm_source=x", 1, "https://shop.test/")).toBe("queued")
    expect(f.offer("https://shop.test/a", 1)).toBe("duplicate")
    expect(f.offer("https://other.test/", 1)).toBe("out-of-scope")
    expect(f.offer("https://other.test/", 1)).toBe("duplicate")
    expect(f.offer("https://shop.test/b", 1)).toBe("queued")
    expect(f.offer("https://shop.test/c", 2)).toBe("full")
    expect(f.offer("https://shop.test/c", 2)).toBe("duplicate")
    expect(f.accepted).toBe(3)
    expect(f.refusals).toMatchObject({ "out-of-scope": 1, full: 1 })
    expect([f.take(), f.take(), f.take(), f.take()].map((e) => e?.url)).toEqual([
      "https://shop.test/", "https://shop.test/a", "https://shop.test/b", undefined
    ])
    expect(f.waiting).toBe(0)
  })

  it("counts each distinct pattern miss once, and takes in order across thousands of pages", () => {
    const f = new Frontier(scope({ start: "https://shop.test/", pattern: "/p/" }), 5000)
    f.offer("https://shop.test/", 0)
    for (let i = 0; i < 5000; i++) f.offer(`https://shop.test/p/${i}`, 1)
    for (let i = 0; i < 3; i++) f.offer("https://shop.test/about", 1)
    expect(f.refusals["not-matching"]).toBe(1)
    expect(f.refusals.full).toBe(1)
    const taken: Array<string> = []
    for (let e = f.take(); e !== undefined; e = f.take()) taken.push(e.url)
    expect(taken.length).toBe(5000)
    expect(taken[4999]).toBe("https://shop.test/p/4998")
  })
})

describe("host gate", () => {
  let site: FixtureSite.Site
  const hosts: Hosts = {
    "polite.test": {
      "/robots.txt": text("User-agent: *\nDisallow: /private/\nCrawl-delay: 0.3\n"),
      "*": page("x", [])
    },
    "open.test": { "*": page("y", []) }
  }
  beforeAll(async () => {
    site = await startSites(hosts)
  })
  afterAll(() => site.close())

  it.live("honours Disallow and spaces starts by Crawl-delay, reading robots.txt once per origin", () =>
    Effect.gen(function*() {
      const gate = yield* HostGate.make({ perHost: 4, robots: true, maxCrawlDelayMs: 10_000 })
      expect(yield* gate.allows("http://polite.test/private/x")).toBe(false)
      expect(yield* gate.allows("http://polite.test/public")).toBe(true)
      const starts: Array<number> = []
      yield* Effect.forEach([1, 2, 3], () => gate.withSlot("http://polite.test/p", Effect.sync(() => starts.push(Date.now()))), { concurrency: 3 })
      expect(starts[1]! - starts[0]!).toBeGreaterThanOrEqual(280)
      expect(starts[2]! - starts[1]!).toBeGreaterThanOrEqual(280)
      expect(requested(site, "polite.test").filter((p) => p === "/robots.txt").length).toBe(1)
    }).pipe(Effect.provide(fetcherFor(site))))

  it.live("does not read robots.txt when robots are not honoured, caps fetches per host, and pauses a host", () =>
    Effect.gen(function*() {
      const gate = yield* HostGate.make({ perHost: 2, robots: false, maxCrawlDelayMs: 10_000 })
      expect(yield* gate.allows("http://open.test/private/x")).toBe(true)
      let running = 0
      let most = 0
      const work = Effect.gen(function*() {
        running++
        most = Math.max(most, running)
        yield* Effect.sleep(30)
        running--
      })
      yield* Effect.forEach(Array.from({ length: 6 }), () => gate.withSlot("http://open.test/a", work), { concurrency: 6 })
      expect(most).toBe(2)
      yield* gate.pause("http://open.test/", 300)
      const before = Date.now()
      yield* gate.withSlot("http://open.test/b", Effect.void)
      expect(Date.now() - before).toBeGreaterThanOrEqual(280)
      expect(requested(site, "open.test")).not.toContain("/robots.txt")
    }).pipe(Effect.provide(fetcherFor(site))))
})
