/**
 * Hosted image files (`imageParams.enrich: ["file"]`): a copy of an image Sift serves for 24 hours at
 * `/v1/files/{id}`, kept in the `BlobStore`. The id (`file_` + 32 base62 characters) is the capability: the URL works
 * as an image `src` without an API key, like a signed link, and stops working after 24 hours.
 *
 * @since 0.1.0
 */
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Batches } from "@sift/batch"
import type { ImageEnrich } from "@sift/core"
import { BlobStore } from "@sift/store"
import { Clock, Config, Effect, Option } from "effect"
import { createHash, randomBytes, randomUUID } from "node:crypto"

/** How long a hosted file is served. */
export const TTL_MS = 24 * 60 * 60 * 1000

/** The path prefix hosted files are served under. */
export const PATH_PREFIX = "/v1/files/"

const KEY_PREFIX = "hosted-file/"
const ID = /^file_[0-9A-Za-z]{32}$/
const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

const newId = (): string => {
  // 32 characters from 256-bit randomness; the modulo bias of 256 % 62 is irrelevant for an unguessable id.
  const bytes = randomBytes(32)
  return "file_" + Array.from(bytes, (byte) => BASE62[byte % 62]).join("")
}

/**
 * The origin file URLs are made with: `SIFT_PUBLIC_URL` when set (behind a proxy or a public name), else the scheme
 * and `Host` of the request being answered.
 */
export const publicOrigin: Effect.Effect<string, never, HttpServerRequest.HttpServerRequest> = Effect.gen(function*() {
  const configured = yield* Config.option(Config.string("SIFT_PUBLIC_URL")).pipe(Effect.orElseSucceed(() => Option.none<string>()))
  if (Option.isSome(configured) && configured.value.trim() !== "") return configured.value.trim().replace(/\/+$/, "")
  const request = yield* HttpServerRequest.HttpServerRequest
  const proto = request.headers["x-forwarded-proto"] === "https" ? "https" : "http"
  return `${proto}://${request.headers.host ?? "127.0.0.1:3002"}`
})

// Expired files are removed at most this often, by the request that stores a new one.
const SWEEP_EVERY_MS = 10 * 60 * 1000
let lastSweep = 0

/** Stores one image and returns the URL it is served at for 24 hours. */
export const host = (origin: string) => (file: ImageEnrich.ImageFile) =>
  Effect.gen(function*() {
    const blobs = yield* BlobStore.BlobStore
    const id = newId()
    yield* blobs.put(KEY_PREFIX + id, file.bytes, { contentType: file.contentType })
    const now = yield* Clock.currentTimeMillis
    if (now - lastSweep > SWEEP_EVERY_MS) {
      lastSweep = now
      yield* sweep.pipe(Effect.provideService(BlobStore.BlobStore, blobs), Effect.catchAll(() => Effect.void), Effect.forkDaemon)
    }
    return `${origin}${PATH_PREFIX}${id}`
  }).pipe(Effect.orDie)

// Content-hosted ids written within the last hour, per store, so a repeated answer (a cached screenshot) is not
// written again.
const REWRITE_AFTER_MS = 60 * 60 * 1000
const recentlyHosted = new WeakMap<object, Map<string, number>>()

/**
 * Stores bytes under an id derived from their SHA-256 (the same bytes, the same URL; anyone who can name it already
 * has the bytes) and returns their URL, served for 24 hours from the last time they were stored.
 */
export const hostContent = (origin: string) => (file: { readonly bytes: Uint8Array; readonly contentType: string }) =>
  Effect.gen(function*() {
    const digest = createHash("sha256").update(file.bytes).digest()
    const id = "file_" + Array.from(digest, (byte) => BASE62[byte % 62]).join("")
    const now = yield* Clock.currentTimeMillis
    const blobs = yield* BlobStore.BlobStore
    const recent = recentlyHosted.get(blobs) ?? new Map<string, number>()
    recentlyHosted.set(blobs, recent)
    if (now - (recent.get(id) ?? 0) > REWRITE_AFTER_MS) {
      yield* blobs.put(KEY_PREFIX + id, file.bytes, { contentType: file.contentType })
      recent.delete(id)
      if (recent.size >= 10_000) recent.delete(recent.keys().next().value!)
      recent.set(id, now)
    }
    return `${origin}${PATH_PREFIX}${id}`
  }).pipe(Effect.orDie)

/** Deletes hosted files older than 24 hours (they are refused on read already; this frees the space). */
export const sweep = Effect.gen(function*() {
  const blobs = yield* BlobStore.BlobStore
  const cutoff = new Date((yield* Clock.currentTimeMillis) - TTL_MS)
  yield* blobs.removeOlderThan(KEY_PREFIX, cutoff)
})

const notFound = (id: string) => {
  const requestId = randomUUID()
  return HttpServerResponse.unsafeJson(
    { request_id: requestId, error_code: "NOT_FOUND", message: `No hosted file ${id} (images are kept for 24 hours, batch results 7 days after the batch settles)` },
    { status: 404, headers: { "x-request-id": requestId } }
  )
}

/**
 * Answers `GET /v1/files/{id}`: a hosted image while it is younger than 24 hours, a batch's gzipped NDJSON part until
 * its results expire, else 404 `NOT_FOUND`.
 */
export const serve = (id: string) =>
  Effect.gen(function*() {
    if (!ID.test(id)) return notFound(id)
    const blobs = yield* BlobStore.BlobStore
    const found = yield* blobs.get(KEY_PREFIX + id)
    if (Option.isNone(found)) {
      // A batch's NDJSON part (wave2 §21.3): the same capability ids, kept until the batch's results expire.
      const part = yield* Batches.readFile(id)
      if (part === undefined) return notFound(id)
      return HttpServerResponse.uint8Array(part, {
        contentType: "application/gzip",
        headers: {
          "x-request-id": randomUUID(),
          "content-disposition": `attachment; filename="${id}.ndjson.gz"`,
          "cache-control": "private, no-store",
          "x-content-type-options": "nosniff"
        }
      })
    }
    const now = yield* Clock.currentTimeMillis
    const age = now - found.value.createdAt.getTime()
    if (age >= TTL_MS) {
      yield* blobs.delete(KEY_PREFIX + id)
      return notFound(id)
    }
    return HttpServerResponse.uint8Array(found.value.bytes, {
      contentType: Option.getOrElse(found.value.contentType, () => "application/octet-stream"),
      headers: {
        "x-request-id": randomUUID(),
        "cache-control": `public, max-age=${Math.max(0, Math.floor((TTL_MS - age) / 1000))}, immutable`,
        "x-content-type-options": "nosniff",
        // An SVG served from the API's origin must not run script there.
        "content-security-policy": "default-src 'none'; style-src 'unsafe-inline'; sandbox"
      }
    })
  }).pipe(Effect.catchAll(() => Effect.succeed(HttpServerResponse.unsafeJson(
    { request_id: randomUUID(), error_code: "INTERNAL_ERROR", message: "The file store could not be read" },
    { status: 500 }
  ))))
