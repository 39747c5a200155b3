/**
 * Sequencing for the request path, where every step of a fiber is a visible share of a cache hit (bench/http).
 */
import { Effect, Exit } from "effect"

/**
 * `f` of `effect`'s value. An effect that has already succeeded or failed (`Effect.succeed`, `Effect.fail`, what a
 * service answers from memory) is continued at once instead of through a step of the fiber.
 */
export const andThen = <A, E, R, B, E2, R2>(
  effect: Effect.Effect<A, E, R>,
  f: (a: A) => Effect.Effect<B, E2, R2>
): Effect.Effect<B, E | E2, R | R2> =>
  Exit.isExit(effect)
    ? (Exit.isSuccess(effect) ? f((effect as Exit.Success<A, E>).value) : effect as Exit.Exit<never, E>)
    : Effect.flatMap(effect, f)

/** `effect` in an interruptible region; one that has already completed needs none. */
export const interruptibly = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Exit.isExit(effect) ? effect : Effect.interruptible(effect)
