/**
 * Group commit: items submitted from many fibers are written together by one background writer, one batch (one
 * transaction, one WAL flush) at a time, and each submitter resumes only once the batch holding its item has
 * committed, with its item's result, or fails with the write's error. The writer starts the next batch as soon as the
 * previous one has finished, with whatever arrived meanwhile: batching comes from concurrency, never from waiting.
 * Used by the request log and the credit ledger, so an answer is sent only after its charge and its log row are
 * durable (a SIGKILL loses nothing that was answered).
 *
 * @since 0.1.0
 */
import type * as SqlClient from "@effect/sql/SqlClient"
import type { Fragment } from "@effect/sql/Statement"
import { Cause, Effect, Exit, Fiber, type Scope } from "effect"

/**
 * A SQL expression (for a select list) that makes the current transaction's commit wait for its WAL to be written:
 * `synchronous_commit` is turned back on for this transaction when the server, database or role has it off. A group
 * commit's transaction makes answers durable; it must never be the one a crash loses.
 */
export const synchronousCommit = (sql: SqlClient.SqlClient): Fragment =>
  sql.literal(
    "set_config('synchronous_commit', CASE current_setting('synchronous_commit') WHEN 'off' THEN 'on' ELSE current_setting('synchronous_commit') END, true)"
  )

/** How the batches are written. */
export interface Options<A, B, E> {
  /** Items written per batch at most (more wait for the next one). */
  readonly maxBatch: number
  /**
   * Writes a batch all or nothing (one transaction) and gives one result per item, in order. A batch that fails is
   * written again item by item, so an item the database refuses fails only its own submitter.
   */
  readonly write: (batch: ReadonlyArray<A>) => Effect.Effect<ReadonlyArray<B>, E>
}

/** A running group-commit writer. */
export interface GroupCommit<A, B, E> {
  /** Queues an item; completes with its result once the batch holding it has committed (fails if it could not). */
  readonly submit: (item: A) => Effect.Effect<B, E>
  /** Items queued and not yet taken by a write. */
  readonly pending: () => number
  /** Batches written so far (committed or not). */
  readonly batches: () => number
  /** Waits until every item submitted so far has been written or has failed. */
  readonly flush: Effect.Effect<void>
}

interface Waiter<A, B, E> {
  readonly item: A
  resume: ((exit: Exit.Exit<B, E>) => void) | undefined
}

/** Starts the writer for the scope; closing the scope writes whatever is still queued first. */
export const make = <A, B, E>(options: Options<A, B, E>): Effect.Effect<GroupCommit<A, B, E>, never, Scope.Scope> =>
  Effect.gen(function*() {
    let queue: Array<Waiter<A, B, E>> = []
    let submitted = 0
    let settled = 0
    let batches = 0
    let closed = false
    let lateWriting = false
    let wake: (() => void) | undefined
    let flushers: Array<{ readonly target: number; readonly resume: () => void }> = []

    const arrived = Effect.async<void>((resume) => {
      if (queue.length > 0) return resume(Effect.void)
      wake = () => {
        wake = undefined
        resume(Effect.void)
      }
      return Effect.sync(() => {
        wake = undefined
      })
    })

    const settle = (waiter: Waiter<A, B, E>, exit: Exit.Exit<B, E>) => {
      settled++
      const resume = waiter.resume
      waiter.resume = undefined
      resume?.(exit)
    }

    const wakeFlushers = () => {
      if (flushers.length === 0) return
      const waiting = flushers
      flushers = []
      for (const flusher of waiting) {
        if (settled >= flusher.target) flusher.resume()
        else flushers.push(flusher)
      }
    }

    /** Writes one batch and settles its waiters: the whole batch at once, or (when that fails) item by item. */
    const writeBatch = (batch: ReadonlyArray<Waiter<A, B, E>>): Effect.Effect<void> =>
      Effect.flatMap(Effect.exit(Effect.suspend(() => options.write(batch.map((waiter) => waiter.item)))), (exit) => {
        batches++
        if (Exit.isSuccess(exit) && exit.value.length === batch.length) {
          for (let i = 0; i < batch.length; i++) settle(batch[i]!, Exit.succeed(exit.value[i]!))
          return Effect.sync(wakeFlushers)
        }
        const cause: Cause.Cause<E> = Exit.isFailure(exit)
          ? exit.cause
          : Cause.die(new Error(`group commit: ${exit.value.length} results for a batch of ${batch.length}`))
        if (batch.length === 1) {
          settle(batch[0]!, Exit.failCause(cause))
          return Effect.sync(wakeFlushers)
        }
        return Effect.zipRight(
          Effect.logDebug("group commit: a batch failed, writing its items one by one", Cause.pretty(cause)),
          Effect.forEach(batch, (waiter) => writeBatch([waiter]), { discard: true })
        )
      })

    /** Takes up to a batch of queued items and writes them, in one uninterruptible step. */
    const writeNext = Effect.uninterruptible(Effect.suspend(() => {
      const batch = queue.length <= options.maxBatch ? queue : queue.slice(0, options.maxBatch)
      queue = queue.length <= options.maxBatch ? [] : queue.slice(options.maxBatch)
      return batch.length === 0 ? Effect.void : writeBatch(batch)
    }))

    const writer = yield* Effect.forkScoped(Effect.forever(Effect.zipRight(arrived, writeNext)))
    // Writes until nothing is queued, items submitted meanwhile included (batched as ever), so every submitter is
    // answered before the scope's resources close. Items submitted later still are, by a writer of their own.
    const drain: Effect.Effect<void> = Effect.suspend(() => {
      if (queue.length > 0) return Effect.zipRight(writeNext, drain)
      closed = true
      return Effect.void
    })
    yield* Effect.addFinalizer(() => Effect.zipRight(Fiber.interrupt(writer), drain))
    const writeLate: Effect.Effect<void> = Effect.suspend(() => {
      if (queue.length > 0) return Effect.zipRight(writeNext, writeLate)
      lateWriting = false
      return Effect.void
    })

    return {
      submit: (item) =>
        Effect.async<B, E>((resume) => {
          const waiter: Waiter<A, B, E> = { item, resume }
          submitted++
          queue.push(waiter)
          if (!closed) wake?.()
          else if (!lateWriting) {
            // After the scope closed (a late caller), items are written by a writer of their own until none is left.
            lateWriting = true
            Effect.runFork(writeLate)
          }
          // An interrupted submitter stops waiting; its item is still written with its batch.
          return Effect.sync(() => {
            waiter.resume = undefined
          })
        }),
      pending: () => queue.length,
      batches: () => batches,
      flush: Effect.suspend(() => {
        const target = submitted
        return settled >= target ? Effect.void : Effect.async<void>((resume) => {
          flushers.push({ target, resume: () => resume(Effect.void) })
        })
      })
    }
  })
