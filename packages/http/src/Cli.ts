/**
 * The `sift` command line: `serve` (the API), `scrape URL`, and the `keys` and `orgs` administration.
 *
 * @since 0.1.0
 */
import { BuiltInOptions, CliConfig, Command, CommandDescriptor, HelpDoc, Usage, ValidationError } from "@effect/cli"
import * as Span from "@effect/cli/HelpDoc/Span"
import * as NodeContext from "@effect/platform-node/NodeContext"
import { Console, Effect, HashMap, HashSet } from "effect"
import * as App from "./App.js"
import { direct } from "./internal/admin/direct.js"
import { batchCommand } from "./internal/cli/batch.js"
import { crawlCommand } from "./internal/cli/crawl.js"
import { CliFailure, ExitCode } from "./internal/cli/failure.js"
import { keysCommand } from "./internal/cli/keys.js"
import { mapCommand } from "./internal/cli/map.js"
import { mcpCommand } from "./internal/cli/mcp.js"
import { brandCommand } from "./internal/cli/brand.js"
import { naicsCommand } from "./internal/cli/naics.js"
import { searchCommand } from "./internal/cli/search.js"
import { orgsCommand } from "./internal/cli/orgs.js"
import { scrapeCommand } from "./internal/cli/scrape.js"
import { usersCommand } from "./internal/cli/users.js"
import { serveCommand } from "./internal/cli/serve.js"
import { fontsCommand, styleguideCommand } from "./internal/cli/styleguide.js"
import * as HelpText from "./internal/helpText.js"

const NAME = "sift"
const VERSION = "0.1.0"
const config = CliConfig.defaultConfig

const commands = [serveCommand(App.application), scrapeCommand, crawlCommand, batchCommand(App.migrations), mapCommand, naicsCommand, searchCommand, brandCommand, styleguideCommand, fontsCommand, mcpCommand, keysCommand(direct), orgsCommand(direct), usersCommand(direct)] as const

const sift = Command.make(NAME).pipe(
  Command.withDescription(
    "Sift: scrape pages into Markdown, HTML, images and fields. Exit codes: 0 ok, 1 internal error, " +
      "2 invalid input, 3 website error, 4 timeout, 5 unsupported content."
  ),
  Command.withSubcommands(commands)
)

// Each top-level command's names and the subcommands one level below it (a plain command's only "subcommand" is itself).
const tree = commands.map((command) => {
  const descriptor = command.descriptor as CommandDescriptor.Command<unknown>
  return { names: CommandDescriptor.getNames(descriptor), children: CommandDescriptor.getSubcommands(descriptor) }
})

/** The subcommand names `args` walks down (`["keys", "create"]` for `sift keys create --json -h`). */
const commandPath = (args: ReadonlyArray<string>): ReadonlyArray<string> => {
  const first = args.findIndex((arg) => tree.some((command) => HashSet.has(command.names, arg)))
  if (first === -1) return []
  const name = args[first]!
  const { children } = tree.find((command) => HashSet.has(command.names, name))!
  const second = args.slice(first + 1).find((arg) => arg !== name && HashMap.has(children, arg))
  return second === undefined ? [name] : [name, second]
}

/** A command's help page as @effect/cli lays it out (name, version, usage, the command's help), usage spelled in full. */
const helpPage = (path: ReadonlyArray<string>, usage: Usage.Usage, help: HelpDoc.HelpDoc): HelpDoc.HelpDoc => {
  // @effect/cli starts a subcommand's usage at its own name ("$ create ..."); the reader types "sift keys create".
  const prefix = [NAME, ...path.slice(0, -1)].join(" ")
  const usages = Usage.enumerate(usage, config).map((span) =>
    HelpDoc.p(Span.spans([Span.text(path.length === 0 ? "$ " : `$ ${prefix} `), span]))
  )
  return HelpDoc.blocks([HelpDoc.h1(NAME), HelpDoc.p(`${NAME} ${VERSION}`), HelpDoc.h1("USAGE"), ...usages, help])
}

/** Help on stdout, laid out for it: colour only on a terminal without NO_COLOR, wrapped to its width (100 piped). */
const printHelp = (page: HelpDoc.HelpDoc) =>
  Effect.suspend(() => Console.log(HelpText.render(page, HelpText.layoutFor(process.stdout, process.env))))

/** What was wrong with a command line, on stderr, laid out for it. */
const printMistake = (mistake: HelpDoc.HelpDoc) =>
  Effect.suspend(() => Console.error(HelpText.render(mistake, HelpText.layoutFor(process.stderr, process.env))))

/** The CLI for one command line: a command group run bare (`sift keys`) prints its help through `printHelp`. */
const cliFor = (path: ReadonlyArray<string>) =>
  Command.run(
    Command.transformHandler(sift, (handler) =>
      Effect.catchAll(handler as Effect.Effect<void, unknown, Effect.Effect.Context<typeof handler>>, (error) =>
        ValidationError.isValidationError(error) && ValidationError.isHelpRequested(error)
          ? printHelp(helpPage(path, CommandDescriptor.getUsage(error.command), CommandDescriptor.getHelp(error.command, config)))
          : Effect.fail(error))),
    { name: NAME, version: VERSION }
  )

/**
 * The command line read once here, so help and mistakes are printed by `HelpText` (@effect/cli would write them with
 * ANSI codes and unwrapped); anything else (running a command, --version, --completions, --wizard) goes to @effect/cli.
 */
const dispatch = (argv: ReadonlyArray<string>) => {
  const args = argv.slice(2)
  const path = commandPath(args)
  return Effect.flatMap(Effect.either(CommandDescriptor.parse(sift.descriptor, [NAME, ...args], config)), (parsed) => {
    if (parsed._tag === "Left") return Effect.zipRight(printMistake(parsed.left.error), Effect.fail(parsed.left))
    const directive = parsed.right
    if (directive._tag === "BuiltIn" && BuiltInOptions.isShowHelp(directive.option)) {
      return printHelp(helpPage(path, directive.option.usage, directive.option.helpDoc))
    }
    return cliFor(path)(argv)
  })
}

/** Runs the CLI on `argv` (as `process.argv`) and resolves to the process exit code. */
export const run = (argv: ReadonlyArray<string>): Effect.Effect<number> =>
  dispatch(argv).pipe(
    Effect.as(0),
    Effect.catchAll((error) =>
      error instanceof CliFailure
        ? Effect.as(Console.error(`error: ${error.errorCode}: ${error.message}`), error.exitCode)
        // What was wrong with the command line has already been printed.
        : Effect.succeed(ExitCode.invalid)
    ),
    Effect.catchAllDefect((defect) => Effect.as(Console.error(`error: INTERNAL_ERROR: ${String(defect)}`), ExitCode.internal)),
    Effect.provide(NodeContext.layer)
  )
