/**
 * `BlobStore.removeOlderThan`: the owner's way for other packages (hosted image files) to drop old blobs by key prefix,
 * instead of deleting from the `blobs` table themselves.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer, Option } from "effect"
import * as BlobStore from "../src/BlobStore.js"
import * as Migrations from "../src/Migrations.js"
import { backends, title, unique } from "./support/backends.js"

for (const backend of backends) {
  describe.skipIf(backend.skip !== undefined)(`BlobStore (${title(backend)})`, () => {
    // Fresh: @effect/vitest memoises layers by reference across `it.layer` blocks, so a shared `layerSql` would keep
    // the first backend's client for the second.
    const layer = Layer.provideMerge(
      Layer.fresh(BlobStore.layerSql),
      Layer.tap(backend.layer(), (context) => Effect.provide(Migrations.run({ store: Migrations.store }), context))
    )
    it.layer(layer, { timeout: 60_000 })((it) => {
      it.effect("removeOlderThan removes the prefix's blobs stored before the cutoff, and only those", () =>
        Effect.gen(function*() {
          const blobs = yield* BlobStore.BlobStore
          const sql = yield* SqlClient.SqlClient
          const run = unique()
          // `_` and `%` in the prefix are plain characters, not LIKE wildcards.
          const prefix = `t_${run}%/`
          const keys = {
            old: `${prefix}old`,
            recent: `${prefix}recent`,
            otherOld: `tX${run}%/old`, // would match `t_…` read as a LIKE pattern
            outsideOld: `other-${run}/old`
          }
          for (const key of Object.values(keys)) yield* blobs.put(key, new Uint8Array([1, 2, 3]))
          const twoDaysAgo = new Date(Date.now() - 2 * 86_400_000)
          for (const key of [keys.old, keys.otherOld, keys.outsideOld]) yield* sql`UPDATE blobs SET created_at = ${twoDaysAgo} WHERE key = ${key}`
          const cutoff = new Date(Date.now() - 86_400_000)
          expect(yield* blobs.removeOlderThan(prefix, cutoff)).toBe(1)
          expect(yield* blobs.get(keys.old)).toEqual(Option.none())
          for (const key of [keys.recent, keys.otherOld, keys.outsideOld]) expect(Option.isSome(yield* blobs.get(key))).toBe(true)
          expect(yield* blobs.removeOlderThan(prefix, cutoff)).toBe(0)
          expect(yield* blobs.removeOlderThan(prefix, new Date(Date.now() + 60_000))).toBe(1)
          expect(yield* blobs.get(keys.recent)).toEqual(Option.none())
          for (const key of [keys.otherOld, keys.outsideOld]) yield* blobs.delete(key)
        }))
    })
  })
}
