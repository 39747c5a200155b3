/** The `sift keys`/`sift orgs` commands over the stand-in operations, run as a process by the tests. */
import { Command } from "@effect/cli"
import { NodeContext } from "@effect/platform-node"
import { Console, Effect } from "effect"
import { CliFailure } from "../../../src/internal/cli/failure.js"
import { keysCommand } from "../../../src/internal/cli/keys.js"
import { orgsCommand } from "../../../src/internal/cli/orgs.js"
import { direct } from "./standInAdmin.js"

const sift = Command.make("sift").pipe(Command.withSubcommands([keysCommand(direct), orgsCommand(direct)]))

Effect.runPromise(
  Command.run(sift, { name: "sift", version: "0.1.0" })(process.argv).pipe(
    Effect.as(0),
    Effect.catchAll((error) =>
      error instanceof CliFailure
        ? Effect.as(Console.error(`error: ${error.errorCode}: ${error.message}`), error.exitCode)
        : Effect.succeed(2)
    ),
    Effect.provide(NodeContext.layer)
  )
).then((code) => {
  process.exitCode = code
})
