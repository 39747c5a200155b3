/**
 * The `sift` command line: `sift scrape URL` today; `serve`, `keys`, `map` and more join as they land.
 *
 * @since 0.1.0
 */
import { Command } from "@effect/cli"
import { NodeContext } from "@effect/platform-node"
import { Console, Effect } from "effect"
import { CliFailure, ExitCode } from "./internal/cli/failure.js"
import { scrapeCommand } from "./internal/cli/scrape.js"

const sift = Command.make("sift").pipe(
  Command.withDescription(
    "Sift: scrape pages into Markdown, HTML, images and fields. Exit codes: 0 ok, 1 internal error, " +
      "2 invalid input, 3 website error, 4 timeout, 5 unsupported content."
  ),
  Command.withSubcommands([scrapeCommand])
)

const cli = Command.run(sift, { name: "sift", version: "0.1.0" })

/** Runs the CLI on `argv` (as `process.argv`) and resolves to the process exit code. */
export const run = (argv: ReadonlyArray<string>): Effect.Effect<number> =>
  cli(argv).pipe(
    Effect.as(0),
    Effect.catchAll((error) =>
      error instanceof CliFailure
        ? Effect.as(Console.error(`error: ${error.errorCode}: ${error.message}`), error.exitCode)
        // @effect/cli has already printed what was wrong with the command line.
        : Effect.succeed(ExitCode.invalid)
    ),
    Effect.catchAllDefect((defect) => Effect.as(Console.error(`error: INTERNAL_ERROR: ${String(defect)}`), ExitCode.internal)),
    Effect.provide(NodeContext.layer)
  )
