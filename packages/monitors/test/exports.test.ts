import { describe, expect, it } from "@effect/vitest"
import * as Monitors from "../src/index.js"

describe("@sift/monitors exports", () => {
  it("exposes exactly the public modules and the migrations", () => {
    expect(Object.keys(Monitors).sort()).toEqual([
      "ChangeDetection", "FailureRecipients", "MonitorCharge", "MonitorErrors", "MonitorScheduler", "MonitorService", "MonitorSpec",
      "Monitors", "Webhooks", "migrations"
    ])
    expect(Object.keys(Monitors.migrations)).toEqual(["0001_monitors", "0003_webhook_secrets", "0004_run_slots"])
  })
})
