/**
 * The admin operations (keys and organizations) performed directly on the database through `@sift/auth`: inside the
 * server (behind the admin channel) and in the CLI when no server owns the data directory.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as Auth from "@sift/auth"
import { Effect, Layer, Option } from "effect"
import * as Admin from "../../Admin.js"
import * as ConsoleRoutes from "../../Console/Http.js"
import * as RequestLog from "../../RequestLog.js"

const orgView = (org: Auth.Accounts.Org): Admin.OrgView => ({
  id: org.id,
  name: org.name,
  plan: org.plan,
  zdr: org.zdrEnabled,
  status: org.status,
  credits_remaining: org.creditsRemaining,
  credits_per_cycle: org.monthlyCredits,
  requests_per_minute: org.requestsPerMinute
})

const keyView = (key: Auth.ApiKeys.ApiKey): Admin.KeyView => ({
  id: key.id,
  name: key.name,
  org_id: key.orgId,
  permissions: key.permissions,
  created_at: key.createdAt.toISOString(),
  revoked_at: key.revokedAt === null ? null : key.revokedAt.toISOString()
})

const failed = (code: string) => (error: unknown) =>
  new Admin.AdminError({ code, message: error instanceof Error ? error.message : String(error) })

const isPlan = Auth.Plans.isPlanName

/** `AdminOperations` over the auth services. */
export const directOperations: Layer.Layer<
  Admin.AdminOperations,
  never,
  Auth.Accounts.Accounts | Auth.ApiKeys.ApiKeys | SqlClient.SqlClient
> = Layer.effect(
  Admin.AdminOperations,
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const accounts = yield* Auth.Accounts.Accounts
    const keys = yield* Auth.ApiKeys.ApiKeys
    const plan = (name: string | undefined) =>
      name === undefined ? Effect.succeed(undefined) : isPlan(name)
        ? Effect.succeed(name)
        : Effect.fail(new Admin.AdminError({ code: "INPUT_VALIDATION_ERROR", message: `unknown plan ${name}; one of ${Auth.Plans.names.join(", ")}` }))
    const findOrg = (ref: string) =>
      Effect.flatMap(accounts.findOrg(ref).pipe(Effect.mapError(failed("INTERNAL_ERROR"))), Option.match({
        onNone: () => Effect.fail(new Admin.AdminError({ code: "NOT_FOUND", message: `no organization ${ref}` })),
        onSome: Effect.succeed
      }))
    const operations: Admin.Operations = {
      createOrg: (input) =>
        Effect.flatMap(plan(input.plan), (p) =>
          accounts.createOrg({ name: input.name, plan: p, zdr: input.zdr }).pipe(Effect.map(orgView), Effect.mapError(failed("INTERNAL_ERROR")))),
      listOrgs: () => accounts.listOrgs().pipe(Effect.map((orgs) => orgs.map(orgView)), Effect.mapError(failed("INTERNAL_ERROR"))),
      // `orgs set-plan` is `orgs update --plan`: the plan's limits replace the organization's own.
      setPlan: (input) => operations.updateOrg({ org: input.org, plan: input.plan as Admin.UpdateOrgInput["plan"] }),
      enableZdr: (input) =>
        Effect.gen(function*() {
          const org = yield* findOrg(input.org)
          yield* accounts.setZdr(org.id, input.enabled ?? true).pipe(Effect.mapError(failed("INTERNAL_ERROR")))
          return orgView(yield* findOrg(org.id))
        }),
      updateOrg: (input) =>
        Effect.gen(function*() {
          const change = yield* Admin.decodeUpdateOrg(input)
          const org = yield* findOrg(change.org)
          // All or nothing. The plan first: its limits replace the organization's own and a new cycle starts with its
          // credits; `credits` and `rpm` given with it then apply on top.
          yield* sql.withTransaction(Effect.gen(function*() {
            if (change.plan !== undefined) {
              yield* accounts.clearOverrides(org.id)
              yield* accounts.setPlan(org.id, change.plan)
            }
            if (change.zdr !== undefined) yield* accounts.setZdr(org.id, change.zdr)
            if (change.credits !== undefined || change.rpm !== undefined) {
              yield* accounts.setOverrides(org.id, { credits: change.credits, requestsPerMinute: change.rpm })
            }
          })).pipe(Effect.mapError(failed("INTERNAL_ERROR")))
          return orgView(yield* findOrg(org.id))
        }),
      createKey: (input) =>
        Effect.gen(function*() {
          const p = yield* plan(input.plan)
          const existing = input.org === undefined ? Option.none() : yield* accounts.findOrg(input.org).pipe(Effect.mapError(failed("INTERNAL_ERROR")))
          const org = Option.isSome(existing)
            ? existing.value
            : yield* accounts.createOrg({ name: input.org ?? input.name, plan: p, zdr: input.zdr }).pipe(Effect.mapError(failed("INTERNAL_ERROR")))
          if (Option.isSome(existing) && input.zdr === true) yield* accounts.setZdr(org.id, true).pipe(Effect.mapError(failed("INTERNAL_ERROR")))
          const created = yield* keys.create({ orgId: org.id, name: input.name, permissions: input.permissions }).pipe(
            Effect.mapError(failed("INPUT_VALIDATION_ERROR"))
          )
          return { key: keyView(created.key), secret: created.secret, org: orgView(org), org_created: Option.isNone(existing) }
        }),
      listKeys: (input) =>
        Effect.gen(function*() {
          const orgId = input.org === undefined ? undefined : (yield* findOrg(input.org)).id
          return (yield* keys.list(orgId).pipe(Effect.mapError(failed("INTERNAL_ERROR")))).map(keyView)
        }),
      revokeKey: (input) =>
        Effect.gen(function*() {
          yield* keys.revoke(input.keyId).pipe(Effect.mapError(failed("INTERNAL_ERROR")))
          const found = (yield* keys.list().pipe(Effect.mapError(failed("INTERNAL_ERROR")))).find((key) => key.id === input.keyId)
          if (found === undefined) return yield* new Admin.AdminError({ code: "NOT_FOUND", message: `no key ${input.keyId}` })
          return keyView(found)
        }),
      createUser: (input) =>
        Effect.gen(function*() {
          const org = yield* findOrg(input.org)
          const added = yield* ConsoleRoutes.addPerson({ orgId: org.id, email: input.email, role: input.role ?? "owner", origin: input.origin }).pipe(
            Effect.provideService(SqlClient.SqlClient, sql),
            Effect.mapError((error) => "errorCode" in error ? new Admin.AdminError({ code: error.errorCode, message: error.message }) : failed("INTERNAL_ERROR")(error))
          )
          return { id: added.id, email: added.email, role: added.role, org: orgView(org), link: added.link }
        })
    }
    return operations
  })
)

/** For the CLI when it opens the database itself. */
export const direct: Admin.Direct = {
  layer: directOperations.pipe(Layer.provide(Auth.layer)),
  migrations: { auth: Auth.migrations, http: RequestLog.migrations }
}
