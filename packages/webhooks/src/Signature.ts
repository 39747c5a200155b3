/**
 * The `X-Service-Signature` header (decisions §8): `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">`, and the
 * check a receiver makes.
 *
 * @since 0.1.0
 */
export {
  /** The hex HMAC-SHA256 of `"<t>.<body>"`. */
  digest,
  /** The header value for a body sent at a time. */
  header,
  /** How far a receiver accepts a timestamp from its clock: 5 minutes. */
  TOLERANCE_SECONDS,
  /** Why a signature is refused, or undefined when valid. */
  verify
} from "./internal/signature.js"
