/**
 * Durable jobs through pg-boss on the store's database. On PostgreSQL pg-boss opens its own small pool with the same
 * connection string; on PGlite every pg-boss query goes through the PGlite session's semaphore (`Database.executeSql`),
 * so it never runs inside another fiber's transaction. A job sent inside `sql.withTransaction` is written through that
 * transaction's connection: it exists if and only if the transaction commits.
 *
 * @since 0.1.0
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { Cause, Context, Effect, Exit, Layer, Option, Redacted, Runtime, Schema, Scope } from "effect"
import PgBoss from "pg-boss"
import { Database } from "./Sql.js"

/**
 * A job as a handler sees it.
 *
 * @category models
 */
export interface Job {
  readonly id: string
  readonly queue: string
  readonly data: unknown
}

/**
 * Per-job delivery options. A failing job is retried `retryLimit` times (default 2), `retryDelay` seconds apart
 * (doubling with `retryBackoff`); past that it is marked failed.
 *
 * @category models
 */
export interface SendOptions {
  readonly retryLimit?: number | undefined
  readonly retryDelay?: number | undefined
  readonly retryBackoff?: boolean | undefined
  readonly startAfter?: Date | number | undefined
  readonly singletonKey?: string | undefined
  readonly priority?: number | undefined
  readonly expireInSeconds?: number | undefined
}

/**
 * Worker options: how often an idle worker polls (seconds, at least 0.5; default 2) and how many jobs it runs at once.
 *
 * @category models
 */
export interface WorkOptions {
  readonly pollingIntervalSeconds?: number | undefined
  readonly concurrency?: number | undefined
}

/**
 * The queue could not be reached or refused an operation.
 *
 * @category errors
 */
export class JobQueueError extends Schema.TaggedError<JobQueueError>()("JobQueueError", {
  reason: Schema.Literal("Unavailable", "UndeclaredQueue"),
  queue: Schema.optional(Schema.String),
  cause: Schema.optional(Schema.Defect)
}) {
  override get message(): string {
    switch (this.reason) {
      case "UndeclaredQueue":
        return `queue ${this.queue} must be declared in JobQueue.layer({ queues }) to be used inside a transaction on PGlite`
      case "Unavailable":
        return `job queue unavailable${this.queue ? ` (${this.queue})` : ""}: ${String((this.cause as Error)?.message ?? this.cause)}`
    }
  }
}

/**
 * The job queue service.
 *
 * @category models
 */
export interface JobQueueShape {
  /** Enqueues a job; `None` when a singleton key suppressed it. Joins the current SQL transaction, if any. */
  readonly send: (queue: string, data: object, options?: SendOptions) => Effect.Effect<Option.Option<string>, JobQueueError>
  /** Runs `handler` for each job of `queue` until the scope closes; a failure (error or defect) triggers a retry. */
  readonly work: <E, R>(
    queue: string,
    handler: (job: Job) => Effect.Effect<void, E, R>,
    options?: WorkOptions
  ) => Effect.Effect<void, JobQueueError, R | Scope.Scope>
}

/** @category tags */
export class JobQueue extends Context.Tag("@sift/store/JobQueue")<JobQueue, JobQueueShape>() {}

/**
 * Layer options. `queues` are created at start (needed for sending inside a transaction on PGlite); `supervise` runs
 * pg-boss's maintenance (expiry, archiving), on by default; `stopTimeout` bounds the graceful stop.
 *
 * @category models
 */
export interface LayerOptions {
  readonly queues?: ReadonlyArray<string> | undefined
  readonly supervise?: boolean | undefined
  readonly stopTimeout?: number | undefined
  /** pg-boss's schema on PostgreSQL (default `pgboss`): installations or tests sharing one database keep apart. */
  readonly schema?: string | undefined
  /**
   * How often pg-boss's maintenance runs (seconds, default 30; one process of all sharing the queue does it each time):
   * it is what finds a job past its `expireInSeconds` (its worker died) and queues its retry.
   */
  readonly maintenanceIntervalSeconds?: number | undefined
  /** On PostgreSQL, pg-boss's pool keeps the connections it opens (see `Sql.layerPg`'s `holdConnections`). */
  readonly holdConnections?: boolean | undefined
}

/** pg-boss's pool size on PostgreSQL. */
const JOB_CONNECTIONS = 4

/** pg-boss's default is 120 s; a dead worker's job should wait its expiry and not much more before it is retried. */
const MAINTENANCE_INTERVAL_SECONDS = 30

const unavailable = (queue?: string) => (cause: unknown) => new JobQueueError({ reason: "Unavailable", queue, cause })

/**
 * Starts pg-boss on the store's database (installing or migrating its `pgboss` schema) and stops it gracefully, letting
 * running jobs finish, when the scope closes.
 *
 * @category constructors
 */
export const make = (options: LayerOptions = {}): Effect.Effect<JobQueueShape, JobQueueError, Database | Scope.Scope> =>
  Effect.gen(function*() {
    const database = yield* Database
    const runtime = yield* Effect.runtime<never>()
    const runPromise = Runtime.runPromise(runtime)

    // Queries pg-boss has issued and not yet seen answered: its `complete` after a job is not awaited, so a stop waits
    // for these to drain before the database underneath can close.
    let inFlight = 0
    const executeSql = async (text: string, values?: Array<unknown>) => {
      inFlight++
      try {
        return (await runPromise(database.executeSql(text, values ?? []))) as { rows: Array<any> }
      } finally {
        inFlight--
      }
    }

    const boss = database.backend === "postgres"
      ? new PgBoss({
        connectionString: Redacted.value(Option.getOrThrow(database.url)),
        max: JOB_CONNECTIONS,
        // node-postgres's pool option, which pg-boss passes on (its types do not list it).
        ...(options.holdConnections === true ? { min: JOB_CONNECTIONS } : {}),
        application_name: "sift-jobs",
        ...(options.schema === undefined ? {} : { schema: options.schema }),
        supervise: options.supervise ?? true,
        maintenanceIntervalSeconds: options.maintenanceIntervalSeconds ?? MAINTENANCE_INTERVAL_SECONDS,
        schedule: false
      })
      // PGlite: no pool, every query through the session semaphore. Cron scheduling is off (not needed).
      : new PgBoss({
        db: { executeSql },
        supervise: options.supervise ?? true,
        maintenanceIntervalSeconds: options.maintenanceIntervalSeconds ?? MAINTENANCE_INTERVAL_SECONDS,
        schedule: false
      })
    boss.on("error", (error) => Runtime.runFork(runtime)(Effect.logWarning("pg-boss", error)))

    yield* Effect.acquireRelease(
      Effect.tryPromise({ try: () => boss.start(), catch: unavailable() }),
      () =>
        Effect.promise(async () => {
          await boss.stop({ graceful: true, wait: true, timeout: options.stopTimeout ?? 30_000 })
          const deadline = Date.now() + 5_000
          while (inFlight > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10))
        }).pipe(Effect.orDie)
    )

    // pg-boss 10 needs a queue created before use. One creation per queue in this process; between processes,
    // concurrent `create_queue` calls can deadlock on PostgreSQL (both lock the partitioned job table), and the loser
    // simply retries, finding the queue there.
    const ensured = new Set<string>()
    const creating = new Map<string, Promise<void>>()
    const createQueue = async (queue: string) => {
      for (let attempt = 1;; attempt++) {
        try {
          if ((await boss.getQueue(queue)) === null) await boss.createQueue(queue)
          ensured.add(queue)
          return
        } catch (error) {
          if ((error as { code?: string }).code !== "40P01" || attempt >= 5) throw error
          await new Promise((r) => setTimeout(r, 20 * attempt))
        }
      }
    }
    const ensure = (queue: string) =>
      ensured.has(queue) ? Effect.void : Effect.tryPromise({
        try: () => {
          let pending = creating.get(queue)
          if (pending === undefined) {
            pending = createQueue(queue).finally(() => creating.delete(queue))
            creating.set(queue, pending)
          }
          return pending
        },
        catch: unavailable(queue)
      })
    yield* Effect.forEach(options.queues ?? [], ensure, { discard: true })

    const send: JobQueueShape["send"] = (queue, data, sendOptions = {}) =>
      Effect.gen(function*() {
        const transaction = yield* Effect.serviceOption(SqlClient.TransactionConnection)
        if (Option.isNone(transaction)) {
          yield* ensure(queue)
          return yield* Effect.tryPromise({ try: () => boss.send(queue, data, sendOptions), catch: unavailable(queue) })
        }
        // Inside a transaction: create the queue outside it would wait for the session the transaction holds (PGlite).
        if (!ensured.has(queue)) {
          if (database.backend === "pglite") return yield* new JobQueueError({ reason: "UndeclaredQueue", queue })
          yield* ensure(queue)
        }
        const [connection] = transaction.value
        const db = {
          executeSql: (text: string, values: Array<unknown>) =>
            runPromise(connection.executeRaw(text, values)) as Promise<{ rows: Array<any> }>
        }
        return yield* Effect.tryPromise({ try: () => boss.send(queue, data, { ...sendOptions, db }), catch: unavailable(queue) })
      }).pipe(Effect.map(Option.fromNullable))

    const work: JobQueueShape["work"] = (queue, handler, workOptions = {}) =>
      Effect.gen(function*() {
        yield* ensure(queue)
        const handlerRuntime = yield* Effect.runtime<Effect.Effect.Context<ReturnType<typeof handler>>>()
        const runJob = async (job: PgBoss.Job<object>) => {
          const exit = await Runtime.runPromiseExit(handlerRuntime)(handler({ id: job.id, queue, data: job.data }))
          // pg-boss stores the thrown error as the job's output and schedules the retry.
          if (Exit.isFailure(exit)) throw new Error(Cause.pretty(exit.cause))
        }
        const concurrency = Math.max(1, workOptions.concurrency ?? 1)
        const pollingIntervalSeconds = workOptions.pollingIntervalSeconds ?? 2
        const ids = yield* Effect.forEach(
          Array.from({ length: concurrency }),
          () =>
            Effect.tryPromise({
              try: () => {
                // pg-boss waits a polling interval between fetches even when jobs are waiting; after a job, the worker
                // is woken at once, so a backlog drains at the speed of the handlers, not one job per interval.
                let id: string | undefined
                return boss.work<object>(queue, { pollingIntervalSeconds, batchSize: 1 }, async ([job]) => {
                  try {
                    await runJob(job!)
                  } finally {
                    if (id !== undefined) boss.notifyWorker(id)
                  }
                }).then((workerId) => (id = workerId))
              },
              catch: unavailable(queue)
            }),
          { concurrency: "unbounded" }
        )
        yield* Effect.addFinalizer(() =>
          Effect.forEach(ids, (id) => Effect.promise(() => boss.offWork({ id })), { discard: true })
        )
      })

    return { send, work }
  })

/**
 * `JobQueue` on the store's database.
 *
 * @category layers
 */
export const layer = (options: LayerOptions = {}): Layer.Layer<JobQueue, JobQueueError, Database> =>
  Layer.scoped(JobQueue, make(options))
