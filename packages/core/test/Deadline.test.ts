import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Fiber, Option, TestClock } from "effect"
import * as Deadline from "../src/Deadline.js"

describe("Deadline", () => {
  it("reserves up to 5 s, at most a quarter of the budget", () => {
    expect(Deadline.reserveFor(60_000)).toBe(5_000)
    expect(Deadline.reserveFor(8_000)).toBe(2_000)
    expect(Deadline.reserveFor(1)).toBe(0)
  })

  it.effect("gather interrupts slow work when the budget runs out (fail uses the whole budget)", () =>
    Effect.gen(function*() {
      const deadline = yield* Deadline.make(10_000, "fail")
      let interrupted = false
      const slow = Effect.sleep("20 seconds").pipe(Effect.as("done"), Effect.onInterrupt(() => Effect.sync(() => { interrupted = true })))
      const fiber = yield* Effect.fork(Deadline.gather(deadline, slow))
      yield* TestClock.adjust("9999 millis")
      expect(fiber.unsafePoll()).toBeNull()
      yield* TestClock.adjust("1 millis")
      const result = yield* Fiber.join(fiber)
      expect(Option.isNone(result)).toBe(true)
      expect(interrupted).toBe(true)
    }))

  it.effect("return-partial stops gathering before the reserve", () =>
    Effect.gen(function*() {
      const deadline = yield* Deadline.make(10_000, "return-partial")
      const fiber = yield* Effect.fork(Deadline.gather(deadline, Effect.sleep("20 seconds")))
      yield* TestClock.adjust("7500 millis") // 10 s minus a reserve of 2.5 s
      expect(Option.isNone(yield* Fiber.join(fiber))).toBe(true)
      expect(yield* Deadline.remaining(deadline)).toBe(2_500)
    }))

  it.effect("finish fails with REQUEST_TIMEOUT once the whole budget is spent", () =>
    Effect.gen(function*() {
      const deadline = yield* Deadline.make(1_000, "fail")
      const fiber = yield* Effect.fork(Deadline.finish(deadline, Effect.sleep("5 seconds")))
      yield* TestClock.adjust("1 second")
      const exit = yield* Fiber.await(fiber)
      expect(Exit.isFailure(exit)).toBe(true)
      const error = yield* Effect.flip(Fiber.join(fiber))
      expect(error._tag).toBe("RequestTimeout")
      expect(error.errorCode).toBe("REQUEST_TIMEOUT")
      expect(error.message).toContain("1000 ms")
    }))

  it.effect("work that finishes in time is returned as is", () =>
    Effect.gen(function*() {
      const deadline = yield* Deadline.make(1_000, "fail")
      expect(yield* Deadline.gather(deadline, Effect.succeed(42))).toEqual(Option.some(42))
      expect(yield* Deadline.finish(deadline, Effect.succeed("ok"))).toBe("ok")
    }))
})
