import { describe, expect, it } from "@effect/vitest"
import { createRequire } from "node:module"
import * as Auth from "../src/index.js"

describe("@sift/auth exports", () => {
  it("exposes exactly the public modules, the services' layer and the migrations", () => {
    expect(Object.keys(Auth).sort()).toEqual([
      "Accounts", "AgentRegistration", "ApiKeys", "AuthErrors", "CreditLedger", "Ids", "OAuthGrants", "Passwords", "Permissions", "Plans",
      "RateLimiter", "Users", "layer", "migrations"
    ])
  })

  it("keeps its migration history: ids are never renamed or removed, new ones come last", () => {
    expect(Object.keys(Auth.migrations)).toEqual(["0001_accounts", "0002_key_lookup", "0003_unlogged_metering", "0004_agents", "0005_oauth", "0006_credit_holds", "0007_credit_functions", "0008_credit_floats"])
  })

  it("publishes the package root and its modules, never internal/", () => {
    const manifest = createRequire(import.meta.url)("../package.json") as { readonly exports: Record<string, unknown> }
    expect(Object.keys(manifest.exports)).toEqual([".", "./internal/*", "./*"])
    expect(manifest.exports["./internal/*"]).toBeNull()
  })
})
