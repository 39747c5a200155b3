/**
 * The refusals of batch operations, each carrying the contract's `error_code` (statuses in decisions §1; wave2 §1.8).
 *
 * @since 0.1.0
 */
import { Schema } from "effect"

/** The `error_code`s batch operations refuse with. */
export const ErrorCode = Schema.Literal(
  "NOT_FOUND",
  "BATCH_LIMIT_EXCEEDED",
  "BATCH_NOT_CANCELLABLE",
  "BATCH_NOT_COMPLETED",
  "IDEMPOTENCY_KEY_CONFLICT",
  "USAGE_EXCEEDED",
  "INPUT_VALIDATION_ERROR"
)
/** @category models */
export type ErrorCode = typeof ErrorCode.Type

/**
 * A batch operation refused: `NotFound` (no such batch in the caller's organization, or its results expired),
 * `LimitExceeded` (the plan's active batches), `NotCancellable` (already final), `NotCompleted` (results or delete
 * of an active batch), `IdempotencyConflict` (the key was used with another body), `Unaffordable` (the reservation
 * cannot be covered), `NothingToCrawl` (a crawl whose start resolves no usable page).
 *
 * @category errors
 */
export class BatchRefused extends Schema.TaggedError<BatchRefused>()("BatchRefused", {
  reason: Schema.Literal("NotFound", "LimitExceeded", "NotCancellable", "NotCompleted", "IdempotencyConflict", "Unaffordable", "NothingToCrawl"),
  detail: Schema.String
}) {
  get errorCode(): ErrorCode {
    switch (this.reason) {
      case "NotFound":
        return "NOT_FOUND"
      case "LimitExceeded":
        return "BATCH_LIMIT_EXCEEDED"
      case "NotCancellable":
        return "BATCH_NOT_CANCELLABLE"
      case "NotCompleted":
        return "BATCH_NOT_COMPLETED"
      case "IdempotencyConflict":
        return "IDEMPOTENCY_KEY_CONFLICT"
      case "Unaffordable":
        return "USAGE_EXCEEDED"
      case "NothingToCrawl":
        return "INPUT_VALIDATION_ERROR"
    }
  }
  override get message(): string {
    return this.detail
  }
}
