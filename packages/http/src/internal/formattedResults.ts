/**
 * Formatted results of cached pages, remembered per cache entry. A cache hit still costs a full conversion (parse the
 * stored HTML, filter, write Markdown), which dominates a hit; when the same request meets the same cache entry again,
 * the result is the same, so it is reused. The entry's identity is the very byte array the cache returns (the store's
 * memory front returns the one it holds), so a refreshed or re-read entry never meets an old result. Everything else
 * (freshness against `maxAgeMs`, ZDR and forwarded headers bypassing the cache) is decided exactly as the pipeline
 * decides it; only the conversion is skipped.
 */
import { Cache, type Errors, type Fetcher, Pipeline, ScrapeRequest, type ScrapeResult } from "@sift/core"
import { Clock, Context, Effect, Option } from "effect"
import { stringify } from "./json.js"
import { andThen } from "./steps.js"

/** Bytes of results kept per cache (estimated from their string sizes). */
const MAX_BYTES = 32 * 1024 * 1024

interface Memo {
  /** The cache entry's bytes this result was made from (compared by identity). */
  readonly page: Uint8Array
  /** When the page was fetched (epoch ms), for `age_ms`. */
  readonly fetchedAt: number
  readonly result: ScrapeResult.ScrapeResult
  readonly size: number
}

/**
 * Memos bounded by their estimated size, evicted least recently used first (approximately: "second chance" over the
 * insertion order, so a hit only sets a flag instead of re-inserting into the map on every request).
 */
class Memos {
  private readonly entries = new Map<string, Memo & { used: boolean }>()
  private bytes = 0
  get(key: string): Memo | undefined {
    const memo = this.entries.get(key)
    if (memo !== undefined) memo.used = true
    return memo
  }
  set(key: string, memo: Memo): void {
    this.delete(key)
    if (memo.size > MAX_BYTES / 8) return
    this.entries.set(key, { ...memo, used: false })
    this.bytes += memo.size
    while (this.bytes > MAX_BYTES) {
      const [oldestKey, oldest] = this.entries.entries().next().value!
      this.entries.delete(oldestKey)
      if (oldest.used) {
        oldest.used = false
        this.entries.set(oldestKey, oldest)
      } else this.bytes -= oldest.size
    }
  }
  delete(key: string): void {
    const memo = this.entries.get(key)
    if (memo === undefined) return
    this.bytes -= memo.size
    this.entries.delete(key)
  }
}

// One memo map per cache instance: a memo only means something against the cache whose entries it names.
const byCache = new WeakMap<Cache.Cache["Type"], Memos>()

const memosOf = (cache: Cache.Cache["Type"]): Memos => {
  let memos = byCache.get(cache)
  if (memos === undefined) {
    memos = new Memos()
    byCache.set(cache, memos)
  }
  return memos
}

/** Requests whose result is a pure function of the cached page and the request's output options. */
const memoizable = (request: ScrapeRequest.ScrapeRequest): boolean =>
  request.zdr !== "enabled" &&
  Object.keys(request.sharedParams?.headers ?? {}).length === 0 &&
  (request.maxAgeMs ?? 1) > 0 &&
  Pipeline.browserNeeds(request).length === 0

/** Everything that shapes the output, beside the page itself (not freshness, deadline, ZDR or tags). */
const memoKeyOf = (request: ScrapeRequest.ScrapeRequest, options: Pipeline.RunOptions): string =>
  stringify([
    Pipeline.cacheKey(request),
    request.formats,
    request.sharedParams ?? null,
    request.markdownParams ?? null,
    request.imageParams ?? null,
    request.parseParams ?? null,
    options.pdfShouldParse ?? null
  ])

// Decoded GET queries are remembered and reused (Scrape/Http.ts), so the same request object comes back on every hit:
// what is known about it is computed once (a hash and a serialization each).
interface Keys {
  readonly options: Pipeline.RunOptions
  readonly memoizable: boolean
  readonly memoKey: string
  readonly pageKey: string
}
const keysByRequest = new WeakMap<ScrapeRequest.ScrapeRequest, Keys>()

const keysOf = (request: ScrapeRequest.ScrapeRequest, options: Pipeline.RunOptions): Keys => {
  const known = keysByRequest.get(request)
  if (known !== undefined && known.options === options) return known
  const keys = memoizable(request)
    ? { options, memoizable: true, memoKey: memoKeyOf(request, options), pageKey: Pipeline.cacheKey(request) }
    : { options, memoizable: false, memoKey: "", pageKey: "" }
  keysByRequest.set(request, keys)
  return keys
}

// Values derived from a memoized result (e.g. its serialized JSON), kept with the memo: a hit returns a copy of the
// memo's result that carries the same map, so whatever was derived from it once is reused while the memo lives.
const DERIVED = Symbol.for("@sift/http/FormattedResults/derived")

/**
 * `make()`, remembered with the memoized result `result` came from under `name` (computed afresh for results that
 * were not memoized). `make` must depend on the result alone.
 */
export const derived = <A>(result: ScrapeResult.ScrapeResult, name: string, make: () => A): A => {
  const values = (result as { readonly [DERIVED]?: Map<string, unknown> })[DERIVED]
  if (values === undefined) return make()
  if (values.has(name)) return values.get(name) as A
  const value = make()
  values.set(name, value)
  return value
}

const sizeOf = (result: ScrapeResult.ScrapeResult): number =>
  2 * ((result.markdown.data?.length ?? 0) + (result.html.data?.length ?? 0) + (result.bytes.data?.base64.length ?? 0)) +
  4096

/**
 * `Pipeline.run`, reusing the formatted result when the same request meets the same cache entry again. Results and
 * failures are otherwise exactly the pipeline's.
 */
export const run = (
  request: ScrapeRequest.ScrapeRequest,
  options: Pipeline.RunOptions = {}
): Effect.Effect<ScrapeResult.ScrapeResult, Errors.ScrapeError, Cache.Cache | Fetcher.Fetcher> =>
  Effect.suspend(() => {
    const keys = keysOf(request, options)
    if (!keys.memoizable) return Pipeline.run(request, options)
    // A memo hit is a handful of steps: the cache entry it was made from is still the one the cache answers with.
    // The cache and the clock are read in one step.
    return Effect.withFiberRuntime<ScrapeResult.ScrapeResult, Errors.ScrapeError, Cache.Cache | Fetcher.Fetcher>((fiber) => {
      const cache = Context.get(fiber.currentContext as Context.Context<Cache.Cache>, Cache.Cache)
      const memos = memosOf(cache)
      const memo = memos.get(keys.memoKey)
      if (memo === undefined) return runNoting(request, options, cache, memos, keys)
      const clock = Context.get(fiber.currentDefaultServices, Clock.Clock)
      return andThen(cache.get(keys.pageKey, request.maxAgeMs ?? ScrapeRequest.DEFAULT_MAX_AGE_MS), (entry) => {
        if (Option.isSome(entry) && entry.value.value === memo.page) {
          return Effect.succeed<ScrapeResult.ScrapeResult>({
            ...memo.result,
            cache_metadata: { status: "hit", age_ms: Math.max(0, clock.unsafeCurrentTimeMillis() - memo.fetchedAt) }
          })
        }
        memos.delete(keys.memoKey)
        return runNoting(request, options, cache, memos, keys)
      })
    })
  })

/** The pipeline's run, remembering its result when it was made from (or stored) a cache entry. */
const runNoting = (
  request: ScrapeRequest.ScrapeRequest,
  options: Pipeline.RunOptions,
  cache: Cache.Cache["Type"],
  memos: Memos,
  { memoKey: key, pageKey }: Keys
): Effect.Effect<ScrapeResult.ScrapeResult, Errors.ScrapeError, Fetcher.Fetcher> =>
  Effect.gen(function*() {
    // Run the pipeline on a cache that notes which entry it read or wrote, and when.
    let seen: { page: Uint8Array; at: number } | undefined
    const noting = Cache.Cache.of({
      get: (k, maxAge) =>
        Effect.tap(cache.get(k, maxAge), (found) =>
          k === pageKey && Option.isSome(found)
            ? Effect.map(Clock.currentTimeMillis, (at) => {
              seen = { page: found.value.value, at }
            })
            : Effect.void),
      set: (k, value) =>
        Effect.zipRight(
          Effect.map(Clock.currentTimeMillis, (at) => {
            if (k === pageKey) seen = { page: value, at }
          }),
          cache.set(k, value)
        )
    })
    const result = yield* Effect.provideService(Pipeline.run(request, options), Cache.Cache, noting)
    const status = result.cache_metadata.status
    if (seen !== undefined && result.isPartial !== true && (status === "hit" || status === "miss")) {
      // On a hit the pipeline reported the age at (within a millisecond of) the moment the entry was read.
      const fetchedAt = seen.at - result.cache_metadata.age_ms
      memos.set(key, { page: seen.page, fetchedAt, result: { ...result, [DERIVED]: new Map() } as ScrapeResult.ScrapeResult, size: sizeOf(result) })
    }
    return result
  })
