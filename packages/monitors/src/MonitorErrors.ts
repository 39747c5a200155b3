/**
 * The refusals of monitor operations, each carrying the contract's `error_code` (decisions §1 gives the statuses).
 *
 * @since 0.1.0
 */
import type { Errors } from "@sift/core"
import { Schema } from "effect"

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
  get errorCode(): Errors.ErrorCode {
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
