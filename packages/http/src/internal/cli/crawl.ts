/**
 * `sift crawl URL`: crawls a site with the core crawler in this process (no server needed) and writes each page as
 * NDJSON on stdout, or as Markdown/HTML files in a folder tree mirroring the site with an index. A progress bar on a
 * terminal (cli-progress), plain progress lines otherwise; both on stderr, so stdout stays data.
 */
import { Args, Command, Options } from "@effect/cli"
import { Cache, Crawler, Fetcher, type ScrapeRequest } from "@sift/core"
import cliProgress from "cli-progress"
import { Console, Effect, Layer, Option, Stream } from "effect"
import { mkdirSync, writeFileSync } from "node:fs"
import { dirname, join, relative, resolve, sep } from "node:path"
import { type Api, apiOf, apiOptions, call } from "./batch.js"
import { CliFailure, ExitCode, failure } from "./failure.js"

const url = Args.text({ name: "URL" }).pipe(Args.withDescription("Where the crawl starts (always read); http:// or https://"))
const maxPages = Options.integer("max-pages").pipe(
  Options.withDefault(50),
  Options.withDescription("Pages read at most (default 50)")
)
const depth = Options.integer("depth").pipe(
  Options.optional,
  Options.withDescription("Links followed from the start page (default 3; 0: the start page alone)")
)
const regex = Options.text("regex").pipe(
  Options.optional,
  Options.withDescription("Read only URLs matching this RE2 pattern (at most 256 characters); the start URL is always read")
)
const subdomains = Options.boolean("subdomains").pipe(Options.withDescription("Follow links to subdomains (www and apex are always one site)"))
const format = Options.choice("format", ["markdown", "html"]).pipe(
  Options.withDefault("markdown" as const),
  Options.withDescription("What each page becomes (default markdown)")
)
const mainContent = Options.boolean("main-content").pipe(Options.withDescription("Keep only each page's main content"))
const out = Options.directory("out").pipe(
  Options.optional,
  Options.withDescription("Write one file per page in a folder tree mirroring the site, and index.md, into this directory (instead of NDJSON on stdout)")
)
const concurrency = Options.integer("concurrency").pipe(
  Options.withDefault(4),
  Options.withDescription("Pages read at once (default 4; at most 2 of one host)")
)

/** Where a page's file goes under `root`: the URL's host and path, `index` for a directory, the query kept safely. */
export const fileFor = (root: string, pageUrl: string, extension: string): string => {
  const parsed = new URL(pageUrl)
  const host = parsed.host.replace(/[^A-Za-z0-9.-]/g, "_")
  const clean = (segment: string) => {
    const decoded = (() => {
      try {
        return decodeURIComponent(segment)
      } catch {
        return segment
      }
    })()
    // No separators, no dot-only names, nothing a file system refuses; long names cut.
    const safe = decoded.replace(/[\u0000-\u001f<>:"/\\|?*]/g, "_").replace(/^\.+$/, "_").slice(0, 120)
    return safe === "" ? "_" : safe
  }
  const segments = parsed.pathname.split("/").slice(1)
  const last = segments.pop() ?? ""
  const query = parsed.search === "" ? "" : `__${clean(parsed.search.slice(1)).slice(0, 60)}`
  const name = (last === "" ? "index" : clean(last).replace(/\.(html?|php|aspx?)$/i, "")) + query + extension
  const path = resolve(root, host, ...segments.filter((s) => s !== "").map(clean), name)
  // Never outside the root, whatever the URL held.
  if (!path.startsWith(resolve(root) + sep)) return resolve(root, host, `page${query}${extension}`)
  return path
}

interface Written {
  readonly url: string
  readonly title: string
  readonly file: string | undefined
  readonly error: string | undefined
}

/** The progress display: a bar on a terminal, a line every 2 seconds otherwise. */
const progressDisplay = () => {
  if (process.stderr.isTTY) {
    const bar = new cliProgress.SingleBar({
      stream: process.stderr,
      format: "{bar} {value}/{total} pages | {failed} failed | {pending} pending | {speed}/s | ETA {eta_formatted}",
      hideCursor: true,
      clearOnComplete: true
    }, cliProgress.Presets.shades_classic)
    const started = Date.now()
    bar.start(1, 0, { failed: 0, pending: 1, speed: "0.0" })
    return {
      update: (p: Crawler.CrawlProgress) => {
        const done = p.succeeded + p.failed + p.skipped
        bar.setTotal(done + p.pending)
        bar.update(done, { failed: p.failed, pending: p.pending, speed: (done / Math.max(0.001, (Date.now() - started) / 1000)).toFixed(1) })
      },
      stop: () => bar.stop()
    }
  }
  let last = 0
  return {
    update: (p: Crawler.CrawlProgress) => {
      if (Date.now() - last < 2_000) return
      last = Date.now()
      process.stderr.write(`${p.succeeded} read, ${p.failed} failed, ${p.skipped} skipped, ${p.pending} pending\n`)
    },
    stop: () => {}
  }
}

/** What `POST /v1/web/crawl` answers per page, as far as the CLI reads it. */
interface RemotePage {
  readonly markdown: string
  readonly metadata: { readonly url: string; readonly finalUrl: string; readonly crawlDepth: number; readonly success: boolean; readonly statusCode: number; readonly title: string }
}

/** `sift crawl URL --api`: the server crawls (POST /v1/web/crawl, credits charged there); pages written as embedded. */
const remoteCrawl = (
  api: Api,
  options: {
    readonly url: string
    readonly maxPages: number
    readonly depth: Option.Option<number>
    readonly regex: Option.Option<string>
    readonly subdomains: boolean
    readonly format: "markdown" | "html"
    readonly mainContent: boolean
    readonly out: Option.Option<string>
  }
) =>
  Effect.gen(function*() {
    if (options.format !== "markdown") {
      return yield* new CliFailure({ errorCode: "INPUT_VALIDATION_ERROR", message: "--format: a server's crawl (POST /web/crawl) returns Markdown only", exitCode: ExitCode.invalid })
    }
    if (process.stderr.isTTY) process.stderr.write(`crawling ${options.url} on ${api.root} ...\n`)
    const answer = yield* call(api, "POST", "/web/crawl", {
      body: {
        url: options.url,
        maxPages: options.maxPages,
        ...(Option.isSome(options.depth) ? { maxDepth: options.depth.value } : {}),
        ...(Option.isSome(options.regex) ? { urlRegex: options.regex.value } : {}),
        ...(options.subdomains ? { followSubdomains: true } : {}),
        ...(options.mainContent ? { useMainContentOnly: true } : {})
      }
    })
    const root = Option.getOrUndefined(options.out)
    const written: Array<Written> = []
    for (const page of answer.results as ReadonlyArray<RemotePage>) {
      const m = page.metadata
      if (root === undefined) {
        const line = m.success
          ? { url: m.url, depth: m.crawlDepth, status: "ok", final_url: m.finalUrl, title: m.title, markdown: page.markdown }
          : { url: m.url, depth: m.crawlDepth, status: "error", status_code: m.statusCode }
        process.stdout.write(JSON.stringify(line) + "\n")
      } else if (m.success) {
        const file = fileFor(root, m.finalUrl, ".md")
        mkdirSync(dirname(file), { recursive: true })
        writeFileSync(file, page.markdown)
        written.push({ url: m.url, title: m.title, file, error: undefined })
      } else {
        written.push({ url: m.url, title: "", file: undefined, error: `HTTP ${m.statusCode}` })
      }
    }
    if (root !== undefined) writeIndex(root, options.url, written)
    const meta = answer.metadata
    yield* Console.error(
      `${meta.numSucceeded} pages read, ${meta.numFailed} failed, ${meta.numSkipped} skipped${answer.partial === true ? " (partial)" : ""}; ` +
        `${answer.key_metadata?.credits_consumed ?? "?"} credits${root === undefined ? "" : `; files in ${root}`}`
    )
  })

/** Writes `index.md` of a crawl written to `root`: a link per page read, a line per page that failed. */
const writeIndex = (root: string, start: string, written: ReadonlyArray<Written>) => {
  const lines = written.map((w) =>
    w.file === undefined
      ? `- ${w.url} — failed (${w.error})`
      : `- [${(w.title || w.url).replace(/[[\]]/g, "\\$&")}](${relative(root, w.file).split(sep).map(encodeURIComponent).join("/")}) — ${w.url}`
  )
  mkdirSync(root, { recursive: true })
  writeFileSync(join(root, "index.md"), `# Crawl of ${start}\n\n${lines.join("\n")}\n`)
}

/** `sift crawl URL`. */
export const crawlCommand = Command.make(
  "crawl",
  { url, maxPages, depth, regex, subdomains, format, mainContent, out, concurrency, ...apiOptions },
  (options) =>
    Effect.gen(function*() {
      const api = yield* apiOf(options)
      if (api !== undefined) return yield* remoteCrawl(api, options)
      const page: Omit<ScrapeRequest.ScrapeRequestInput, "url"> = {
        formats: options.format === "html" ? { html: true } : { markdown: true },
        ...(options.mainContent ? { sharedParams: { mainContentOnly: true } } : {})
      }
      const root = Option.getOrUndefined(options.out)
      const extension = options.format === "html" ? ".html" : ".md"
      const progress = progressDisplay()
      const written: Array<Written> = []
      const crawl = Crawler.crawl({
        url: options.url,
        maxPages: options.maxPages,
        maxDepth: Option.getOrUndefined(options.depth),
        urlRegex: Option.getOrUndefined(options.regex),
        urlRegexField: "--regex",
        followSubdomains: options.subdomains,
        concurrency: options.concurrency,
        page,
        onProgress: progress.update
      })
      const summary = yield* Stream.runFold(crawl, { read: 0, failed: 0, skipped: 0 }, (counts, crawled) => {
        const outcome = crawled.outcome
        if (outcome._tag === "Skipped") return { ...counts, skipped: counts.skipped + 1 }
        const body = outcome._tag === "Scraped" ? (options.format === "html" ? outcome.result.html.data : outcome.result.markdown.data) ?? "" : ""
        const title = outcome._tag === "Scraped" ? outcome.result.metadata.title ?? "" : ""
        if (root === undefined) {
          const line = outcome._tag === "Scraped"
            ? { url: crawled.url, depth: crawled.depth, status: "ok", final_url: outcome.result.url, title, [options.format]: body }
            : { url: crawled.url, depth: crawled.depth, status: "error", error_code: outcome.error.errorCode, message: outcome.error.message }
          process.stdout.write(JSON.stringify(line) + "\n")
        } else if (outcome._tag === "Scraped") {
          const file = fileFor(root, outcome.result.url, extension)
          mkdirSync(dirname(file), { recursive: true })
          writeFileSync(file, body)
          written.push({ url: crawled.url, title, file, error: undefined })
        } else {
          written.push({ url: crawled.url, title: "", file: undefined, error: `${outcome.error.errorCode}: ${outcome.error.message}` })
        }
        return outcome._tag === "Scraped" ? { ...counts, read: counts.read + 1 } : { ...counts, failed: counts.failed + 1 }
      }).pipe(
        Effect.provide(Layer.merge(Fetcher.layerConfig, Cache.layerMemory())),
        Effect.mapError(failure),
        Effect.ensuring(Effect.sync(progress.stop))
      )
      if (root !== undefined) writeIndex(root, options.url, written)
      yield* Console.error(`${summary.read} pages read, ${summary.failed} failed, ${summary.skipped} skipped${root === undefined ? "" : `; files in ${root}`}`)
    })
).pipe(Command.withDescription(
  "Crawl a site from URL in this process: breadth first, on the start URL's site (www and apex alike), robots.txt and " +
    "Crawl-delay honoured, at most 2 fetches of one host at a time. Writes one JSON line per page on stdout " +
    "({ url, depth, status, title, markdown|html } or { url, status: error, error_code, message }), or with --out one " +
    "file per page and index.md. Progress on stderr. Private and loopback addresses are refused unless " +
    "SIFT_ALLOW_PRIVATE_TARGETS=true. With --api URL --key KEY (or SIFT_API_URL and SIFT_API_KEY) the server crawls " +
    "instead (POST /v1/web/crawl: Markdown, at most 500 pages, 1 credit per page read)."
))
