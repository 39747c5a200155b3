/**
 * Failure tracking of webhook receivers: consecutive failed deliveries per owner (shown as `webhook_failure`), cleared by
 * a success or a new URL; the worker's `onFailureStreak` is called when a streak reaches {@link FAILURES_BEFORE_EMAIL}.
 *
 * @since 0.1.0
 */
export {
  /** Clears an owner's failure streak. */
  clearFailure,
  /** Failures in a row after which the owner is told. */
  FAILURES_BEFORE_EMAIL,
  /** An owner's failure streak, or undefined. */
  failureOf,
  /** The failure streaks of several owners, in one read. */
  failuresOf
} from "./internal/durable.js"
export type { WebhookFailure } from "./internal/durable.js"
