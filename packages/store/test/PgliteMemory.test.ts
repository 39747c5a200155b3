/**
 * PGlite's memory (issue 24, item 1): PostgreSQL runs with settings for one embedded session (not a server's 128 MB of
 * shared buffers), configurable through SIFT_PGLITE_SHARED_BUFFERS_MB, and a new database's initdb (which grows the
 * WebAssembly heap to ~750 MB that the process never gets back) runs outside this process.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { describe, expect, it } from "@effect/vitest"
import { ConfigProvider, Effect, Layer } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as Sql from "../src/Sql.js"

const settings = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const show = (name: string) =>
    Effect.map(sql.unsafe<Record<string, string>>(`SHOW ${name}`), (rows) => Object.values(rows[0]!)[0])
  return {
    sharedBuffers: yield* show("shared_buffers"),
    maxConnections: yield* show("max_connections"),
    walBuffers: yield* show("wal_buffers"),
    workMem: yield* show("work_mem"),
    maintenanceWorkMem: yield* show("maintenance_work_mem"),
    timezone: yield* show("timezone")
  }
})

const underConfig = (env: Record<string, string>) =>
  Sql.layerConfig().pipe(Layer.provide(Layer.setConfigProvider(ConfigProvider.fromJson(env))))

const tempDir = () => fs.mkdtempSync(path.join(os.tmpdir(), "sift-pglite-memory-"))

describe("PGlite memory settings", () => {
  it.live("an in-memory database runs with one session's settings, keeping initdb's own (timezone)", () =>
    Effect.gen(function*() {
      expect(yield* settings.pipe(Effect.provide(Sql.layerPglite({ dir: "memory://" })))).toEqual({
        sharedBuffers: "16MB",
        maxConnections: "5",
        walBuffers: "1MB",
        workMem: "2MB",
        maintenanceWorkMem: "16MB",
        timezone: "UTC"
      })
    }), 180_000)

  it.live("SIFT_PGLITE_SHARED_BUFFERS_MB sets shared_buffers of a data directory, every time it is opened", () =>
    Effect.gen(function*() {
      const dir = tempDir()
      try {
        const first = yield* settings.pipe(Effect.provide(underConfig({ SIFT_DATA_DIR: dir, SIFT_PGLITE_SHARED_BUFFERS_MB: "8" })))
        expect(first.sharedBuffers).toBe("8MB")
        const again = yield* settings.pipe(Effect.provide(underConfig({ SIFT_DATA_DIR: dir, SIFT_PGLITE_SHARED_BUFFERS_MB: "24" })))
        expect(again.sharedBuffers).toBe("24MB")
        expect((yield* settings.pipe(Effect.provide(underConfig({ SIFT_DATA_DIR: dir })))).sharedBuffers).toBe("16MB")
      } finally {
        fs.rmSync(dir, { recursive: true, force: true })
      }
    }), 240_000)

  it.live("a bad SIFT_PGLITE_SHARED_BUFFERS_MB is a config error naming it, and opens nothing", () =>
    Effect.gen(function*() {
      const dir = path.join(tempDir(), "never")
      for (const value of ["0", "abc", "4096"]) {
        const error = yield* Effect.flip(settings.pipe(Effect.provide(underConfig({ SIFT_DATA_DIR: dir, SIFT_PGLITE_SHARED_BUFFERS_MB: value }))))
        expect(String(error)).toContain("SIFT_PGLITE_SHARED_BUFFERS_MB")
      }
      expect(fs.existsSync(dir)).toBe(false)
    }))

  it.live("creating a database in a new data directory leaves initdb's memory outside this process", () =>
    Effect.gen(function*() {
      const dir = tempDir()
      try {
        const before = process.memoryUsage().rss
        const grown = yield* Effect.map(settings, () => process.memoryUsage().rss - before).pipe(
          Effect.provide(Sql.layerPglite({ dir }))
        )
        expect(fs.existsSync(path.join(dir, "pgdata", "PG_VERSION"))).toBe(true)
        // Opening costs ~100-150 MB (WebAssembly code and heap); initdb in this process cost ~750 MB more.
        expect(grown / 1024 / 1024).toBeLessThan(350)
      } finally {
        fs.rmSync(dir, { recursive: true, force: true })
      }
    }), 240_000)
})
