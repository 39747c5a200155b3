/**
 * Password hashes: scrypt in the PHC string format, `$scrypt$ln=17,r=8,p=1$<salt>$<hash>` (standard base64 without
 * padding), so every hash carries the cost it was made with and the cost can be raised later: a sign-in whose stored
 * hash is weaker than the current cost stores a new hash (`needsRehash`). The cost is OWASP's for scrypt (N = 2^17,
 * r = 8, p = 1: 128 MiB for about a second of one core per hash); `SIFT_PASSWORD_SCRYPT_LN` sets log2 N from 14 to 20.
 * Hashes of the first format, `scrypt$<salt>$<key>` (base64url, N = 2^14, r = 8, p = 1), still verify and count as
 * weaker. scrypt runs on libuv's thread pool, never on the event loop; keys are compared in constant time.
 *
 * @since 0.1.0
 */
import { Config, Effect } from "effect"
import { randomBytes, scrypt, timingSafeEqual } from "node:crypto"

/**
 * scrypt's cost: `ln` is log2 of N (CPU and memory), `r` the block size, `p` the parallelism.
 *
 * @category models
 */
export interface Cost {
  readonly ln: number
  readonly r: number
  readonly p: number
}

/** The default log2 N (OWASP: N = 2^17 with r = 8, p = 1). */
export const DEFAULT_LN = 17
/** The lowest log2 N the setting accepts (the cost of the first hash format). */
export const MIN_LN = 14
/** The highest log2 N the setting accepts (1 GiB per hash). */
export const MAX_LN = 20

/** The cost of hashes without parameters (the first format, `scrypt$<salt>$<key>`). */
export const legacyCost: Cost = { ln: 14, r: 8, p: 1 }

/**
 * The cost new hashes get, from `SIFT_PASSWORD_SCRYPT_LN` (default 17; r = 8, p = 1).
 *
 * @category config
 */
export const cost: Config.Config<Cost> = Config.integer("SIFT_PASSWORD_SCRYPT_LN").pipe(
  Config.validate({
    message: `expected log2 of scrypt's N, ${MIN_LN} to ${MAX_LN}`,
    validation: (ln) => ln >= MIN_LN && ln <= MAX_LN
  }),
  Config.withDefault(DEFAULT_LN),
  Config.map((ln): Cost => ({ ln, r: 8, p: 1 }))
)

const SALT_BYTES = 16
const KEY_BYTES = 32
// What a stored hash may ask for: a corrupt or planted row must not make a sign-in allocate without bound.
const MAX_MEMORY = 2 ** 30
const MAX_STORED_LENGTH = 400

/** A stored hash, parsed. */
interface Stored {
  readonly cost: Cost
  readonly salt: Buffer
  readonly key: Buffer
}

const PHC = /^\$scrypt\$ln=(\d{1,2}),r=(\d{1,2}),p=(\d{1,2})\$([A-Za-z0-9+/]{11,86})\$([A-Za-z0-9+/]{22,86})$/
const LEGACY = /^scrypt\$([A-Za-z0-9_-]{11,86})\$([A-Za-z0-9_-]{22,86})$/

const memoryOf = (c: Cost) => 128 * 2 ** c.ln * c.r

const withinBounds = (stored: Stored) =>
  stored.cost.ln >= 1 && stored.cost.ln <= MAX_LN && stored.cost.r >= 1 && stored.cost.r <= 32 && stored.cost.p >= 1 &&
  stored.cost.p <= 16 && memoryOf(stored.cost) <= MAX_MEMORY && stored.salt.length >= 8 && stored.salt.length <= 64 &&
  stored.key.length >= 16 && stored.key.length <= 64

/** Parses a stored hash (either format); undefined when it is malformed or asks for more than the bounds above. */
export const parse = (text: string): Stored | undefined => {
  if (text.length > MAX_STORED_LENGTH) return undefined
  const phc = PHC.exec(text)
  const stored: Stored | undefined = phc !== null
    ? {
      cost: { ln: Number(phc[1]), r: Number(phc[2]), p: Number(phc[3]) },
      salt: Buffer.from(phc[4]!, "base64"),
      key: Buffer.from(phc[5]!, "base64")
    }
    : ((legacy) => legacy === null ? undefined : {
      cost: legacyCost,
      salt: Buffer.from(legacy[1]!, "base64url"),
      key: Buffer.from(legacy[2]!, "base64url")
    })(LEGACY.exec(text))
  return stored !== undefined && withinBounds(stored) ? stored : undefined
}

const derive = (password: string, salt: Buffer, length: number, c: Cost) =>
  Effect.async<Buffer, Error>((resume) => {
    const N = 2 ** c.ln
    // Node refuses more than 32 MiB by default; scrypt needs 128·N·r bytes plus a little (128·r·p for its blocks).
    scrypt(password, salt, length, { N, r: c.r, p: c.p, maxmem: memoryOf(c) + 128 * c.r * c.p + 1024 * 1024 }, (error, key) =>
      resume(error === null ? Effect.succeed(key) : Effect.fail(error)))
  })

const b64 = (bytes: Buffer) => bytes.toString("base64").replace(/=+$/, "")

/** Hashes a password with the given cost, as a PHC string. */
export const hashWith = (password: string, c: Cost): Effect.Effect<string> =>
  Effect.suspend(() => {
    const salt = randomBytes(SALT_BYTES)
    return Effect.map(Effect.orDie(derive(password, salt, KEY_BYTES, c)), (key) => `$scrypt$ln=${c.ln},r=${c.r},p=${c.p}$${b64(salt)}$${b64(key)}`)
  })

/** Hashes a password with the current cost (`SIFT_PASSWORD_SCRYPT_LN`), as a PHC string. */
export const hash = (password: string): Effect.Effect<string> => Effect.flatMap(Effect.orDie(cost), (c) => hashWith(password, c))

/** Whether a password matches its stored hash (constant-time comparison); false for a malformed stored hash. */
export const verify = (password: string, stored: string): Effect.Effect<boolean> => {
  const parsed = parse(stored)
  if (parsed === undefined) return Effect.as(Effect.logWarning("a stored password hash is malformed; sign-in refused"), false)
  return derive(password, parsed.salt, parsed.key.length, parsed.cost).pipe(
    Effect.map((derived) => timingSafeEqual(derived, parsed.key)),
    Effect.catchAll((error) => Effect.as(Effect.logWarning("a stored password hash could not be checked; sign-in refused", error), false))
  )
}

/** Whether a stored hash is weaker than `current` (or of the first format) and should be replaced at the next sign-in. */
export const needsRehash = (stored: string, current: Cost): boolean => {
  const parsed = parse(stored)
  if (parsed === undefined || !stored.startsWith("$scrypt$")) return true
  return parsed.cost.ln < current.ln || parsed.cost.r < current.r || parsed.cost.p < current.p ||
    parsed.salt.length < SALT_BYTES || parsed.key.length < KEY_BYTES
}
