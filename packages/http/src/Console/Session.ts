/**
 * Console sessions: the web console at `/` signs people in with the user accounts of the agent claim flow (same
 * passwords, locks and `web_sessions` table) under a cookie of its own, `sift_console` (`HttpOnly`, `SameSite=Lax`).
 * A `/v1` API request that carries the cookie and no `Authorization` header is authenticated as the person's
 * organization, with every permission, and must also carry the session's CSRF token in `X-CSRF-Token` (GETs too: a
 * scrape by GET costs credits, and a link on another site would send the cookie with it); the console's own routes
 * ask for the token on mutations.
 *
 * @since 0.1.0
 */
import type * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import { Accounts, type ApiKeys, AuthErrors, Users } from "@sift/auth"
import { Context, Effect, Layer } from "effect"
import { timingSafeEqual } from "node:crypto"
import { ApiFailure } from "../ErrorMapping.js"

/** The console's session cookie. */
export const COOKIE = "sift_console"
/** The header a mutation carries the session's CSRF token in. */
export const CSRF_HEADER = "x-csrf-token"

/** A role in an organization: owners manage keys and members, members use the rest. */
export type Role = "owner" | "member"

/** The person behind a console request. */
export interface Person {
  readonly id: string
  readonly email: string
  readonly role: Role
}

/** A console request's caller: the auth context the API pipeline uses, the person and their session. */
export interface ConsoleCaller {
  readonly context: ApiKeys.AuthContext
  readonly person: Person
  readonly session: Users.Session
}

/** The `Set-Cookie` value of a console session (`Secure` when the service is served over https). */
export const cookieFor = (secret: string, secure: boolean) =>
  `${COOKIE}=${secret}; Path=/; HttpOnly; SameSite=Lax; Max-Age=${Users.SESSION_MS / 1000}${secure ? "; Secure" : ""}`

/** The `Set-Cookie` value that removes the console session cookie. */
export const clearedCookie = `${COOKIE}=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0`

/** The console session secret a request carries, if any. */
export const secretOf = (request: HttpServerRequest.HttpServerRequest): string | undefined => {
  const value = request.cookies[COOKIE]
  return value === undefined || value === "" ? undefined : value
}

const sameText = (a: string, b: string) => a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b))

/** Whether a method changes something (and so needs the CSRF token). */
export const isMutation = (method: string) => method !== "GET" && method !== "HEAD" && method !== "OPTIONS"

/** Authenticates console requests by their session cookie. */
export class ConsoleAuth extends Context.Tag("@sift/http/ConsoleAuth")<ConsoleAuth, {
  /** The caller of a session secret; when `csrfRequired`, `csrf` must be the session's token. */
  readonly authenticate: (secret: string, csrfRequired: boolean, csrf: string | undefined) => Effect.Effect<ConsoleCaller, ApiFailure | AuthErrors.Forbidden | SqlError>
}>() {}

/** `ConsoleAuth` over the database. */
export const layer = Layer.effect(ConsoleAuth, Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const authenticate = (secret: string, csrfRequired: boolean, csrf: string | undefined) =>
    Effect.gen(function*() {
      const session = yield* Effect.provideService(Users.findSession(secret), SqlClient.SqlClient, sql)
      if (session._tag === "None" || session.value.userId === null) {
        return yield* new ApiFailure({ code: "UNAUTHORIZED", detail: "The console session has expired or was signed out: sign in again" })
      }
      if (csrfRequired && (csrf === undefined || !sameText(csrf, session.value.csrf))) {
        return yield* new ApiFailure({ code: "FORBIDDEN", detail: `This console request must carry the session's CSRF token in ${CSRF_HEADER}` })
      }
      const rows = yield* sql<Record<string, unknown>>`
        SELECT o.*, u.id AS user_id, u.email AS user_email, u.role AS user_role
        FROM users u JOIN organizations o ON o.id = u.org_id WHERE u.id = ${session.value.userId}`
      const row = rows[0]
      if (row === undefined) return yield* new ApiFailure({ code: "UNAUTHORIZED", detail: "The console session's account no longer exists" })
      const org = Accounts.orgFromRow(row)
      if (org.status !== "active") return yield* new AuthErrors.Forbidden({ reason: org.status === "disabled" ? "disabled" : "suspended" })
      const person: Person = { id: String(row.user_id), email: String(row.user_email), role: row.user_role === "member" ? "member" : "owner" }
      // The person's id stands where a key's would (rate-limit window, `key_id` of the request log).
      const context: ApiKeys.AuthContext = { keyId: person.id, keyName: `console: ${person.email}`, permissions: null, org }
      return { context, person, session: session.value }
    })
  return { authenticate }
}))
