/**
 * `memory://` databases are copies of one template made once per process: the second, third... must open as the first
 * did (a transferred view of the cached template once detached it, and every later open failed).
 */
import { describe, expect, it } from "@effect/vitest"
import * as SqlClient from "@effect/sql/SqlClient"
import { Effect } from "effect"
import * as Sql from "../src/Sql.js"

const count = Effect.flatMap(SqlClient.SqlClient, (sql) =>
  Effect.zipRight(sql`CREATE TABLE t (n int); INSERT INTO t VALUES (1)`.unprepared, sql<{ n: number }>`SELECT count(*)::int AS n FROM t`))

describe("PGlite in memory", () => {
  it.effect("opens three databases in one process, each empty and its own", () =>
    Effect.gen(function*() {
      for (let i = 0; i < 3; i++) {
        const rows = yield* Effect.provide(count, Sql.layerPglite({ dir: "memory://" }))
        expect(rows[0]?.n).toBe(1)
      }
    }), 120_000)
})
