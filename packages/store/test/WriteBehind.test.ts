import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Fiber, Scope } from "effect"
import * as WriteBehind from "../src/WriteBehind.js"

/** A buffer on its own scope, writing into `written` (slowly, when asked to). */
const start = (options: { readonly writeMs?: number; readonly failFirst?: number; readonly maxBatch?: number } = {}) =>
  Effect.gen(function*() {
    const scope = yield* Scope.make()
    const batches: Array<ReadonlyArray<number>> = []
    let failures = options.failFirst ?? 0
    const buffer = yield* WriteBehind.make<number>({
      linger: "20 millis",
      maxBatch: options.maxBatch ?? 1_000,
      write: (batch) =>
        Effect.suspend(() => {
          if (failures > 0) {
            failures--
            return Effect.succeed(batch)
          }
          return Effect.as(Effect.sleep(`${options.writeMs ?? 0} millis`), (batches.push([...batch]), undefined))
        })
    }).pipe(Scope.extend(scope))
    return { buffer, batches, close: Scope.close(scope, Exit.void) }
  })

describe("WriteBehind", () => {
  it.live("a burst is written as one batch, after the linger", () =>
    Effect.gen(function*() {
      const { batches, buffer, close } = yield* start()
      for (let i = 0; i < 100; i++) buffer.offer(i)
      yield* buffer.flush
      expect(batches).toEqual([Array.from({ length: 100 }, (_, i) => i)])
      expect(buffer.written()).toBe(100)
      yield* close
    }))

  it.live("closing the scope while the writer lingers, or while it writes, loses nothing", () =>
    Effect.gen(function*() {
      const lingering = yield* start()
      for (let i = 0; i < 5_000; i++) lingering.buffer.offer(i)
      yield* lingering.close
      expect(lingering.batches.flat()).toEqual(Array.from({ length: 5_000 }, (_, i) => i))

      const writing = yield* start({ writeMs: 50, maxBatch: 10 })
      for (let i = 0; i < 25; i++) writing.buffer.offer(i)
      yield* Effect.sleep("40 millis") // the first batch is being written
      yield* writing.close
      expect(writing.batches.flat()).toEqual(Array.from({ length: 25 }, (_, i) => i))
      expect(writing.batches.every((batch) => batch.length <= 10)).toBe(true)
    }))

  it.live("items a write puts back are written later, in order", () =>
    Effect.gen(function*() {
      const { batches, buffer, close } = yield* start({ failFirst: 2 })
      for (let i = 0; i < 3; i++) buffer.offer(i)
      yield* Effect.sleep("30 millis")
      buffer.offer(3)
      yield* buffer.flush
      expect(batches.flat()).toEqual([0, 1, 2, 3])
      yield* close
    }))

  it.live("below waits for room and resumes once the writer has made it", () =>
    Effect.gen(function*() {
      const { buffer, close } = yield* start({ writeMs: 20 })
      for (let i = 0; i < 50; i++) buffer.offer(i)
      const waiting = yield* Effect.fork(buffer.below(10))
      yield* Effect.sleep("5 millis")
      expect(waiting.unsafePoll()).toBeNull()
      yield* Fiber.join(waiting)
      expect(buffer.size()).toBeLessThan(10)
      yield* close
    }))
})
