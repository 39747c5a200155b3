/**
 * When runs are due. Each monitor has a fixed phase inside its interval, from a hash of its id, so monitors created
 * together (or all overdue after a restart) spread evenly over the interval instead of firing at once; a monitor then
 * keeps its phase from run to run.
 */
import { createHash } from "node:crypto"

/** The spread of catch-up runs after downtime: overdue monitors run within this window, each at its own phase. */
export const CATCH_UP_WINDOW_MS = 10 * 60_000

/** A monitor's phase, uniform in [0, 1). */
export const phaseOf = (monitorId: string): number =>
  createHash("sha256").update(monitorId).digest().readUInt32BE(0) / 0x1_0000_0000

/** The first slot of the monitor strictly after `after`. */
export const nextSlot = (monitorId: string, intervalMs: number, after: number): number => {
  const offset = Math.floor(phaseOf(monitorId) * intervalMs)
  const slot = Math.floor((after - offset) / intervalMs) * intervalMs + offset
  return slot > after ? slot : slot + intervalMs
}

/**
 * The slot after the one due at `dueAt`, claimed at `now`: the monitor's next slot at its phase, but never less than
 * one interval after `dueAt`. A catch-up slot lies off the phase grid, and the grid slot right after it may be seconds
 * away: the monitor then keeps the catch-up time as its phase instead of running twice inside one interval.
 */
export const slotAfter = (monitorId: string, intervalMs: number, dueAt: number, now: number): number =>
  Math.max(nextSlot(monitorId, intervalMs, now), dueAt + intervalMs)

/** When an overdue monitor catches up: within the catch-up window (or its interval, when shorter), at its phase. */
export const catchUpAt = (monitorId: string, intervalMs: number, now: number): number =>
  now + Math.floor(phaseOf(monitorId) * Math.min(intervalMs, CATCH_UP_WINDOW_MS))
