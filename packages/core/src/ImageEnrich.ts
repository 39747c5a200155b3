/**
 * Image enrichment (`imageParams`): downloads the page's images through the `Fetcher` (so the address guard and
 * host rules apply), decodes them for real, and then
 * - `dedupe: "visual"` keeps the largest of near-identical images (perceptual hash, at the place of the first),
 * - `dimensions` sets `width`/`height` from the decoded pixels,
 * - `classification` sets one of photography, illustration, logo, wordmark, icon, pattern, graphic, other,
 * - `file` hands the bytes to the caller's `hostFile` (the service stores them for 24 hours) and sets `fileUrl`.
 * An image that cannot be downloaded or decoded keeps what the page said about it and is never dropped.
 *
 * @since 0.1.0
 */
import { Effect, Option } from "effect"
import { Fetcher } from "./Fetcher.js"
import type * as Images from "./Images.js"
import type { ImageItem } from "./ScrapeResult.js"
import { type Analysis, analyze, hashDistance } from "./internal/images/analysis.js"
import { type Classification, classify } from "./internal/images/classify.js"

export type { Classification } from "./internal/images/classify.js"

/** An enrichment of `imageParams.enrich`. */
export type Enrichment = "dimensions" | "classification" | "file"

/** Hashes at most this many bits apart are the same picture (re-encoded, resized, recompressed). */
export const VISUAL_DISTANCE = 6

/** Images larger than this are not downloaded for enrichment (they keep what the page said about them). */
export const MAX_IMAGE_BYTES = 15 * 1024 * 1024

/** A downloaded image handed to `hostFile`. */
export interface ImageFile {
  readonly sourceUrl: string
  readonly bytes: Uint8Array
  readonly contentType: string
}

/** Options of `enrich`. */
export interface EnrichOptions<E = never, R = never> {
  readonly dedupe?: "none" | "visual" | undefined
  readonly enrich?: ReadonlyArray<Enrichment> | undefined
  /** Stores a copy and returns the URL it is served at; required for the `file` enrichment. */
  readonly hostFile?: ((file: ImageFile) => Effect.Effect<string, E, R>) | undefined
  /** Forwarded to the image hosts, as to the page. */
  readonly headers?: Readonly<Record<string, string>> | undefined
  readonly country?: string | undefined
  /** Downloads at once (default 6). */
  readonly concurrency?: number | undefined
}

/** The outcome of `enrich`: the images, and whether every image was processed. */
export interface Enriched {
  readonly images: Array<ImageItem>
  /** False when `within` ran out first: the rest are returned as gathered. */
  readonly complete: boolean
}

interface Processed {
  readonly analysis: Analysis | undefined
  readonly fileUrl: string | undefined
}

/** Whether a request's image options need the images downloaded at all. */
export const needsDownload = (options: Pick<EnrichOptions, "dedupe" | "enrich">): boolean =>
  options.dedupe === "visual" || (options.enrich?.length ?? 0) > 0

const dataUrlBytes = (url: string): ImageFile | undefined => {
  const match = /^data:([^;,]*)((?:;[^;,]*)*),(.*)$/s.exec(url)
  if (match === null) return undefined
  const base64 = /;base64/i.test(match[2]!)
  const bytes = base64 ? Buffer.from(match[3]!, "base64") : Buffer.from(decodeURIComponent(match[3]!), "utf8")
  return { sourceUrl: url, bytes: new Uint8Array(bytes), contentType: match[1] || "application/octet-stream" }
}

const contentTypeOf = (analysis: Analysis, declared: string | undefined): string => {
  const byFormat: Record<string, string> = {
    png: "image/png", jpeg: "image/jpeg", webp: "image/webp", gif: "image/gif", svg: "image/svg+xml", avif: "image/avif",
    heif: "image/avif", tiff: "image/tiff"
  }
  return byFormat[analysis.format] ?? declared ?? "application/octet-stream"
}

/** Downloads (or decodes a data URL) and analyses one image; any failure leaves it unprocessed. */
const download = (image: Images.Image, options: EnrichOptions<any, any>) =>
  Effect.gen(function*() {
    if (image.url.startsWith("data:")) return dataUrlBytes(image.url)
    const fetcher = yield* Fetcher
    const response = yield* fetcher.fetch({ url: image.url, headers: options.headers, country: options.country, maxBytes: MAX_IMAGE_BYTES })
    if (response.status >= 400) return undefined
    return { sourceUrl: image.url, bytes: response.body, contentType: response.contentType ?? "application/octet-stream" } satisfies ImageFile
  }).pipe(Effect.catchAll(() => Effect.succeed(undefined)))

/**
 * Enriches `images` (in document order, as `Images.collect` returns them). `within` bounds the work in milliseconds:
 * when it passes, the images processed so far are returned enriched, the others as gathered, with `complete: false`.
 */
export const enrich = <E = never, R = never>(
  images: ReadonlyArray<Images.Image>,
  options: EnrichOptions<E, R>,
  within?: number
): Effect.Effect<Enriched, E, Fetcher | R> =>
  Effect.gen(function*() {
    const wanted = new Set(options.enrich ?? [])
    if (!needsDownload(options)) return { images: images.map((image) => ({ ...image })), complete: true }
    const processed = new Map<number, Processed>()
    const work = Effect.forEach(images, (image, index) =>
      Effect.gen(function*() {
        const file = yield* download(image, options)
        const analysis = file === undefined ? undefined : yield* Effect.promise(() => analyze(file.bytes))
        const fileUrl = file !== undefined && analysis !== undefined && wanted.has("file") && options.hostFile !== undefined
          ? yield* options.hostFile({ ...file, contentType: contentTypeOf(analysis, file.contentType) })
          : undefined
        processed.set(index, { analysis, fileUrl })
      }), { concurrency: options.concurrency ?? 6, discard: true })
    const finished = within === undefined
      ? yield* Effect.as(work, true)
      // Interruptible even when the caller runs uninterruptibly, and disconnected: a download that is slow to
      // close is abandoned in the background instead of holding the response.
      : Option.isSome(yield* Effect.interruptible(Effect.timeoutOption(Effect.disconnect(work), within)))
    return { images: assemble(images, processed, options), complete: finished }
  })

/** Applies dedupe and the enrichments to the processed images; unprocessed ones pass through as gathered. */
const assemble = (
  images: ReadonlyArray<Images.Image>,
  processed: ReadonlyMap<number, Processed>,
  options: Pick<EnrichOptions, "dedupe" | "enrich">
): Array<ImageItem> => {
  const wanted = new Set(options.enrich ?? [])
  const item = (image: Images.Image, index: number): ImageItem => {
    const done = processed.get(index)
    const analysis = done?.analysis
    if (analysis === undefined) return { ...image }
    const classification: Classification | undefined = wanted.has("classification")
      ? classify(analysis, { url: image.url, alt: image.alt, index })
      : undefined
    return {
      url: image.url,
      alt: image.alt,
      ...(wanted.has("dimensions") ? { width: analysis.width, height: analysis.height } : pick(image)),
      ...(classification === undefined ? {} : { classification }),
      ...(done?.fileUrl === undefined ? {} : { fileUrl: done.fileUrl })
    }
  }
  const items = images.map(item)
  if (options.dedupe !== "visual") return items
  // Groups of near-identical pictures: each group keeps its largest member, at the place of its first.
  const groups: Array<{ hash: string; first: number; best: number; area: number }> = []
  const kept = new Map<number, number>()
  images.forEach((_image, index) => {
    const analysis = processed.get(index)?.analysis
    if (analysis === undefined) {
      kept.set(index, index)
      return
    }
    const area = analysis.width * analysis.height
    const group = groups.find((candidate) => hashDistance(candidate.hash, analysis.hash) <= VISUAL_DISTANCE)
    if (group === undefined) {
      groups.push({ hash: analysis.hash, first: index, best: index, area })
      return
    }
    if (area > group.area) {
      group.best = index
      group.area = area
    }
  })
  for (const group of groups) kept.set(group.first, group.best)
  return [...kept.entries()].sort(([a], [b]) => a - b).map(([, index]) => items[index]!)
}

const pick = (image: Images.Image) => ({
  ...(image.width === undefined ? {} : { width: image.width }),
  ...(image.height === undefined ? {} : { height: image.height })
})
