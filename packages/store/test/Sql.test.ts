import { describe, expect, it, layer as testLayer } from "@effect/vitest"
import * as SqlClient from "@effect/sql/SqlClient"
import { Context, Effect, Fiber, Layer, Option, Redacted } from "effect"
import * as BlobStore from "../src/BlobStore.js"
import * as Migrations from "../src/Migrations.js"
import * as Sql from "../src/Sql.js"
import { backends, postgresUrl, title, unique } from "./support/backends.js"

// A package of its own per run, so a shared PostgreSQL database starts each run without these migrations.
const testPackage = (table: string): Migrations.MigrationRecords => ({
  [`test_${table}`]: {
    "0001_create": Effect.flatMap(SqlClient.SqlClient, (sql) => sql`CREATE TABLE ${sql(table)} (n int NOT NULL)`),
    "0002_seed": Effect.flatMap(SqlClient.SqlClient, (sql) => sql`INSERT INTO ${sql(table)} (n) VALUES (1)`)
  }
})

const count = (table: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.map(sql<{ c: number }>`SELECT count(*)::int AS c FROM ${sql(table)}`, (rows) => rows[0]!.c))

for (const backend of backends) {
  describe.skipIf(backend.skip !== undefined)(title(backend), () => {
    // Fresh: @effect/vitest shares one memo map between `layer` blocks, so the same BlobStore layer object would
    // otherwise be built once (on the first backend) and reused by the next.
    const layer = Layer.provideMerge(
      Layer.fresh(BlobStore.layerSql),
      Layer.tap(backend.layer(), (ctx) => Effect.provide(Migrations.run({ store: Migrations.store }), ctx))
    )

    // Live services: the isolation test sleeps on the real clock.
    testLayer(layer, { timeout: 120_000, excludeTestServices: true })((it) => {
      it.effect("reports its backend", () =>
        Effect.gen(function*() {
          const database = yield* Sql.Database
          expect(database.backend).toBe(backend.name)
          const rows = yield* database.executeSql("SELECT 1 AS one; SELECT 2 AS two")
          expect(rows.rows).toEqual([{ two: 2 }])
        }))

      it.effect("takes a JoinedText parameter as its joined text (and long text exactly), multibyte and empty included", () =>
        Effect.gen(function*() {
          const sql = yield* SqlClient.SqlClient
          const records = Array.from({ length: 300 }, (_, i) => JSON.stringify({ n: i, text: `ré ${"x".repeat(i)} 😀 \u00e9 ${i}` }))
          const [joined] = yield* sql<{ t: string }>`SELECT ${new Sql.JoinedText(records, ",", "[", "]")}::text AS t`
          expect(joined!.t).toBe(`[${records.join(",")}]`)
          const [parsed] = yield* sql<{ n: number }>`SELECT json_array_length(${new Sql.JoinedText(records, ",", "[", "]")}::json) AS n`
          expect(Number(parsed!.n)).toBe(300)
          const [empty] = yield* sql<{ t: string }>`SELECT ${new Sql.JoinedText([], ",", "[", "]")}::text AS t`
          expect(empty!.t).toBe("[]")
          // A long plain string crosses to PGlite's thread as bytes too: it must arrive unchanged.
          const long = `${"ü".repeat(20_000)}|${"a".repeat(20_000)}`
          const [echoed] = yield* sql<{ t: string }>`SELECT ${long}::text AS t`
          expect(echoed!.t).toBe(long)
        }))

      it.effect("applies migrations once, in order, and records them", () =>
        Effect.gen(function*() {
          const table = `m_${unique()}`
          const records = testPackage(table)
          const first = yield* Migrations.run(records)
          expect(first).toEqual([
            { package: `test_${table}`, id: "0001_create" },
            { package: `test_${table}`, id: "0002_seed" }
          ])
          const second = yield* Migrations.run(records)
          expect(second).toEqual([])
          expect(yield* count(table)).toBe(1)
          const recorded = (yield* Migrations.applied()).filter((m) => m.package === `test_${table}`)
          expect(recorded.map((m) => m.id)).toEqual(["0001_create", "0002_seed"])
          expect(recorded[0]!.appliedAt).toBeInstanceOf(Date)
        }))

      it.effect("rolls back a failing migration and stops there", () =>
        Effect.gen(function*() {
          const table = `f_${unique()}`
          const records: Migrations.MigrationRecords = {
            [`test_${table}`]: {
              "0001_ok": Effect.flatMap(SqlClient.SqlClient, (sql) => sql`CREATE TABLE ${sql(table)} (n int)`),
              "0002_bad": Effect.flatMap(SqlClient.SqlClient, (sql) =>
                Effect.zipRight(sql`INSERT INTO ${sql(table)} VALUES (1)`, sql`SELECT * FROM no_such_table`)),
              "0003_never": Effect.flatMap(SqlClient.SqlClient, (sql) => sql`INSERT INTO ${sql(table)} VALUES (3)`)
            }
          }
          const error = yield* Effect.flip(Migrations.run(records))
          expect(error._tag).toBe("MigrationError")
          expect(error).toMatchObject({ package: `test_${table}`, id: "0002_bad" })
          expect(yield* count(table)).toBe(0)
          const recorded = (yield* Migrations.applied()).filter((m) => m.package === `test_${table}`)
          expect(recorded.map((m) => m.id)).toEqual(["0001_ok"])
        }))

      it.effect("commits and rolls back transactions, nested ones as savepoints", () =>
        Effect.gen(function*() {
          const sql = yield* SqlClient.SqlClient
          const table = `tx_${unique()}`
          yield* sql`CREATE TABLE ${sql(table)} (n int NOT NULL)`
          yield* sql.withTransaction(sql`INSERT INTO ${sql(table)} VALUES (1)`)
          yield* sql.withTransaction(
            Effect.zipRight(sql`INSERT INTO ${sql(table)} VALUES (2)`, Effect.fail("boom"))
          ).pipe(Effect.ignore)
          yield* sql.withTransaction(
            Effect.gen(function*() {
              yield* sql`INSERT INTO ${sql(table)} VALUES (3)`
              // The inner failure rolls back to its savepoint only.
              yield* sql.withTransaction(
                Effect.zipRight(sql`INSERT INTO ${sql(table)} VALUES (4)`, Effect.fail("inner"))
              ).pipe(Effect.ignore)
              yield* sql.withTransaction(sql`INSERT INTO ${sql(table)} VALUES (5)`)
            })
          )
          const rows = yield* sql<{ n: number }>`SELECT n FROM ${sql(table)} ORDER BY n`
          expect(rows.map((r) => r.n)).toEqual([1, 3, 5])
        }))

      it.effect("never runs another fiber's statement inside an open transaction", () =>
        Effect.gen(function*() {
          const sql = yield* SqlClient.SqlClient
          const table = `iso_${unique()}`
          yield* sql`CREATE TABLE ${sql(table)} (who text NOT NULL)`
          const transaction = sql.withTransaction(
            Effect.gen(function*() {
              yield* sql`INSERT INTO ${sql(table)} VALUES ('tx')`
              yield* Effect.sleep("150 millis")
              yield* sql`INSERT INTO ${sql(table)} VALUES ('tx')`
              return yield* Effect.fail("roll back")
            })
          ).pipe(Effect.ignore)
          const others = Effect.forEach(
            Array.from({ length: 10 }),
            () => Effect.zipRight(Effect.sleep("10 millis"), sql`INSERT INTO ${sql(table)} VALUES ('other')`),
            { concurrency: 1, discard: true }
          )
          yield* Effect.all([transaction, Effect.zipRight(Effect.sleep("20 millis"), others)], { concurrency: 2 })
          const rows = yield* sql<{ who: string }>`SELECT who FROM ${sql(table)}`
          // Had an 'other' insert run inside the transaction it would have been rolled back with it.
          expect(rows.filter((r) => r.who === "other")).toHaveLength(10)
          expect(rows.filter((r) => r.who === "tx")).toHaveLength(0)
        }))

      if (backend.name === "pglite") {
        it.effect("lets a statement waiting for the session be interrupted", () =>
          Effect.gen(function*() {
            const sql = yield* SqlClient.SqlClient
            const holder = yield* sql.withTransaction(Effect.zipRight(sql`SELECT 1`, Effect.sleep("300 millis"))).pipe(
              Effect.fork
            )
            yield* Effect.sleep("50 millis")
            const waited = yield* sql`SELECT 2 AS two`.pipe(Effect.timeoutOption("50 millis"))
            expect(Option.isNone(waited)).toBe(true)
            yield* Fiber.join(holder)
            // The interrupted waiter left no permit behind: the session still serves statements.
            expect(yield* sql`SELECT 3 AS three`).toEqual([{ three: 3 }])
          }))
      }

      it.effect("returns the same value types as node-postgres", () =>
        Effect.gen(function*() {
          const sql = yield* SqlClient.SqlClient
          const [row] = yield* sql<Record<string, unknown>>`SELECT 1::int8 AS big, 2::int4 AS small, 'x'::text AS t,
            ${sql.unsafe("'{\"a\":1}'::jsonb")} AS j, true AS b, '2024-01-02T03:04:05Z'::timestamptz AS ts`
          expect(row).toEqual({ big: "1", small: 2, t: "x", j: { a: 1 }, b: true, ts: new Date("2024-01-02T03:04:05Z") })
        }))

      it.effect("round-trips bytes through the BlobStore", () =>
        Effect.gen(function*() {
          const blobs = yield* BlobStore.BlobStore
          const key = `blob-${unique()}`
          const bytes = new Uint8Array(70_000).map((_, i) => (i * 7) % 256)
          yield* blobs.put(key, bytes, { contentType: "image/png" })
          // Stored in this backend's database, not in one a shared layer built for another backend.
          const sql = yield* SqlClient.SqlClient
          expect((yield* sql<{ c: number }>`SELECT count(*)::int AS c FROM blobs WHERE key = ${key}`)[0]!.c).toBe(1)
          const got = Option.getOrThrow(yield* blobs.get(key))
          expect(got.bytes).toBeInstanceOf(Uint8Array)
          expect(Array.from(got.bytes)).toEqual(Array.from(bytes))
          expect(got.contentType).toEqual(Option.some("image/png"))
          yield* blobs.put(key, new Uint8Array([1, 2, 3]))
          const replaced = Option.getOrThrow(yield* blobs.get(key))
          expect(Array.from(replaced.bytes)).toEqual([1, 2, 3])
          expect(replaced.contentType).toEqual(Option.none())
          expect(yield* blobs.delete(key)).toBe(true)
          expect(yield* blobs.delete(key)).toBe(false)
          expect(yield* blobs.get(key)).toEqual(Option.none())
        }))
    })
  })
}

describe.skipIf(postgresUrl === null)(
  postgresUrl === null ? "postgres concurrency (skipped: no PostgreSQL)" : "postgres concurrency",
  () => {
    it.live("two migrators starting at once apply each migration exactly once", () =>
      Effect.gen(function*() {
        const table = `c_${unique()}`
        const slow: Migrations.MigrationRecords = {
          [`test_${table}`]: {
            "0001_create": Effect.flatMap(SqlClient.SqlClient, (sql) =>
              Effect.zipRight(sql`SELECT pg_sleep(0.2)`, sql`CREATE TABLE ${sql(table)} (n int NOT NULL)`)),
            "0002_seed": Effect.flatMap(SqlClient.SqlClient, (sql) => sql`INSERT INTO ${sql(table)} VALUES (1)`)
          }
        }
        // Two separate pools: two processes as far as PostgreSQL can tell.
        const migrator = Migrations.run(slow).pipe(
          Effect.provide(Sql.layerPg({ url: Redacted.make(postgresUrl!) }))
        )
        const [a, b] = yield* Effect.all([migrator, migrator], { concurrency: 2 })
        expect(a.length + b.length).toBe(2)
        const total = yield* count(table).pipe(Effect.provide(Sql.layerPg({ url: Redacted.make(postgresUrl!) })))
        expect(total).toBe(1)
      }), 60_000)
  }
)

describe.skipIf(postgresUrl === null)(
  postgresUrl === null ? "postgres prepared statements (skipped: no PostgreSQL)" : "postgres prepared statements",
  () => {
    it.live("a PREPARED statement is parsed once per connection, follows DDL, and is prepared again after its connection is lost", () =>
      Effect.gen(function*() {
        const table = `p_${unique()}`
        const admin = yield* Layer.build(Sql.layerPg({ url: Redacted.make(postgresUrl!) }))
        const context = yield* Layer.build(Sql.layerPg({ url: Redacted.make(postgresUrl!), maxConnections: 1 }))
        const sql = Context.get(context, SqlClient.SqlClient)
        yield* sql`CREATE TABLE ${sql(table)} (n int NOT NULL)`
        yield* sql`INSERT INTO ${sql(table)} SELECT generate_series(1, 10)`
        const sum = (below: number) =>
          Effect.map(
            sql<{ total: string }>`${sql.literal(Sql.PREPARED)} SELECT sum(n)::text AS total FROM ${sql(table)} WHERE n < ${below}`,
            (rows) => Number(rows[0]!.total)
          )
        // The connection's prepared statements, read on it (one connection in the pool).
        const preparedHere = Effect.map(
          sql<{ statement: string }>`SELECT statement FROM pg_prepared_statements`,
          (rows) => rows.filter((row) => row.statement.startsWith(Sql.PREPARED)).length
        )
        for (let call = 0; call < 8; call++) expect(yield* sum(4 + call)).toBe((3 + call) * (4 + call) / 2)
        expect(yield* preparedHere).toBe(1)
        // DDL on what it reads: PostgreSQL plans it again.
        yield* sql`ALTER TABLE ${sql(table)} ADD COLUMN m int`
        yield* sql`DELETE FROM ${sql(table)} WHERE n = 1`
        expect(yield* sum(4)).toBe(5)
        // Its connection killed: the pool's next connection parses it again.
        const [backend] = yield* sql<{ pid: number }>`SELECT pg_backend_pid() AS pid`
        yield* Effect.provide(
          Effect.flatMap(SqlClient.SqlClient, (other) => other`SELECT pg_terminate_backend(${backend!.pid})`),
          admin
        )
        yield* Effect.sleep("200 millis")
        // The first statement may still meet the dead connection; the pool then drops it.
        const after = yield* Effect.retry(sum(5), { times: 2 })
        expect(after).toBe(9)
        const [now] = yield* sql<{ pid: number }>`SELECT pg_backend_pid() AS pid`
        expect(now!.pid).not.toBe(backend!.pid)
        expect(yield* preparedHere).toBe(1)
        yield* sql`DROP TABLE ${sql(table)}`
      }).pipe(Effect.scoped), 60_000)
  }
)

describe.skipIf(postgresUrl === null)(
  postgresUrl === null ? "postgres pool (skipped: no PostgreSQL)" : "postgres pool",
  () => {
    it.live("a pool holding its connections keeps every one it opened past the idle timeout; one that does not closes them", () =>
      Effect.gen(function*() {
        const admin = yield* Layer.build(Sql.layerPg({ url: Redacted.make(postgresUrl!) }))
        const held = (name: string) =>
          Effect.map(
            Effect.provide(Effect.flatMap(SqlClient.SqlClient, (sql) =>
              sql<{ n: number }>`SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = ${name}`), admin),
            (rows) => rows[0]!.n
          )
        const opened = (holdConnections: boolean) =>
          Effect.gen(function*() {
            const name = `pool_${unique()}`
            const url = new URL(postgresUrl!)
            url.searchParams.set("application_name", name)
            const context = yield* Layer.build(Sql.layerPg({ url: Redacted.make(url.toString()), maxConnections: 3, holdConnections, idleTimeoutMs: 200 }))
            const sql = Context.get(context, SqlClient.SqlClient)
            // Three statements at once: three connections.
            yield* Effect.all([1, 2, 3].map(() => sql`SELECT pg_sleep(0.1)`), { concurrency: 3 })
            const busy = yield* held(name)
            yield* Effect.sleep("1 second")
            return { busy, idle: yield* held(name) }
          }).pipe(Effect.scoped)
        expect(yield* opened(true)).toEqual({ busy: 3, idle: 3 })
        expect(yield* opened(false)).toEqual({ busy: 3, idle: 0 })
      }).pipe(Effect.scoped), 60_000)
  }
)
