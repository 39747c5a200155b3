/**
 * Sitemap targets: which URLs a monitor watches (include/exclude RE2 patterns, a cap) and what changed between two
 * readings. RE2 (`re2js`) runs in linear time, so a customer's pattern can never stall a run on a hostile URL.
 */
import { RE2JS } from "re2js"

/** Longest accepted pattern. */
export const patternLimit = 256
/** Most URLs a sitemap target keeps. */
export const maxUrlsLimit = 10_000
/** Most URLs listed each way in a change (the counts stay exact). */
export const listedLimit = 500

/** Why a pattern cannot be used (empty, too long, not RE2 syntax), or undefined when it can. */
export const sitemapPatternError = (pattern: string): string | undefined => {
  if (pattern.length === 0) return "must not be empty"
  if (pattern.length > patternLimit) return `is ${pattern.length} characters long; at most ${patternLimit} are allowed`
  try {
    RE2JS.compile(pattern)
    return undefined
  } catch (error) {
    return `"${pattern}" is not a valid RE2 pattern: ${(error as Error).message}`
  }
}

/** A matcher per usable pattern; unusable patterns (the service refuses them earlier) match nothing. */
const matchers = (patterns: ReadonlyArray<string> | undefined): Array<(url: string) => boolean> =>
  (patterns ?? []).flatMap((pattern) => {
    if (sitemapPatternError(pattern) !== undefined) return []
    const re = RE2JS.compile(pattern)
    return [(url: string) => re.matcher(url).find()]
  })

/**
 * The URLs a sitemap target keeps: distinct, sorted, matching an include pattern (when any is given) and no exclude
 * pattern (exclusion wins), the first `max_urls` (default and most 10,000).
 */
export const selectSitemapUrls = (
  urls: Iterable<string>,
  rules: {
    readonly include?: ReadonlyArray<string> | undefined
    readonly exclude?: ReadonlyArray<string> | undefined
    readonly max_urls?: number | undefined
  }
): ReadonlyArray<string> => {
  const include = matchers(rules.include)
  const exclude = matchers(rules.exclude)
  const hasInclude = (rules.include ?? []).length > 0
  const cap = Math.max(0, Math.min(maxUrlsLimit, Math.floor(rules.max_urls ?? maxUrlsLimit)))
  const sorted = [...new Set(Array.from(urls, (u) => u.trim()).filter((u) => u !== ""))].sort()
  const kept: Array<string> = []
  for (const url of sorted) {
    if (kept.length >= cap) break
    if (hasInclude && !include.some((m) => m(url))) continue
    if (exclude.some((m) => m(url))) continue
    kept.push(url)
  }
  return kept
}

/** A sitemap change (the shape of `ChangeDetection.SitemapChange`). */
export interface SitemapChangeRecord {
  readonly title: string
  readonly summary: string
  readonly added_urls: ReadonlyArray<string>
  readonly removed_urls: ReadonlyArray<string>
  readonly added_url_count: number
  readonly removed_url_count: number
}

const urls = (n: number): string => `${n} URL${n === 1 ? "" : "s"}`

/** Added and removed URLs between two readings, or undefined when they hold the same URLs. */
export const compareSitemaps = (
  before: ReadonlyArray<string>,
  after: ReadonlyArray<string>
): SitemapChangeRecord | undefined => {
  const was = new Set(before)
  const now = new Set(after)
  const added = [...now].filter((u) => !was.has(u)).sort()
  const removed = [...was].filter((u) => !now.has(u)).sort()
  if (added.length === 0 && removed.length === 0) return undefined
  const examples = (list: ReadonlyArray<string>) => list.slice(0, 3).join(", ") + (list.length > 3 ? ", …" : "")
  const parts = [
    ...(added.length > 0 ? [`${urls(added.length)} added (${examples(added)})`] : []),
    ...(removed.length > 0 ? [`${urls(removed.length)} removed (${examples(removed)})`] : [])
  ]
  return {
    title: `Sitemap changed: ${added.length} added, ${removed.length} removed`,
    summary: `${parts.join("; ")}. The sitemap now lists ${urls(now.size)} (was ${was.size}).`,
    added_urls: added.slice(0, listedLimit),
    removed_urls: removed.slice(0, listedLimit),
    added_url_count: added.length,
    removed_url_count: removed.length
  }
}
