/**
 * One budget per request (`timeoutOpts`): navigation, actions, waits and output all draw from it. Expiry is
 * interruption, not polling: work runs under `Effect.timeoutOption`, so a fetch or a browser page in flight is
 * cancelled and its resources released. A reserve at the end (up to 5 s, at most a quarter of the budget) keeps time to
 * turn whatever was gathered into a response when the behavior is `return-partial`.
 *
 * @since 0.1.0
 */
import { Clock, Duration, Effect, Option } from "effect"
import { RequestTimeout } from "./Errors.js"

/** What happens when the budget runs out. */
export type Behavior = "fail" | "return-partial"

/** A request's deadline. */
export interface Deadline {
  readonly totalMs: number
  readonly behavior: Behavior
  /** Clock time (ms) at which the request started. */
  readonly startedAt: number
  /** Milliseconds kept back at the end for building the response. */
  readonly reserveMs: number
}

/** The response reserve for a budget: up to 5000 ms, at most a quarter of the budget. */
export const reserveFor = (totalMs: number): number => Math.min(5_000, Math.floor(totalMs / 4))

/** Starts a deadline now. */
export const make = (totalMs: number, behavior: Behavior = "fail"): Effect.Effect<Deadline> =>
  Effect.map(Clock.currentTimeMillis, (startedAt) => ({ totalMs, behavior, startedAt, reserveMs: reserveFor(totalMs) }))

/** Milliseconds left of the whole budget (never negative). */
export const remaining = (deadline: Deadline): Effect.Effect<number> =>
  Effect.map(Clock.currentTimeMillis, (now) => Math.max(0, deadline.startedAt + deadline.totalMs - now))

/** The error for an expired deadline. */
export const expired = (deadline: Deadline, detail?: string): RequestTimeout =>
  new RequestTimeout({ milliseconds: deadline.totalMs, detail })

/**
 * Runs the gathering part of a request (loading, waiting, actions): with `fail` it may use the whole budget; with
 * `return-partial` it stops before the reserve so the partial state can still be formatted. `None` when it ran out.
 */
export const gather = <A, E, R>(deadline: Deadline, effect: Effect.Effect<A, E, R>): Effect.Effect<Option.Option<A>, E, R> =>
  Effect.flatMap(remaining(deadline), (left) => {
    const budget = deadline.behavior === "return-partial" ? left - deadline.reserveMs : left
    return budget <= 0 ? Effect.succeedNone : Effect.timeoutOption(effect, Duration.millis(budget))
  })

/** Runs the final part of a request (building outputs) within what is left; expiry is a `RequestTimeout`. */
export const finish = <A, E, R>(
  deadline: Deadline,
  effect: Effect.Effect<A, E, R>
): Effect.Effect<A, E | RequestTimeout, R> =>
  Effect.flatMap(remaining(deadline), (left) =>
    left <= 0
      ? Effect.fail(expired(deadline))
      : Effect.flatMap(
        Effect.timeoutOption(effect, Duration.millis(left)),
        Option.match({ onNone: () => Effect.fail(expired(deadline, "while building the outputs")), onSome: Effect.succeed })
      ))
