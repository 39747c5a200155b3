/**
 * Monitors running in a process, on its job queue (pg-boss on the store's database) for runs and webhook deliveries: the delivery
 * worker (`Webhooks.layer`, emailing every user of the organization when a receiver keeps failing), the semantic judge
 * (`ChangeDetection.layerConfig`: deterministic unless an LLM is configured) and the scheduler with its run workers.
 *
 * @since 0.1.0
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { Effect, Layer } from "effect"
import * as ChangeDetection from "./ChangeDetection.js"
import * as MonitorScheduler from "./MonitorScheduler.js"
import { RUN_QUEUE } from "./Monitors.js"
import * as Webhooks from "./Webhooks.js"
import { QUEUE as DELIVERY_QUEUE } from "./internal/webhooks/Durable.js"

/** Options of the monitors layer. */
export interface Options {
  /** `SIFT_ALLOW_PRIVATE_TARGETS`: webhooks may go to non-public addresses. */
  readonly allowPrivateTargets: boolean
  readonly scheduler?: MonitorScheduler.Options | undefined
  /** pg-boss polling of the delivery worker (seconds; default 1). */
  readonly deliveryPollingSeconds?: number | undefined
}

/** The email addresses of every user of a monitor's organization. */
const recipientsOf = (monitorId: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ email: string }>`SELECT u.email FROM users u JOIN monitors m ON m.org_id = u.org_id WHERE m.id = ${monitorId}`).pipe(
      Effect.map((rows) => rows.map((r) => r.email)),
      Effect.orElseSucceed(() => [] as Array<string>)
    )

/** The pg-boss queues of monitors: declare them on the process's `JobQueue` (runs and deliveries are queued in transactions). */
export const QUEUES: ReadonlyArray<string> = [RUN_QUEUE, DELIVERY_QUEUE]

/**
 * The webhook deliveries, semantic judge and scheduler, on the process's `JobQueue` (declaring {@link QUEUES}).
 *
 * @category layers
 */
export const layer = (options: Options) => {
  const webhooks = Layer.unwrapEffect(Effect.map(Effect.context<SqlClient.SqlClient>(), (context) =>
    Webhooks.layer({
      allowPrivateTargets: options.allowPrivateTargets,
      pollingIntervalSeconds: options.deliveryPollingSeconds,
      recipients: (monitorId) => Effect.provide(recipientsOf(monitorId), context)
    })))
  const scheduler = MonitorScheduler.layer(options.scheduler)
  return scheduler.pipe(Layer.provideMerge(Layer.merge(webhooks, ChangeDetection.layerConfig)))
}
