/**
 * Durable webhook deliveries: an event envelope recorded with its receiver URL and retry setting, attempted by pg-boss
 * jobs (each attempt signed with the owner's current secret, retried per the setting), and the store the deliveries
 * endpoints read (one delivery, a filtered list, its attempts, a manual retry).
 *
 * @since 0.1.0
 */
export {
  /** Told each attempt's outcome (delivered, retrying, failed) once recorded; optional, for metrics. */
  AttemptOutcomes,
  /** Manual retry refusals (DELIVERY_* and NOT_FOUND error codes). */
  DeliveryRetryRefused,
  /** The `error_code`s of manual retry refusals. */
  ErrorCode,
  /** How long a delivery can be retried by hand, and an Idempotency-Key is remembered: 7 days. */
  MANUAL_RETRY_WINDOW_MS,
  /** The pg-boss queue of delivery attempts: declare it on the process's `JobQueue`. */
  QUEUE,
  /** The attempts of one delivery, in order. */
  attempts,
  /** Records a delivery of an envelope and queues its first attempt, in one transaction. */
  enqueue,
  /** Reads one delivery as stored. */
  get,
  /** Lists deliveries newest first, filtered by owner ids, run, status and time, a page at a time. */
  list,
  /** Queues a manual attempt of a finished delivery (Idempotency-Key aware). */
  retryByHand,
  /** Runs one attempt (the job handler). */
  runAttempt,
  /** Reads one delivery as the API shows it. */
  view,
  /** Works the delivery queue for the scope's lifetime. */
  worker
} from "./internal/durable.js"
export type { AttemptOutcome, AttemptView, DeliveryDetail, DeliveryRow, DeliveryView, WorkerOptions } from "./internal/durable.js"
export {
  /** A new event id: `evt_` and 24 hex characters. */
  eventId
} from "./internal/envelope.js"
export type { Envelope } from "./internal/envelope.js"
export {
  /** The default schedule of `retry: {}`. */
  DEFAULT_SCHEDULE_MS,
  /** The wait before the quick retry of a webhook without `retry`. */
  QUICK_RETRY_MS
} from "./internal/retryPolicy.js"
export type { RetrySetting } from "./internal/retryPolicy.js"
