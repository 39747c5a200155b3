/**
 * Brand logos and backdrops, served content-addressed at `/v1/assets/{sha256}.{ext}` from the BlobStore (key
 * `brand-asset/{sha256}`). The hash is of the bytes, so a URL never changes meaning: it is served to anyone (an image
 * `src` needs no key) with a year-long immutable cache, unlike the 24-hour hosted files of `/v1/files/`.
 *
 * @since 0.1.0
 */
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import type * as Brand from "@sift/core/Brand"
import { BlobStore } from "@sift/store"
import { Effect, Option } from "effect"
import { randomUUID } from "node:crypto"

/** The path prefix assets are served under. */
export const PATH_PREFIX = "/v1/assets/"

const KEY_PREFIX = "brand-asset/"
const NAME = /^([0-9a-f]{64})\.(svg|png|jpg|webp|gif|avif)$/

/** The URL of an asset. */
export const urlOf = (origin: string, asset: Brand.AssetRef): string => `${origin}${PATH_PREFIX}${asset.sha256}.${asset.ext}`

/** Stores assets not stored yet (a hash names its bytes, so one already there is the same). */
export const store = (assets: ReadonlyArray<Brand.Asset>) =>
  Effect.gen(function*() {
    const blobs = yield* BlobStore.BlobStore
    for (const asset of assets) {
      const found = yield* blobs.get(KEY_PREFIX + asset.sha256)
      if (Option.isNone(found)) yield* blobs.put(KEY_PREFIX + asset.sha256, asset.bytes, { contentType: asset.contentType })
    }
  }).pipe(Effect.orDie)

const notFound = (name: string) => {
  const requestId = randomUUID()
  return HttpServerResponse.unsafeJson(
    { request_id: requestId, error_code: "NOT_FOUND", message: `No asset ${name}` },
    { status: 404, headers: { "x-request-id": requestId } }
  )
}

/** Answers `GET /v1/assets/{sha256}.{ext}`. */
export const serve = (name: string) =>
  Effect.gen(function*() {
    const match = NAME.exec(name)
    if (match === null) return notFound(name)
    const blobs = yield* BlobStore.BlobStore
    const found = yield* blobs.get(KEY_PREFIX + match[1]!)
    if (Option.isNone(found)) return notFound(name)
    return HttpServerResponse.uint8Array(found.value.bytes, {
      contentType: Option.getOrElse(found.value.contentType, () => "application/octet-stream"),
      headers: {
        "x-request-id": randomUUID(),
        "cache-control": "public, max-age=31536000, immutable",
        etag: `"${match[1]}"`,
        "x-content-type-options": "nosniff",
        // An SVG served from the API's origin must not run script there.
        "content-security-policy": "default-src 'none'; style-src 'unsafe-inline'; sandbox"
      }
    })
  }).pipe(Effect.catchAll(() => Effect.succeed(HttpServerResponse.unsafeJson(
    { request_id: randomUUID(), error_code: "INTERNAL_ERROR", message: "The asset store could not be read" },
    { status: 500 }
  ))))
