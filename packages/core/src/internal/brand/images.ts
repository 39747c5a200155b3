/**
 * What a logo or backdrop image is: its real resolution, whether it has its own background, how light its marks are,
 * and its palette. Decoding is bounded: at most {@link MAX_PIXELS} input pixels (sharp's `limitInputPixels`), and the
 * pixels read are those of a copy at most 64 pixels on a side.
 */
import sharp from "sharp"
import { luminance, type Rgb } from "./colors.js"

/** Input pixels sharp may decode from one image (a 6000x4000 photograph). */
export const MAX_PIXELS = 24_000_000

const SAMPLE = 64

/** What was read from an image's pixels. */
export interface ImageFacts {
  readonly width: number
  readonly height: number
  readonly format: string
  /** The image covers its frame: no transparent margin or background. */
  readonly opaque: boolean
  /** Mean luminance of the visible marks (0 dark, 1 light). */
  readonly markLuminance: number
  /** Up to five colors of the visible pixels, most covering first. */
  readonly palette: ReadonlyArray<Rgb>
}

/** Reads an image's facts; undefined when sharp cannot decode it (an .ico, a broken file, too many pixels). */
export const analyse = async (bytes: Uint8Array): Promise<ImageFacts | undefined> => {
  try {
    const image = sharp(bytes, { limitInputPixels: MAX_PIXELS, density: 72 })
    const meta = await image.metadata()
    if (meta.width === undefined || meta.height === undefined || meta.format === undefined) return undefined
    const { data, info } = await sharp(bytes, { limitInputPixels: MAX_PIXELS, density: 72 })
      .resize(SAMPLE, SAMPLE, { fit: "inside", withoutEnlargement: false })
      .ensureAlpha()
      .raw()
      .toBuffer({ resolveWithObject: true })
    const pixels = info.width * info.height
    let transparent = 0
    let lumSum = 0
    let visible = 0
    const buckets = new Map<number, { n: number; r: number; g: number; b: number }>()
    for (let y = 0; y < info.height; y++) {
      for (let x = 0; x < info.width; x++) {
        const i = (y * info.width + x) * 4
        const alpha = data[i + 3]!
        if (alpha < 128) {
          transparent++
          continue
        }
        const c = { r: data[i]!, g: data[i + 1]!, b: data[i + 2]! }
        lumSum += luminance(c)
        visible++
        // 4 bits a channel: colors a viewer tells apart, antialiasing merged.
        const key = (c.r >> 4) << 8 | (c.g >> 4) << 4 | (c.b >> 4)
        const bucket = buckets.get(key) ?? { n: 0, r: 0, g: 0, b: 0 }
        bucket.n++
        bucket.r += c.r
        bucket.g += c.g
        bucket.b += c.b
        buckets.set(key, bucket)
      }
    }
    // Opaque: (almost) every pixel is painted, so the image brings its own background (rounded corners allowed).
    const opaque = transparent / pixels < 0.03
    const palette = [...buckets.values()]
      .filter((b) => b.n / Math.max(1, visible) >= 0.02)
      .sort((a, b) => b.n - a.n)
      .slice(0, 5)
      .map((b) => ({ r: b.r / b.n, g: b.g / b.n, b: b.b / b.n }))
    return {
      width: meta.width,
      height: meta.height,
      format: meta.format,
      opaque,
      markLuminance: visible === 0 ? 0 : lumSum / visible,
      palette
    }
  } catch {
    return undefined
  }
}

/** When a logo is best used: on light pages (dark marks), on dark pages (light marks), or either (its own background). */
export const modeOf = (facts: ImageFacts): "light" | "dark" | "has_opaque_background" =>
  facts.opaque ? "has_opaque_background" : facts.markLuminance > 0.6 ? "dark" : "light"
