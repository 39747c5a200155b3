import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit } from "effect"
import sharp from "sharp"
import * as Screenshot from "../src/Screenshot.js"

// A capture as a browser returns it: a PNG, here a white page with a red block at (40, 30) of 100x50.
const capture = () =>
  sharp({ create: { width: 320, height: 200, channels: 4, background: "#ffffff" } })
    .composite([{ input: { create: { width: 100, height: 50, channels: 4, background: "#ff0000" } }, left: 40, top: 30 }])
    .png()
    .toBuffer()

const pixel = async (bytes: Uint8Array, x: number, y: number) => {
  const { data, info } = await sharp(bytes).removeAlpha().raw().toBuffer({ resolveWithObject: true })
  const i = (y * info.width + x) * info.channels
  return [data[i]!, data[i + 1]!, data[i + 2]!]
}

const near = (actual: Array<number>, expected: Array<number>) =>
  actual.every((value, i) => Math.abs(value - expected[i]!) <= 12)

describe("Screenshot.encode", () => {
  it.effect("passes a PNG asked for as PNG through untouched", () =>
    Effect.gen(function*() {
      const png = yield* Effect.promise(capture)
      const shot = yield* Screenshot.encode(png, "png")
      expect(shot).toMatchObject({ format: "png", contentType: "image/png", width: 320, height: 200 })
      expect(Buffer.compare(Buffer.from(shot.bytes), png)).toBe(0)
    }))

  for (const format of ["jpeg", "webp"] as const) {
    it.effect(`encodes ${format} with the capture's pixels`, () =>
      Effect.gen(function*() {
        const shot = yield* Screenshot.encode(yield* Effect.promise(capture), format)
        const meta = yield* Effect.promise(() => sharp(shot.bytes).metadata())
        expect(meta.format).toBe(format)
        expect([meta.width, meta.height, shot.width, shot.height]).toEqual([320, 200, 320, 200])
        expect(near(yield* Effect.promise(() => pixel(shot.bytes, 90, 55)), [255, 0, 0])).toBe(true)
        expect(near(yield* Effect.promise(() => pixel(shot.bytes, 10, 10)), [255, 255, 255])).toBe(true)
      }))
  }

  it.effect("round-trips through a data URL", () =>
    Effect.gen(function*() {
      const shot = yield* Screenshot.encode(yield* Effect.promise(capture), "webp")
      const url = Screenshot.toDataUrl(shot)
      expect(url.startsWith("data:image/webp;base64,")).toBe(true)
      const back = Screenshot.fromDataUrl(url)!
      expect(back.contentType).toBe("image/webp")
      expect(Buffer.compare(Buffer.from(back.bytes), Buffer.from(shot.bytes))).toBe(0)
    }))

  it.effect("refuses a capture over 40 megapixels with INPUT_VALIDATION_ERROR", () =>
    Effect.gen(function*() {
      // 8000 x 5001 = 40.008 megapixels: one row over the cap.
      const huge = yield* Effect.promise(() =>
        sharp({ create: { width: 8000, height: 5001, channels: 3, background: "#ffffff" } }).png({ compressionLevel: 1 }).toBuffer())
      const exit = yield* Effect.exit(Screenshot.encode(huge, "jpeg"))
      expect(Exit.isFailure(exit)).toBe(true)
      if (Exit.isFailure(exit) && exit.cause._tag === "Fail") {
        expect(exit.cause.error.errorCode).toBe("INPUT_VALIDATION_ERROR")
        expect(exit.cause.error.message).toMatch(/40-megapixel cap/)
      }
      const exact = yield* Effect.promise(() =>
        sharp({ create: { width: 8000, height: 5000, channels: 3, background: "#ffffff" } }).png({ compressionLevel: 1 }).toBuffer())
      const ok = yield* Screenshot.encode(exact, "png")
      expect(ok.width * ok.height).toBe(Screenshot.MAX_PIXELS)
    }), 60_000)

  it.effect("refuses bytes that are not an image", () =>
    Effect.gen(function*() {
      const exit = yield* Effect.exit(Screenshot.encode(new TextEncoder().encode("<html>"), "png"))
      expect(Exit.isFailure(exit)).toBe(true)
    }))
})

describe("Screenshot.plan", () => {
  const viewport = { width: 1920, height: 1080 }
  it.effect("maps each area to a capture plan", () =>
    Effect.gen(function*() {
      expect(yield* Screenshot.plan(undefined, viewport)).toEqual({ kind: "viewport" })
      expect(yield* Screenshot.plan({ area: "fullPage" }, viewport)).toEqual({ kind: "fullPage" })
      expect(yield* Screenshot.plan({ area: { selector: "#hero" } }, viewport)).toEqual({ kind: "selector", selector: "#hero" })
      expect(yield* Screenshot.plan({ area: { x: 0, y: 10, width: 300, height: 200 } }, viewport))
        .toEqual({ kind: "rectangle", x: 0, y: 10, width: 300, height: 200 })
    }))

  it.effect("refuses a rectangle or viewport over the cap before any capture", () =>
    Effect.gen(function*() {
      const rectangle = yield* Effect.flip(Screenshot.plan({ area: { x: 0, y: 0, width: 10_000, height: 4_001 } }, viewport))
      expect(rectangle.field).toBe("screenshotParams.area")
      const wide = yield* Effect.flip(Screenshot.plan({}, { width: 10_000, height: 5_000 }))
      expect(wide.field).toBe("sharedParams.viewport")
    }))
})
