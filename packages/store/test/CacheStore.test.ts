import { describe, expect, it, layer as testLayer } from "@effect/vitest"
import * as SqlClient from "@effect/sql/SqlClient"
import { Cache } from "@sift/core/Cache"
import { Effect, Layer, Option } from "effect"
import * as CacheStore from "../src/CacheStore.js"
import * as Migrations from "../src/Migrations.js"
import { backends, title, unique } from "./support/backends.js"

const bytes = (text: string) => new TextEncoder().encode(text)
const text = (entry: Option.Option<{ value: Uint8Array }>) =>
  Option.map(entry, (e) => new TextDecoder().decode(e.value))

for (const backend of backends) {
  describe.skipIf(backend.skip !== undefined)(`CacheStore on ${title(backend)}`, () => {
    const database = Layer.tap(backend.layer(), (ctx) => Effect.provide(Migrations.run({ store: Migrations.store }), ctx))

    // Live services: ages are measured on the real clock and the database's.
    testLayer(database, { timeout: 120_000, excludeTestServices: true })((it) => {
      it.effect("stores bytes and reads them back within maxAgeMs, with the time they were stored", () =>
        Effect.scoped(Effect.gen(function*() {
          const cache = yield* CacheStore.make({ memoryBytes: 0 })
          const key = `k_${unique()}`
          expect(Option.isNone(yield* cache.get(key, 60_000))).toBe(true)
          const before = Date.now()
          const payload = new Uint8Array([0, 1, 2, 255, 254, 0, 10])
          yield* cache.set(key, payload)
          const hit = yield* cache.get(key, 60_000)
          expect(Option.isSome(hit)).toBe(true)
          const entry = Option.getOrThrow(hit)
          expect(Array.from(entry.value)).toEqual(Array.from(payload))
          expect(entry.storedAt).toBeGreaterThanOrEqual(before - 1_000)
          expect(entry.storedAt).toBeLessThanOrEqual(Date.now() + 1_000)
        })))

      it.effect("answers a miss when the entry is older than maxAgeMs, and a replacement resets the age", () =>
        Effect.scoped(Effect.gen(function*() {
          const cache = yield* CacheStore.make()
          const key = `k_${unique()}`
          yield* cache.set(key, bytes("first"))
          yield* Effect.sleep("1500 millis")
          expect(Option.isNone(yield* cache.get(key, 1_000))).toBe(true)
          expect(text(yield* cache.get(key, 60_000))).toEqual(Option.some("first"))
          yield* cache.set(key, bytes("second"))
          // The bound the first entry failed, which the fresh replacement passes (a second: room for a loaded machine).
          expect(text(yield* cache.get(key, 1_000))).toEqual(Option.some("second"))
        })))

      it.effect("is shared between two caches on one database (as between replicas)", () =>
        Effect.scoped(Effect.gen(function*() {
          const writer = yield* CacheStore.make()
          const reader = yield* CacheStore.make()
          const key = `k_${unique()}`
          yield* writer.set(key, bytes("shared"))
          expect(text(yield* reader.get(key, 60_000))).toEqual(Option.some("shared"))
        })))

      it.effect("held writes: while a fiber holds them, its writes go to the array (and its reads see them), not the database", () =>
        Effect.scoped(Effect.gen(function*() {
          const cache = yield* CacheStore.make()
          const other = yield* CacheStore.make({ memoryBytes: 0 })
          const [kept, after] = [`k_${unique()}`, `k_${unique()}`]
          const held: Array<{ readonly key: string; readonly value: Uint8Array }> = []
          const seen = yield* Effect.locally(
            Effect.zipRight(cache.set(kept, bytes("held")), Effect.fork(cache.set(kept, bytes("held again"))).pipe(Effect.flatMap((f) => f.await), Effect.zipRight(cache.get(kept, 60_000)))),
            CacheStore.heldWrites,
            held
          )
          // A forked fiber's writes are held too (a crawl reads pages in fibers of its own); the last one is read.
          expect(held.map((entry) => [entry.key, new TextDecoder().decode(entry.value)])).toEqual([[kept, "held"], [kept, "held again"]])
          expect(text(seen)).toEqual(Option.some("held again"))
          expect(yield* other.get(kept, 60_000)).toEqual(Option.none())
          // Outside, writes go to the database as ever.
          yield* cache.set(after, bytes("written"))
          expect(text(yield* other.get(after, 60_000))).toEqual(Option.some("written"))
        })))

      it.effect("every byte value round-trips, through set and through a caller's upsert (Rows), read back by another cache", () =>
        Effect.scoped(Effect.gen(function*() {
          const sql = yield* SqlClient.SqlClient
          const all = Uint8Array.from({ length: 300_000 }, (_, i) => (i * 7919 + (i >> 8)) % 256)
          const [direct, upserted, twice] = [`k_${unique()}`, `k_${unique()}`, `k_${unique()}`]
          const writer = yield* CacheStore.make({ memoryBytes: 0 })
          yield* writer.set(direct, all.subarray(1, 250_001))
          const rows = CacheStore.Rows.of({ retentionMs: 60_000, forget: () => {} })
          yield* sql`WITH c AS (${CacheStore.upsert(sql, rows, [{ key: upserted, value: all }, { key: twice, value: bytes("old") }, { key: twice, value: bytes("new") }])}) SELECT 1`
          yield* sql`WITH c AS (${CacheStore.upsert(sql, rows, [])}) SELECT 1`
          const reader = yield* CacheStore.make({ memoryBytes: 0 })
          expect(Buffer.from(Option.getOrThrow(yield* reader.get(direct, 60_000)).value).equals(Buffer.from(all.subarray(1, 250_001)))).toBe(true)
          expect(Buffer.from(Option.getOrThrow(yield* reader.get(upserted, 60_000)).value).equals(Buffer.from(all))).toBe(true)
          expect(text(yield* reader.get(twice, 60_000))).toEqual(Option.some("new"))
        })))

      it.effect("a page is stored compressed (brotli) and read back exactly; a damaged or oversized compressed row is a miss", () =>
        Effect.scoped(Effect.gen(function*() {
          const sql = yield* SqlClient.SqlClient
          const page = bytes(`<html><body>${Array.from({ length: 2_000 }, (_, i) => `<p>Paragraph ${i} of an ordinary article.</p>`).join("")}</body></html>`)
          const [direct, upserted, damaged, bomb, unknown] = [`k_${unique()}`, `k_${unique()}`, `k_${unique()}`, `k_${unique()}`, `k_${unique()}`]
          const writer = yield* CacheStore.make({ memoryBytes: 0 })
          yield* writer.set(direct, page)
          const rows = CacheStore.Rows.of({ retentionMs: 60_000, forget: () => {} })
          yield* sql`WITH c AS (${CacheStore.upsert(sql, rows, [{ key: upserted, value: page }, { key: damaged, value: page }])}) SELECT 1`
          const stored = yield* sql<{ key: string; encoding: string | null; size: number }>`
            SELECT key, encoding, octet_length(bytes)::int AS size FROM cache_entries WHERE key IN (${direct}, ${upserted}) ORDER BY key`
          expect(stored.map((row) => row.encoding)).toEqual(["br", "br"])
          for (const row of stored) expect(row.size).toBeLessThan(page.byteLength / 5)
          const reader = yield* CacheStore.make({ memoryBytes: 0 })
          for (const key of [direct, upserted]) expect(Buffer.from(Option.getOrThrow(yield* reader.get(key, 60_000)).value).equals(Buffer.from(page))).toBe(true)
          // Damaged bytes, a compressed entry that would expand past the bound (64 MiB of zeros), an unknown encoding.
          yield* sql`UPDATE cache_entries SET bytes = substring(bytes from 1 for 100) WHERE key = ${damaged}`
          const zeros = (yield* Effect.promise(() => import("node:zlib"))).brotliCompressSync(new Uint8Array(64 * 1024 * 1024 + 1))
          yield* sql`INSERT INTO cache_entries (key, bytes, encoding, expires_at) VALUES (${bomb}, decode(${zeros.toString("base64")}, 'base64'), 'br', now() + interval '1 hour')`
          yield* sql`INSERT INTO cache_entries (key, bytes, encoding, expires_at) VALUES (${unknown}, decode('AAEC', 'base64'), 'zstd', now() + interval '1 hour')`
          for (const key of [damaged, bomb, unknown]) expect(Option.isNone(yield* reader.get(key, 60_000))).toBe(true)
          // Bytes that do not compress are stored as given.
          const noise = Uint8Array.from({ length: 50_000 }, () => Math.floor(Math.random() * 256))
          const noisy = `k_${unique()}`
          yield* writer.set(noisy, noise)
          const [raw] = yield* sql<{ encoding: string | null; size: number }>`SELECT encoding, octet_length(bytes)::int AS size FROM cache_entries WHERE key = ${noisy}`
          expect(raw).toEqual({ encoding: null, size: 50_000 })
          expect(Buffer.from(Option.getOrThrow(yield* reader.get(noisy, 60_000)).value).equals(Buffer.from(noise))).toBe(true)
        })))

      it.effect("reads made together (one statement for the group) each get their own entry: hits, misses, one key twice", () =>
        Effect.scoped(Effect.gen(function*() {
          const writer = yield* CacheStore.make({ memoryBytes: 0 })
          const keys = Array.from({ length: 40 }, () => `k_${unique()}`)
          yield* Effect.forEach(keys.filter((_, i) => i % 3 !== 0), (key) => writer.set(key, bytes(`value of ${key}`)), { concurrency: 8 })
          const reader = yield* CacheStore.make({ memoryBytes: 0 })
          const asked = [...keys, keys[1]!, keys[3]!]
          const read = yield* Effect.forEach(asked, (key) => reader.get(key, 60_000), { concurrency: "unbounded" })
          expect(read.map(text)).toEqual(asked.map((key) => keys.indexOf(key) % 3 === 0 ? Option.none() : Option.some(`value of ${key}`)))
        })))

      it.effect("expires entries past the retention and sweeps them from the table", () =>
        Effect.scoped(Effect.gen(function*() {
          const sql = yield* SqlClient.SqlClient
          const key = `k_${unique()}`
          const cache = yield* CacheStore.make({ retentionMs: 30, sweepIntervalMs: 50, memoryBytes: 0 })
          yield* cache.set(key, bytes("short-lived"))
          expect(text(yield* cache.get(key, 60_000))).toEqual(Option.some("short-lived"))
          yield* Effect.sleep("200 millis")
          expect(Option.isNone(yield* cache.get(key, 60_000))).toBe(true)
          const rows = yield* sql`SELECT 1 FROM cache_entries WHERE key = ${key}`
          expect(rows.length).toBe(0)
        })))

      it.effect("the memory front answers with the very bytes it wrote or read (results are remembered against them)", () =>
        Effect.scoped(Effect.gen(function*() {
          const cache = yield* CacheStore.make()
          const written = `k_${unique()}`
          const payload = bytes("written here")
          yield* cache.set(written, payload)
          expect(Option.getOrThrow(yield* cache.get(written, 60_000)).value).toBe(payload)
          // Written by another replica: the row read once is the object answered afterwards.
          const other = yield* CacheStore.make()
          const read = `k_${unique()}`
          yield* other.set(read, bytes("written there"))
          const first = Option.getOrThrow(yield* cache.get(read, 60_000)).value
          expect(new TextDecoder().decode(first)).toBe("written there")
          expect(Option.getOrThrow(yield* cache.get(read, 60_000)).value).toBe(first)
          // A replacement is a new entry, never the old object.
          yield* cache.set(written, bytes("replaced"))
          const replaced = Option.getOrThrow(yield* cache.get(written, 60_000)).value
          expect(replaced).not.toBe(payload)
          expect(new TextDecoder().decode(replaced)).toBe("replaced")
        })))

      it.effect("the memory front keeps the most recently used entries within memoryBytes, and none larger than a quarter", () =>
        Effect.scoped(Effect.gen(function*() {
          const cache = yield* CacheStore.make({ memoryBytes: 12 })
          const id = unique()
          const keys = ["a", "b", "c", "d"].map((name) => `k_${id}_${name}`)
          const values = keys.map((_, i) => new Uint8Array([i, i, i]))
          for (const [i, key] of keys.entries()) yield* cache.set(key, values[i]!)
          const held = (i: number) => Effect.map(cache.get(keys[i]!, 60_000), (entry) => Option.getOrThrow(entry).value === values[i])
          yield* cache.get(keys[0]!, 60_000) // a is now the most recently used: b is the least
          const extra = `k_${id}_e`
          yield* cache.set(extra, new Uint8Array([9, 9, 9]))
          expect(yield* held(0)).toBe(true)
          expect(yield* held(2)).toBe(true)
          expect(yield* held(3)).toBe(true)
          // b left the front: the database answers with equal bytes in a new array.
          const b = Option.getOrThrow(yield* cache.get(keys[1]!, 60_000)).value
          expect(Array.from(b)).toEqual([1, 1, 1])
          expect(b).not.toBe(values[1])
          const big = `k_${id}_big`
          const bigValue = new Uint8Array([7, 7, 7, 7])
          yield* cache.set(big, bigValue)
          const bigRead = Option.getOrThrow(yield* cache.get(big, 60_000)).value
          expect(Array.from(bigRead)).toEqual([7, 7, 7, 7])
          expect(bigRead).not.toBe(bigValue)
        })))

      it.effect("provides core's Cache as a layer", () =>
        Effect.gen(function*() {
          const cache = yield* Cache
          const key = `k_${unique()}`
          yield* cache.set(key, bytes("through the tag"))
          expect(text(yield* cache.get(key, 60_000))).toEqual(Option.some("through the tag"))
        }).pipe(Effect.provide(CacheStore.layer())))
    })
  })
}

describe("CacheStore when the database fails", () => {
  it.effect("answers misses and drops writes instead of failing", () =>
    Effect.scoped(Effect.gen(function*() {
      // No migrations: the table does not exist, so every statement fails.
      const cache = yield* CacheStore.make({ memoryBytes: 0 })
      yield* cache.set("k", bytes("lost"))
      expect(Option.isNone(yield* cache.get("k", 60_000))).toBe(true)
    })).pipe(Effect.provide(backends[0]!.layer()), Effect.orDie))
})
