/**
 * Ids and secrets in the formats of decisions §1 (`<prefix>` + 16 base62 characters; secrets of a given length), for
 * every package that mints ids of stored records (auth, monitors, webhooks).
 *
 * @since 0.1.0
 */
import { randomBytes } from "node:crypto"

const ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

/** `length` uniformly random base62 characters (rejection sampling, no modulo bias). */
export const base62 = (length: number): string => {
  let out = ""
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248 && out.length < length) out += ALPHABET[byte % 62]
    }
  }
  return out
}

/** An id such as `mon_` + 16 base62. */
export const id = (prefix: string): string => prefix + base62(16)
