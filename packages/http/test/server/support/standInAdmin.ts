/**
 * Stand-in admin operations over two test tables, until `@sift/auth` lands: enough to prove the admin channel (the CLI
 * reaching a running server, or opening the database itself) end to end. Keys are checked by `/v1/whoami`.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { Effect, Layer } from "effect"
import { randomBytes } from "node:crypto"
import * as Admin from "../../../src/Admin.js"

const id = (prefix: string) => prefix + randomBytes(8).toString("hex")

const migrations = {
  standin: {
    "0001_tables": Effect.flatMap(SqlClient.SqlClient, (sql) =>
      sql`CREATE TABLE standin_orgs (id text PRIMARY KEY, name text UNIQUE NOT NULL, plan text NOT NULL, zdr boolean NOT NULL);
          CREATE TABLE standin_keys (id text PRIMARY KEY, name text NOT NULL, org_id text NOT NULL, secret text NOT NULL,
            created_at timestamptz NOT NULL DEFAULT now(), revoked_at timestamptz)`.unprepared)
  }
}

const orgView = (row: any): Admin.OrgView => ({
  id: row.id, name: row.name, plan: row.plan, zdr: row.zdr, status: "active", credits_remaining: null,
  credits_per_cycle: null, requests_per_minute: null
})
const keyView = (row: any): Admin.KeyView => ({
  id: row.id, name: row.name, org_id: row.org_id, permissions: null,
  created_at: new Date(row.created_at).toISOString(), revoked_at: row.revoked_at === null ? null : new Date(row.revoked_at).toISOString()
})

const make = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const fail = (message: string) => new Admin.AdminError({ code: "NOT_FOUND", message })
  const findOrg = (ref: string) =>
    Effect.flatMap(sql`SELECT * FROM standin_orgs WHERE id = ${ref} OR name = ${ref}`, (rows) =>
      rows[0] === undefined ? Effect.fail(fail(`no organization ${ref}`)) : Effect.succeed(orgView(rows[0])))
  const createOrg = (input: { name: string; plan?: string | undefined; zdr?: boolean | undefined }) =>
    Effect.map(
      sql`INSERT INTO standin_orgs ${sql.insert({ id: id("org_"), name: input.name, plan: input.plan ?? "free", zdr: input.zdr ?? false })} RETURNING *`,
      (rows) => orgView(rows[0])
    )
  const operations: Admin.Operations = {
    createOrg: (input) => createOrg(input).pipe(Effect.orDie),
    listOrgs: () => Effect.map(sql`SELECT * FROM standin_orgs ORDER BY name`, (rows) => rows.map(orgView)).pipe(Effect.orDie),
    setPlan: (input) =>
      Effect.flatMap(findOrg(input.org), (org) =>
        Effect.map(sql`UPDATE standin_orgs SET plan = ${input.plan} WHERE id = ${org.id} RETURNING *`, (r) => orgView(r[0]))).pipe(
          Effect.catchTag("SqlError", Effect.die)
        ),
    enableZdr: (input) =>
      Effect.flatMap(findOrg(input.org), (org) =>
        Effect.map(sql`UPDATE standin_orgs SET zdr = ${input.enabled ?? true} WHERE id = ${org.id} RETURNING *`, (r) => orgView(r[0]))).pipe(
          Effect.catchTag("SqlError", Effect.die)
        ),
    updateOrg: (input) =>
      Effect.flatMap(Admin.decodeUpdateOrg(input), (change) =>
        Effect.flatMap(findOrg(change.org), (org) =>
          Effect.map(
            sql`UPDATE standin_orgs SET plan = ${change.plan ?? org.plan}, zdr = ${change.zdr ?? org.zdr} WHERE id = ${org.id} RETURNING *`,
            (r) => orgView(r[0])
          ))).pipe(Effect.catchTag("SqlError", Effect.die)),
    createKey: (input) =>
      Effect.gen(function*() {
        const existing = input.org === undefined ? [] : yield* sql`SELECT * FROM standin_orgs WHERE id = ${input.org} OR name = ${input.org}`
        const org = existing[0] !== undefined
          ? orgView(existing[0])
          : yield* createOrg({ name: input.org ?? input.name, plan: input.plan ?? "free", zdr: input.zdr })
        const secret = "sift_sk_" + randomBytes(20).toString("hex")
        const rows = yield* sql`INSERT INTO standin_keys ${sql.insert({ id: id("key_"), name: input.name, org_id: org.id, secret })} RETURNING *`
        return { key: keyView(rows[0]), secret, org, org_created: existing[0] === undefined }
      }).pipe(Effect.catchTag("SqlError", Effect.die)),
    listKeys: (input) =>
      Effect.map(
        input.org === undefined
          ? sql`SELECT * FROM standin_keys ORDER BY created_at`
          : sql`SELECT k.* FROM standin_keys k JOIN standin_orgs o ON o.id = k.org_id WHERE o.id = ${input.org} OR o.name = ${input.org} ORDER BY k.created_at`,
        (rows) => rows.map(keyView)
      ).pipe(Effect.orDie),
    revokeKey: (input) =>
      Effect.flatMap(sql`UPDATE standin_keys SET revoked_at = now() WHERE id = ${input.keyId} RETURNING *`, (rows) =>
        rows[0] === undefined ? Effect.fail(fail(`no key ${input.keyId}`)) : Effect.succeed(keyView(rows[0]))).pipe(
          Effect.catchTag("SqlError", Effect.die)
        ),
    // The stand-in has no people: the tests that use it exercise keys and organizations only.
    createUser: (input) => Effect.fail(fail(`the stand-in admin has no users (${input.email})`))
  }
  return operations
})

/** The stand-in direct access: operations over the test tables. */
export const direct: Admin.Direct = { layer: Layer.effect(Admin.AdminOperations, make), migrations }

/** Whether `secret` is a live stand-in key. */
export const authenticate = (secret: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.map(sql`SELECT id FROM standin_keys WHERE secret = ${secret} AND revoked_at IS NULL`, (rows) => rows.length > 0))
