/**
 * Formatted results of cached pages, remembered per cache entry (`Pipeline.runMemoized`). A cache hit still costs a
 * full conversion (parse the stored page, filter, write Markdown), which dominates a hit; when the same request meets
 * the same cache entry again, the result is the same, so it is reused. An entry's identity is the very byte array the
 * cache answers with (the memory cache and the store's memory front return the one they hold), so a refreshed or
 * re-read entry never meets an old result.
 */
import { LRUCache } from "lru-cache"

/** Bytes of results kept per cache (estimated from their string sizes); one result may take an eighth of it. */
const MAX_BYTES = 32 * 1024 * 1024

/** A remembered outcome and the cache entry it was made from. */
export interface Memo<A> {
  /** The cache entry's bytes this outcome was made from (compared by identity). */
  readonly page: Uint8Array
  /** When the page was fetched (epoch ms), for `age_ms`. */
  readonly fetchedAt: number
  readonly outcome: A
  /** Estimated bytes held. */
  readonly size: number
}

// One memo store per cache instance: a memo only means something against the cache whose entries it names.
const byCache = new WeakMap<object, LRUCache<string, Memo<unknown>>>()

/** The memos of results made from `cache`'s entries, least recently used evicted first. */
export const memosOf = <A>(cache: object): LRUCache<string, Memo<A>> => {
  let memos = byCache.get(cache)
  if (memos === undefined) {
    memos = new LRUCache<string, Memo<unknown>>({
      maxSize: MAX_BYTES,
      maxEntrySize: MAX_BYTES / 8,
      sizeCalculation: (memo) => memo.size
    })
    byCache.set(cache, memos)
  }
  return memos as LRUCache<string, Memo<A>>
}

/** Values computed from one result, by name (its serialized JSON, say). */
export interface Derived {
  /** `make()`, remembered under `name` while the result it was made from is; `make` must depend on that result alone. */
  readonly get: <A>(name: string, make: () => A) => A
}

/** For a result made once: every value computed afresh. */
export const deriveAfresh: Derived = { get: (_name, make) => make() }

/** For a remembered result: each value computed once. */
export const deriveOnce = (): Derived => {
  const values = new Map<string, unknown>()
  return {
    get: <A>(name: string, make: () => A): A => {
      if (values.has(name)) return values.get(name) as A
      const value = make()
      values.set(name, value)
      return value
    }
  }
}
