/**
 * The `screenshot` output: which part of the page to capture (`area`), the 40-megapixel cap, encoding the browser's
 * PNG capture as png, jpeg or webp (sharp), the data URL the API returns, and the screenshot cache (`cached`). The
 * browser capture itself belongs to the `Renderer`; everything else is a function of the request and the bytes.
 *
 * @since 0.1.0
 */
import { Clock, Effect, Option } from "effect"
import { createHash } from "node:crypto"
import sharp from "sharp"
import { Cache, usesCache } from "./Cache.js"
import { ContentError, InvalidRequest, type WebsiteError } from "./Errors.js"
import { frame, unframe } from "./internal/cacheFrame.js"
import { viewportOf } from "./internal/render/session.js"
import type * as Renderer from "./Renderer.js"
import * as ScrapeRequest from "./ScrapeRequest.js"
import type { CacheMetadata, ScrapeResult } from "./ScrapeResult.js"

type ScrapeMetadata = ScrapeResult["metadata"]

/** The largest screenshot Sift produces, in pixels (decisions §2: at most 40 megapixels). */
export const MAX_PIXELS = 40_000_000

/** An encoding of the screenshot output. */
export type Format = "png" | "jpeg" | "webp"

/** The part of the page to capture, as the request names it. */
export type Area = NonNullable<ScrapeRequest.ScreenshotParams["area"]>

/** The browser viewport in CSS pixels. */
export interface Size {
  readonly width: number
  readonly height: number
}

/** An encoded screenshot. */
export interface Screenshot {
  readonly format: Format
  readonly contentType: string
  readonly bytes: Uint8Array
  readonly width: number
  readonly height: number
}

/** What the browser should capture: the viewport, the whole page, one element, or a rectangle of the page. */
export type CapturePlan =
  | { readonly kind: "viewport" }
  | { readonly kind: "fullPage" }
  | { readonly kind: "selector"; readonly selector: string }
  | { readonly kind: "rectangle"; readonly x: number; readonly y: number; readonly width: number; readonly height: number }

const contentTypes: Record<Format, string> = { png: "image/png", jpeg: "image/jpeg", webp: "image/webp" }

const overCap = (field: string, width: number, height: number) =>
  new InvalidRequest({
    reason: "Invalid",
    field,
    detail: `a ${width}x${height} screenshot is ${(width * height / 1e6).toFixed(1)} megapixels, over the ${MAX_PIXELS / 1e6}-megapixel cap`
  })

/** Checks a size against the 40-megapixel cap; `field` names the request member that asked for it. */
export const checkPixels = (width: number, height: number, field = "screenshotParams.area"): Effect.Effect<void, InvalidRequest> =>
  width * height > MAX_PIXELS ? Effect.fail(overCap(field, width, height)) : Effect.void

/**
 * The capture plan of a request, checked before any browser work: a rectangle or a viewport over the cap is refused
 * at once (400), so a request that can never succeed costs nothing. A full page or an element is checked against the
 * cap once its size is known (`checkPixels`).
 */
export const plan = (params: ScrapeRequest.ScreenshotParams | undefined, viewport: Size): Effect.Effect<CapturePlan, InvalidRequest> =>
  Effect.gen(function*() {
    const area = params?.area ?? "viewport"
    if (area === "viewport") {
      yield* checkPixels(viewport.width, viewport.height, "sharedParams.viewport")
      return { kind: "viewport" } as const
    }
    if (area === "fullPage") return { kind: "fullPage" } as const
    if ("selector" in area) return { kind: "selector", selector: area.selector } as const
    yield* checkPixels(area.width, area.height)
    return { kind: "rectangle", x: area.x, y: area.y, width: area.width, height: area.height } as const
  })

/**
 * Encodes a browser capture (any image sharp reads; browsers give PNG) as `format`, refusing a capture over the cap.
 * PNG captures asked for as PNG are passed through untouched.
 */
export const encode = (capture: Uint8Array, format: Format = "png"): Effect.Effect<Screenshot, InvalidRequest | ContentError> =>
  Effect.gen(function*() {
    const meta = yield* Effect.tryPromise({
      // The header only (no pixel is decoded), unlimited so that a capture over the cap gets the contract's error below.
      try: () => sharp(capture, { limitInputPixels: false }).metadata(),
      catch: (error) => new ContentError({ reason: "Corrupt", detail: `the browser returned an unreadable screenshot: ${String(error)}` })
    })
    const width = meta.width ?? 0
    const height = meta.height ?? 0
    yield* checkPixels(width, height)
    if (format === "png" && meta.format === "png") {
      return { format, contentType: contentTypes.png, bytes: capture, width, height }
    }
    const bytes = yield* Effect.tryPromise({
      try: () => {
        const image = sharp(capture, { limitInputPixels: MAX_PIXELS })
        switch (format) {
          case "png":
            return image.png().toBuffer()
          case "jpeg":
            // JPEG has no alpha: transparent areas become white, as a page's default background.
            return image.flatten({ background: "#ffffff" }).jpeg({ quality: 85, mozjpeg: true }).toBuffer()
          case "webp":
            return image.webp({ quality: 85 }).toBuffer()
        }
      },
      catch: (error) => new ContentError({ reason: "Corrupt", detail: `could not encode the screenshot as ${format}: ${String(error)}` })
    })
    return { format, contentType: contentTypes[format], bytes: new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength), width, height }
  })

/** The screenshot as a data URL usable as an image `src`. */
export const toDataUrl = (screenshot: Pick<Screenshot, "contentType" | "bytes">): string =>
  `data:${screenshot.contentType};base64,${Buffer.from(screenshot.bytes.buffer, screenshot.bytes.byteOffset, screenshot.bytes.byteLength).toString("base64")}`

/** Decodes a data URL made by `toDataUrl` back to its bytes and content type (for tests and re-encoding). */
export const fromDataUrl = (dataUrl: string): { readonly contentType: string; readonly bytes: Uint8Array } | undefined => {
  const match = /^data:([^;,]+);base64,(.*)$/s.exec(dataUrl)
  if (match === null) return undefined
  return { contentType: match[1]!, bytes: new Uint8Array(Buffer.from(match[2]!, "base64")) }
}

/**
 * Captures the `screenshot` output of a request from its open browser page: the area's plan (checked against the cap
 * before capturing), the browser's PNG, then the requested encoding, as a data URL.
 */
export const capture = (
  request: ScrapeRequest.ScrapeRequest,
  session: Renderer.RenderSession
): Effect.Effect<Screenshot, InvalidRequest | ContentError | WebsiteError> =>
  Effect.gen(function*() {
    const area = yield* plan(request.screenshotParams, session.viewport)
    const png = yield* session.screenshot(area)
    yield* checkPixels(png.width, png.height)
    return yield* encode(png.png, request.screenshotParams?.format ?? "png")
  })

/** The pixel size of an encoded screenshot. */
export const measure = (bytes: Uint8Array): Effect.Effect<Size, ContentError> =>
  Effect.tryPromise({
    try: () => sharp(bytes, { limitInputPixels: MAX_PIXELS }).metadata(),
    catch: (error) => new ContentError({ reason: "Corrupt", detail: `unreadable screenshot: ${String(error)}` })
  }).pipe(Effect.map((meta) => ({ width: meta.width ?? 0, height: meta.height ?? 0 })))

/**
 * The slice of a full-page capture that starts `offset` pixels down and is at most `height` tall, as PNG (the last
 * slice of a page may be shorter). An offset at or past the page's end is an `InvalidRequest`.
 */
export const slice = (
  capture: Uint8Array,
  offset: number,
  height: number
): Effect.Effect<{ readonly bytes: Uint8Array; readonly width: number; readonly height: number }, InvalidRequest | ContentError> =>
  Effect.gen(function*() {
    const size = yield* measure(capture)
    if (offset >= size.height) {
      return yield* new InvalidRequest({ reason: "Invalid", field: "scrollOffset", detail: `the page is ${size.height} pixels tall; an offset of ${offset} is past its end` })
    }
    const sliceHeight = Math.min(height, size.height - offset)
    const bytes = yield* Effect.tryPromise({
      try: () => sharp(capture, { limitInputPixels: MAX_PIXELS }).extract({ left: 0, top: offset, width: size.width, height: sliceHeight }).png().toBuffer(),
      catch: (error) => new ContentError({ reason: "Corrupt", detail: `could not cut the screenshot: ${String(error)}` })
    })
    return { bytes: new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength), width: size.width, height: sliceHeight }
  })

// ---------------------------------------------------------------------------------------------------------------------
// Caching. A screenshot is a pure function of the page and the options that change its pixels, so a repeated request
// answers from the cache (encoded bytes plus what an answer needs) instead of rendering again.

/** A screenshot as the cache keeps it: the encoded image, the page it shows and when it was captured. */
export interface CachedScreenshot {
  readonly contentType: string
  readonly bytes: Uint8Array
  readonly width: number
  readonly height: number
  /** The captured page's URL (after redirects, or the page a `page=` lookup found). */
  readonly url: string
  /** Epoch milliseconds of the capture, for `age_ms`. */
  readonly capturedAt: number
  /** The page's metadata at the capture (what `POST /web/scrape` returns beside a cached screenshot), when known. */
  readonly metadata?: ScrapeMetadata | undefined
}

/** A screenshot and where it came from (`hit` with its age, a fresh `miss`, or `zdr` when the cache was bypassed). */
export interface CacheOutcome {
  readonly screenshot: CachedScreenshot
  readonly cache: CacheMetadata
  /** False when a deadline captured a page still loading (`return-partial`); such a capture is never cached. */
  readonly complete: boolean
}

/**
 * Whether a request may read and write the screenshot cache: when the cache rule allows it (`Cache.usesCache`) and
 * it runs no actions (decisions §3: actions bypass the cache).
 */
export const cacheable = (request: ScrapeRequest.ScrapeRequest): boolean =>
  usesCache(request) && (request.sharedParams?.actions?.length ?? 0) === 0

/** JSON with object keys sorted, so equal options give equal keys whatever order they were written in. */
const canonical = (value: unknown): string =>
  JSON.stringify(value, (_key, inner: unknown) =>
    inner !== null && typeof inner === "object" && !Array.isArray(inner)
      ? Object.fromEntries(Object.entries(inner).filter(([, v]) => v !== undefined).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : inner)

/**
 * The cache key of a screenshot: the URL and every option that changes its pixels (exit country, viewport, theme,
 * waits, settling, dismissal, frames, format and area), with defaults filled in so that spelling a default out
 * shares the entry. `extra` names what the caller adds (e.g. the page type `GET /web/screenshot` looks up).
 * Content filters, Markdown and image options, deadline, freshness and tags do not change the pixels.
 */
export const cacheKey = (request: ScrapeRequest.ScrapeRequest, extra: Record<string, unknown> = {}): string => {
  const shared = request.sharedParams
  return "screenshot:v1:" + createHash("sha256").update(canonical({
    url: request.url,
    country: shared?.country?.toLowerCase(),
    viewport: viewportOf(shared?.viewport),
    theme: shared?.theme,
    waitFor: shared?.waitFor,
    settleAnimations: shared?.settleAnimations,
    dismissCookies: shared?.dismissCookies === true,
    dismissPopups: shared?.dismissPopups === true,
    includeFrames: shared?.includeFrames === true,
    format: request.screenshotParams?.format ?? "png",
    area: request.screenshotParams?.area ?? "viewport",
    extra
  })).digest("hex")
}

/** The cache entry of a screenshot: its description, then the image bytes (`internal/cacheFrame`). */
export const encodeCached = (shot: CachedScreenshot): Uint8Array =>
  frame({
    v: 1,
    contentType: shot.contentType,
    width: shot.width,
    height: shot.height,
    url: shot.url,
    capturedAt: shot.capturedAt,
    ...(shot.metadata === undefined ? {} : { metadata: shot.metadata })
  }, shot.bytes)

/** Reads a cache entry made by `encodeCached`; anything else (an older layout, a damaged row) is `undefined`, a miss. */
export const decodeCached = (entry: Uint8Array): CachedScreenshot | undefined => {
  const framed = unframe(entry)
  if (framed === undefined || framed.body.byteLength === 0) return undefined
  const { capturedAt, contentType, height, metadata, url, v, width } = framed.header
  if (v !== 1 || typeof contentType !== "string" || typeof url !== "string") return undefined
  if (typeof width !== "number" || typeof height !== "number" || typeof capturedAt !== "number") return undefined
  const known = metadata !== null && typeof metadata === "object" && !Array.isArray(metadata) ? metadata as ScrapeMetadata : undefined
  return { contentType, width, height, url, capturedAt, bytes: framed.body, ...(known === undefined ? {} : { metadata: known }) }
}

/**
 * A screenshot through the cache. A cacheable request with `maxAgeMs` > 0 (default 1 day) is answered from a fresh
 * enough entry (`hit`, `age_ms` from the capture); otherwise `capture` runs and its complete result is stored
 * (`maxAgeMs` 0 renders fresh and updates the entry). A partial capture is returned but never stored; requests that
 * bypass the cache neither read nor write it (`zdr` for zero data retention, else `miss`).
 */
export const cached = <E, R>(
  request: ScrapeRequest.ScrapeRequest,
  capture: Effect.Effect<{ readonly screenshot: CachedScreenshot; readonly complete: boolean }, E, R>,
  extra: Record<string, unknown> = {}
): Effect.Effect<CacheOutcome, E, R | Cache> =>
  Effect.gen(function*() {
    if (!cacheable(request)) {
      const fresh = yield* capture
      return { ...fresh, cache: { status: request.zdr === "enabled" ? "zdr" : "miss", age_ms: 0 } } as const
    }
    const hit = yield* lookup(request, extra)
    if (Option.isSome(hit)) return { screenshot: hit.value.screenshot, cache: { status: "hit", age_ms: hit.value.ageMs }, complete: true } as const
    const fresh = yield* capture
    if (fresh.complete) yield* store(request, fresh.screenshot, extra)
    return { ...fresh, cache: { status: "miss", age_ms: 0 } } as const
  })

/**
 * The cached screenshot of a cacheable request, with its age, when one is fresh enough for its `maxAgeMs` (default
 * 1 day; 0 never reads). None for a request that bypasses the cache.
 */
export const lookup = (
  request: ScrapeRequest.ScrapeRequest,
  extra: Record<string, unknown> = {}
): Effect.Effect<Option.Option<{ readonly screenshot: CachedScreenshot; readonly ageMs: number }>, never, Cache> =>
  Effect.gen(function*() {
    const maxAge = request.maxAgeMs ?? ScrapeRequest.DEFAULT_MAX_AGE_MS
    if (!cacheable(request) || maxAge <= 0) return Option.none()
    const cache = yield* Cache
    const hit = (yield* cache.get(cacheKey(request, extra), maxAge)).pipe(Option.flatMapNullable((entry) => decodeCached(entry.value)))
    if (Option.isNone(hit)) return Option.none()
    const age = Math.max(0, (yield* Clock.currentTimeMillis) - hit.value.capturedAt)
    // The entry's own capture time decides, so a clock step or a lagging row never serves one older than asked.
    return age <= maxAge ? Option.some({ screenshot: hit.value, ageMs: age }) : Option.none()
  })

/** Stores a complete capture for a cacheable request (replacing the entry); a request that bypasses the cache stores nothing. */
export const store = (
  request: ScrapeRequest.ScrapeRequest,
  screenshot: CachedScreenshot,
  extra: Record<string, unknown> = {}
): Effect.Effect<void, never, Cache> =>
  cacheable(request) ? Effect.flatMap(Cache, (cache) => cache.set(cacheKey(request, extra), encodeCached(screenshot))) : Effect.void
