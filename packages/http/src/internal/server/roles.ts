/**
 * The process's job queue as its role wants it. Every package starts its workers through `JobQueue.work`; this layer
 * gives them the queue with `work` shaped by `SIFT_ROLE`: on `api` a worker is never started (jobs are still sent, and
 * run by the `worker` processes), on `worker` and `all` each queue runs with the concurrency `SIFT_QUEUE_CONCURRENCY`
 * sets for it (else the package's own). Each job's run time and outcome go to the process's metrics.
 */
import { JobQueue } from "@sift/store"
import { Deliveries } from "@sift/webhooks"
import { Effect, Layer, Option } from "effect"
import { CurrentMetrics } from "../../Metrics.js"
import { CurrentConfig, jobsSchemaConfig } from "../../ServiceConfig.js"
import * as Tracing from "../../Tracing.js"

/** `JobQueue.layer` with the role's `work` (no configuration: `all`, the packages' own concurrency). */
export const layerJobQueue = (options: JobQueue.LayerOptions = {}) =>
  Layer.scoped(
    JobQueue.JobQueue,
    Effect.gen(function*() {
      const config = Option.getOrUndefined(yield* Effect.serviceOption(CurrentConfig))
      const metrics = Option.getOrUndefined(yield* Effect.serviceOption(CurrentMetrics))
      const queue = yield* JobQueue.make({
        ...options,
        // Shutdown is bounded once: running jobs get the same time as requests in flight, then pg-boss fails them
        // back to the queue (retried by whichever worker polls next).
        stopTimeout: options.stopTimeout ?? config?.shutdownTimeoutMs,
        // A server (its configuration is here) keeps its queue's connections, as its SQL pool does.
        holdConnections: options.holdConnections ?? config !== undefined,
        // Without the server's configuration (the API layer embedded, as in tests), `SIFT_JOBS_SCHEMA` is read here.
        schema: options.schema ?? config?.jobsSchema ?? (yield* Effect.orDie(jobsSchemaConfig))
      })
      // A job carries the trace context of the span that queued it (while tracing is on), for its own span's link.
      const send: JobQueue.JobQueueShape["send"] = (name, data, sendOptions) =>
        Tracing.enabled() ? Effect.flatMap(Tracing.withTraceContext(data), (traced) => queue.send(name, traced, sendOptions)) : queue.send(name, data, sendOptions)
      if (config?.role === "api") {
        return JobQueue.JobQueue.of({ send, work: () => Effect.void })
      }
      const work: JobQueue.JobQueueShape["work"] = (name, handler, workOptions = {}) => {
        const concurrency = config?.queueConcurrency[name] ?? workOptions.concurrency
        const timed = metrics === undefined ? handler : (job: JobQueue.Job) =>
          Effect.suspend(() => {
            const started = performance.now()
            return handler(job).pipe(
              Effect.onExit((exit) => Effect.sync(() => metrics.job(name, exit._tag === "Success", (performance.now() - started) / 1000)))
            )
          })
        // A delivery attempt's outcome (delivered, retrying, failed) is finer than its job's: counted on its own.
        const counted = metrics === undefined || name !== Deliveries.QUEUE ? timed : (job: JobQueue.Job) =>
          Effect.provideService(timed(job), Deliveries.AttemptOutcomes, metrics.webhookAttempt)
        const traced = (job: JobQueue.Job) => Tracing.jobSpan(name, job.data, counted(job))
        return queue.work(name, traced, { ...workOptions, concurrency })
      }
      return JobQueue.JobQueue.of({ send, work })
    })
  )
