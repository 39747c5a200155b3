/**
 * The event envelope every webhook delivery sends: `{ id, type, created_at, data }`. The package knows no event kinds;
 * the sender (monitors today, batches next) names them and shapes `data`.
 */
import { randomBytes } from "node:crypto"

/** One event as delivered (the body of the POST). */
export interface Envelope<Type extends string = string, Data = unknown> {
  /** `evt_` and 24 hex characters: the same on every attempt, so receivers drop duplicates by it. */
  readonly id: string
  readonly type: Type
  readonly created_at: string
  readonly data: Data
}

/** A new event id: `evt_` and 24 hex characters. */
export const eventId = (): string => `evt_${randomBytes(12).toString("hex")}`
