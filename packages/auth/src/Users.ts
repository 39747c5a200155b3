/**
 * People who sign in to the web pages (the agent claim page, the MCP consent page): password sign-up and sign-in
 * (scrypt hashes in PHC format, see `Passwords`; a hash weaker than the current cost is replaced at the next sign-in),
 * email verification tokens, browser sessions with a CSRF token each, and brute-force locks (five wrong passwords lock
 * the account for 15 minutes). Plain functions over the `SqlClient` in context.
 *
 * @since 0.1.0
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { Effect, Option } from "effect"
import { randomBytes } from "node:crypto"
import { hashSecret, id } from "./internal/ids.js"
import * as Passwords from "./Passwords.js"
import * as Plans from "./Plans.js"
import { cycleEndAfter } from "./Accounts.js"

/** Wrong attempts (passwords, or codes on a session) before a lock. */
export const MAX_FAILURES = 5
/** How long a lock lasts. */
export const LOCK_MS = 15 * 60_000
/** How long a browser session lasts. */
export const SESSION_MS = 24 * 3600_000
/** How long an email verification link works. */
export const VERIFICATION_MS = 24 * 3600_000

/** A person as the pages see them. */
export interface User {
  readonly id: string
  readonly orgId: string
  readonly email: string
  readonly emailVerified: boolean
}

/** A browser session; `userId` is null before sign-in. */
export interface Session {
  readonly id: string
  readonly userId: string | null
  readonly csrf: string
  readonly failedCodes: number
  readonly lockedUntil: Date | null
}

/** Why a sign-up or sign-in was refused (shown to the person on the page). */
export type Refusal = "email_taken" | "invalid_credentials" | "locked" | "weak_password" | "invalid_email"

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/
/** Whether a string is a plausible email address. */
export const isEmail = (value: string) => value.length <= 254 && EMAIL.test(value)

/** The tables, added by auth migration `0004_agents`. */
export const migrationSql = `
  ALTER TABLE users ADD COLUMN password_hash text;
  ALTER TABLE users ADD COLUMN email_verified_at timestamptz;
  ALTER TABLE users ADD COLUMN failed_sign_ins integer NOT NULL DEFAULT 0;
  ALTER TABLE users ADD COLUMN locked_until timestamptz;
  CREATE TABLE email_verifications (
    token_hash text PRIMARY KEY,
    user_id text NOT NULL REFERENCES users (id),
    expires_at timestamptz NOT NULL,
    used_at timestamptz
  );
  CREATE TABLE web_sessions (
    id_hash text PRIMARY KEY,
    user_id text REFERENCES users (id),
    csrf text NOT NULL,
    failed_codes integer NOT NULL DEFAULT 0,
    locked_until timestamptz,
    expires_at timestamptz NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
  );`

const userFromRow = (row: Record<string, unknown>): User => ({
  id: String(row.id),
  orgId: String(row.org_id),
  email: String(row.email),
  emailVerified: row.email_verified_at !== null && row.email_verified_at !== undefined
})

const date = (value: unknown) => value === null || value === undefined ? null : new Date(value as string)

/** A user by id. */
export const getUser = (userId: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.map(sql<Record<string, unknown>>`SELECT * FROM users WHERE id = ${userId}`, (rows) => Option.map(Option.fromNullable(rows[0]), userFromRow)))

/** The email addresses of an organization's users (whom monitors email when their webhooks keep failing). */
export const emailsOf = (orgId: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.map(sql<{ email: string }>`SELECT email FROM users WHERE org_id = ${orgId} ORDER BY email`, (rows) => rows.map((row) => row.email)))

/**
 * Signs a new person up with a password: a new organization on the free plan and the user in it, email unverified.
 * Returns the user and the one-time verification token to mail.
 */
export const signUp = (input: { readonly email: string; readonly password: string }) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const email = input.email.trim().toLowerCase()
    if (!isEmail(email)) return { _tag: "Refused" as const, reason: "invalid_email" as Refusal }
    if (input.password.length < 8 || input.password.length > 200) return { _tag: "Refused" as const, reason: "weak_password" as Refusal }
    const existing = yield* sql`SELECT id FROM users WHERE email = ${email}`
    if (existing.length > 0) return { _tag: "Refused" as const, reason: "email_taken" as Refusal }
    const passwordHash = yield* Passwords.hash(input.password)
    const orgId = id("org_")
    const userId = id("usr_")
    const token = randomBytes(32).toString("base64url")
    yield* sql.withTransaction(Effect.gen(function*() {
      const start = new Date()
      yield* sql`INSERT INTO organizations ${sql.insert({
        id: orgId,
        name: `${email} ${orgId}`,
        plan: "free",
        credits_remaining: Plans.plans.free.credits ?? 0,
        cycle_start: start,
        cycle_end: Plans.plans.free.renews ? cycleEndAfter(start) : null
      })}`
      yield* sql`INSERT INTO users ${sql.insert({ id: userId, org_id: orgId, email, password_hash: passwordHash })}`
      yield* sql`INSERT INTO email_verifications ${sql.insert({ token_hash: hashSecret(token), user_id: userId, expires_at: new Date(Date.now() + VERIFICATION_MS) })}`
    }))
    return { _tag: "SignedUp" as const, user: { id: userId, orgId, email, emailVerified: false } satisfies User, verificationToken: token }
  })

/** Signs in with a password; five failures in a row lock the account for 15 minutes (a right password too). */
export const signIn = (input: { readonly email: string; readonly password: string }) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const email = input.email.trim().toLowerCase()
    const row = (yield* sql<Record<string, unknown>>`SELECT * FROM users WHERE email = ${email}`)[0]
    if (row === undefined || row.password_hash === null) {
      // Same work as a real check, so timing does not tell which addresses have accounts.
      yield* Passwords.hash(input.password)
      return { _tag: "Refused" as const, reason: "invalid_credentials" as Refusal }
    }
    const lockedUntil = date(row.locked_until)
    if (lockedUntil !== null && lockedUntil.getTime() > Date.now()) return { _tag: "Refused" as const, reason: "locked" as Refusal }
    const stored = String(row.password_hash)
    const ok = yield* Passwords.verify(input.password, stored)
    if (!ok) {
      // The fifth failure in a row locks the account and starts the count again.
      yield* sql`UPDATE users SET failed_sign_ins = CASE WHEN failed_sign_ins + 1 >= ${MAX_FAILURES} THEN 0 ELSE failed_sign_ins + 1 END,
        locked_until = CASE WHEN failed_sign_ins + 1 >= ${MAX_FAILURES} THEN ${new Date(Date.now() + LOCK_MS)}::timestamptz ELSE NULL END
        WHERE id = ${String(row.id)}`
      return { _tag: "Refused" as const, reason: "invalid_credentials" as Refusal }
    }
    yield* sql`UPDATE users SET failed_sign_ins = 0, locked_until = NULL WHERE id = ${String(row.id)}`
    // The password is at hand only now: a hash made with a weaker cost than the current one is replaced (unless the
    // password changed meanwhile).
    if (Passwords.needsRehash(stored, yield* Effect.orDie(Passwords.cost))) {
      const rehashed = yield* Passwords.hash(input.password)
      yield* sql`UPDATE users SET password_hash = ${rehashed} WHERE id = ${String(row.id)} AND password_hash = ${stored}`
    }
    return { _tag: "SignedIn" as const, user: userFromRow(row) }
  })

/** Marks the email of a verification token's user verified; false when the token is unknown, used or expired. */
export const verifyEmail = (token: string) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql<{ user_id: string; expires_at: Date | string }>`
      UPDATE email_verifications SET used_at = now() WHERE token_hash = ${hashSecret(token)} AND used_at IS NULL RETURNING user_id, expires_at`
    const row = rows[0]
    if (row === undefined || new Date(row.expires_at).getTime() < Date.now()) return Option.none<string>()
    yield* sql`UPDATE users SET email_verified_at = COALESCE(email_verified_at, now()) WHERE id = ${row.user_id}`
    return Option.some(row.user_id)
  })

const sessionFromRow = (secret: string, row: Record<string, unknown>): Session => ({
  id: secret,
  userId: row.user_id === null ? null : String(row.user_id),
  csrf: String(row.csrf),
  failedCodes: Number(row.failed_codes),
  lockedUntil: date(row.locked_until)
})

/** Opens an anonymous browser session; its secret goes into the cookie, only its hash is stored. */
export const openSession = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const secret = randomBytes(32).toString("base64url")
  const csrf = randomBytes(24).toString("base64url")
  yield* sql`INSERT INTO web_sessions ${sql.insert({ id_hash: hashSecret(secret), csrf, expires_at: new Date(Date.now() + SESSION_MS) })}`
  return { id: secret, userId: null, csrf, failedCodes: 0, lockedUntil: null } satisfies Session
})

/** The live session of a cookie secret. */
export const findSession = (secret: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.map(sql<Record<string, unknown>>`SELECT * FROM web_sessions WHERE id_hash = ${hashSecret(secret)} AND expires_at > now()`, (rows) =>
      Option.map(Option.fromNullable(rows[0]), (row) => sessionFromRow(secret, row))))

/**
 * Signs a session in as a user: a fresh session (new secret and CSRF token, so a planted cookie gains nothing) replaces
 * the old one.
 */
export const signInSession = (old: Session, userId: string) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    yield* sql`DELETE FROM web_sessions WHERE id_hash = ${hashSecret(old.id)}`
    const secret = randomBytes(32).toString("base64url")
    const csrf = randomBytes(24).toString("base64url")
    yield* sql`INSERT INTO web_sessions ${sql.insert({
      id_hash: hashSecret(secret),
      user_id: userId,
      csrf,
      failed_codes: old.failedCodes,
      locked_until: old.lockedUntil,
      expires_at: new Date(Date.now() + SESSION_MS)
    })}`
    return { id: secret, userId, csrf, failedCodes: old.failedCodes, lockedUntil: old.lockedUntil } satisfies Session
  })

/** Counts a wrong code on a session; the fifth locks code entry on it for 15 minutes. Returns the session after. */
export const recordWrongCode = (session: Session) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const failed = session.failedCodes + 1
    const lockedUntil = failed >= MAX_FAILURES ? new Date(Date.now() + LOCK_MS) : session.lockedUntil
    yield* sql`UPDATE web_sessions SET failed_codes = ${failed}, locked_until = ${lockedUntil}::timestamptz WHERE id_hash = ${hashSecret(session.id)}`
    return { ...session, failedCodes: failed, lockedUntil }
  })

/** Whether code entry is locked on a session. */
export const codesLocked = (session: Session) => session.lockedUntil !== null && session.lockedUntil.getTime() > Date.now()
