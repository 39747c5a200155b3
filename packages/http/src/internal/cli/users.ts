import { Args, Command, Options } from "@effect/cli"
import { Config, Effect, Option } from "effect"
import type * as Admin from "../../Admin.js"
import { json, print, withOperations } from "./keys.js"

/** The console's origin for the link: SIFT_PUBLIC_URL, else the local server's address. */
const origin = Effect.gen(function*() {
  const publicUrl = yield* Config.option(Config.string("SIFT_PUBLIC_URL"))
  if (Option.isSome(publicUrl) && publicUrl.value !== "") return publicUrl.value.replace(/\/+$/, "")
  const host = yield* Config.string("SIFT_HOST").pipe(Config.withDefault("127.0.0.1"))
  const port = yield* Config.integer("SIFT_PORT").pipe(Config.withDefault(3002))
  const shown = host === "0.0.0.0" || host === "::" ? "127.0.0.1" : host.includes(":") ? `[${host}]` : host
  return `http://${shown}:${port}`
}).pipe(Effect.orElseSucceed(() => "http://127.0.0.1:3002"))

const create = (direct: Admin.Direct) =>
  Command.make("create", {
    email: Args.text({ name: "EMAIL" }).pipe(Args.withDescription("The person's email address (they sign in with it)")),
    org: Options.text("org").pipe(Options.withDescription("The organization (id or name) they join")),
    role: Options.choice("role", ["owner", "member"]).pipe(
      Options.withDefault("owner" as const),
      Options.withDescription("owner: also manages keys and members; member: uses the rest")
    ),
    json
  }, (o) =>
    Effect.flatMap(origin, (base) =>
      withOperations(direct, (operations) => operations.createUser({ email: o.email, org: o.org, role: o.role, origin: base }))).pipe(
        Effect.flatMap((user) =>
          print(o.json, user, () => [
            `Created ${user.email} (${user.role}) in ${user.org.id}  ${user.org.name}`,
            "Next: open this link within 24 hours to choose a password (it works once), then sign in to the console:",
            `  ${user.link}`
          ])
        )
      )).pipe(Command.withDescription("Add a person to an organization for the web console; prints the link to choose a password"))

/** `sift users`: people who sign in to the web console. */
export const usersCommand = (direct: Admin.Direct) =>
  Command.make("users").pipe(
    Command.withDescription("People who sign in to the web console at / (sift users create EMAIL --org ORG)"),
    Command.withSubcommands([create(direct)])
  )
