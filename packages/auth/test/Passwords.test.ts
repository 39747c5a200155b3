import * as SqlClient from "@effect/sql/SqlClient"
import { describe, expect, it } from "@effect/vitest"
import { Migrations } from "@sift/store"
import { ConfigProvider, Effect, Exit, Layer } from "effect"
import { randomBytes, scryptSync } from "node:crypto"
import * as Auth from "../src/index.js"
import { backends, title } from "../../store/test/support/backends.js"

const layerFor = (backend: (typeof backends)[number]) =>
  Layer.tap(backend.layer(), (context) => Effect.provide(Migrations.run({ store: Migrations.store, auth: Auth.migrations }), context))

const PASSWORD = "brass lantern 9"
const unique = () => Math.random().toString(36).slice(2, 10)
/** The shape of a hash with the default cost: OWASP's N = 2^17, r = 8, p = 1, a 16-byte salt and a 32-byte key. */
const CURRENT = /^\$scrypt\$ln=17,r=8,p=1\$[A-Za-z0-9+/]{22}\$[A-Za-z0-9+/]{43}$/

/** A hash made the way the first release made them (`scrypt$<salt>$<key>`, base64url, N = 16384), outside the code under test. */
const legacyHash = (password: string) => {
  const salt = randomBytes(16)
  return `scrypt$${salt.toString("base64url")}$${scryptSync(password, salt, 32, { N: 16384, r: 8, p: 1 }).toString("base64url")}`
}

/** A PHC hash with a given log2 N, also made outside the code under test. */
const phcHash = (password: string, ln: number) => {
  const salt = randomBytes(16)
  const key = scryptSync(password, salt, 32, { N: 2 ** ln, r: 8, p: 1, maxmem: 256 * 2 ** ln * 8 })
  const b64 = (bytes: Buffer) => bytes.toString("base64").replace(/=+$/, "")
  return `$scrypt$ln=${ln},r=8,p=1$${b64(salt)}$${b64(key)}`
}

const withLn = (ln: string) => Effect.withConfigProvider(ConfigProvider.fromMap(new Map([["SIFT_PASSWORD_SCRYPT_LN", ln]])))

/** A person signed up, whose stored hash is then replaced by `stored` when given. */
const personWithHash = (stored?: string) =>
  Effect.gen(function*() {
    const email = `p-${unique()}@lanterns.example`
    // The sign-up's own hash is thrown away when another is planted: make it cheap then.
    const signUp = Auth.Users.signUp({ email, password: PASSWORD })
    const signed = yield* (stored === undefined ? signUp : withLn("14")(signUp))
    if (signed._tag !== "SignedUp") return yield* Effect.die(new Error(signed.reason))
    const sql = yield* SqlClient.SqlClient
    if (stored !== undefined) yield* sql`UPDATE users SET password_hash = ${stored} WHERE id = ${signed.user.id}`
    return { email, userId: signed.user.id }
  })

const storedHash = (userId: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.map(sql<{ password_hash: string }>`SELECT password_hash FROM users WHERE id = ${userId}`, (rows) => rows[0]!.password_hash))

for (const backend of backends) {
  describe.skipIf(backend.skip !== undefined)(`password hashes (${title(backend)})`, () => {
    it.layer(layerFor(backend), { timeout: 120_000 })((it) => {
      it.effect("a new hash is a PHC string with the current cost (OWASP's), and signs in", () =>
        Effect.gen(function*() {
          const { email, userId } = yield* personWithHash()
          const stored = yield* storedHash(userId)
          expect(stored).toMatch(CURRENT)
          // The stored parameters are the ones the key was derived with: recompute it independently.
          const [, , , salt, key] = stored.split("$")
          const derived = scryptSync(PASSWORD, Buffer.from(salt!, "base64"), 32, { N: 2 ** 17, r: 8, p: 1, maxmem: 2 ** 28 })
          expect(derived.toString("base64").replace(/=+$/, "")).toBe(key)
          const signed = yield* Auth.Users.signIn({ email, password: PASSWORD })
          expect(signed._tag).toBe("SignedIn")
          // A hash as strong as the current cost is left alone.
          expect(yield* storedHash(userId)).toBe(stored)
        }))

      it.effect("a hash of the first format (no parameters, N = 16384) still signs in, and is replaced by a current PHC hash", () =>
        Effect.gen(function*() {
          const old = legacyHash(PASSWORD)
          const { email, userId } = yield* personWithHash(old)
          // A wrong password is refused and changes nothing.
          const wrong = yield* Auth.Users.signIn({ email, password: "brass lantern 8" })
          expect(wrong).toEqual({ _tag: "Refused", reason: "invalid_credentials" })
          expect(yield* storedHash(userId)).toBe(old)

          const signed = yield* Auth.Users.signIn({ email, password: PASSWORD })
          expect(signed._tag).toBe("SignedIn")
          const upgraded = yield* storedHash(userId)
          expect(upgraded).toMatch(CURRENT)
          // The new hash works, and so does nothing else.
          expect((yield* Auth.Users.signIn({ email, password: PASSWORD }))._tag).toBe("SignedIn")
          expect((yield* Auth.Users.signIn({ email, password: PASSWORD.toUpperCase() }))._tag).toBe("Refused")
          expect(yield* storedHash(userId)).toBe(upgraded)
        }))

      it.effect("a PHC hash with a lower cost is upgraded at sign-in; a stronger one is kept", () =>
        Effect.gen(function*() {
          const weak = phcHash(PASSWORD, 14)
          const { email, userId } = yield* personWithHash(weak)
          expect((yield* Auth.Users.signIn({ email, password: PASSWORD }))._tag).toBe("SignedIn")
          expect(yield* storedHash(userId)).toMatch(CURRENT)

          // The setting lowered: a stronger stored hash is not downgraded.
          const before = yield* storedHash(userId)
          expect((yield* withLn("15")(Auth.Users.signIn({ email, password: PASSWORD })))._tag).toBe("SignedIn")
          expect(yield* storedHash(userId)).toBe(before)
        }))

      it.effect("SIFT_PASSWORD_SCRYPT_LN sets the cost of new hashes, 14 to 20; other values are refused", () =>
        Effect.gen(function*() {
          const { email, userId } = yield* withLn("15")(personWithHash())
          expect(yield* storedHash(userId)).toMatch(/^\$scrypt\$ln=15,r=8,p=1\$/)
          expect((yield* withLn("15")(Auth.Users.signIn({ email, password: PASSWORD })))._tag).toBe("SignedIn")
          // Raised again: the next sign-in brings the hash up to it.
          expect((yield* withLn("16")(Auth.Users.signIn({ email, password: PASSWORD })))._tag).toBe("SignedIn")
          expect(yield* storedHash(userId)).toMatch(/^\$scrypt\$ln=16,r=8,p=1\$/)

          for (const bad of ["13", "21", "lots"]) {
            const exit = yield* Effect.exit(withLn(bad)(Auth.Passwords.cost))
            expect(Exit.isFailure(exit)).toBe(true)
            expect(String(Exit.isFailure(exit) ? exit.cause : "")).toContain("SIFT_PASSWORD_SCRYPT_LN")
            // The auth layer checks it when built, so a server with a bad value does not start.
            const built = yield* Effect.exit(withLn(bad)(Effect.scoped(Layer.build(Layer.fresh(Auth.layer)))))
            expect(Exit.isFailure(built)).toBe(true)
          }
        }))

      it.effect("a malformed or outrageous stored hash refuses the sign-in safely, without running scrypt on it", () =>
        Effect.gen(function*() {
          const good = phcHash(PASSWORD, 14)
          const [, , , salt, key] = good.split("$")
          const malformed = [
            "",
            "not a hash",
            "scrypt$$",
            `scrypt$${salt}`,
            `$argon2id$v=19$m=65536,t=3,p=4$${salt}$${key}`,
            `$scrypt$ln=14,r=8$${salt}$${key}`,
            `$scrypt$ln=14,r=8,p=1$${salt}$`,
            `$scrypt$ln=14,r=8,p=1$${salt}$${key}$extra`,
            `$scrypt$ln=14,r=8,p=1$${salt}$${key.slice(0, 10)}`,
            `$scrypt$ln=14,r=8,p=1$${salt}!$${key}`,
            `$scrypt$ln=0,r=8,p=1$${salt}$${key}`,
            `$scrypt$ln=14,r=0,p=1$${salt}$${key}`,
            // Would need 128 GiB, 1 TiB or a huge parallel cost: refused before any memory is taken.
            `$scrypt$ln=30,r=8,p=1$${salt}$${key}`,
            `$scrypt$ln=20,r=99,p=1$${salt}$${key}`,
            `$scrypt$ln=14,r=8,p=99$${salt}$${key}`,
            `$scrypt$ln=14,r=8,p=1$${"A".repeat(400)}$${key}`
          ]
          for (const stored of malformed) {
            expect(Auth.Passwords.parse(stored)).toBeUndefined()
            const { email, userId } = yield* personWithHash(stored)
            const refused = yield* Auth.Users.signIn({ email, password: PASSWORD })
            expect(refused).toEqual({ _tag: "Refused", reason: "invalid_credentials" })
            expect(yield* storedHash(userId)).toBe(stored)
          }
          // The same hash, intact, signs in (so the refusals above are the malformation's doing).
          const { email } = yield* personWithHash(good)
          expect((yield* Auth.Users.signIn({ email, password: PASSWORD }))._tag).toBe("SignedIn")
        }), 240_000)

      it.effect("scrypt runs off the event loop: timers keep firing while a password is hashed", () =>
        Effect.gen(function*() {
          let ticks = 0
          const timer = setInterval(() => ticks++, 5)
          const started = Date.now()
          const stored = yield* Auth.Passwords.hash(PASSWORD).pipe(Effect.ensuring(Effect.sync(() => clearInterval(timer))))
          const elapsed = Date.now() - started
          expect(stored).toMatch(CURRENT)
          // A blocking hash would let no timer fire until it returned; here they fire throughout.
          expect(ticks).toBeGreaterThan(Math.min(10, elapsed / 20))
          expect(yield* Auth.Passwords.verify(PASSWORD, stored)).toBe(true)
          expect(yield* Auth.Passwords.verify(`${PASSWORD} `, stored)).toBe(false)
        }))
    })
  })
}
