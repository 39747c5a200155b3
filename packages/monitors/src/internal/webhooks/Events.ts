/**
 * The events a finished monitor run produces (interface.md "Events", decisions §8): `change.detected` when the run
 * recorded a change, `run.completed` for every finished run; each with its own `evt_` id, for the webhook's `events`.
 */
import { randomBytes } from "node:crypto"

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

/** One event as delivered (the body of the POST). */
export interface Event {
  readonly id: string
  readonly type: EventType
  readonly created_at: string
  readonly data: {
    readonly monitor: MonitorSummary
    readonly change?: unknown
    readonly run?: unknown
  }
}

/** A new event id: `evt_` and 24 hex characters. */
export const eventId = (): string => `evt_${randomBytes(12).toString("hex")}`

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
