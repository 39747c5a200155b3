/**
 * The errors of accounts and metering, each carrying the contract's `error_code` (`@sift/http` gives the statuses).
 *
 * @since 0.1.0
 */
import { Schema } from "effect"

/** The `error_code`s auth's errors carry. */
export const ErrorCode = Schema.Literal(
  "UNAUTHORIZED",
  "FORBIDDEN",
  "DISABLED",
  "INSUFFICIENT_PERMISSIONS",
  "USAGE_EXCEEDED",
  "INPUT_VALIDATION_ERROR"
)
/** @category models */
export type ErrorCode = typeof ErrorCode.Type

/** Missing, malformed, unknown, expired or revoked API key: 401 `UNAUTHORIZED`. */
export class Unauthorized extends Schema.TaggedError<Unauthorized>()("Unauthorized", { detail: Schema.String }) {
  get errorCode() {
    return "UNAUTHORIZED" as const
  }
  override get message() {
    return this.detail
  }
}

/** The organization is suspended (403 `FORBIDDEN`) or disabled (403 `DISABLED`). */
export class Forbidden extends Schema.TaggedError<Forbidden>()("Forbidden", { reason: Schema.Literal("suspended", "disabled") }) {
  get errorCode() {
    return this.reason === "disabled" ? "DISABLED" as const : "FORBIDDEN" as const
  }
  override get message() {
    return this.reason === "disabled" ? "This organization is disabled" : "This organization is suspended"
  }
}

/** The key lacks a permission: 403 `INSUFFICIENT_PERMISSIONS` with `required_permission`. */
export class InsufficientPermissions extends Schema.TaggedError<InsufficientPermissions>()("InsufficientPermissions", {
  required: Schema.String
}) {
  get errorCode() {
    return "INSUFFICIENT_PERMISSIONS" as const
  }
  /** The permission the error body names in `required_permission`. */
  get requiredPermission() {
    return this.required
  }
  override get message() {
    return `This API key lacks the ${this.required} permission`
  }
}

/** Not enough credits left for the request: 403 `USAGE_EXCEEDED`, before any work. */
export class UsageExceeded extends Schema.TaggedError<UsageExceeded>()("UsageExceeded", {
  needed: Schema.Number,
  available: Schema.Number
}) {
  get errorCode() {
    return "USAGE_EXCEEDED" as const
  }
  override get message() {
    return `Not enough credits: this request needs ${this.needed}, ${Math.max(0, this.available)} available`
  }
}

/** A key was asked for with a permission that does not exist: 400 `INPUT_VALIDATION_ERROR`. */
export class UnknownPermission extends Schema.TaggedError<UnknownPermission>()("UnknownPermission", {
  names: Schema.Array(Schema.String),
  detail: Schema.String
}) {
  get errorCode() {
    return "INPUT_VALIDATION_ERROR" as const
  }
  override get message() {
    return this.detail
  }
}
