/**
 * `Pipeline.runMemoized`: a formatted outcome is reused only while the cache answers with the very entry it was made
 * from; freshness is the cache's, and requests that bypass the cache or need a browser are always run.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import * as Cache from "../src/Cache.js"
import * as Fetcher from "../src/Fetcher.js"
import * as Pipeline from "../src/Pipeline.js"
import * as ScrapeRequest from "../src/ScrapeRequest.js"
import * as FixtureSite from "./support/FixtureSite.js"

const page = (word: string) => `<!doctype html><html><head><title>${word} | Harbour</title></head>
<body><main><h1>${word}</h1><p>The ferry leaves at ${word} o'clock from the <a href="/pier">north pier</a>.</p></main></body></html>`

const live = Layer.merge(Fetcher.layer({ allowPrivateTargets: true }), Cache.layerMemory())

/** Decodes once: the service reuses decoded requests too, and the memo keys are computed once per request object. */
const decode = (input: Record<string, unknown>) => Effect.runSync(ScrapeRequest.decode(input))

const pause = (ms: number) => Effect.promise(() => new Promise((resolve) => setTimeout(resolve, ms)))

describe("Pipeline.runMemoized", () => {
  it.live("a repeat meets the same cache entry: the outcome is reused (no fetch, no conversion) with the hit's age", () =>
    Effect.gen(function*() {
      const site = yield* FixtureSite.scoped({ "/tide": FixtureSite.html(page("Nine")) })
      const fetches = () => site.exchanges.filter((exchange) => exchange.path === "/tide").length
      const request = decode({ url: `${site.url}/tide`, formats: { markdown: true } })
      let serialized = 0
      const serialize = (outcome: Pipeline.Outcome) =>
        outcome.derived.get("json", () => {
          serialized++
          return JSON.stringify(outcome.result.markdown)
        })

      const first = yield* Pipeline.runMemoized(request)
      expect(first.result.cache_metadata).toEqual({ status: "miss", age_ms: 0 })
      expect(first.result.markdown.data).toContain("# Nine")
      expect(first.document).toEqual({ type: "html", ocrPages: 0 })
      expect(first.render).toEqual({ rendered: false, finalDOMState: "complete" })
      expect(serialize(first)).toContain("Nine")
      yield* pause(25)

      const second = yield* Pipeline.runMemoized(request)
      expect(second.result.cache_metadata.status).toBe("hit")
      expect(second.result.cache_metadata.age_ms).toBeGreaterThanOrEqual(20)
      expect(second.result.markdown.data).toBe(first.result.markdown.data)
      // Not converted again: the very metadata object of the first outcome, and its derived value computed once.
      expect(second.result.metadata).toBe(first.result.metadata)
      expect(serialize(second)).toBe(serialize(first))
      expect(serialized).toBe(1)
      expect(second.document).toEqual({ type: "html", ocrPages: 0 })
      expect(second.render).toEqual({ rendered: false, finalDOMState: "complete" })
      // Each caller gets its own result object (its cache_metadata), never the remembered one.
      expect(second.result).not.toBe(first.result)
      expect(fetches()).toBe(1)

      // An equal request decoded again (another object) is answered from the same memo.
      const third = yield* Pipeline.runMemoized(decode({ url: `${site.url}/tide`, formats: { markdown: true } }))
      expect(third.result.metadata).toBe(first.result.metadata)
      // Other output options are another result, made from the same cached page.
      const noLinks = yield* Pipeline.runMemoized(decode({ url: `${site.url}/tide`, formats: { markdown: true }, markdownParams: { includeLinks: false } }))
      expect(noLinks.result.cache_metadata.status).toBe("hit")
      expect(noLinks.result.markdown.data).not.toContain("](")
      expect(noLinks.result.metadata).not.toBe(first.result.metadata)
      expect(fetches()).toBe(1)
    }).pipe(Effect.scoped, Effect.provide(live)))

  it.live("run options are told apart by their members: a fresh equal object shares the memo, other options do not", () =>
    Effect.gen(function*() {
      const site = yield* FixtureSite.scoped({ "/tide": FixtureSite.html(page("Nine")) })
      const request = decode({ url: `${site.url}/tide`, formats: { markdown: true } })
      const withLinks = yield* Pipeline.runMemoized(request, { links: true })
      expect(withLinks.links).toEqual([`${site.url}/pier`])
      // The same request object with other options: its own outcome (no links), not the one remembered above.
      const without = yield* Pipeline.runMemoized(request, {})
      expect(without.links).toEqual([])
      expect(without.result.metadata).not.toBe(withLinks.result.metadata)
      // Fresh objects equal to earlier ones (callers build one per request) meet their memos.
      const again = yield* Pipeline.runMemoized(request, { links: true })
      expect(again.links).toEqual([`${site.url}/pier`])
      expect(again.result.metadata).toBe(withLinks.result.metadata)
      const plain = yield* Pipeline.runMemoized(request, { pdfShouldParse: undefined })
      expect(plain.links).toEqual([])
      expect(plain.result.metadata).toBe(without.result.metadata)
      expect(site.exchanges.filter((exchange) => exchange.path === "/tide").length).toBe(1)
    }).pipe(Effect.scoped, Effect.provide(live)))

  it.live("a replaced cache entry is never answered with the outcome of the old one", () =>
    Effect.gen(function*() {
      const site = yield* FixtureSite.scoped({ "/tide": FixtureSite.html(page("Nine")) })
      const request = decode({ url: `${site.url}/tide`, formats: { markdown: true } })
      const first = yield* Pipeline.runMemoized(request)
      expect(first.result.markdown.data).toContain("# Nine")

      // Another request refreshes the page (maxAgeMs 0 fetches and stores the new bytes under the same key).
      site.route("/tide", FixtureSite.html(page("Ten")))
      const refresh = yield* Pipeline.runMemoized(decode({ url: `${site.url}/tide`, formats: { html: true }, maxAgeMs: 0 }))
      expect(refresh.result.html.data).toContain("Ten")

      const again = yield* Pipeline.runMemoized(request)
      expect(again.result.cache_metadata.status).toBe("hit")
      expect(again.result.markdown.data).toContain("# Ten")
      expect(again.result.markdown.data).not.toContain("Nine")
      expect(again.result.metadata).not.toBe(first.result.metadata)
      // ...and that new outcome is the one remembered from now on.
      const once = yield* Pipeline.runMemoized(request)
      expect(once.result.metadata).toBe(again.result.metadata)
    }).pipe(Effect.scoped, Effect.provide(live)))

  it.live("freshness is the request's maxAgeMs against the page's fetch time, memo or not", () =>
    Effect.gen(function*() {
      const site = yield* FixtureSite.scoped({ "/tide": FixtureSite.html(page("Nine")) })
      const fetches = () => site.exchanges.filter((exchange) => exchange.path === "/tide").length
      const first = yield* Pipeline.runMemoized(decode({ url: `${site.url}/tide`, formats: { markdown: true } }))
      expect(first.result.cache_metadata.status).toBe("miss")
      yield* pause(40)
      site.route("/tide", FixtureSite.html(page("Ten")))
      const strict = decode({ url: `${site.url}/tide`, formats: { markdown: true }, maxAgeMs: 20 })
      const tooOld = yield* Pipeline.runMemoized(strict)
      expect(tooOld.result.cache_metadata).toEqual({ status: "miss", age_ms: 0 })
      expect(tooOld.result.markdown.data).toContain("# Ten")
      expect(fetches()).toBe(2)
      // The refreshed entry serves the first request's options too, with its own (young) age.
      const lenient = yield* Pipeline.runMemoized(decode({ url: `${site.url}/tide`, formats: { markdown: true } }))
      expect(lenient.result.cache_metadata.status).toBe("hit")
      expect(lenient.result.cache_metadata.age_ms).toBeLessThan(40)
      expect(lenient.result.markdown.data).toContain("# Ten")
      expect(fetches()).toBe(2)
    }).pipe(Effect.scoped, Effect.provide(live)))

  it.live("zero data retention, forwarded headers and maxAgeMs 0 are run every time, as the cache rule says", () =>
    Effect.gen(function*() {
      const site = yield* FixtureSite.scoped({ "/tide": FixtureSite.html(page("Nine")) })
      const fetches = () => site.exchanges.filter((exchange) => exchange.path === "/tide").length
      const url = `${site.url}/tide`
      // The page is in the cache; none of these may use it or its memo.
      yield* Pipeline.runMemoized(decode({ url, formats: { markdown: true } }))
      yield* Pipeline.runMemoized(decode({ url, formats: { markdown: true } }))
      expect(fetches()).toBe(1)
      const cases = [
        { input: { url, formats: { markdown: true }, zdr: "enabled" }, status: "zdr" },
        { input: { url, formats: { markdown: true }, sharedParams: { headers: { "X-Token": "1" } } }, status: "miss" },
        { input: { url, formats: { markdown: true }, maxAgeMs: 0 }, status: "miss" }
      ] as const
      for (const { input, status } of cases) {
        const request = decode(input)
        const before = fetches()
        const one = yield* Pipeline.runMemoized(request)
        const two = yield* Pipeline.runMemoized(request)
        expect([one.result.cache_metadata, two.result.cache_metadata]).toEqual([{ status, age_ms: 0 }, { status, age_ms: 0 }])
        expect(two.result.metadata).not.toBe(one.result.metadata)
        expect(fetches()).toBe(before + 2)
      }
      expect(Cache.usesCache(decode({ url, formats: { markdown: true } }))).toBe(true)
      expect(Cache.usesCache(decode(cases[0].input))).toBe(false)
      expect(Cache.usesCache(decode(cases[1].input))).toBe(false)
    }).pipe(Effect.scoped, Effect.provide(live)))

  it.live("each request reads the page cache once, also when its remembered outcome is stale", () =>
    Effect.gen(function*() {
      const site = yield* FixtureSite.scoped({ "/tide": FixtureSite.html(page("Nine")) })
      const memory = Cache.makeMemory()
      let reads = 0
      const counting = Cache.Cache.of({
        get: (key, maxAgeMs) => Effect.suspend(() => {
          reads++
          return memory.get(key, maxAgeMs)
        }),
        set: memory.set
      })
      const run = (input: Record<string, unknown>) => Effect.provideService(Pipeline.runMemoized(decode(input)), Cache.Cache, counting)
      const url = `${site.url}/tide`
      const counted = (effect: Effect.Effect<Pipeline.Outcome, unknown, Fetcher.Fetcher>) =>
        Effect.map(effect, (outcome) => {
          const n = reads
          reads = 0
          return [outcome.result.cache_metadata.status, n] as const
        })
      expect(yield* counted(run({ url, formats: { markdown: true } }))).toEqual(["miss", 1])
      expect(yield* counted(run({ url, formats: { markdown: true } }))).toEqual(["hit", 1])
      site.route("/tide", FixtureSite.html(page("Ten")))
      expect(yield* counted(run({ url, formats: { html: true }, maxAgeMs: 0 }))).toEqual(["miss", 0])
      // The remembered outcome no longer matches the entry: the entry read to find that out is the one converted.
      expect(yield* counted(run({ url, formats: { markdown: true } }))).toEqual(["hit", 1])
      expect(yield* counted(run({ url, formats: { markdown: true } }))).toEqual(["hit", 1])
    }).pipe(Effect.scoped, Effect.provide(Fetcher.layer({ allowPrivateTargets: true }))))

  it.live("without a cache that keeps entries nothing is reused", () =>
    Effect.gen(function*() {
      const site = yield* FixtureSite.scoped({ "/tide": FixtureSite.html(page("Nine")) })
      const request = decode({ url: `${site.url}/tide`, formats: { markdown: true } })
      const one = yield* Pipeline.runMemoized(request)
      const two = yield* Pipeline.runMemoized(request)
      expect(two.result.cache_metadata.status).toBe("miss")
      expect(two.result.metadata).not.toBe(one.result.metadata)
      expect(site.exchanges.filter((exchange) => exchange.path === "/tide").length).toBe(2)
    }).pipe(Effect.scoped, Effect.provide(Layer.merge(Fetcher.layer({ allowPrivateTargets: true }), Cache.layerNone))))
})
