/**
 * The `sift` command line: `serve` (the API), `scrape URL`, and the `keys` and `orgs` administration.
 *
 * @since 0.1.0
 */
import { Command } from "@effect/cli"
import { NodeContext } from "@effect/platform-node"
import { Console, Effect } from "effect"
import * as App from "./App.js"
import { direct } from "./internal/admin/direct.js"
import { CliFailure, ExitCode } from "./internal/cli/failure.js"
import { keysCommand } from "./internal/cli/keys.js"
import { mapCommand } from "./internal/cli/map.js"
import { mcpCommand } from "./internal/cli/mcp.js"
import { naicsCommand } from "./internal/cli/naics.js"
import { orgsCommand } from "./internal/cli/orgs.js"
import { scrapeCommand } from "./internal/cli/scrape.js"
import { serveCommand } from "./internal/cli/serve.js"

const sift = Command.make("sift").pipe(
  Command.withDescription(
    "Sift: scrape pages into Markdown, HTML, images and fields. Exit codes: 0 ok, 1 internal error, " +
      "2 invalid input, 3 website error, 4 timeout, 5 unsupported content."
  ),
  Command.withSubcommands([serveCommand(App.application), scrapeCommand, mapCommand, naicsCommand, mcpCommand, keysCommand(direct), orgsCommand(direct)])
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
