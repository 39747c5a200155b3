import { describe, expect, it } from "@effect/vitest"
import { createRequire } from "node:module"
import * as Http from "../src/index.js"

describe("@sift/http exports", () => {
  it("exposes exactly the public modules", () => {
    expect(Object.keys(Http).sort()).toEqual([
      "Admin", "App", "Cli", "ErrorMapping", "QueryParams", "RequestLog", "RequestPipeline", "Server", "ServiceConfig"
    ])
  })

  it("registers every package's migrations under its own key (the OAuth tables are auth's, not an mcp key)", () => {
    const keys = Object.keys(Http.App.migrations)
    expect(keys).toEqual(expect.arrayContaining(["auth", "http", "mailer", "monitors"]))
    expect(keys).not.toContain("mcp")
    expect(Object.keys(Http.App.migrations.auth)).toContain("0005_oauth")
  })

  it("publishes the package root and its modules, never internal/", () => {
    const manifest = createRequire(import.meta.url)("../package.json") as { readonly exports: Record<string, unknown> }
    expect(Object.keys(manifest.exports)).toEqual([".", "./internal/*", "./*"])
    expect(manifest.exports["./internal/*"]).toBeNull()
  })
})
