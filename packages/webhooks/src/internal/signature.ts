/**
 * Webhook signatures (decisions §8): `X-Service-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">`
 * keyed by the webhook's secret. Secrets are random, `Redacted` in memory, and unwrapped only to sign.
 */
import * as Ids from "@sift/store/Ids"
import { Redacted } from "effect"
import { createHmac, timingSafeEqual } from "node:crypto"

/** How old a signed timestamp a receiver should accept: 5 minutes. */
export const TOLERANCE_SECONDS = 300

/** A new signing secret: `whsec_` and 32 base62 characters (decisions §8). */
export const generateSecret = (): Redacted.Redacted<string> => Redacted.make(`whsec_${Ids.base62(32)}`)

const plain = (secret: string | Redacted.Redacted<string>): string => Redacted.isRedacted(secret) ? Redacted.value(secret) : secret

/** The hex HMAC-SHA256 of `"<t>.<body>"` keyed by `secret`. */
export const digest = (secret: string | Redacted.Redacted<string>, timestamp: number, body: string): string =>
  createHmac("sha256", plain(secret)).update(`${timestamp}.${body}`).digest("hex")

/** The `X-Service-Signature` header value for `body` sent at `timestamp` (unix seconds). */
export const header = (secret: Redacted.Redacted<string>, timestamp: number, body: string): string =>
  `t=${timestamp},v1=${digest(secret, timestamp, body)}`

/** Why a signature was refused, or `undefined` when it is valid (what a receiver checks; used by the docs example). */
export const verify = (
  signature: string | undefined,
  body: string,
  secret: string | Redacted.Redacted<string>,
  nowSeconds: number = Math.floor(Date.now() / 1000)
): string | undefined => {
  if (signature === undefined) return "missing signature"
  const parts = new Map(signature.split(",").map((part) => {
    const at = part.indexOf("=")
    return [part.slice(0, at).trim(), part.slice(at + 1).trim()] as const
  }))
  const t = Number(parts.get("t"))
  const v1 = parts.get("v1")
  if (!Number.isInteger(t) || v1 === undefined || !/^[0-9a-f]{64}$/.test(v1)) return "malformed signature"
  if (Math.abs(nowSeconds - t) > TOLERANCE_SECONDS) return "timestamp outside the tolerance"
  const expected = Buffer.from(digest(secret, t, body), "hex")
  return timingSafeEqual(expected, Buffer.from(v1, "hex")) ? undefined : "signature mismatch"
}
