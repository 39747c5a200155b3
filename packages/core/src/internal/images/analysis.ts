/**
 * What Sift reads from an image's pixels: its real size, a perceptual hash, and the colour, alpha and repetition
 * features the classifier uses. The header gives the size; the pixels are decoded once (sharp) into a bounded RGBA
 * working copy (most web images are smaller and are copied whole), and the hash and the feature thumbnail are both made
 * from that copy.
 */
import sharp from "sharp"
import { MAX_IMAGE_PIXELS } from "../convert/limits.js"

/** Decoded images larger than this are refused (a decompression bomb is not an image of the page): 40 megapixels. */
const MAX_INPUT_PIXELS = MAX_IMAGE_PIXELS

/**
 * The longest side of the decoded working copy: 4 MB of RGBA at most, whatever the image's size. JPEG and WebP decode
 * straight to a fraction of their size (libvips' shrink-on-load, which averages as it shrinks), so a small copy of
 * them costs a fraction of the decode; other formats decode whole anyway, and a copy of up to 1024 px keeps the exact
 * colours of flat artwork (logos, icons, patterns) for the thumbnail.
 */
const workingSide = (format: string | undefined): number => (format === "jpeg" || format === "webp" ? 256 : 1024)

/** The features of one decoded image. */
export interface Analysis {
  /** `png`, `jpeg`, `webp`, `gif`, `svg`, ... as sharp detected it. */
  readonly format: string
  readonly width: number
  readonly height: number
  /** 64-bit difference hash of the 9x8 greyscale thumbnail, as 16 hex digits. */
  readonly hash: string
  /** Distinct colours (4 bits per channel) among the opaque pixels of a 64x64 thumbnail. */
  readonly colours: number
  /** Share (0..1) of the opaque pixels covered by the 4 most frequent colours: high for flat artwork. */
  readonly topColourShare: number
  /** Share (0..1) of the thumbnail's pixels that are mostly transparent. */
  readonly transparency: number
  /** The thumbnail repeats itself under a small shift: a tiled pattern. */
  readonly periodic: boolean
}

const THUMB = 64

type Pixels = { readonly data: Buffer; readonly raw: { readonly width: number; readonly height: number; readonly channels: 4 } }

/** Decodes `bytes` and measures it; undefined when sharp cannot read it as an image. */
export const analyze = async (bytes: Uint8Array): Promise<Analysis | undefined> => {
  try {
    const input = sharp(bytes, { limitInputPixels: MAX_INPUT_PIXELS, animated: false })
    const meta = await input.metadata()
    const width = meta.width
    const height = meta.height
    if (width === undefined || height === undefined || width === 0 || height === 0) return undefined
    // The one decode.
    const { data, info } = await input
      .ensureAlpha()
      .resize(workingSide(meta.format), workingSide(meta.format), { fit: "inside", withoutEnlargement: true })
      .raw()
      .toBuffer({ resolveWithObject: true })
    const pixels: Pixels = { data, raw: { width: info.width, height: info.height, channels: 4 } }
    const [hash, thumbnail] = await Promise.all([
      differenceHash(pixels),
      sharp(pixels.data, { raw: pixels.raw }).resize(THUMB, THUMB, { fit: "fill", kernel: "nearest" }).raw().toBuffer()
    ])
    return { format: meta.format ?? "unknown", width, height, hash, ...colourFeatures(thumbnail), periodic: isPeriodic(thumbnail) }
  } catch {
    return undefined
  }
}

/** dHash: each bit says whether a pixel of the 9x8 greyscale thumbnail is brighter than its right neighbour. */
const differenceHash = async (pixels: Pixels): Promise<string> => {
  const grey = await sharp(pixels.data, { raw: pixels.raw })
    // Transparent areas compare as white, as they show on a page.
    .flatten({ background: "#ffffff" })
    .greyscale()
    .resize(9, 8, { fit: "fill" })
    .raw()
    .toBuffer()
  let hash = 0n
  for (let row = 0; row < 8; row++) {
    for (let column = 0; column < 8; column++) {
      hash = (hash << 1n) | (grey[row * 9 + column]! > grey[row * 9 + column + 1]! ? 1n : 0n)
    }
  }
  return hash.toString(16).padStart(16, "0")
}

/** Bits that differ between two hashes of `differenceHash`. */
export const hashDistance = (a: string, b: string): number => {
  let diff = BigInt(`0x${a}`) ^ BigInt(`0x${b}`)
  let bits = 0
  while (diff > 0n) {
    bits += Number(diff & 1n)
    diff >>= 1n
  }
  return bits
}

const colourFeatures = (rgba: Buffer) => {
  const counts = new Map<number, number>()
  let transparent = 0
  const pixels = rgba.length / 4
  for (let i = 0; i < rgba.length; i += 4) {
    if (rgba[i + 3]! < 128) {
      transparent++
      continue
    }
    const key = ((rgba[i]! >> 4) << 8) | ((rgba[i + 1]! >> 4) << 4) | (rgba[i + 2]! >> 4)
    counts.set(key, (counts.get(key) ?? 0) + 1)
  }
  const opaque = pixels - transparent
  const top = [...counts.values()].sort((a, b) => b - a).slice(0, 4).reduce((sum, n) => sum + n, 0)
  return { colours: counts.size, topColourShare: opaque === 0 ? 0 : top / opaque, transparency: transparent / pixels }
}

/**
 * True when the thumbnail equals itself shifted by some period in both directions (mean channel difference under 6)
 * while not being flat: tiles, checkerboards, stripes of a background pattern.
 */
const isPeriodic = (rgba: Buffer): boolean => {
  const at = (x: number, y: number, c: number) => rgba[(y * THUMB + x) * 4 + c]!
  let mean = 0
  for (let i = 0; i < rgba.length; i += 4) mean += rgba[i]! + rgba[i + 1]! + rgba[i + 2]!
  mean /= (rgba.length / 4) * 3
  let variance = 0
  for (let i = 0; i < rgba.length; i += 4) {
    for (let c = 0; c < 3; c++) variance += (rgba[i + c]! - mean) ** 2
  }
  if (Math.sqrt(variance / ((rgba.length / 4) * 3)) < 20) return false
  const differenceAt = (dx: number, dy: number) => {
    let sum = 0
    let n = 0
    for (let y = 0; y + dy < THUMB; y++) {
      for (let x = 0; x + dx < THUMB; x++) {
        for (let c = 0; c < 3; c++) sum += Math.abs(at(x, y, c) - at(x + dx, y + dy, c))
        n += 3
      }
    }
    return sum / n
  }
  // A direction repeats when some shift (two repetitions must fit) brings the image back onto itself while half that
  // shift clearly does not: a shape's edges differ more the further it moves, a tile's return at its period.
  // A direction along which nothing changes (stripes) counts as repeating.
  const repeats = (dx: number, dy: number) => {
    if (differenceAt(dx, dy) < 2) return "constant"
    for (let shift = 4; shift <= THUMB / 2; shift++) {
      const whole = differenceAt(dx * shift, dy * shift)
      const half = differenceAt(dx * Math.round(shift / 2), dy * Math.round(shift / 2))
      if (whole < 6 && half > 3 * whole + 10) return "periodic"
    }
    return "no"
  }
  const across = repeats(1, 0)
  const down = repeats(0, 1)
  return across !== "no" && down !== "no" && (across === "periodic" || down === "periodic")
}
