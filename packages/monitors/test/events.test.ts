/** The events a finished monitor run produces (the envelopes monitors hand to @sift/webhooks). */
import { describe, expect, it } from "@effect/vitest"
import * as Events from "../src/internal/monitors/events.js"

const monitor = { id: "mon_123", name: "Pricing page", tags: ["pricing", "competitor"] }
const run = { id: "run_1", status: "completed" }
const change = { id: "chg_1", summary: "Price changed" }

describe("webhook events", () => {
  it("a run with a change yields change.detected and run.completed as two events with their own ids", () => {
    const events = Events.forRun({ monitor, run, change, events: ["change.detected", "run.completed"], now: new Date(0) })
    expect(events.map((e) => e.type)).toEqual(["change.detected", "run.completed"])
    expect(events[0]!.id).toMatch(/^evt_[0-9a-f]{24}$/)
    expect(events[0]!.id).not.toBe(events[1]!.id)
    expect(events[0]).toMatchObject({ created_at: "1970-01-01T00:00:00.000Z", data: { monitor, change } })
    expect(events[0]!.data.run).toBeUndefined()
    expect(events[1]!.data).toEqual({ monitor, run, change })
  })

  it("a run without a change yields run.completed with change null, and nothing for change.detected only", () => {
    expect(Events.forRun({ monitor, run, change: null, events: ["change.detected"] })).toEqual([])
    const [completed] = Events.forRun({ monitor, run, change: undefined, events: ["change.detected", "run.completed"] })
    expect(completed).toMatchObject({ type: "run.completed", data: { monitor, run, change: null } })
  })
})
