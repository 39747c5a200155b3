/**
 * The `screenshot` output: which part of the page to capture (`area`), the 40-megapixel cap, encoding the browser's
 * PNG capture as png, jpeg or webp (sharp), and the data URL the API returns. The browser capture itself belongs to
 * the `Renderer`; everything here is a pure function of the request and the captured bytes.
 *
 * @since 0.1.0
 */
import { Effect } from "effect"
import sharp from "sharp"
import { ContentError, InvalidRequest, type WebsiteError } from "./Errors.js"
import type * as Renderer from "./Renderer.js"
import type * as ScrapeRequest from "./ScrapeRequest.js"

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
    try: () => sharp(bytes, { limitInputPixels: false }).metadata(),
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
      try: () => sharp(capture, { limitInputPixels: false }).extract({ left: 0, top: offset, width: size.width, height: sliceHeight }).png().toBuffer(),
      catch: (error) => new ContentError({ reason: "Corrupt", detail: `could not cut the screenshot: ${String(error)}` })
    })
    return { bytes: new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength), width: size.width, height: sliceHeight }
  })
