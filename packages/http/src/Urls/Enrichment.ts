/**
 * Background enrichment of the URL index (issue 7): GET /web/urls answers at once with what the index holds and queues
 * the sites whose URLs have no metadata yet; durable pg-boss jobs (on the same database) then read those pages' titles,
 * descriptions, keywords and language into the index, so later maps return them.
 *
 * A job handles one site, batch by batch: it leases unenriched URLs (`UrlIndexLeases.claim`, so competing jobs and
 * replicas never fetch a page twice), reads them politely (one job per site at a time in a process, at most
 * {@link PER_HOST} pages at once, one at a time with the robots.txt `Crawl-delay` when the site sets one; pages
 * robots.txt disallows are marked done without a fetch) and stores what it read. After 15 s, or when the process is
 * stopping, it queues the rest as a new job before it completes. The chain is therefore durable: a stop lets the running
 * batch finish (pg-boss's graceful stop) and the next job waits in the database; a crash leaves leased URLs that lapse and are picked up again. At start-up every
 * site with URLs still waiting is queued again. pg-boss starts in the background, so it never delays serving.
 *
 * @since 0.1.0
 */
import { Fetcher } from "@sift/core"
import * as UrlDiscovery from "@sift/core/UrlDiscovery"
import { UrlIndex } from "@sift/core/UrlIndex"
import { siteHost } from "@sift/core/UrlNormal"
import { type Sql, JobQueue, UrlIndexStore } from "@sift/store"
import { Context, Deferred, Duration, Effect, Layer, Option, Scope } from "effect"

/** The pg-boss queue of enrichment jobs. */
export const QUEUE = "url-enrichment"

/** Pages of one host read at once. */
export const PER_HOST = 2

/** URLs a job leases and reads; the rest go to the next job. */
export const BATCH = 20

// A leased URL not enriched in this time (its worker stopped) is given to another job.
const LEASE_MS = 120_000
// The longest robots.txt Crawl-delay honoured (a site asking for more is still read, this slowly).
const MAX_CRAWL_DELAY_MS = 30_000
// How long one job keeps taking batches of its site before handing the rest to a new job.
const JOB_BUDGET_MS = 15_000
// A site queued again from this process within this time is not queued twice (its job is already waiting).
const REQUEUE_AFTER_MS = 5_000

/** Queues sites for enrichment. @category services */
export class UrlEnrichment extends Context.Tag("@sift/http/UrlEnrichment")<UrlEnrichment, {
  /** Queues a job for each site (fire and forget: the caller never waits for the job queue). */
  readonly queue: (sites: ReadonlyArray<string>) => Effect.Effect<void>
}>() {}

/** Reads one leased batch of `site` politely; returns how many URLs it held. */
const runBatch = (site: string) =>
  Effect.gen(function*() {
    const leases = yield* UrlIndexStore.UrlIndexLeases
    const urls = yield* leases.claim(site, BATCH, LEASE_MS)
    if (urls.length === 0) return 0
    // robots.txt decides what background work fetches (disallowed pages are marked done, still listed) and how fast.
    const { allows, crawlDelayMs } = yield* UrlDiscovery.politeness(urls[0]!)
    const delay = Math.min(crawlDelayMs, MAX_CRAWL_DELAY_MS)
    if (delay === 0) {
      yield* UrlDiscovery.enrich(site, urls, { concurrency: PER_HOST, allows })
    } else {
      for (const [i, url] of urls.entries()) {
        if (i > 0 && allows(url)) yield* Effect.sleep(Duration.millis(delay))
        yield* UrlDiscovery.enrich(site, [url], { concurrency: 1, allows })
      }
    }
    yield* Effect.logDebug(`enriched ${urls.length} URL(s) of ${site}`)
    return urls.length
  })

/**
 * One job: batches of `site` until none is left, the job's time budget is spent, or the process is stopping; then,
 * when the last batch was full, the rest is queued as a new job (durable before this one completes).
 */
const runJob = (site: string, priority: number, jobs: JobQueue.JobQueueShape, stopping: () => boolean) =>
  Effect.gen(function*() {
    const started = Date.now()
    for (;;) {
      const read = yield* runBatch(site)
      if (read < BATCH) return
      if (stopping() || Date.now() - started > JOB_BUDGET_MS) break
    }
    yield* jobs.send(QUEUE, { site, priority }, { ...sendOptions, priority })
  })

const sendOptions: JobQueue.SendOptions = { retryLimit: 3, retryDelay: 5, retryBackoff: true, expireInSeconds: 600 }

/** Worker options: how many jobs run at once in this process, and how often an idle worker polls. */
export interface Options {
  readonly concurrency?: number
  readonly pollingIntervalSeconds?: number
}

/**
 * `UrlEnrichment`, with the job queue and its worker running in the background for the layer's lifetime.
 *
 * @category layers
 */
export const layer = (
  options: Options = {}
): Layer.Layer<UrlEnrichment, never, Sql.Database | Fetcher.Fetcher | UrlIndex | UrlIndexStore.UrlIndexLeases | JobQueue.JobQueue> =>
  Layer.scoped(UrlEnrichment, Effect.gen(function*() {
    const scope = yield* Effect.scope
    const context = yield* Effect.context<Sql.Database | Fetcher.Fetcher | UrlIndex | UrlIndexStore.UrlIndexLeases | JobQueue.JobQueue>()
    const ready = yield* Deferred.make<Option.Option<JobQueue.JobQueueShape>>()
    const lastQueued = new Map<string, number>()
    let stopping = false
    // One job per site at a time in this process: two chains of one site (two maps) never double the load on a host.
    const siteLocks = new Map<string, Effect.Semaphore>()
    const oneAtATime = <A, E, R>(site: string, effect: Effect.Effect<A, E, R>) =>
      Effect.suspend(() => {
        let lock = siteLocks.get(site)
        if (lock === undefined) siteLocks.set(site, lock = Effect.unsafeMakeSemaphore(1))
        return lock.withPermits(1)(effect)
      })

    const start = Effect.gen(function*() {
      // The process's one job queue (two pg-boss instances on one embedded database would race installing it).
      const jobs = yield* JobQueue.JobQueue
      yield* jobs.work(
        QUEUE,
        (job) => {
          const { priority, site } = job.data as { site?: unknown; priority?: unknown }
          return typeof site === "string"
            ? oneAtATime(site, runJob(site, typeof priority === "number" ? priority : 0, jobs, () => stopping))
            : Effect.void
        },
        { concurrency: options.concurrency ?? 2, pollingIntervalSeconds: options.pollingIntervalSeconds ?? 2 }
      )
      // Runs first when the layer closes (finalizers run in reverse): running jobs end after their current batch.
      yield* Effect.addFinalizer(() => Effect.sync(() => {
        stopping = true
      }))
      yield* Deferred.succeed(ready, Option.some(jobs))
      // Resume: sites with URLs still waiting (the process may have stopped before their chain was queued).
      const pending = yield* Effect.flatMap(UrlIndexStore.UrlIndexLeases, (leases) => leases.pendingSites(10_000))
      // Below fresh requests (priority 1): a backlog left by an earlier run never delays the sites callers just mapped.
      yield* Effect.forEach(pending, (site) => jobs.send(QUEUE, { site, priority: 0 }, sendOptions), { discard: true })
    }).pipe(
      Scope.extend(scope),
      Effect.provide(context),
      Effect.catchAllCause((cause) =>
        Effect.zipRight(
          Effect.logWarning("URL enrichment is off: the job queue did not start", cause),
          Deferred.succeed(ready, Option.none())
        )
      )
    )
    yield* Effect.forkIn(start, scope)

    const queueOne = (site: string) =>
      Effect.gen(function*() {
        const jobs = yield* Deferred.await(ready)
        if (Option.isNone(jobs)) return
        yield* jobs.value.send(QUEUE, { site, priority: 1 }, { ...sendOptions, priority: 1 })
      }).pipe(Effect.catchAllCause((cause) => Effect.logWarning(`could not queue enrichment of ${site}`, cause)))

    return UrlEnrichment.of({
      queue: (sites) =>
        Effect.gen(function*() {
          const now = Date.now()
          const fresh = [...new Set(sites.map(siteHost))].filter((site) => now - (lastQueued.get(site) ?? 0) > REQUEUE_AFTER_MS)
          if (fresh.length === 0) return
          for (const site of fresh) lastQueued.set(site, now)
          if (lastQueued.size > 10_000) lastQueued.clear()
          yield* Effect.forkIn(Effect.forEach(fresh, queueOne, { discard: true }), scope)
        })
    })
  }))

/**
 * The store-backed index, its leases and enrichment: what GET /web/urls needs beside the Fetcher.
 *
 * @category layers
 */
export const layerIndex = (options: Options = {}) =>
  layer(options).pipe(Layer.provideMerge(UrlIndexStore.layer))
