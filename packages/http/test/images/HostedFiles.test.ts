import { describe, expect, it } from "@effect/vitest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { BlobStore, Migrations, Sql } from "@sift/store"
import { Effect, Layer, TestClock } from "effect"
import * as HostedFiles from "../../src/Images/HostedFiles.js"

// Real embedded PostgreSQL (PGlite in memory) with the store's migrations; the test clock moves time forward.
const database = Layer.tap(Sql.layerPglite({ dir: "memory://" }), (context) =>
  Effect.provide(Migrations.run({ store: Migrations.store }), context))
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

    it.effect("answers 404 for ids that are not file ids", () =>
      Effect.gen(function*() {
        expect((yield* HostedFiles.serve("../blobs")).status).toBe(404)
        expect((yield* HostedFiles.serve(`file_${"a".repeat(32)}`)).status).toBe(404)
      }))
  })
})
