/**
 * The admin channel: the operations behind `sift keys` and `sift orgs`, reachable two ways. A server on embedded PGlite
 * owns its data directory (PGlite cannot be opened by two processes), so it offers the operations on a second listener
 * bound to 127.0.0.1 on a random port, authenticated by a random token; it writes `{ pid, url, token }` to
 * `<data dir>/admin.json` with mode 0600 (readable by the same OS user only; the store's lockfile is world-readable, so
 * the token does not go there). The CLI reads the lock and that file: a live server is asked over HTTP, otherwise the
 * CLI opens the database itself. On PostgreSQL the CLI always goes to the database.
 *
 * @since 0.1.0
 */
import type * as SqlClient from "@effect/sql/SqlClient"
import { DataDirLock, type Migrations, Sql } from "@sift/store"
import { Context, Effect, Exit, Layer, Option, ParseResult, Runtime, Schema } from "effect"
import { randomBytes, timingSafeEqual } from "node:crypto"
import * as fs from "node:fs"
import * as http from "node:http"
import * as path from "node:path"
import { CurrentConfig, plans } from "./ServiceConfig.js"

/** An organization as the admin operations show it. */
export interface OrgView {
  readonly id: string
  readonly name: string
  readonly plan: string
  readonly zdr: boolean
  readonly status: string
  readonly credits_remaining: number | null
  /** The effective limits (the plan's, or the organization's own); `null` where the operations do not know them. */
  readonly credits_per_cycle: number | null
  readonly requests_per_minute: number | null
}

/** An API key as the admin operations show it (never its secret). */
export interface KeyView {
  readonly id: string
  readonly name: string
  readonly org_id: string
  readonly permissions: ReadonlyArray<string> | null
  readonly created_at: string
  readonly revoked_at: string | null
}

/** A new key with its secret, shown once. */
export interface CreatedKey {
  readonly key: KeyView
  readonly secret: string
  readonly org: OrgView
  /** Whether the organization was created for this key. */
  readonly org_created: boolean
}

/** Arguments of `createKey`: `org` is an id or a name (a new name creates the organization). */
export interface CreateKeyInput {
  readonly name: string
  readonly org?: string | undefined
  readonly plan?: string | undefined
  readonly permissions?: ReadonlyArray<string> | undefined
  readonly zdr?: boolean | undefined
}

/** The most credits `updateOrg` sets (far below the column's and JavaScript's exact integer range). */
export const MAX_CREDITS = 1_000_000_000_000
/** The highest request limit per minute `updateOrg` sets. */
export const MAX_REQUESTS_PER_MINUTE = 1_000_000

/**
 * Arguments of `updateOrg` (`sift orgs update`): the organization by id or name, and at least one change. `credits`
 * sets the credits per cycle and the current balance; `rpm` the requests per minute; both replace the plan's.
 *
 * @category models
 */
export const UpdateOrgInput = Schema.Struct({
  org: Schema.String.pipe(Schema.minLength(1, { message: () => "org: an organization id or name is required" })),
  plan: Schema.optional(Schema.Literal(...plans).annotations({
    message: () => ({ message: `plan: one of ${plans.join(", ")}`, override: true })
  })),
  credits: Schema.optional(Schema.Int.pipe(Schema.between(0, MAX_CREDITS)).annotations({
    message: () => ({ message: `credits: a whole number from 0 to ${MAX_CREDITS}`, override: true })
  })),
  rpm: Schema.optional(Schema.Int.pipe(Schema.between(1, MAX_REQUESTS_PER_MINUTE)).annotations({
    message: () => ({ message: `rpm: a whole number of requests per minute from 1 to ${MAX_REQUESTS_PER_MINUTE}`, override: true })
  })),
  zdr: Schema.optional(Schema.Boolean.annotations({ message: () => ({ message: "zdr: true or false", override: true }) }))
}).pipe(Schema.filter((input) =>
  input.plan !== undefined || input.credits !== undefined || input.rpm !== undefined || input.zdr !== undefined ||
  "nothing to update: give a plan, credits, rpm or zdr"
))

/** What `updateOrg` is given, decoded. */
export type UpdateOrgInput = typeof UpdateOrgInput.Type

/**
 * Decodes an `updateOrg` input (from the command line or the admin channel's JSON); `INPUT_VALIDATION_ERROR` names
 * the first bad member.
 */
export const decodeUpdateOrg = (input: unknown): Effect.Effect<UpdateOrgInput, AdminError> =>
  Schema.decodeUnknown(UpdateOrgInput, { onExcessProperty: "error" })(input).pipe(
    Effect.mapError((error) => {
      const first = ParseResult.ArrayFormatter.formatErrorSync(error)[0]
      return new AdminError({ code: "INPUT_VALIDATION_ERROR", message: first?.message ?? "invalid input" })
    })
  )

/**
 * An admin operation failed for a reason the operator can act on (unknown organization, bad plan, ...).
 *
 * @category errors
 */
export class AdminError extends Schema.TaggedError<AdminError>()("AdminError", {
  code: Schema.String,
  message: Schema.String
}) {}

/**
 * The operations, by name: the same table is served over HTTP and called directly.
 *
 * @category models
 */
export interface Operations {
  readonly createOrg: (input: { name: string; plan?: string | undefined; zdr?: boolean | undefined }) => Effect.Effect<OrgView, AdminError>
  readonly listOrgs: (input: Record<string, never>) => Effect.Effect<ReadonlyArray<OrgView>, AdminError>
  readonly setPlan: (input: { org: string; plan: string }) => Effect.Effect<OrgView, AdminError>
  readonly enableZdr: (input: { org: string; enabled?: boolean | undefined }) => Effect.Effect<OrgView, AdminError>
  /** Changes an organization's plan, credits, request limit and ZDR flag at once (validated with `UpdateOrgInput`). */
  readonly updateOrg: (input: UpdateOrgInput) => Effect.Effect<OrgView, AdminError>
  readonly createKey: (input: CreateKeyInput) => Effect.Effect<CreatedKey, AdminError>
  readonly listKeys: (input: { org?: string | undefined }) => Effect.Effect<ReadonlyArray<KeyView>, AdminError>
  readonly revokeKey: (input: { keyId: string }) => Effect.Effect<KeyView, AdminError>
  /** Adds a person to an organization for the web console; answers the one-time link to choose a password. */
  readonly createUser: (input: CreateUserInput) => Effect.Effect<CreatedUser, AdminError>
}

/** What `sift users create` sends. */
export interface CreateUserInput {
  readonly email: string
  readonly org: string
  readonly role?: "owner" | "member" | undefined
  /** The console's origin, for the link. */
  readonly origin: string
}

/** A person added for the console, with the link to choose a password (24 hours, once). */
export interface CreatedUser {
  readonly id: string
  readonly email: string
  readonly role: "owner" | "member"
  readonly org: OrgView
  readonly link: string
}

/** The operation names. */
export const operationNames: ReadonlyArray<keyof Operations> = [
  "createOrg", "listOrgs", "setPlan", "enableZdr", "updateOrg", "createKey", "listKeys", "revokeKey", "createUser"
]

/** @category tags */
export class AdminOperations extends Context.Tag("@sift/http/Admin/AdminOperations")<AdminOperations, Operations>() {}

/**
 * How a command reaches the operations without a server: a layer implementing them over the database, and the
 * migrations that database needs.
 *
 * @category models
 */
export interface Direct {
  readonly layer: Layer.Layer<AdminOperations, unknown, SqlClient.SqlClient | Sql.Database>
  readonly migrations: Migrations.MigrationRecords
}

/** The file in the data directory that tells the CLI where the running server's admin channel is. */
export const fileName = "admin.json"

/** What `admin.json` holds. */
export interface Endpoint {
  readonly pid: number
  readonly url: string
  readonly token: string
}

/** Writes `admin.json` with mode 0600 (write to a private temp file, then rename over). */
export const writeEndpoint = (dir: string, endpoint: Endpoint): void => {
  const file = path.join(dir, fileName)
  const temp = `${file}.${process.pid}.tmp`
  fs.writeFileSync(temp, JSON.stringify(endpoint), { mode: 0o600 })
  fs.chmodSync(temp, 0o600)
  fs.renameSync(temp, file)
}

/** Removes `admin.json` if it still names this process. */
export const removeEndpoint = (dir: string): void => {
  const file = path.join(dir, fileName)
  try {
    if ((JSON.parse(fs.readFileSync(file, "utf8")) as Endpoint).pid === process.pid) fs.rmSync(file, { force: true })
  } catch {
    // Missing or unreadable: nothing of ours to remove.
  }
}

/**
 * Where to reach the server that owns `dir`: `None` when no live process owns it (the CLI may open it), the endpoint
 * when a server does, `AdminError` when a live process owns it without an admin channel.
 *
 * @category accessors
 */
export const locate = (dir: string): Effect.Effect<Option.Option<Endpoint>, AdminError> =>
  Effect.gen(function*() {
    const owner = yield* DataDirLock.read(dir)
    if (Option.isNone(owner)) return Option.none()
    const endpoint = yield* Effect.sync((): Endpoint | undefined => {
      try {
        return JSON.parse(fs.readFileSync(path.join(dir, fileName), "utf8")) as Endpoint
      } catch {
        return undefined
      }
    })
    if (endpoint !== undefined && endpoint.pid === owner.value.pid) return Option.some(endpoint)
    return yield* new AdminError({
      code: "DATA_DIR_IN_USE",
      message: `the data directory ${dir} is in use by process ${owner.value.pid}, which offers no admin channel ` +
        `(a server still starting, or another sift command); try again, or stop it`
    })
  })

/**
 * The operations over HTTP, against a running server's admin channel.
 *
 * @category constructors
 */
export const client = (endpoint: Pick<Endpoint, "url" | "token">): Operations => {
  const call = (name: string) => (input: unknown) =>
    Effect.tryPromise({
      try: async () => {
        const response = await fetch(`${endpoint.url}/_admin/${name}`, {
          method: "POST",
          headers: { authorization: `Bearer ${endpoint.token}`, "content-type": "application/json" },
          body: JSON.stringify(input ?? {})
        })
        return { status: response.status, body: await response.json() as Record<string, unknown> }
      },
      catch: (cause) =>
        new AdminError({ code: "ADMIN_UNREACHABLE", message: `the server's admin channel did not answer: ${String(cause)}` })
    }).pipe(
      Effect.flatMap(({ body, status }) =>
        status === 200
          ? Effect.succeed(body.result)
          : Effect.fail(new AdminError({ code: String(body.error_code ?? "ADMIN_ERROR"), message: String(body.message) }))
      )
    )
  return Object.fromEntries(operationNames.map((name) => [name, call(name)])) as unknown as Operations
}

const isLoopbackPeer = (address: string | undefined) =>
  address !== undefined && (address === "::1" || address.startsWith("127.") || address.startsWith("::ffff:127."))

const sameToken = (given: string, expected: Buffer) => {
  const buffer = Buffer.from(given)
  return buffer.length === expected.length && timingSafeEqual(buffer, expected)
}

const readBody = (request: http.IncomingMessage): Promise<string> =>
  new Promise((resolve, reject) => {
    let body = ""
    request.setEncoding("utf8")
    request.on("data", (chunk: string) => {
      body += chunk
      if (body.length > 1_000_000) request.destroy(new Error("admin request too large"))
    })
    request.on("end", () => resolve(body))
    request.on("error", reject)
  })

/**
 * Serves the operations on 127.0.0.1 (random port, token in `admin.json`) while the layer lives; only for the embedded
 * database, since on PostgreSQL the CLI opens the database itself.
 *
 * @category layers
 */
export const layerServer: Layer.Layer<never, never, AdminOperations | CurrentConfig | Sql.Database> = Layer.scopedDiscard(
  Effect.gen(function*() {
    const config = yield* CurrentConfig
    const database = yield* Sql.Database
    if (database.backend !== "pglite") return
    const operations = yield* AdminOperations
    const runtime = yield* Effect.runtime<never>()
    const token = randomBytes(32).toString("base64url")
    const expected = Buffer.from(token)
    const send = (response: http.ServerResponse, status: number, body: unknown) => {
      response.writeHead(status, { "content-type": "application/json" })
      response.end(JSON.stringify(body))
    }
    const server = http.createServer(async (request, response) => {
      const name = (request.url ?? "").replace(/^\/_admin\//, "") as keyof Operations
      if (!isLoopbackPeer(request.socket.remoteAddress)) return send(response, 403, { error_code: "FORBIDDEN", message: "loopback only" })
      if (!sameToken((request.headers.authorization ?? "").replace(/^Bearer /, ""), expected)) {
        return send(response, 401, { error_code: "UNAUTHORIZED", message: "bad admin token" })
      }
      if (request.method !== "POST" || !operationNames.includes(name)) {
        return send(response, 404, { error_code: "NOT_FOUND", message: `no admin operation ${request.url}` })
      }
      let input: unknown
      try {
        input = JSON.parse((await readBody(request)) || "{}")
      } catch {
        return send(response, 400, { error_code: "INPUT_VALIDATION_ERROR", message: "the body is not JSON" })
      }
      const exit = await Runtime.runPromiseExit(runtime)(
        (operations[name] as (input: unknown) => Effect.Effect<unknown, AdminError>)(input).pipe(
          Effect.annotateLogs({ admin_operation: name })
        )
      )
      if (Exit.isSuccess(exit)) return send(response, 200, { result: exit.value })
      const failure = exit.cause._tag === "Fail" ? exit.cause.error : undefined
      return failure instanceof AdminError
        ? send(response, 400, { error_code: failure.code, message: failure.message })
        : send(response, 500, { error_code: "INTERNAL_ERROR", message: "the admin operation failed" })
    })
    yield* Effect.acquireRelease(
      Effect.async<void>((resume) => {
        server.listen({ host: "127.0.0.1", port: 0 }, () => resume(Effect.void))
      }),
      () =>
        Effect.async<void>((resume) => {
          removeEndpoint(config.dataDir)
          server.close(() => resume(Effect.void))
          server.closeAllConnections()
        })
    )
    const port = (server.address() as { port: number }).port
    writeEndpoint(config.dataDir, { pid: process.pid, url: `http://127.0.0.1:${port}`, token })
    yield* Effect.logDebug(`admin channel on http://127.0.0.1:${port}`)
  })
)
