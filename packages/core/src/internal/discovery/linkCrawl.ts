/**
 * The bounded same-site link crawl, for sites whose sitemaps are missing or thin: breadth-first from the home page of
 * each live origin, a few pages at a time, only pages robots.txt allows, at most `maxPages` fetches. Every page read
 * also gives its own title, description, keywords and language, so crawled URLs come back enriched.
 *
 * Links are listed whether or not they are crawled (robots rules decide what Sift fetches, not what a site has); only
 * links on a live origin are followed, since only those origins' robots.txt is known.
 */
import { Effect } from "effect"
import { Fetcher } from "../../Fetcher.js"
import { dedupeKey, normalize } from "../../UrlNormal.js"
import type { Collector } from "./collector.js"
import type { LiveOrigin } from "./origins.js"
import { readPage } from "./pageFacts.js"

/** Pages fetched at once by the crawl. */
export const CONCURRENCY = 4

// Page furniture (styles, scripts, images, fonts, media): not part of a map, never listed or fetched.
const assetPattern = /\.(?:css|js|mjs|map|png|jpe?g|gif|webp|avif|svg|ico|bmp|woff2?|ttf|otf|eot|mp[34]|m4a|webm|ogg|wav)$/i
// Documents and archives: listed when linked (they are content), never fetched by the crawl.
const documentPattern = /\.(?:pdf|docx?|xlsx?|pptx?|odt|ods|csv|json|xml|txt|zip|gz|tgz|rar|7z|exe|dmg|avi|mov)$/i

interface CrawlOptions {
  readonly collector: Collector
  readonly origins: ReadonlyArray<LiveOrigin>
  readonly maxPages: number
  readonly headers: Readonly<Record<string, string>> | undefined
}

/** Crawls until the queue is empty, `maxPages` pages were fetched, or `maxLinks` is met. Never fails. */
export const crawl = (options: CrawlOptions): Effect.Effect<void, never, Fetcher> =>
  Effect.gen(function*() {
    const fetcher = yield* Fetcher
    const { collector, headers } = options
    const robotsOf = new Map(options.origins.map((o) => [o.origin, o.robots]))
    const queued = new Set<string>()
    const queue: Array<string> = []
    const enqueue = (url: string) => {
      const key = dedupeKey(url)
      if (queued.has(key) || documentPattern.test(new URL(url).pathname)) return
      const robots = robotsOf.get(new URL(url).origin)
      if (robots === undefined || !robots.allows(url)) return
      queued.add(key)
      queue.push(url)
    }
    for (const origin of options.origins) enqueue(`${origin.origin}/`)

    const visitPage = (url: string) =>
      fetcher.fetch({ url, headers }).pipe(
        Effect.map((response) => {
          collector.meta.pagesCrawled++
          const page = readPage(response)
          if (page === undefined) return
          const { url, ...facts } = page.facts
          collector.add(url, undefined, facts)
          for (const href of page.hrefs) {
            const link = normalize(href, page.base)
            if (link === undefined || assetPattern.test(new URL(link).pathname)) continue
            collector.add(link, undefined)
            enqueue(link)
          }
          collector.report()
        }),
        // A page that fails is one page fewer; the map goes on.
        Effect.catchAll(() => Effect.sync(() => collector.meta.pagesCrawled++))
      )

    let fetched = 0
    while (queue.length > 0 && fetched < options.maxPages && !collector.full) {
      const batch = queue.splice(0, Math.min(CONCURRENCY, options.maxPages - fetched))
      fetched += batch.length
      yield* Effect.forEach(batch, visitPage, { concurrency: CONCURRENCY, discard: true })
    }
  })
