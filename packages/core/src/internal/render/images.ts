/**
 * Natural sizes of CSS background images. The browser exposes `naturalWidth`/`naturalHeight` only for `img`
 * elements; a background's picture is decoded again in the page (`new Image()`, `decode()`), where it usually comes
 * from the memory cache the background was drawn from, and every request still passes the context's address guard.
 */
import type { Page } from "playwright-core"
import type * as Renderer from "../../Renderer.js"

// Functions passed to `page.evaluate` run in the browser; these names are the page's globals (core has no DOM types).
declare const Image: new() => any
declare const setTimeout: (f: () => void, ms: number) => unknown

/** At most this many distinct background URLs are decoded per page; the rest keep a natural size of 0. */
export const MAX_BACKGROUND_DECODES = 40

/** The longest the page is given to decode them all (default; the caller's deadline may cut it shorter). */
export const BACKGROUND_DECODE_MS = 3_000

/** Options of `withBackgroundSizes`. */
export interface BackgroundSizeOptions {
  readonly maxDecodes?: number
  /** Milliseconds for all the decodes together; images not decoded by then keep 0. */
  readonly withinMs?: number
}

/**
 * `found` with the natural size of each CSS background image that has none yet: the distinct URLs (document order,
 * at most `maxDecodes`) are decoded in the page in parallel within `withinMs`. A picture that fails to load or decode,
 * or is still loading when the time is up, keeps 0 x 0; a page that cannot be evaluated leaves `found` as it is.
 */
export const withBackgroundSizes = async (
  page: Page,
  found: ReadonlyArray<Renderer.RenderedImage>,
  options: BackgroundSizeOptions = {}
): Promise<ReadonlyArray<Renderer.RenderedImage>> => {
  const unsized = found.filter((image) => image.source === "background" && image.naturalWidth === 0 && /^(https?|data|blob):/i.test(image.url))
  const urls = [...new Set(unsized.map((image) => image.url))].slice(0, options.maxDecodes ?? MAX_BACKGROUND_DECODES)
  if (urls.length === 0) return found
  const sizes = await page.evaluate(async ({ urls, withinMs }) => {
    const results: Array<[number, number]> = urls.map(() => [0, 0])
    const decodeOne = (url: string, index: number) =>
      new Promise<void>((resolve) => {
        const image = new Image()
        image.decoding = "async"
        image.src = url
        image.decode().then(() => {
          results[index] = [image.naturalWidth, image.naturalHeight]
        }, () => undefined).then(resolve)
      })
    await Promise.race([
      Promise.all(urls.map(decodeOne)),
      new Promise<void>((resolve) => setTimeout(resolve, withinMs))
    ])
    // A copy: decodes finishing after the race must not change what is being returned.
    return results.map(([width, height]) => [width, height] as [number, number])
  }, { urls, withinMs: options.withinMs ?? BACKGROUND_DECODE_MS }).catch(() => undefined)
  if (sizes === undefined) return found
  const byUrl = new Map(urls.map((url, index) => [url, sizes[index]!] as const))
  return found.map((image) => {
    const size = image.source === "background" && image.naturalWidth === 0 ? byUrl.get(image.url) : undefined
    return size === undefined || size[0] === 0 ? image : { ...image, naturalWidth: size[0], naturalHeight: size[1] }
  })
}
