import { describe, expect, it } from "@effect/vitest"
import * as Webhooks from "../src/index.js"

describe("@sift/webhooks exports", () => {
  it("exposes exactly the public modules and the migrations", () => {
    expect(Object.keys(Webhooks).sort()).toEqual(["Deliveries", "Failures", "Secrets", "Signature", "migrations"])
    expect(Object.keys(Webhooks.migrations)).toEqual(["0001_webhooks", "0002_delivery_times"])
  })
})
