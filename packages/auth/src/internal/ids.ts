import { createHash, randomBytes } from "node:crypto"

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

/** An id such as `org_` + 16 base62. */
export const id = (prefix: string): string => prefix + base62(16)

/** The stored form of a secret: its SHA-256, hex. */
export const hashSecret = (secret: string): string => createHash("sha256").update(secret).digest("hex")
