/**
 * The refusals of monitor operations, each carrying the contract's `error_code` (decisions §1 gives the statuses).
 *
 * @since 0.1.0
 */
import { Schema } from "effect"

/** The `error_code`s monitor operations refuse with. */
export const ErrorCode = Schema.Literal("NOT_FOUND", "MONITOR_LIMIT_EXCEEDED", "MONITOR_NO_WEBHOOK", "MONITOR_PAUSED")
/** @category models */
export type ErrorCode = typeof ErrorCode.Type

/**
 * A monitor operation refused: `NotFound` (no such monitor, run or change in the caller's organization),
 * `LimitExceeded` (the plan's monitor count), `NoWebhook` (rotate without a webhook), `Paused` (run a paused monitor).
 *
 * @category errors
 */
export class MonitorRefused extends Schema.TaggedError<MonitorRefused>()("MonitorRefused", {
  reason: Schema.Literal("NotFound", "LimitExceeded", "NoWebhook", "Paused"),
  detail: Schema.String
}) {
  get errorCode(): ErrorCode {
    switch (this.reason) {
      case "NotFound":
        return "NOT_FOUND"
      case "LimitExceeded":
        return "MONITOR_LIMIT_EXCEEDED"
      case "NoWebhook":
        return "MONITOR_NO_WEBHOOK"
      case "Paused":
        return "MONITOR_PAUSED"
    }
  }
  override get message(): string {
    return this.detail
  }
}
