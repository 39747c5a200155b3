/**
 * A write-behind buffer: items are offered synchronously on a request's path and written in batches by one background
 * fiber, which wakes on the first item, lingers briefly so a burst becomes one statement, and writes. An item leaves
 * the buffer only inside the uninterruptible step that writes it, and the scope's finalizer stops the writer (letting
 * it finish the batch it is writing) and writes whatever is left, so stopping loses nothing. Used by the request log on
 * embedded PGlite, behind its redo journal (`Journal`), which is what makes an answer's charge and row durable.
 *
 * @since 0.1.0
 */
import { Duration, Effect, Fiber, type Scope } from "effect"

/** How the buffer writes. */
export interface Options<A> {
  /** How long the writer waits after the first buffered item. */
  readonly linger: Duration.DurationInput
  /** Items taken per write (the final write takes them all, in batches of this size). */
  readonly maxBatch: number
  /**
   * Writes a batch; it must not fail (handle and log errors inside). Items it returns are put back at the front of
   * the buffer, for the next write.
   */
  readonly write: (batch: ReadonlyArray<A>) => Effect.Effect<ReadonlyArray<A> | void>
}

/** A running write-behind buffer. */
export interface WriteBehind<A> {
  /** Buffers an item (synchronous; wakes the writer). */
  readonly offer: (item: A) => void
  /** Items buffered and not yet taken by a write. */
  readonly size: () => number
  /** Items offered so far, and items written so far (together: what a flush waits for). */
  readonly offered: () => number
  readonly written: () => number
  /** Completes once the buffer holds fewer than `limit` items (at once if it already does). */
  readonly below: (limit: number) => Effect.Effect<void>
  /** Waits until every item offered so far is written (by the writer). */
  readonly flush: Effect.Effect<void>
  /** Writes everything buffered now, on the caller's fiber. */
  readonly drain: Effect.Effect<void>
}

/** Starts the buffer's writer for the scope; the scope's end writes what is left. */
export const make = <A>(options: Options<A>): Effect.Effect<WriteBehind<A>, never, Scope.Scope> =>
  Effect.gen(function*() {
    let buffered: Array<A> = []
    let offered = 0
    let written = 0
    let wake: (() => void) | undefined
    let roomWaiters: Array<{ readonly limit: number; readonly resume: () => void }> = []

    const arrived = Effect.async<void>((resume) => {
      if (buffered.length > 0) return resume(Effect.void)
      wake = () => {
        wake = undefined
        resume(Effect.void)
      }
      return Effect.sync(() => {
        wake = undefined
      })
    })

    const wakeRoomWaiters = () => {
      if (roomWaiters.length === 0) return
      const waiting = roomWaiters
      roomWaiters = []
      for (const waiter of waiting) {
        if (buffered.length < waiter.limit) waiter.resume()
        else roomWaiters.push(waiter)
      }
    }

    /** Takes up to `count` items and writes them, in one uninterruptible step. */
    const writeSome = (count: number) =>
      Effect.uninterruptible(Effect.suspend(() => {
        const batch = buffered.splice(0, count)
        if (batch.length === 0) return Effect.void
        return Effect.map(options.write(batch), (back) => {
          const kept = back ?? []
          if (kept.length > 0) buffered = [...kept, ...buffered]
          written += batch.length - kept.length
          wakeRoomWaiters()
        })
      }))

    const writer = yield* Effect.forkScoped(Effect.forever(
      Effect.zipRight(Effect.zipRight(arrived, Effect.sleep(options.linger)), writeSome(options.maxBatch))
    ))
    // Writes batches until the buffer is empty or a write makes no progress (it put everything back).
    const drain: Effect.Effect<void> = Effect.suspend(() => {
      if (buffered.length === 0) return Effect.void
      const before = written
      return Effect.flatMap(writeSome(options.maxBatch), () => (written > before ? drain : Effect.void))
    })
    yield* Effect.addFinalizer(() => Effect.zipRight(Fiber.interrupt(writer), drain))

    const waitWritten = (target: number): Effect.Effect<void> =>
      written >= target ? Effect.void : Effect.zipRight(Effect.sleep("2 millis"), Effect.suspend(() => waitWritten(target)))

    return {
      offer: (item) => {
        buffered.push(item)
        offered++
        wake?.()
      },
      size: () => buffered.length,
      offered: () => offered,
      written: () => written,
      below: (limit) =>
        Effect.suspend(() =>
          buffered.length < limit ? Effect.void : Effect.async<void>((resume) => {
            roomWaiters.push({ limit, resume: () => resume(Effect.void) })
          })
        ),
      flush: Effect.suspend(() => waitWritten(offered)),
      drain
    }
  })
