/**
 * Webhook events of monitors (interface.md "Events", decisions §8), delivered by `@sift/webhooks`. `WebhookEvents.emit`
 * is called after each finished run: it records one durable delivery per subscribed event (`change.detected`,
 * `run.completed`, each with its own `evt_` id) and answers their ids for the run's `webhook_delivery_ids`. The layer
 * works the delivery queue and emails the organization when a receiver keeps failing.
 *
 * @since 0.1.0
 */
import * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import { JobQueue, type JobQueueError } from "@sift/store/JobQueue"
import { Mailer } from "@sift/store/Mailer"
import { Deliveries, Secrets } from "@sift/webhooks"
import { Context, Effect, Layer } from "effect"
import * as Events from "./internal/monitors/events.js"

/** A monitor's webhook as stored by the monitors package. */
export interface WebhookSettings {
  readonly url: string
  readonly events?: ReadonlyArray<Events.EventType> | undefined
  readonly retry?: Deliveries.RetrySetting
}

/** What `emit` needs of a monitor. */
export interface MonitorForEvents {
  readonly id: string
  readonly name: string
  readonly tags: ReadonlyArray<string>
  readonly webhook: WebhookSettings | null | undefined
}

/**
 * Emits the events of finished runs.
 *
 * @category services
 */
export class WebhookEvents extends Context.Tag("@sift/monitors/WebhookEvents")<WebhookEvents, {
  /** Records and queues the deliveries of one finished run; answers their ids (empty without a webhook). */
  readonly emit: (input: {
    readonly monitor: MonitorForEvents
    readonly run: { readonly id: string } & Record<string, unknown>
    readonly change: unknown | null | undefined
  }) => Effect.Effect<ReadonlyArray<string>, SqlError | JobQueueError>
}>() {}

/** Options of the layer. */
export interface Options {
  /** `SIFT_ALLOW_PRIVATE_TARGETS`: deliver to non-public addresses too. */
  readonly allowPrivateTargets: boolean
  /** The addresses to email when a monitor's deliveries keep failing (every user of its organization). */
  readonly recipients: (monitorId: string) => Effect.Effect<ReadonlyArray<string>>
  readonly pollingIntervalSeconds?: number | undefined
}

/**
 * The service, and the delivery worker for the layer's lifetime.
 *
 * @category layers
 */
export const layer = (options: Options): Layer.Layer<WebhookEvents, JobQueueError, SqlClient.SqlClient | JobQueue | Mailer> =>
  Layer.scoped(
    WebhookEvents,
    Effect.gen(function*() {
      const context = yield* Effect.context<SqlClient.SqlClient | JobQueue>()
      const mailer = yield* Mailer
      yield* Deliveries.worker({
        allowPrivateTargets: options.allowPrivateTargets,
        pollingIntervalSeconds: options.pollingIntervalSeconds,
        onFailureStreak: ({ failure, ownerId: monitorId, url }) =>
          Effect.flatMap(options.recipients(monitorId), (to) =>
            Effect.forEach(to, (address) =>
              mailer.send({
                to: address,
                subject: `Sift: webhook deliveries failing for monitor ${monitorId}`,
                text: `The last ${failure.consecutive_failures} deliveries to ${url} failed ` +
                  `(${failure.last_status}: ${failure.last_message}). Sift keeps trying with each run; ` +
                  `check the receiver or change the monitor's webhook URL.`
              }).pipe(Effect.catchAll((error) => Effect.logWarning("webhook failure email not sent", error))),
              { discard: true }))
      })
      return WebhookEvents.of({
        emit: ({ change, monitor, run }) =>
          Effect.gen(function*() {
            const webhook = monitor.webhook
            if (webhook === null || webhook === undefined) return []
            const events = Events.forRun({
              monitor,
              run,
              change,
              events: webhook.events ?? Events.DEFAULT_EVENTS
            })
            // Makes sure the URL has its secret before the first attempt reads it (a run is a write path).
            yield* Secrets.secretFor(monitor.id, webhook.url)
            return yield* Effect.forEach(events, (event) =>
              Deliveries.enqueue({ ownerId: monitor.id, runId: run.id, url: webhook.url, retry: webhook.retry, event }))
          }).pipe(Effect.provide(context))
      })
    })
  )
