import { Args, Command, Options } from "@effect/cli"
import { Scraper, ScrapeRequest } from "@sift/core"
import { Console, Effect, Option } from "effect"
import { failure } from "./failure.js"

const url = Args.text({ name: "URL" }).pipe(Args.withDescription("The page to scrape (http:// or https://)"))

const format = Options.choice("format", ["markdown", "html", "json"]).pipe(
  Options.withAlias("f"),
  Options.withDefault("markdown"),
  Options.withDescription("What to print: the Markdown, the cleaned HTML, or the whole scrape result as JSON")
)
const mainContent = Options.boolean("main-content").pipe(
  Options.withDescription("Keep only the main content: drop navigation, headers, footers, sidebars, ads, comments")
)
const include = Options.text("include").pipe(
  Options.repeated,
  Options.withDescription("CSS selector of content to keep (repeatable; only matching subtrees are kept)")
)
const exclude = Options.text("exclude").pipe(
  Options.repeated,
  Options.withDescription("CSS selector of content to drop (repeatable; applied after --include, exclusion wins)")
)
const timeout = Options.integer("timeout").pipe(
  Options.optional,
  Options.withDescription("Total deadline in milliseconds, 1 to 300000 (default 60000)")
)
const noLinks = Options.boolean("no-links").pipe(Options.withDescription("Markdown: keep link text, drop link targets"))
const images = Options.boolean("images").pipe(Options.withDescription("Markdown: include images"))
const header = Options.keyValueMap("header").pipe(
  Options.optional,
  Options.withDescription("Header to forward to the target, as Name=value (repeatable)")
)

/** `sift scrape URL`: scrapes one page with the library and prints it. */
export const scrapeCommand = Command.make(
  "scrape",
  { url, format, mainContent, include, exclude, timeout, noLinks, images, header },
  (options) =>
    Effect.gen(function*() {
      const headers = Option.getOrUndefined(options.header)
      const request: ScrapeRequest.ScrapeRequestInput = {
        url: options.url,
        formats: options.format === "json"
          ? { markdown: true, html: true, images: true }
          : options.format === "html"
          ? { html: true }
          : { markdown: true },
        sharedParams: {
          ...(options.mainContent ? { mainContentOnly: true } : {}),
          ...(options.include.length > 0 ? { includeSelectors: options.include } : {}),
          ...(options.exclude.length > 0 ? { excludeSelectors: options.exclude } : {}),
          ...(headers === undefined ? {} : { headers: Object.fromEntries(headers) })
        },
        ...(options.format !== "html" ? { markdownParams: { includeLinks: !options.noLinks, includeImages: options.images } } : {}),
        ...(Option.isSome(options.timeout) ? { timeoutOpts: { milliseconds: options.timeout.value } } : {})
      }
      const scraper = Scraper.make({ cache: "none" })
      const result = yield* Effect.tryPromise({
        try: () => scraper.scrape(request),
        catch: failure
      }).pipe(Effect.ensuring(Effect.promise(() => scraper.close())))
      const text = options.format === "json"
        ? JSON.stringify(result, null, 2)
        : options.format === "html"
        ? result.html.data ?? ""
        : result.markdown.data ?? ""
      yield* Console.log(text.endsWith("\n") ? text.slice(0, -1) : text)
    })
).pipe(Command.withDescription(
  "Scrape one page and print it as Markdown (default), cleaned HTML, or the full result as JSON. " +
    "Private and loopback addresses are refused unless SIFT_ALLOW_PRIVATE_TARGETS=true."
))


