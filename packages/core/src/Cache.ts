/**
 * Where fetched pages are kept between requests. Core defines the interface and an in-memory implementation;
 * `@sift/store` provides the durable one. A cache never fails a scrape: a backend that cannot answer reports a miss.
 *
 * @since 0.1.0
 */
import { Context, Effect, Layer, Option } from "effect"
import { LRUCache } from "lru-cache"
import type { ScrapeRequest } from "./ScrapeRequest.js"

/** A stored value and when it was stored (epoch milliseconds). */
export interface CacheEntry {
  readonly value: Uint8Array
  readonly storedAt: number
}

/** The cache service: bytes by key. @category services */
export class Cache extends Context.Tag("@sift/core/Cache")<Cache, {
  /** The entry for `key` if one is stored and no older than `maxAgeMs`. */
  readonly get: (key: string, maxAgeMs: number) => Effect.Effect<Option.Option<CacheEntry>>
  /** Stores `value` under `key`, replacing what was there. */
  readonly set: (key: string, value: Uint8Array) => Effect.Effect<void>
}>() {}

/**
 * The cache rule, for pages and screenshots alike: a zero-data-retention request neither reads nor writes a cache, nor
 * does one with forwarded headers (they may change what the site shows, and must not be kept).
 */
export const usesCache = (request: ScrapeRequest): boolean =>
  request.zdr !== "enabled" && Object.keys(request.sharedParams?.headers ?? {}).length === 0

/** Options of the in-memory cache. */
export interface MemoryOptions {
  /** Total bytes kept before the least recently used entries are dropped (default 256 MiB). */
  readonly maxBytes?: number
  /** Entries older than this are dropped on access (default 30 days, the contract's largest `maxAgeMs`). */
  readonly maxAgeMs?: number
  /** Clock, for tests. */
  readonly now?: () => number
}

/** An in-memory, size-bounded, least-recently-used cache. */
export const makeMemory = (options: MemoryOptions = {}): Cache["Type"] => {
  const maxBytes = options.maxBytes ?? 256 * 1024 * 1024
  const maxAge = options.maxAgeMs ?? 2_592_000_000
  const now = options.now ?? Date.now
  // An entry larger than the whole budget is not kept (and drops what its key held).
  const entries = new LRUCache<string, CacheEntry>({
    maxSize: maxBytes,
    sizeCalculation: (entry) => Math.max(1, entry.value.byteLength)
  })
  return {
    get: (key, maxAgeMs) =>
      Effect.sync(() => {
        // A read marks the entry used, even one too old for this request.
        const entry = entries.get(key)
        if (entry === undefined) return Option.none()
        const age = now() - entry.storedAt
        if (age > maxAge) {
          entries.delete(key)
          return Option.none()
        }
        return age <= maxAgeMs ? Option.some(entry) : Option.none()
      }),
    set: (key, value) =>
      Effect.sync(() => {
        entries.set(key, { value, storedAt: now() })
      })
  }
}

/** The in-memory cache as a layer. */
export const layerMemory = (options?: MemoryOptions): Layer.Layer<Cache> => Layer.sync(Cache, () => makeMemory(options))

/** A cache that stores nothing, for callers that never want cached pages. */
export const layerNone: Layer.Layer<Cache> = Layer.succeed(Cache, {
  get: () => Effect.succeed(Option.none()),
  set: () => Effect.void
})
