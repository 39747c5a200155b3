/**
 * `POST /utility/prefetch`'s work: each prefetch is a durable pg-boss job (queue {@link QUEUE}, on the same database)
 * that retrieves the brand into the store, or reads the home page's design into the design cache (the styleguide
 * module's `DesignCache.warm`), so a later `POST /brand/retrieve` or `GET /web/styleguide` of the domain is a hit. Jobs
 * survive a restart (they wait in the database); a failed retrieval is retried twice. pg-boss starts in the background
 * with the process's one job queue, so serving never waits for it.
 *
 * @since 0.1.0
 */
import type { Cache } from "@sift/core"
import { JobQueue } from "@sift/store"
import { Deferred, Effect, Layer, Option, Scope } from "effect"
import * as DesignCache from "../Styleguide/DesignCache.js"
import { BrandPrefetch, DEFAULT_MAX_AGE_MS, obtain, type Services } from "./Http.js"

/** The pg-boss queue of brand prefetches. */
export const QUEUE = "brand-prefetch"

const sendOptions: JobQueue.SendOptions = { retryLimit: 2, retryDelay: 10, retryBackoff: true, expireInSeconds: 900 }

/** `BrandPrefetch`, with its worker running for the layer's lifetime. @category layers */
export const layer: Layer.Layer<BrandPrefetch, never, Services | Cache.Cache | JobQueue.JobQueue> = Layer.scoped(
  BrandPrefetch,
  Effect.gen(function*() {
    const scope = yield* Effect.scope
    const context = yield* Effect.context<Services | Cache.Cache | JobQueue.JobQueue>()
    const ready = yield* Deferred.make<Option.Option<JobQueue.JobQueueShape>>()
    const start = Effect.gen(function*() {
      const jobs = yield* JobQueue.JobQueue
      yield* jobs.work(QUEUE, (job): Effect.Effect<void, { readonly message: string }, Services | Cache.Cache> => {
        const { domain, timeoutMs, type } = job.data as { domain?: unknown; timeoutMs?: unknown; type?: unknown }
        if (typeof domain !== "string") return Effect.void
        if (type === "styleguide") {
          return DesignCache.warm(domain).pipe(
            Effect.interruptible,
            Effect.asVoid,
            Effect.tapError((error) => Effect.logWarning(`styleguide prefetch of ${domain} failed: ${error.message}`))
          )
        }
        // A brand kept within the default age is a hit: the job then costs one read.
        return obtain({
          lookup: { _tag: "Target", target: { domain } },
          maxAgeMs: DEFAULT_MAX_AGE_MS,
          timeoutMs: typeof timeoutMs === "number" ? timeoutMs : 60_000,
          behavior: "fail",
          maxSpeed: false
        }).pipe(
          Effect.interruptible,
          Effect.asVoid,
          Effect.tapError((error) => Effect.logWarning(`brand prefetch of ${domain} failed: ${error.message}`))
        )
      }, { concurrency: 2, pollingIntervalSeconds: 1 })
      yield* Deferred.succeed(ready, Option.some(jobs))
    }).pipe(
      Scope.extend(scope),
      Effect.provide(context),
      Effect.catchAllCause((cause) =>
        Effect.zipRight(Effect.logWarning("brand prefetch is off: the job queue did not start", cause), Deferred.succeed(ready, Option.none())))
    )
    yield* Effect.forkIn(start, scope)
    return BrandPrefetch.of({
      queue: (type, domain, timeoutMs) =>
        Effect.gen(function*() {
          const jobs = yield* Deferred.await(ready)
          if (Option.isNone(jobs)) return
          yield* jobs.value.send(QUEUE, { type, domain, timeoutMs }, sendOptions)
        }).pipe(Effect.catchAllCause((cause) => Effect.logWarning(`could not queue a ${type} prefetch of ${domain}`, cause)))
    })
  })
)
