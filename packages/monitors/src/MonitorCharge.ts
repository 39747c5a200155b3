/**
 * What monitors need of the credit system, declared here so the package stands on its own: hold a run's credits before
 * it observes anything (a run that cannot be covered is skipped), charge them when it completes, release them when it
 * fails or is superseded. The service (`@sift/http`) provides it from the auth package's credit ledger.
 *
 * @since 0.1.0
 */
import type { SqlError } from "@effect/sql/SqlError"
import { Context, type Effect, Schema } from "effect"

/** Credits held for a run in flight (a hold lapses on its own if the process dies, so nothing is charged). */
export interface CreditHold {
  readonly id: string
  readonly orgId: string
  readonly credits: number
}

/**
 * The organization cannot cover the run: the run is skipped with `insufficient_credits`.
 *
 * @category errors
 */
export class InsufficientCredits extends Schema.TaggedError<InsufficientCredits>()("InsufficientCredits", {
  needed: Schema.Number,
  available: Schema.Number
}) {}

/**
 * Charges organizations for monitor runs.
 *
 * @category services
 */
export class MonitorCharge extends Context.Tag("@sift/monitors/MonitorCharge")<MonitorCharge, {
  /** Holds `credits` of the organization for a run for at most `ttlMs`. */
  readonly hold: (orgId: string, credits: number, options: { readonly ttlMs: number }) => Effect.Effect<CreditHold, InsufficientCredits | SqlError>
  /** Charges a completed run (`runId` is the charge's request id) and ends the hold. */
  readonly charge: (hold: CreditHold, charge: { readonly credits: number; readonly runId: string }) => Effect.Effect<void, SqlError>
  /** Ends a hold without charging. */
  readonly release: (hold: CreditHold) => Effect.Effect<void, SqlError>
}>() {}
