/**
 * The events a finished monitor run produces (interface.md "Events", decisions §8): `change.detected` when the run
 * recorded a change, `run.completed` for every finished run; each with its own `evt_` id, for the webhook's `events`.
 */
import { Deliveries } from "@sift/webhooks"

/** The event names. */
export type EventType = "change.detected" | "run.completed"

/** The events a webhook gets when `events` is omitted on creation. */
export const DEFAULT_EVENTS: ReadonlyArray<EventType> = ["change.detected"]

/** The monitor as shown in an event. */
export interface MonitorSummary {
  readonly id: string
  readonly name: string
  readonly tags: ReadonlyArray<string>
}

/** One event as delivered (the body of the POST): the webhooks package's envelope with a monitor's event kinds. */
export type Event = Deliveries.Envelope<EventType, {
  readonly monitor: MonitorSummary
  readonly change?: unknown
  readonly run?: unknown
}>

const eventId = Deliveries.eventId

/**
 * The events of one finished run for a webhook subscribed to `events`: a change (when there is one) yields
 * `change.detected` with the full change; `run.completed` carries the run and the change or null.
 */
export const forRun = (input: {
  readonly monitor: MonitorSummary
  readonly run: unknown
  readonly change: unknown | null | undefined
  readonly events: ReadonlyArray<EventType>
  readonly now?: Date | undefined
}): ReadonlyArray<Event> => {
  const createdAt = (input.now ?? new Date()).toISOString()
  const monitor = { id: input.monitor.id, name: input.monitor.name, tags: [...input.monitor.tags] }
  const out: Array<Event> = []
  const change = input.change ?? null
  if (change !== null && input.events.includes("change.detected")) {
    out.push({ id: eventId(), type: "change.detected", created_at: createdAt, data: { monitor, change } })
  }
  if (input.events.includes("run.completed")) {
    out.push({ id: eventId(), type: "run.completed", created_at: createdAt, data: { monitor, run: input.run, change } })
  }
  return out
}
