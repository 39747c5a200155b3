import { createHash } from "node:crypto"

// Id generation lives in the store (every package that stores records mints ids); auth keeps its secret hashing.
export { base62, id } from "@sift/store/Ids"

/** The stored form of a secret: its SHA-256, hex. */
export const hashSecret = (secret: string): string => createHash("sha256").update(secret).digest("hex")
