import { Args, Command, Options } from "@effect/cli"
import * as Fetcher from "@sift/core/Fetcher"
import * as UrlDiscovery from "@sift/core/UrlDiscovery"
import { Console, Effect, Option } from "effect"
import { failure } from "./failure.js"

const domain = Args.text({ name: "DOMAIN" }).pipe(Args.withDescription("The site to map: example.com or a URL on it"))

const search = Options.text("search").pipe(
  Options.optional,
  Options.withDescription("Keep URLs about this phrase (2 to 200 characters), most relevant first")
)
const regex = Options.text("regex").pipe(
  Options.optional,
  Options.withDescription("Keep URLs matching this RE2 pattern (at most 256 characters); counted against --max")
)
const max = Options.integer("max").pipe(
  Options.optional,
  Options.withDescription("At most this many URLs, 1 to 100000 (default 10000)")
)
const subdomains = Options.boolean("subdomains").pipe(Options.withDescription("Include URLs on subdomains"))
const sitemap = Options.text("sitemap").pipe(
  Options.optional,
  Options.withDescription("Read this sitemap (and the sitemaps it lists) instead of discovering")
)
const timeout = Options.integer("timeout").pipe(
  Options.optional,
  Options.withDescription("Deadline in milliseconds, 1 to 300000 (default 60000); URLs found by then are printed")
)
const json = Options.boolean("json").pipe(
  Options.withDescription("Print { domain, urls: [{ url, title?, ... }], meta, partial } as JSON instead of one URL a line")
)

/** The progress line on stderr, rewritten in place while a long map runs (only on a terminal). */
const progressLine = (progress: UrlDiscovery.Progress): void => {
  if (!process.stderr.isTTY) return
  const crawl = progress.pagesCrawled > 0 ? `, ${progress.pagesCrawled} pages crawled` : ""
  process.stderr.write(
    `\r${progress.urls} URLs, ${progress.sitemapsFetched}/${progress.sitemapsDiscovered} sitemaps read${crawl}\x1b[K`
  )
}

/** `sift map DOMAIN`: lists a site's URLs from its sitemaps, feeds and links. */
export const mapCommand = Command.make(
  "map",
  { domain, search, regex, max, subdomains, sitemap, timeout, json },
  (options) =>
    Effect.gen(function*() {
      const result = yield* Effect.tryPromise({
        try: () =>
          UrlDiscovery.mapUrls({
            domain: options.domain,
            includeSubdomains: options.subdomains,
            search: Option.getOrUndefined(options.search),
            urlRegex: Option.getOrUndefined(options.regex),
            maxLinks: Option.getOrUndefined(options.max),
            sitemapUrl: Option.getOrUndefined(options.sitemap),
            timeout: Option.isSome(options.timeout)
              ? { milliseconds: options.timeout.value, behavior: "return-partial" }
              : undefined,
            onProgress: progressLine
          }, Fetcher.layerConfig),
        catch: failure
      }).pipe(Effect.ensuring(Effect.sync(() => process.stderr.isTTY && process.stderr.write("\r\x1b[K"))))
      if (options.json) {
        yield* Console.log(JSON.stringify(result, null, 2))
        return
      }
      if (result.urls.length > 0) yield* Console.log(result.urls.map((u) => u.url).join("\n"))
      const { meta } = result
      for (const line of meta.errors) yield* Console.error(`warning: ${line}`)
      yield* Console.error(
        `${result.urls.length} URLs${result.partial ? " (partial: the deadline passed)" : ""}; sitemaps: ` +
          `${meta.sitemapsDiscovered} discovered, ${meta.sitemapsFetched} read, ${meta.sitemapsSkipped} skipped` +
          (meta.pagesCrawled > 0 ? `; ${meta.pagesCrawled} pages crawled` : "")
      )
    })
).pipe(Command.withDescription(
  "Map a site's URLs from robots.txt, sitemaps (indexes, gzip, text), RSS/Atom feeds and, when those are thin, a " +
    "crawl of its links. Prints one URL a line (or JSON with --json); progress and a summary go to stderr. " +
    "Private and loopback addresses are refused unless SIFT_ALLOW_PRIVATE_TARGETS=true."
))
