import { describe, expect, it } from "@effect/vitest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as SqlClient from "@effect/sql/SqlClient"
import { migrations as batchMigrations } from "@sift/batch"
import { BlobStore, Migrations, Sql } from "@sift/store"
import { Effect, Layer, TestClock } from "effect"
import * as HostedFiles from "../../src/Images/HostedFiles.js"

// Real embedded PostgreSQL (PGlite in memory) with the store's and the batches' migrations (file ids are also batch
// parts, as the service serves them); the test clock moves time forward.
const database = Layer.tap(Sql.layerPglite({ dir: "memory://" }), (context) =>
  Effect.provide(Migrations.run({ store: Migrations.store, batch: batchMigrations }), context))
const TestLayer = BlobStore.layerSql.pipe(Layer.provideMerge(database))

const bodyOf = (response: HttpServerResponse.HttpServerResponse) =>
  response.body._tag === "Uint8Array" ? Buffer.from(response.body.body).toString("utf8") : response.body._tag === "Raw" ? String(response.body.body) : ""

describe("HostedFiles", () => {
  it.layer(TestLayer, { timeout: 60_000 })((it) => {
    it.effect("serves a hosted file for 24 hours, then answers 404 and removes it", () =>
      Effect.gen(function*() {
        const url = yield* HostedFiles.host("https://sift.example")({ sourceUrl: "https://a.example/x.png", bytes: new TextEncoder().encode("PNGDATA"), contentType: "image/png" })
        expect(url).toMatch(/^https:\/\/sift\.example\/v1\/files\/file_[0-9A-Za-z]{32}$/)
        const id = url.slice("https://sift.example/v1/files/".length)
        const fresh = yield* HostedFiles.serve(id)
        expect(fresh.status).toBe(200)
        expect(bodyOf(fresh)).toBe("PNGDATA")
        expect(fresh.headers["content-type"] ?? (fresh.body as { contentType?: string }).contentType).toContain("image/png")
        // created_at is the database's clock; the serve check uses the Effect clock: move it a day past now.
        yield* TestClock.setTime(Date.now() + HostedFiles.TTL_MS - 60_000)
        expect((yield* HostedFiles.serve(id)).status).toBe(200)
        yield* TestClock.setTime(Date.now() + HostedFiles.TTL_MS + 60_000)
        const expired = yield* HostedFiles.serve(id)
        expect(expired.status).toBe(404)
        expect(JSON.parse(bodyOf(expired)).error_code).toBe("NOT_FOUND")
        const blobs = yield* BlobStore.BlobStore
        expect((yield* blobs.get(`hosted-file/${id}`))._tag).toBe("None")
      }))

    it.effect("the sweep removes hosted files older than 24 hours through the BlobStore, and nothing else", () =>
      Effect.gen(function*() {
        const blobs = yield* BlobStore.BlobStore
        const host = HostedFiles.host("https://sift.example")
        const file = { sourceUrl: "https://a.example/x.png", bytes: new TextEncoder().encode("PNG"), contentType: "image/png" }
        const idOf = (url: string) => url.slice("https://sift.example/v1/files/".length)
        // The layer's test clock may have been moved by an earlier test: back to now, so only the sweep below counts.
        yield* TestClock.setTime(Date.now())
        const old = idOf(yield* host(file))
        const recent = idOf(yield* host(file))
        yield* blobs.put("screenshot/kept", new Uint8Array([1]))
        // The rows' age is the database's clock: the old file and the other blob are backdated by a day and a minute.
        const sql = yield* SqlClient.SqlClient
        yield* sql`UPDATE blobs SET created_at = now() - interval '1 day 1 minute' WHERE key IN (${`hosted-file/${old}`}, 'screenshot/kept')`
        yield* HostedFiles.sweep
        expect((yield* blobs.get(`hosted-file/${old}`))._tag).toBe("None")
        expect((yield* blobs.get(`hosted-file/${recent}`))._tag).toBe("Some")
        expect((yield* blobs.get("screenshot/kept"))._tag).toBe("Some")
      }))

    it.effect("answers 404 for ids that are not file ids", () =>
      Effect.gen(function*() {
        expect((yield* HostedFiles.serve("../blobs")).status).toBe(404)
        expect((yield* HostedFiles.serve(`file_${"a".repeat(32)}`)).status).toBe(404)
      }))
  })
})
