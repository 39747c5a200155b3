/**
 * One table from the contract's error codes to HTTP statuses, and the one place where any failure becomes the error
 * body `{ request_id, error_code, message, required_permission?, key_metadata? }`. Every domain error of Sift carries
 * its `errorCode`; `Record<ErrorCode, number>` makes a new code fail to compile until it has a status.
 *
 * @since 0.1.0
 */
import { Errors } from "@sift/core"
import { Schema } from "effect"

/** The status of every code (interface.md Errors; decisions §1 for the codes the spec lists without one). */
export const statusOf: Readonly<Record<Errors.ErrorCode, number>> = {
  INPUT_VALIDATION_ERROR: 400,
  TIMEOUT_EXCEEDS_MAXIMUM: 400,
  TIMEOUT_TOO_SHORT_FOR_WAIT: 400,
  WEBSITE_ACCESS_ERROR: 400,
  WEBSITE_NOT_FOUND: 400,
  WEBSITE_BLOCKED: 400,
  PDF_SKIPPED: 400,
  PDF_IMAGES_ONLY: 400,
  ZDR_NOT_SUPPORTED: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  USAGE_EXCEEDED: 403,
  DISABLED: 403,
  INSUFFICIENT_PERMISSIONS: 403,
  ZDR_NOT_ENABLED: 403,
  PAID_PLAN_REQUIRED: 403,
  MONITOR_LIMIT_EXCEEDED: 403,
  BATCH_LIMIT_EXCEEDED: 403,
  NOT_FOUND: 404,
  REQUEST_TIMEOUT: 408,
  MONITOR_NO_WEBHOOK: 409,
  MONITOR_PAUSED: 409,
  COLLECTION_PAUSED: 409,
  BATCH_NOT_CANCELLABLE: 409,
  BATCH_NOT_COMPLETED: 409,
  IDEMPOTENCY_KEY_CONFLICT: 409,
  DELIVERY_IN_PROGRESS: 409,
  DELIVERY_ALREADY_DELIVERED: 409,
  DELIVERY_CANCELLED: 409,
  DELIVERY_EXPIRED: 410,
  CONTENT_TOO_LARGE: 413,
  UNSUPPORTED_CONTENT: 415,
  FREE_EMAIL_DETECTED: 422,
  DISPOSABLE_EMAIL_DETECTED: 422,
  COLD_DOMAIN_TIMEOUT_TOO_LOW: 422,
  RATE_LIMITED: 429,
  INTERNAL_ERROR: 500,
  EXTERNAL_PROVIDER_ERROR: 502,
  SEARCH_UNAVAILABLE: 503,
  VALID: 200
}

/** A failure of the HTTP layer itself (routing, rate limit, ZDR, plan checks), carrying its code. */
export class ApiFailure extends Schema.TaggedError<ApiFailure>()("ApiFailure", {
  code: Errors.ErrorCode,
  detail: Schema.String,
  requiredPermission: Schema.optional(Schema.String),
  retryAfter: Schema.optional(Schema.Number)
}) {
  get errorCode(): Errors.ErrorCode {
    return this.code
  }
  override get message(): string {
    return this.detail
  }
}

/** What an error becomes on the wire. */
export interface MappedError {
  readonly status: number
  readonly errorCode: Errors.ErrorCode
  readonly message: string
  readonly requiredPermission?: string
  readonly retryAfter?: number
}

const isErrorCode = Schema.is(Errors.ErrorCode)

/**
 * Maps any failure to its status and body members. Domain errors (core's, auth's, ours) carry `errorCode`; anything
 * else is a defect and becomes a 500 whose message does not leak internals.
 */
export const map = (error: unknown): MappedError => {
  const candidate = error as { errorCode?: unknown; message?: unknown; required?: unknown; requiredPermission?: unknown; retryAfter?: unknown }
  if (typeof error === "object" && error !== null && isErrorCode(candidate.errorCode)) {
    const code = candidate.errorCode
    const required = candidate.requiredPermission ?? candidate.required
    return {
      status: statusOf[code],
      errorCode: code,
      message: typeof candidate.message === "string" && candidate.message !== "" ? candidate.message : code,
      ...(typeof required === "string" ? { requiredPermission: required } : {}),
      ...(typeof candidate.retryAfter === "number" ? { retryAfter: candidate.retryAfter } : {})
    }
  }
  return { status: 500, errorCode: "INTERNAL_ERROR", message: "Internal error; the request was not charged" }
}
