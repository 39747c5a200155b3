/**
 * One table from the contract's error codes to HTTP statuses, and the one place where a failure becomes the error body
 * `{ request_id, error_code, message, required_permission?, key_metadata? }`. Each package declares the codes it raises
 * (core, auth, monitors, webhooks; the HTTP layer its own); `Record<ErrorCode, number>` over their union makes a new
 * code fail to compile until it has a status. A handler fails only with a `CodedError`; infrastructure failures (SQL,
 * the job queue) become defects at the edge of the services it calls (`dieOnInfrastructure`; the pipeline's own
 * failure path treats the auth services' the same way) and answer 500, charged nothing.
 *
 * @since 0.1.0
 */
import type { SqlError } from "@effect/sql/SqlError"
import { AuthErrors } from "@sift/auth"
import { BatchErrors } from "@sift/batch"
import { Errors } from "@sift/core"
import { MonitorErrors } from "@sift/monitors"
import type { JobQueue } from "@sift/store"
import { Deliveries } from "@sift/webhooks"
import { Cause, Effect, Exit, Option, Predicate, Schema } from "effect"

/**
 * Codes no other package raises: the HTTP layer's own refusals, and codes the contract lists that nothing raises yet
 * (batches, enrichment, providers), declared here until the package raising them declares them itself.
 */
export const WireCode = Schema.Literal(
  "NOT_FOUND",
  "RATE_LIMITED",
  "ZDR_NOT_ENABLED",
  "PAID_PLAN_REQUIRED",
  "VALID",
  "ZDR_NOT_SUPPORTED",
  "EXTERNAL_PROVIDER_ERROR",
  "FREE_EMAIL_DETECTED",
  "DISPOSABLE_EMAIL_DETECTED",
  "COLD_DOMAIN_TIMEOUT_TOO_LOW",
  "COLLECTION_PAUSED"
)

/** Every `error_code` of the contract: each package's own and the wire's (a Schema, for bodies and tool results). */
export const ErrorCode = Schema.Union(Errors.ErrorCode, AuthErrors.ErrorCode, MonitorErrors.ErrorCode, Deliveries.ErrorCode, BatchErrors.ErrorCode, WireCode)
/** @category models */
export type ErrorCode = typeof ErrorCode.Type

/** The status of every code (interface.md Errors; decisions §1 for the codes the spec lists without one). */
export const statusOf: Readonly<Record<ErrorCode, number>> = {
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

/**
 * What a request may fail with: a tagged error carrying its contract code, whose `message` is the body's. Errors
 * without one (`new Error(...)`, a raw `SqlError`) do not satisfy it, so a handler failing with them does not compile.
 *
 * @category models
 */
export interface CodedError {
  readonly _tag: string
  readonly errorCode: ErrorCode
  readonly message: string
  /** The permission the key lacks, sent as `required_permission` (`INSUFFICIENT_PERMISSIONS`). */
  readonly requiredPermission?: string | undefined
}

/** A failure of the HTTP layer itself (routing, reading the body, rate limit, ZDR, plan checks), carrying its code. */
export class ApiFailure extends Schema.TaggedError<ApiFailure>()("ApiFailure", {
  code: ErrorCode,
  detail: Schema.String
}) {
  get errorCode(): ErrorCode {
    return this.code
  }
  override get message(): string {
    return this.detail
  }
}

/** What an error becomes on the wire. */
export interface MappedError {
  readonly status: number
  readonly errorCode: ErrorCode
  readonly message: string
  readonly requiredPermission?: string
}

/** Maps a coded failure to its status and body members. */
export const map = (error: CodedError): MappedError => {
  const code = error.errorCode
  const required = error.requiredPermission
  return {
    status: statusOf[code],
    errorCode: code,
    message: error.message === "" ? code : error.message,
    ...(required === undefined ? {} : { requiredPermission: required })
  }
}

/** What a defect (a bug, or infrastructure that failed) answers: a 500 that leaks no internals. */
export const defect: MappedError = {
  status: 500,
  errorCode: "INTERNAL_ERROR",
  message: "Internal error; the request was not charged"
}

/** Whether a failure is coded after all (the types say so; a cast could still lie, and then it is a defect). */
export const isCoded = (error: unknown): error is CodedError =>
  Predicate.hasProperty(error, "errorCode") && typeof error.errorCode === "string" && Object.hasOwn(statusOf, error.errorCode)

/** Failures of the infrastructure (the database, the job queue): nothing a caller can act on. */
export type Infrastructure = SqlError | JobQueue.JobQueueError

const isInfrastructure = (error: unknown): error is Infrastructure =>
  Predicate.isTagged(error, "SqlError") || Predicate.isTagged(error, "JobQueueError")

/**
 * `effect` with its infrastructure failures turned into defects, at the edge of a service a handler calls: its error
 * channel is then only the service's coded refusals. An already completed effect stays completed (no fiber step).
 */
export const dieOnInfrastructure = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, Exclude<E, Infrastructure>, R> => {
  if (!Exit.isExit(effect)) {
    return Effect.catchIf(effect, isInfrastructure as (error: E) => error is Extract<E, Infrastructure>, Effect.die) as Effect.Effect<A, Exclude<E, Infrastructure>, R>
  }
  if (Exit.isFailure(effect)) {
    const failure = Cause.failureOption(effect.cause)
    if (Option.isSome(failure) && isInfrastructure(failure.value)) return Exit.die(failure.value)
  }
  return effect as Exit.Exit<A, Exclude<E, Infrastructure>>
}
