import { Args, Command, Options } from "@effect/cli"
import * as SearchProvider from "@sift/core/SearchProvider"
import { Console, Effect, Layer, Option } from "effect"
import { relevanceTiers } from "../../Search/Http.js"
import { CliFailure, ExitCode } from "./failure.js"

const query = Args.text({ name: "QUERY" }).pipe(
  Args.withDescription("What to search for: words, quoted phrases, site:/-site: (needs SIFT_SEARXNG_URL)")
)
const num = Options.integer("num").pipe(Options.withDefault(10), Options.withDescription("Results to print, 1 to 100"))
const include = Options.text("include").pipe(Options.repeated, Options.withDescription("Only results from this domain (repeatable)"))
const exclude = Options.text("exclude").pipe(Options.repeated, Options.withDescription("No results from this domain (repeatable)"))
const freshness = Options.choice("freshness", ["last_24_hours", "last_week", "last_month", "last_year"]).pipe(
  Options.optional,
  Options.withDescription("Only results this recent")
)
const timeout = Options.integer("timeout").pipe(Options.withDefault(30_000), Options.withDescription("Deadline in milliseconds"))
const json = Options.boolean("json").pipe(Options.withDescription("Print { query, results: [{ url, title, description, relevance }] } as JSON"))

/** `sift search QUERY`: searches the web through the SearXNG instance at `SIFT_SEARXNG_URL` and prints the results. */
export const searchCommand = Command.make("search", { query, num, include, exclude, freshness, timeout, json }, (options) =>
  Effect.gen(function*() {
    if (options.num < 1 || options.num > 100) {
      return yield* new CliFailure({ errorCode: "INPUT_VALIDATION_ERROR", message: "--num must be from 1 to 100", exitCode: ExitCode.invalid })
    }
    const engine = yield* SearchProvider.SearchProvider
    const hits = yield* engine.search({
      query: options.query,
      numResults: options.num,
      includeDomains: options.include,
      excludeDomains: options.exclude,
      freshness: Option.getOrUndefined(options.freshness),
      timeoutMs: options.timeout
    }).pipe(Effect.mapError((error) =>
      new CliFailure({ errorCode: error.errorCode, message: error.message, exitCode: error.reason === "Unavailable" ? ExitCode.invalid : ExitCode.website })))
    const tiers = relevanceTiers(options.query, hits)
    const results = hits.map((hit, i) => ({ url: hit.url, title: hit.title, description: hit.description, relevance: tiers[i]! }))
    if (options.json) return yield* Console.log(JSON.stringify({ query: options.query, results }, null, 2))
    for (const result of results) yield* Console.log(`${result.relevance.padEnd(6)}  ${result.url}  ${result.title}`)
  }).pipe(Effect.provide(Layer.orDie(SearchProvider.layerConfig)))).pipe(
  Command.withDescription("Search the web through SearXNG (SIFT_SEARXNG_URL) and print each result's relevance (high, medium, low), URL and title.")
)
