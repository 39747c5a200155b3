import { Args, Command, Options } from "@effect/cli"
import { Sql } from "@sift/store"
import { Config, Console, Effect, Option, Redacted } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import * as Admin from "../../Admin.js"
import * as Server from "../../Server.js"
import { plans } from "../../ServiceConfig.js"
import { CliFailure, ExitCode } from "./failure.js"

/**
 * What a command does to the store: `read` commands (list, revoke, update) need an existing database and refuse to
 * create one; `create` commands (keys create, orgs create) may create it and then say where.
 */
export type Access = "read" | "create"

/** Whether `dir` holds an embedded database (PGlite writes `PG_VERSION` when it initializes its files). */
const hasDatabase = (dir: string) => fs.existsSync(path.join(dir, Sql.pgdataDir, "PG_VERSION"))

/** Where the data directory came from: the CLI resolves it against its own current directory. */
const source = "SIFT_DATA_DIR, default ./.sift in the current directory"

/** A read command found no database in the data directory it would use. */
const noDatabase = (dir: string) =>
  new CliFailure({
    errorCode: "DATA_DIR_NOT_FOUND",
    message: `no Sift database in ${path.resolve(dir)} (${source}); run this where the server runs (where you ran ` +
      `npm start or sift serve), or set SIFT_DATA_DIR to the server's data directory (DATABASE_URL for PostgreSQL). ` +
      `Nothing was created.`,
    exitCode: ExitCode.invalid
  })

/**
 * Runs `use` against the operations: through the admin channel of a server that owns the data directory, else on the
 * database directly (always directly on PostgreSQL). On the embedded database, a `read` command fails when the data
 * directory holds no database (it would otherwise create an empty one and answer from it); a `create` command that
 * creates the database says so on stderr, naming the directory.
 */
export const withOperations = <A>(
  direct: Admin.Direct,
  use: (operations: Admin.Operations) => Effect.Effect<A, Admin.AdminError>,
  access: Access = "read"
): Effect.Effect<A, CliFailure> =>
  Effect.gen(function*() {
    const databaseUrl = yield* Config.option(Config.redacted("DATABASE_URL"))
    const postgres = Option.isSome(databaseUrl) && Redacted.value(databaseUrl.value) !== ""
    let createdDir: string | undefined
    if (!postgres) {
      const dataDir = yield* Config.string("SIFT_DATA_DIR").pipe(Config.withDefault("./.sift"))
      const endpoint = yield* Admin.locate(dataDir)
      if (Option.isSome(endpoint)) return yield* use(Admin.client(endpoint.value))
      if (!hasDatabase(dataDir)) {
        if (access === "read") return yield* noDatabase(dataDir)
        createdDir = dataDir
      }
    }
    const result = yield* Effect.flatMap(Admin.AdminOperations, use).pipe(
      Effect.provide(direct.layer),
      Effect.provide(Server.layerDatabase(direct.migrations, "cli"))
    )
    if (createdDir !== undefined) {
      yield* Console.error(
        `note: created a new Sift database in ${path.resolve(createdDir)} (${source}). A server sees it only when it ` +
          `runs on that directory: start it in ${process.cwd()}, or with SIFT_DATA_DIR=${path.resolve(createdDir)}.`
      )
    }
    return result
  }).pipe(
    Effect.scoped,
    Effect.mapError((error) =>
      error instanceof CliFailure
        ? error
        : error instanceof Admin.AdminError
        ? new CliFailure({ errorCode: error.code, message: error.message, exitCode: ExitCode.invalid })
        : new CliFailure({
          errorCode: "INTERNAL_ERROR",
          message: typeof error === "object" && error !== null && "message" in error ? String(error.message) : String(error),
          exitCode: ExitCode.internal
        })
    )
  )

/** `--json`: machine-readable output. */
export const json = Options.boolean("json").pipe(Options.withDescription("Print JSON instead of text"))

/** `--plan`, optional. */
export const plan = Options.choice("plan", plans).pipe(Options.optional, Options.withDescription("Plan of the organization"))

/** Prints `value` as JSON, or the text lines. */
export const print = (asJson: boolean, value: unknown, text: () => ReadonlyArray<string>) =>
  Console.log(asJson ? JSON.stringify(value, null, 2) : text().join("\n"))

const describeKey = (key: Admin.KeyView) =>
  `${key.id}  ${key.name}  org ${key.org_id}  permissions ${key.permissions === null ? "all" : key.permissions.join(",")}` +
  (key.revoked_at === null ? "" : `  revoked ${key.revoked_at}`)

const orgOption = Options.text("org").pipe(Options.optional)

const create = (direct: Admin.Direct) =>
  Command.make("create", {
    name: Options.text("name").pipe(Options.withDescription("A name for the key")),
    org: orgOption.pipe(Options.withDescription(
      "Organization id or name; a new name creates it (omitted: a new organization named after the key)"
    )),
    plan,
    permissions: Options.text("permissions").pipe(
      Options.optional,
      Options.withDescription("Comma-separated permissions (logs:read, data:execute, monitors:read, monitors:write, " +
        "batches:read, batches:write, webdbs:read, webdbs:write); omitted: all")
    ),
    zdr: Options.boolean("zdr").pipe(Options.withDescription("Enable zero data retention on a new organization")),
    json
  }, (o) =>
    withOperations(direct, (operations) =>
      operations.createKey({
        name: o.name,
        org: Option.getOrUndefined(o.org),
        plan: Option.getOrUndefined(o.plan),
        permissions: Option.getOrUndefined(
          Option.map(o.permissions, (p) => p.split(",").map((s) => s.trim()).filter((s) => s !== ""))
        ),
        zdr: o.zdr || undefined
      }), "create").pipe(Effect.flatMap((created) =>
        print(o.json, created, () => [
          `Created key ${created.key.id} ("${created.key.name}") in ${created.org_created ? "new " : ""}organization ` +
          `${created.org.id} (${created.org.name}, plan ${created.org.plan}${created.org.zdr ? ", ZDR" : ""}).`,
          "Secret (shown once; store it now):",
          created.secret
        ])
      ))).pipe(Command.withDescription("Create an API key and print its secret once"))

const list = (direct: Admin.Direct) =>
  Command.make("list", { org: orgOption.pipe(Options.withDescription("Only this organization (id or name)")), json }, (o) =>
    withOperations(direct, (operations) => operations.listKeys({ org: Option.getOrUndefined(o.org) })).pipe(
      Effect.flatMap((keys) => print(o.json, keys, () => keys.length === 0 ? ["no keys"] : keys.map(describeKey)))
    )).pipe(Command.withDescription("List API keys (never their secrets)"))

const revoke = (direct: Admin.Direct) =>
  Command.make("revoke", { keyId: Args.text({ name: "KEY_ID" }).pipe(Args.withDescription("The key id (key_...)")), json }, (o) =>
    withOperations(direct, (operations) => operations.revokeKey({ keyId: o.keyId })).pipe(
      Effect.flatMap((key) => print(o.json, key, () => [`Revoked ${key.id} ("${key.name}")`]))
    )).pipe(Command.withDescription("Revoke an API key (it stops working within seconds)"))

/** `sift keys create|list|revoke`. */
export const keysCommand = (direct: Admin.Direct) =>
  Command.make("keys").pipe(
    Command.withDescription(
      "Manage API keys. Works whether or not a server runs on the same data directory (it is asked through its " +
        "loopback admin channel); on DATABASE_URL the database is used directly."
    ),
    Command.withSubcommands([create(direct), list(direct), revoke(direct)])
  )
