/**
 * Where fetched pages are kept between requests. Core defines the interface and an in-memory implementation;
 * `@sift/store` provides the durable one. A cache never fails a scrape: a backend that cannot answer reports a miss.
 *
 * @since 0.1.0
 */
import { Context, Effect, Layer, Option } from "effect"

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
  // A Map iterates in insertion order, so re-inserting on access makes its first key the least recently used.
  const entries = new Map<string, CacheEntry>()
  let bytes = 0
  const remove = (key: string) => {
    const entry = entries.get(key)
    if (entry !== undefined) {
      bytes -= entry.value.byteLength
      entries.delete(key)
    }
  }
  return {
    get: (key, maxAgeMs) =>
      Effect.sync(() => {
        const entry = entries.get(key)
        if (entry === undefined) return Option.none()
        const age = now() - entry.storedAt
        if (age > maxAge) {
          remove(key)
          return Option.none()
        }
        entries.delete(key)
        entries.set(key, entry)
        return age <= maxAgeMs ? Option.some(entry) : Option.none()
      }),
    set: (key, value) =>
      Effect.sync(() => {
        remove(key)
        if (value.byteLength > maxBytes) return
        entries.set(key, { value, storedAt: now() })
        bytes += value.byteLength
        for (const oldest of entries.keys()) {
          if (bytes <= maxBytes) break
          remove(oldest)
        }
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
