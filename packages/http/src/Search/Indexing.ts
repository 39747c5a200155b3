/**
 * Feeds Sift's own page index (store `PageIndex`) from the pages an organization reads: `POST /web/scrape` and the
 * scrape GETs that give Markdown, `POST /web/crawl`, and the results `POST /web/search` reads to Markdown. Never a page
 * asked for with ZDR, nor one without Markdown or a title to index. A freshly fetched page (the moment its cache
 * entry is written) is always (re)indexed; a page answered from the cache is indexed for an organization the first
 * time this process sees that organization read it within `RECENT_MS`, so a cache hit costs no write on the hot path.
 * Indexing never fails a request: a database error is logged by the index and the answer goes out.
 *
 * @since 0.1.0
 */
import type { ScrapeResult } from "@sift/core"
import { PageIndex } from "@sift/store/PageIndex"
import { Effect, Option } from "effect"

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

/**
 * Indexes pages this organization read; `private` (ZDR, or forwarded headers: what the page cache refuses too)
 * indexes nothing.
 */
export const indexPages = (orgId: string, isPrivate: boolean, pages: ReadonlyArray<ReadPage>): Effect.Effect<void> => {
  if (isPrivate || pages.length === 0) return Effect.void
  const now = Date.now()
  const fresh = pages.filter(({ result }) => {
    if (result.isPartial === true || result.cache_metadata.status === "zdr") return false
    if (typeof result.markdown.data !== "string" || result.markdown.data.trim() === "") return false
    const key = `${orgId}\u0000${result.url}`
    if (result.cache_metadata.status === "hit" && seenRecently(key, now)) return false
    remember(key, now)
    return true
  })
  if (fresh.length === 0) return Effect.void
  return Effect.flatMap(Effect.serviceOption(PageIndex), (index) =>
    Option.isNone(index) ? Effect.void : index.value.add(fresh.map(({ result }) => ({
      orgId,
      url: result.url,
      title: result.metadata.title ?? "",
      headings: (result.metadata.headings ?? []).map((heading) => heading.text),
      markdown: result.markdown.data ?? "",
      description: result.metadata.description,
      language: result.metadata.language,
      // A page answered from the cache is as old as its entry, and leaves the index with it.
      storedAt: now - result.cache_metadata.age_ms
    }))))
}
