/**
 * Sitemap URL sets: selection by RE2 include/exclude patterns and `max_urls`, and the added/removed difference with
 * exact counts.
 */
import { RE2JS } from "re2js"

/** At most this many URLs are listed each way in a change; the counts stay exact. */
export const LISTED_URLS = 500
/** The most URLs a sitemap monitor keeps. */
export const MAX_URLS = 10_000

/** Why a pattern cannot be used, or undefined. */
export const sitemapPatternError = (pattern: string): string | undefined => {
  if (pattern.length > 256) return "is longer than 256 characters"
  try {
    RE2JS.compile(pattern)
    return undefined
  } catch (error) {
    return `is not a valid RE2 pattern (${(error as Error).message})`
  }
}

/** The URLs kept: de-duplicated, sorted, included and not excluded, at most `max_urls`. */
export const selectSitemapUrls = (
  urls: Iterable<string>,
  rules: { readonly include?: ReadonlyArray<string> | undefined; readonly exclude?: ReadonlyArray<string> | undefined; readonly max_urls?: number | undefined }
): ReadonlyArray<string> => {
  const include = (rules.include ?? []).map((p) => RE2JS.compile(p))
  const exclude = (rules.exclude ?? []).map((p) => RE2JS.compile(p))
  const kept = [...new Set(urls)]
    .filter((url) => (include.length === 0 || include.some((re) => re.matcher(url).find())) && !exclude.some((re) => re.matcher(url).find()))
    .sort()
  const cap = Math.min(rules.max_urls ?? MAX_URLS, MAX_URLS)
  return kept.length > cap ? kept.slice(0, cap) : kept
}

/** The difference of two URL sets, or undefined when equal. */
export const compareSitemaps = (before: ReadonlyArray<string>, after: ReadonlyArray<string>) => {
  const had = new Set(before)
  const has = new Set(after)
  const added = [...has].filter((u) => !had.has(u)).sort()
  const removed = [...had].filter((u) => !has.has(u)).sort()
  if (added.length === 0 && removed.length === 0) return undefined
  return {
    title: `Sitemap changed: ${added.length} added, ${removed.length} removed`,
    summary: `${added.length} URL${added.length === 1 ? "" : "s"} added and ${removed.length} removed; the sitemap now lists ${has.size}` +
      (added.length > 0 ? `; first added: ${added[0]}` : ""),
    added_urls: added.slice(0, LISTED_URLS),
    removed_urls: removed.slice(0, LISTED_URLS),
    added_url_count: added.length,
    removed_url_count: removed.length
  }
}
