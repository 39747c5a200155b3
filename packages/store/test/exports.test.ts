import { describe, expect, it } from "@effect/vitest"
import { createRequire } from "node:module"
import * as Store from "../src/index.js"

describe("@sift/store exports", () => {
  it("exposes exactly the public modules", () => {
    expect(Object.keys(Store).sort()).toEqual([
      "BlobStore", "CacheStore", "DataDirLock", "GroupCommit", "JobQueue", "Journal", "Mailer", "Migrations", "PgliteClient", "Sql", "UrlIndexStore",
      "WriteBehind"
    ])
  })

  it("keeps the store's own migrations and the blob interface", () => {
    expect(Object.keys(Store.Migrations.store)).toEqual(["0001_blobs", "0002_cache_entries", "0003_cache_entries_bytes", "0004_url_index", "0005_cache_entries_encoding"])
    expect(Object.keys(Store.Mailer.migrations).length).toBeGreaterThan(0)
    expect(Object.keys(Store.BlobStore).sort()).toEqual(["BlobStore", "layerSql", "makeSql"])
  })

  it("publishes the package root and its modules, never internal/", () => {
    const manifest = createRequire(import.meta.url)("../package.json") as { readonly exports: Record<string, unknown> }
    expect(Object.keys(manifest.exports)).toEqual([".", "./internal/*", "./*"])
    expect(manifest.exports["./internal/*"]).toBeNull()
  })
})
