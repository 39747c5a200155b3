/**
 * Where images hide in markup and how to tell a real image from a placeholder: lazy-load attributes, `srcset`s,
 * inline backgrounds, and the 1×1 pixels and spacers that no person sees.
 */
import type { Element } from "hast"
import { find, html } from "property-information"
import { bestCandidate, parseSrcset } from "./url.js"

const property = (attribute: string): string => find(html, attribute).property

/** Lazy-load attributes holding the real image URL, most specific first (lazysizes, jQuery lazyload, WordPress...). */
export const lazySrcProperties = [
  "data-src", "data-lazy-src", "data-original", "data-lazy", "data-url", "data-hi-res-src", "data-original-src",
  "data-full-src", "data-echo", "data-actualsrc"
].map(property)

/**
 * The URL in a lazy-load attribute. Foundation's interchange syntax (`[small.jpg, (default)], [large.jpg, (large)]`)
 * lists sizes from small to large, so its last URL is the one a large screen gets.
 */
export const lazyUrl = (value: string | undefined): string | undefined => {
  if (value === undefined || !value.startsWith("[")) return value
  const urls = [...value.matchAll(/\[\s*([^,\]\s]+)\s*,/g)].map((match) => match[1]!)
  return urls.at(-1)
}

/** Lazy-load attributes holding a real `srcset`. */
export const lazySrcsetProperties = ["data-srcset", "data-lazy-srcset", "data-original-set"].map(property)

/** Lazy background attributes (lazysizes `data-bg`, and common variants). */
export const lazyBackgroundProperties = ["data-bg", "data-background", "data-background-image", "data-bg-src"].map(
  property
)

/** The first non-empty string among `properties` of `element`. */
export const firstString = (element: Element, properties: ReadonlyArray<string>): string | undefined => {
  for (const name of properties) {
    const value = element.properties[name]
    if (typeof value === "string" && value.trim() !== "") return value.trim()
  }
  return undefined
}

/** The best candidate URL of the first non-empty `srcset` among `properties`. */
export const bestOfSrcset = (element: Element, properties: ReadonlyArray<string>): string | undefined => {
  const value = firstString(element, properties)
  return value === undefined ? undefined : bestCandidate(parseSrcset(value))?.url
}

/** A width or height attribute when it is a plain number (`300` or `300px`); percentages and the like are not. */
export const dimension = (value: unknown): number | undefined => {
  if (typeof value === "number") return Number.isFinite(value) && value >= 0 ? Math.round(value) : undefined
  if (typeof value !== "string") return undefined
  const match = /^\s*(\d+(?:\.\d+)?)\s*(?:px)?\s*$/i.exec(value)
  return match === null ? undefined : Math.round(Number(match[1]))
}

const spacerName = /(?:^|[/_.-])(?:spacer|blank|pixel|1x1|transparent|clear|trans|empty|px)\.(?:gif|png|webp)(?:$|[?#])/i
const placeholderName = /(?:placeholder|lazy[-_]?load|loading|spinner|blank|spacer|1x1)[^/]*\.(?:gif|png|svg|webp)(?:$|[?#])/i

/** Whether `src` only holds the place of a lazily loaded image (an empty value, a data URI, a named placeholder). */
export const isPlaceholder = (src: string | undefined): boolean =>
  src === undefined || src === "" || src === "#" || src === "about:blank" || /^data:/i.test(src) ||
  placeholderName.test(src)

/** Whether an image is a tracking pixel or spacer: declared or intrinsically at most 1×1, or named like a spacer. */
export const isInvisible = (url: string, width: number | undefined, height: number | undefined): boolean => {
  if (width === 0 || height === 0) return true
  if (width !== undefined && height !== undefined && width <= 1 && height <= 1) return true
  if (/^data:/i.test(url)) return isBlankDataUri(url)
  return spacerName.test(url)
}

// A data URI is blank when its GIF or PNG header says 1×1 (or less), or when it is an SVG that draws nothing.
const isBlankDataUri = (url: string): boolean => {
  const comma = url.indexOf(",")
  if (comma === -1) return true
  const header = url.slice(5, comma).toLowerCase()
  const payload = url.slice(comma + 1)
  if (header.startsWith("image/svg")) {
    const svg = header.endsWith(";base64") ? decodeBase64(payload) : safeDecode(payload)
    return !/<(?:path|rect|circle|ellipse|line|polygon|polyline|text|image|use|g)\b/i.test(svg)
  }
  if (!header.endsWith(";base64")) return false
  const bytes = Buffer.from(payload.slice(0, 64), "base64")
  const size = header.startsWith("image/gif") && bytes.length >= 10
    ? { width: bytes.readUInt16LE(6), height: bytes.readUInt16LE(8) }
    : header.startsWith("image/png") && bytes.length >= 24
    ? { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) }
    : undefined
  return size !== undefined && size.width <= 1 && size.height <= 1
}

const decodeBase64 = (payload: string): string => Buffer.from(payload, "base64").toString("utf8")

const safeDecode = (payload: string): string => {
  try {
    return decodeURIComponent(payload)
  } catch {
    return payload
  }
}

/** The `url(...)` references of an inline style's `background` and `background-image` declarations. */
export const backgroundUrls = (style: string): Array<string> => {
  const urls: Array<string> = []
  for (const declaration of style.matchAll(/background(?:-image)?\s*:([^;]*)/gi)) {
    for (const reference of declaration[1]!.matchAll(/url\(\s*(['"]?)(.*?)\1\s*\)/gi)) {
      const url = reference[2]!.trim()
      if (url !== "") urls.push(url)
    }
  }
  return urls
}
