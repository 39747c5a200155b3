import { describe, expect, it } from "@effect/vitest"
import { ConfigProvider, Effect, Layer } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as Store from "../src/index.js"
import { postgresUrl } from "./support/backends.js"

const backendUnder = (env: Record<string, string>) =>
  Effect.map(Store.Sql.Database, (db) => db.backend).pipe(
    Effect.provide(Store.Sql.layerConfig().pipe(Layer.provide(Layer.setConfigProvider(ConfigProvider.fromJson(env)))))
  )

describe("Sql.layerConfig", () => {
  it.live("uses PGlite in <SIFT_DATA_DIR>/pgdata when DATABASE_URL is unset", () =>
    Effect.gen(function*() {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "sift-config-"))
      try {
        expect(yield* backendUnder({ SIFT_DATA_DIR: dir })).toBe("pglite")
        expect(fs.existsSync(path.join(dir, "pgdata", "PG_VERSION"))).toBe(true)
      } finally {
        fs.rmSync(dir, { recursive: true, force: true })
      }
    }), 120_000)

  it.live.skipIf(postgresUrl === null)("uses PostgreSQL when DATABASE_URL is set", () =>
    Effect.gen(function*() {
      expect(yield* backendUnder({ DATABASE_URL: postgresUrl!, SIFT_DATA_DIR: "/nonexistent/never-created" })).toBe("postgres")
      expect(fs.existsSync("/nonexistent/never-created")).toBe(false)
    }))
})

describe("public exports", () => {
  it("are exactly these modules", () => {
    expect(Object.keys(Store).sort()).toEqual(["BlobStore", "CacheStore", "DataDirLock", "GroupCommit", "JobQueue", "Journal", "Mailer", "Migrations", "PgliteClient", "Sql", "UrlIndexStore", "WriteBehind"])
  })
})
