/**
 * When a failed webhook attempt is tried again (interface.md rule 6, decisions §8). `webhook.retry` omitted: one quick
 * retry after a network error, a 429 or a 5xx. `{}`: the default schedule. `[]`: no retry. A 429 waits for its
 * Retry-After, capped.
 */

/** The default schedule (`retry: {}`): waits before the 2nd, 3rd, … attempt. */
export const DEFAULT_SCHEDULE_MS: ReadonlyArray<number> = [30_000, 120_000, 600_000, 3_600_000, 21_600_000, 86_400_000]

/** The wait before the quick retry of a webhook without `retry`. */
export const QUICK_RETRY_MS = 2_000

/** The longest Retry-After honoured. */
export const RETRY_AFTER_CAP_MS = 60_000

/** A webhook's retry setting as stored: omitted, `{}` (default schedule) or an explicit list of waits (`[]`: none). */
export type RetrySetting = undefined | null | Record<string, never> | ReadonlyArray<number>

/** The outcome of one attempt, as far as retrying cares. */
export interface AttemptOutcome {
  readonly kind: "delivered" | "rejected" | "failed" | "skipped_unsafe_url"
  readonly httpStatus: number | null
  readonly retryAfterMs?: number | undefined
}

/** Whether an outcome is worth another attempt: no response, 429 or 5xx (never a refused address or another 4xx). */
export const retryable = (outcome: AttemptOutcome): boolean =>
  outcome.kind === "failed" ||
  (outcome.kind === "rejected" && outcome.httpStatus !== null && (outcome.httpStatus === 429 || outcome.httpStatus >= 500))

/** The waits of a setting, in order. */
export const schedule = (setting: RetrySetting): ReadonlyArray<number> =>
  setting === undefined || setting === null
    ? [QUICK_RETRY_MS]
    : Array.isArray(setting)
    ? setting
    : DEFAULT_SCHEDULE_MS

/** Parses a Retry-After header (seconds or an HTTP date) into milliseconds from `now`, capped. */
export const parseRetryAfter = (value: string | null | undefined, now: number = Date.now()): number | undefined => {
  if (value === null || value === undefined || value.trim() === "") return undefined
  const seconds = Number(value)
  const ms = Number.isFinite(seconds) ? seconds * 1000 : Date.parse(value) - now
  if (!Number.isFinite(ms)) return undefined
  return Math.min(Math.max(ms, 0), RETRY_AFTER_CAP_MS)
}

/**
 * The wait before the next attempt after `attemptsMade` attempts ending in `outcome`, or `undefined` when the delivery is
 * finished (delivered, not retryable, or the schedule is used up).
 */
export const nextDelay = (setting: RetrySetting, attemptsMade: number, outcome: AttemptOutcome): number | undefined => {
  if (!retryable(outcome)) return undefined
  const waits = schedule(setting)
  const planned = waits[attemptsMade - 1]
  if (planned === undefined) return undefined
  return outcome.retryAfterMs === undefined ? planned : Math.max(planned, Math.min(outcome.retryAfterMs, RETRY_AFTER_CAP_MS))
}
