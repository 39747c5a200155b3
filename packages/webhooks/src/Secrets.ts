/**
 * Webhook signing secrets, one per owner (a monitor), tied to the receiver URL: the same URL keeps its secret, a new URL
 * gets a new one, rotation replaces it at once. Secrets are `Redacted` in memory; unwrap them only to show them to
 * a caller allowed to write the owner.
 *
 * @since 0.1.0
 */
export {
  /** Replaces an owner's secret at once; undefined when it has none. */
  rotateSecret,
  /** The secret of an owner's webhook URL, created when missing (a write: where the webhook is set). */
  secretFor,
  /** The current secrets of several owners with their URLs, in one read. */
  secretsOf
} from "./internal/durable.js"
export {
  /** A new `whsec_` secret. */
  generateSecret
} from "./internal/signature.js"
