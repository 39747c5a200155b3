import { Args, Command, Options } from "@effect/cli"
import * as NaicsClassification from "@sift/core/NaicsClassification"
import { Console, Effect, Option } from "effect"
import { failure } from "./failure.js"

const input = Args.text({ name: "INPUT" }).pipe(
  Args.withDescription("A company's domain, URL or name (names need SIFT_SEARXNG_URL)")
)
const max = Options.integer("max").pipe(Options.withDefault(5), Options.withDescription("Most codes to print, 1 to 10"))
const min = Options.integer("min").pipe(Options.withDefault(1), Options.withDescription("Fewest codes to print, 1 to 10"))
const timeout = Options.integer("timeout").pipe(
  Options.optional,
  Options.withDescription("Total deadline in milliseconds (default 30000)")
)
const partial = Options.boolean("partial").pipe(
  Options.withDescription("On timeout, print codes from the pages read so far instead of failing")
)
const json = Options.boolean("json").pipe(Options.withDescription("Print the GET /web/naics body as JSON"))

/** `sift naics INPUT`: classifies a company into NAICS 2022 codes and prints them. */
export const naicsCommand = Command.make("naics", { input, max, min, timeout, partial, json }, (options) =>
  Effect.gen(function*() {
    const client = NaicsClassification.makeClient()
    const result = yield* Effect.tryPromise({
      try: () =>
        client.classifyNaics(options.input, {
          minResults: options.min,
          maxResults: options.max,
          ...(Option.isSome(options.timeout) ? { timeoutMs: options.timeout.value } : {}),
          ...(options.partial ? { timeoutBehavior: "return-partial" as const } : {})
        }),
      catch: failure
    }).pipe(Effect.ensuring(Effect.promise(() => client.close())))
    if (options.json) return yield* Console.log(JSON.stringify(result, null, 2))
    yield* Console.log(`${result.domain}${result.partial === true ? " (partial)" : ""}`)
    for (const code of result.codes) yield* Console.log(`${code.code}  ${code.confidence.padEnd(6)}  ${code.name}`)
  })).pipe(Command.withDescription(
    "Classify a company (domain, URL or name) into ranked NAICS 2022 codes with confidence high, medium or low."
  ))
