/**
 * One delivery of one event: the first attempt and the retries its webhook's setting allows. The body (and so the
 * event id) is fixed for the whole delivery; the secret is read before every attempt, so a rotation applies to the next
 * retry at once. Waits go through the Effect clock (tests step them with TestClock).
 */
import { Duration, Effect, type Redacted } from "effect"
import * as Attempt from "./attempt.js"
import type { Envelope } from "./envelope.js"
import { nextDelay, type RetrySetting } from "./retryPolicy.js"

/** One attempt as recorded on the delivery (decisions §8 attempt shape). */
export interface AttemptRecord {
  readonly attempt: number
  readonly started_at: string
  readonly completed_at: string
  readonly http_status: number | null
  readonly error: string | null
  readonly trigger: "initial" | "automatic" | "manual"
  readonly url: string
  readonly outcome: Attempt.AttemptResult["kind"]
}

/** How a delivery ended. */
export interface DeliveryResult {
  readonly status: "delivered" | "failed"
  /** For `webhook_failure.last_status` when failed: rejected (non-2xx), failed (no response) or skipped_unsafe_url. */
  readonly lastStatus: "rejected" | "failed" | "skipped_unsafe_url" | null
  readonly lastMessage: string | null
  readonly attempts: ReadonlyArray<AttemptRecord>
}

/** What a delivery needs. */
export interface DeliveryInput<R> {
  readonly url: string
  readonly event: Envelope
  readonly retry: RetrySetting
  /** The webhook's current secret, read before each attempt. */
  readonly secret: Effect.Effect<Redacted.Redacted<string>, never, R>
  readonly allowPrivateTargets: boolean
  readonly trigger?: "initial" | "manual" | undefined
  readonly timeoutMs?: number | undefined
  /** Called after each attempt (to persist it before any wait). */
  readonly onAttempt?: ((record: AttemptRecord) => Effect.Effect<void, never, R>) | undefined
}

/** Runs the delivery to its end. */
export const deliver = <R>(input: DeliveryInput<R>): Effect.Effect<DeliveryResult, never, R> =>
  Effect.gen(function*() {
    const body = JSON.stringify(input.event)
    const attempts: Array<AttemptRecord> = []
    for (let n = 1;; n++) {
      const secret = yield* input.secret
      const result = yield* Attempt.send({
        url: input.url,
        eventId: input.event.id,
        eventType: input.event.type,
        body,
        secret,
        allowPrivateTargets: input.allowPrivateTargets,
        timeoutMs: input.timeoutMs,
        // Wall-clock time on purpose: receivers compare it with their own clock.
        timestamp: Math.floor(Date.now() / 1000)
      })
      const record: AttemptRecord = {
        attempt: n,
        started_at: result.startedAt.toISOString(),
        completed_at: result.completedAt.toISOString(),
        http_status: result.httpStatus,
        error: result.error,
        trigger: n === 1 ? (input.trigger ?? "initial") : "automatic",
        url: input.url,
        outcome: result.kind
      }
      attempts.push(record)
      if (input.onAttempt !== undefined) yield* input.onAttempt(record)
      if (result.kind === "delivered") return { status: "delivered", lastStatus: null, lastMessage: null, attempts }
      const wait = nextDelay(input.retry, n, result)
      if (wait === undefined) {
        return { status: "failed", lastStatus: result.kind, lastMessage: result.error, attempts }
      }
      yield* Effect.sleep(Duration.millis(wait))
    }
  })
