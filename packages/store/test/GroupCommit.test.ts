import { describe, expect, it } from "@effect/vitest"
import { Deferred, Effect, Exit, Fiber, Scope } from "effect"
import * as GroupCommit from "../src/GroupCommit.js"

/** A writer on its own scope, recording its batches; `writeMs` slows each write, `refuse` fails batches holding it. */
const start = (options: { readonly writeMs?: number; readonly refuse?: number; readonly maxBatch?: number; readonly failAll?: boolean } = {}) =>
  Effect.gen(function*() {
    const scope = yield* Scope.make()
    const batches: Array<ReadonlyArray<number>> = []
    const commits = yield* GroupCommit.make<number, string, string>({
      maxBatch: options.maxBatch ?? 1_000,
      write: (batch) =>
        Effect.suspend(() => {
          if (options.failAll === true) return Effect.fail("down")
          if (options.refuse !== undefined && batch.includes(options.refuse)) return Effect.fail(`refused ${options.refuse}`)
          return Effect.as(Effect.sleep(`${options.writeMs ?? 0} millis`), (batches.push([...batch]), batch.map((n) => `#${n}`)))
        })
    }).pipe(Scope.extend(scope))
    return { commits, batches, close: Scope.close(scope, Exit.void) }
  })

describe("GroupCommit", () => {
  it.live("concurrent submitters share batches and each resumes with its own result once its batch is written", () =>
    Effect.gen(function*() {
      const { batches, close, commits } = yield* start({ writeMs: 20 })
      const results = yield* Effect.forEach(Array.from({ length: 100 }, (_, i) => i), commits.submit, { concurrency: "unbounded" })
      expect(results).toEqual(Array.from({ length: 100 }, (_, i) => `#${i}`))
      expect(batches.flat().sort((a, b) => a - b)).toEqual(Array.from({ length: 100 }, (_, i) => i))
      // The first submitter's batch starts at once; everything that arrived while it was written is the next batch.
      expect(batches.length).toBeLessThanOrEqual(3)
      yield* close
    }))

  it.live("a submitter is not resumed before its batch has been written", () =>
    Effect.gen(function*() {
      const { close, commits } = yield* start({ writeMs: 50 })
      const waiting = yield* Effect.fork(commits.submit(1))
      yield* Effect.sleep("25 millis")
      expect(waiting.unsafePoll()).toBeNull()
      expect(yield* Fiber.join(waiting)).toBe("#1")
      yield* close
    }))

  it.live("without concurrency there is no waiting: one item, one batch, written at once", () =>
    Effect.gen(function*() {
      const { batches, close, commits } = yield* start()
      const started = Date.now()
      for (let i = 0; i < 20; i++) yield* commits.submit(i)
      expect(Date.now() - started).toBeLessThan(500)
      expect(batches).toEqual(Array.from({ length: 20 }, (_, i) => [i]))
      yield* close
    }))

  it.live("a batch the write refuses is written item by item: only the refused item's submitter fails", () =>
    Effect.gen(function*() {
      const { batches, close, commits } = yield* start({ writeMs: 10, refuse: 7 })
      const gate = yield* Deferred.make<void>()
      // Held behind a first batch, so the next ten are written together (and refused together).
      const first = yield* Effect.fork(commits.submit(100))
      const outcomes = yield* Effect.forEach(Array.from({ length: 10 }, (_, i) => i), (n) => Effect.either(commits.submit(n)), {
        concurrency: "unbounded"
      }).pipe(Effect.zipLeft(Deferred.succeed(gate, undefined)))
      yield* Fiber.join(first)
      expect(outcomes.flatMap((o, i) => o._tag === "Left" ? [[i, o.left]] : [])).toEqual([[7, "refused 7"]])
      expect(batches.flat().sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5, 6, 8, 9, 100])
      yield* close
    }))

  it.live("when every write fails, every submitter fails with the write's error", () =>
    Effect.gen(function*() {
      const { close, commits } = yield* start({ failAll: true })
      const outcomes = yield* Effect.forEach([1, 2, 3], (n) => Effect.flip(commits.submit(n)), { concurrency: "unbounded" })
      expect(outcomes).toEqual(["down", "down", "down"])
      yield* close
    }))

  it.live("closing the scope while items wait writes them all and answers every submitter; later submissions are still written", () =>
    Effect.gen(function*() {
      const { batches, close, commits } = yield* start({ writeMs: 30, maxBatch: 10 })
      const waiting = yield* Effect.fork(Effect.forEach(Array.from({ length: 25 }, (_, i) => i), commits.submit, { concurrency: "unbounded" }))
      yield* Effect.sleep("10 millis") // the first batch is being written, the rest wait
      yield* close
      expect(yield* Fiber.join(waiting)).toHaveLength(25)
      expect(batches.flat().sort((a, b) => a - b)).toEqual(Array.from({ length: 25 }, (_, i) => i))
      expect(batches.every((batch) => batch.length <= 10)).toBe(true)
      expect(yield* commits.submit(99)).toBe("#99")
    }))

  it.live("flush waits for everything submitted before it", () =>
    Effect.gen(function*() {
      const { batches, close, commits } = yield* start({ writeMs: 20 })
      yield* Effect.fork(commits.submit(1))
      yield* Effect.sleep("5 millis") // 1 is being written
      yield* Effect.fork(Effect.forEach([2, 3], commits.submit, { concurrency: "unbounded" }))
      yield* Effect.sleep("1 millis")
      expect(commits.pending()).toBe(2)
      yield* commits.flush
      expect(batches).toEqual([[1], [2, 3]])
      expect(commits.pending()).toBe(0)
      yield* close
    }))
})
