/**
 * Feeds Sift's own page index (store `PageIndex`) from the pages an organization reads: `POST /web/scrape` and the
 * scrape GETs that give Markdown, `POST /web/crawl`, the results `POST /web/search` reads to Markdown, and the pages
 * answers and extract read (batches index theirs in their record's statement). Never a page asked for with ZDR, nor
 * one without Markdown to index. A freshly fetched page is always (re)indexed, in the statement that stores its
 * page-cache entry (`storing`: the pipeline's cache writes are held until the page is read, then written with its
 * index row, both or neither); a page answered from the cache is indexed for an organization the first time this
 * process sees that organization read it within `RECENT_MS`, so a cache hit costs no write on the hot path. Indexing
 * never fails a request: a database error is logged, the held cache entries are written on their own, and the answer
 * goes out.
 *
 * @since 0.1.0
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { Cache, type ScrapeResult } from "@sift/core"
import * as CacheStore from "@sift/store/CacheStore"
import { type IndexedPage, PageIndex, pageOf } from "@sift/store/PageIndex"
import { Context, Effect, Exit, Option } from "effect"

/** How long a page read from the cache by one organization is not indexed again by this process. */
export const RECENT_MS = 10 * 60_000

const MAX_RECENT = 50_000
// Organization and URL -> when this process last indexed it (insertion order is age order: the oldest go first).
const recent = new Map<string, number>()

const seenRecently = (key: string, now: number): boolean => {
  const at = recent.get(key)
  return at !== undefined && now - at < RECENT_MS
}

const remember = (key: string, now: number): void => {
  recent.delete(key)
  recent.set(key, now)
  if (recent.size > MAX_RECENT) recent.delete(recent.keys().next().value!)
}

/** What is indexed of a page: its URL and result (a scrape or one page of a crawl). */
export interface ReadPage {
  readonly url: string
  readonly result: ScrapeResult.ScrapeResult
}

/** The rows of the pages worth indexing now (see the module's rules); remembers them as indexed. */
const indexable = (orgId: string, pages: ReadonlyArray<ReadPage>): Array<IndexedPage> => {
  const now = Date.now()
  return pages.flatMap(({ result }) => {
    // A cache hit seen recently is settled before its row is built (the hot path of a cache hit).
    const key = `${orgId}\u0000${result.url}`
    if (result.cache_metadata.status === "hit" && seenRecently(key, now)) return []
    const page = pageOf(orgId, result, now)
    if (page === undefined) return []
    remember(key, now)
    return [page]
  })
}

/**
 * Indexes pages this organization read; `private` (ZDR, or forwarded headers: what the page cache refuses too)
 * indexes nothing.
 */
export const indexPages = (orgId: string, isPrivate: boolean, pages: ReadonlyArray<ReadPage>): Effect.Effect<void> => {
  if (isPrivate || pages.length === 0) return Effect.void
  const rows = indexable(orgId, pages)
  if (rows.length === 0) return Effect.void
  return Effect.flatMap(Effect.serviceOption(PageIndex), (index) => Option.isNone(index) ? Effect.void : Effect.asVoid(index.value.add(rows)))
}

/**
 * Runs `read` (pages through the pipeline) and indexes the pages `pagesOf` gives of its result in the statement that
 * stores their page-cache entries: the cache writes `read` makes are held, then written with the index rows, both or
 * neither (the writes are held through `CacheStore.heldWrites`, so the pipeline's memo, kept per cache, still serves
 * cache hits). Whatever is not written that way (no page to index, a failed or interrupted read, a database error)
 * is written to the cache on its own, as it would have been. Without the store's cache or the index, or for a `private`
 * read: the read as it is, then `indexPages`.
 */
export const storing = <A, E, R>(
  orgId: string,
  isPrivate: boolean,
  read: Effect.Effect<A, E, R>,
  pagesOf: (value: A) => ReadonlyArray<ReadPage>
): Effect.Effect<A, E, R | Cache.Cache> =>
  // One step to find the services (a cache hit goes through here on the hot path).
  Effect.contextWithEffect((context: Context.Context<never>): Effect.Effect<A, E, R | Cache.Cache> => {
    const index = Context.getOption(context, PageIndex)
    const rows = Context.getOption(context, CacheStore.Rows)
    const sql = Context.getOption(context, SqlClient.SqlClient)
    if (isPrivate || Option.isNone(index) || Option.isNone(rows) || Option.isNone(sql)) {
      return Effect.tap(read, (value) => indexPages(orgId, isPrivate, pagesOf(value)))
    }
    const cache = Context.get(context as Context.Context<Cache.Cache>, Cache.Cache)
    const held: Array<{ readonly key: string; readonly value: Uint8Array }> = []
    return Effect.uninterruptibleMask((restore) =>
      Effect.flatMap(Effect.exit(restore(Effect.locally(read, CacheStore.heldWrites, held))), (exit) => {
        const pages = Exit.isSuccess(exit) ? indexable(orgId, pagesOf(exit.value)) : []
        if (pages.length === 0 && held.length === 0) return exit
        const write = pages.length === 0
          ? Effect.succeed(false)
          : index.value.add(pages, held.length === 0 ? undefined : CacheStore.upsert(sql.value, rows.value, held))
        return Effect.zipRight(
          Effect.flatMap(write, (written) => written ? Effect.void : Effect.forEach(held, (entry) => cache.set(entry.key, entry.value), { discard: true })),
          exit
        )
      }))
  })
