/**
 * Monitors running in a process, on its job queue (pg-boss on the store's database) for runs and webhook deliveries: the delivery
 * worker (`Webhooks.layer`, emailing the organization's `FailureRecipients` when a receiver keeps failing), the semantic judge
 * (`ChangeDetection.layerConfig`: deterministic unless an LLM is configured) and the scheduler with its run workers
 * (charging through `MonitorCharge`). `FailureRecipients` and `MonitorCharge` come from the embedding service.
 *
 * @since 0.1.0
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { Deliveries } from "@sift/webhooks"
import { Effect, Layer } from "effect"
import * as ChangeDetection from "./ChangeDetection.js"
import { FailureRecipients } from "./FailureRecipients.js"
import * as MonitorScheduler from "./MonitorScheduler.js"
import { RUN_QUEUE } from "./Monitors.js"
import * as Webhooks from "./Webhooks.js"

/** Options of the monitors layer. */
export interface Options {
  /** `SIFT_ALLOW_PRIVATE_TARGETS`: webhooks may go to non-public addresses. */
  readonly allowPrivateTargets: boolean
  readonly scheduler?: MonitorScheduler.Options | undefined
  /** pg-boss polling of the delivery worker (seconds; default 1). */
  readonly deliveryPollingSeconds?: number | undefined
}

/** The failure-email addresses of a monitor's organization (none when the monitor is gone or the lookup fails). */
const recipientsOf = (monitorId: string) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const recipients = yield* FailureRecipients
    const [monitor] = yield* sql<{ org_id: string }>`SELECT org_id FROM monitors WHERE id = ${monitorId}`
    return monitor === undefined ? [] : yield* recipients.of(monitor.org_id)
  }).pipe(Effect.orElseSucceed((): ReadonlyArray<string> => []))

/** The pg-boss queues of monitors: declare them on the process's `JobQueue` (runs and deliveries are queued in transactions). */
export const QUEUES: ReadonlyArray<string> = [RUN_QUEUE, Deliveries.QUEUE]

/**
 * The webhook deliveries, semantic judge and scheduler, on the process's `JobQueue` (declaring {@link QUEUES}).
 *
 * @category layers
 */
export const layer = (options: Options) => {
  const webhooks = Layer.unwrapEffect(Effect.map(Effect.context<SqlClient.SqlClient | FailureRecipients>(), (context) =>
    Webhooks.layer({
      allowPrivateTargets: options.allowPrivateTargets,
      pollingIntervalSeconds: options.deliveryPollingSeconds,
      recipients: (monitorId) => Effect.provide(recipientsOf(monitorId), context)
    })))
  const scheduler = MonitorScheduler.layer(options.scheduler)
  return scheduler.pipe(Layer.provideMerge(Layer.merge(webhooks, ChangeDetection.layerConfig)))
}
