/**
 * The `images` output: every image a person sees on the (filtered) page, with absolute URLs, in document order.
 *
 * @since 0.1.0
 */
import type { Element, Root, RootContent } from "hast"
import { Effect, Option, Schema } from "effect"
import {
  backgroundUrls,
  bestOfSrcset,
  dimension,
  firstString,
  isInvisible,
  isPlaceholder,
  lazyBackgroundProperties,
  lazySrcProperties,
  lazySrcsetProperties,
  lazyUrl
} from "./internal/page/imageSources.js"
import { bestCandidate, documentBase, parseSrcset, resolve } from "./internal/page/url.js"
import type * as Renderer from "./Renderer.js"
import type * as ScrapeRequest from "./ScrapeRequest.js"

/**
 * One image of the page. `width`/`height` come from the markup when it states them as numbers; on a rendered page,
 * else from the picture the browser decoded (`withRendered`). @category models
 */
export const Image = Schema.Struct({
  url: Schema.String,
  alt: Schema.String,
  width: Schema.optional(Schema.Int),
  height: Schema.optional(Schema.Int)
})
/** @category models */
export type Image = typeof Image.Type

/** What collection needs besides the tree: the page URL, and the full page when `tree` is filtered. */
export interface CollectContext {
  readonly baseUrl: string
  /** The unfiltered page, whose head holds `og:image` even when the content filters removed it from `tree`. */
  readonly metaTree?: Root
}

/**
 * Collects the images of `tree`: `img` (the best `srcset` candidate, lazy-load attributes when `src` is a
 * placeholder), `picture` sources (the best candidate, then the `img` fallback when different), `input type=image`,
 * video posters, SVG `image`, inline and lazy backgrounds, and the page's `og:image` first (it sits in the head).
 * URLs are absolute and unique (the first occurrence keeps its place, the most descriptive alt wins); tracking pixels
 * and spacers are dropped.
 */
export const collect = (tree: Root, context: CollectContext): Array<Image> => {
  const images = new Collection()
  const metaTree = context.metaTree ?? tree
  socialImages(metaTree, documentBase(metaTree, context.baseUrl), images)
  walk(tree.children, documentBase(tree, context.baseUrl), images)
  return images.list()
}

/** Where an image was found: an `img` (or `input type=image`), a `picture` `source`, a video poster, an SVG
 * `image`, a CSS background, or the page's `og:image`/`twitter:image` meta tags. */
export type ImageElement = "img" | "source" | "video" | "svg" | "background" | "meta"

// Beside the images rather than in them: the `images` output keeps the members of decisions §2.
const elements = new WeakMap<Image, ImageElement>()

/** Where `collect` found an image (undefined for an image it did not return). */
export const elementOf = (image: Image): ImageElement | undefined => elements.get(image)

class Collection {
  private readonly byUrl = new Map<string, { url: string; alt: string; width?: number; height?: number }>()
  private element: ImageElement = "img"

  /** Sets where the next added images come from. */
  from(element: ImageElement): this {
    this.element = element
    return this
  }

  add(reference: string | undefined, base: string, alt: string, width?: number, height?: number): boolean {
    if (reference === undefined) return false
    const url = resolve(reference, base)
    if (url === undefined || !/^(?:https?|data):/i.test(url) || isInvisible(url, width, height)) return false
    const known = this.byUrl.get(url)
    if (known === undefined) {
      const image = {
        url,
        alt,
        ...(width === undefined ? {} : { width }),
        ...(height === undefined ? {} : { height })
      }
      elements.set(image, this.element)
      this.byUrl.set(url, image)
    } else {
      if (alt.length > known.alt.length) known.alt = alt
      if (known.width === undefined && width !== undefined) known.width = width
      if (known.height === undefined && height !== undefined) known.height = height
    }
    return true
  }

  list(): Array<Image> {
    return [...this.byUrl.values()]
  }
}

// Never rendered, or not images of the page.
const skipped = new Set(["head", "script", "style", "template", "iframe", "object", "math"])

const walk = (nodes: ReadonlyArray<RootContent>, base: string, images: Collection): void => {
  // Set when an `img` held only a placeholder: the `<noscript>` after it then holds the real image.
  let unresolvedImage = false
  for (const node of nodes) {
    if (node.type !== "element") continue
    const tag = node.tagName
    if (skipped.has(tag) || node.properties.hidden === true) continue
    if (tag === "noscript") {
      if (unresolvedImage) walk(node.children, base, images)
      unresolvedImage = false
      continue
    }
    unresolvedImage = false
    backgrounds(node, base, images)
    if (tag === "img") {
      unresolvedImage = !image(node, base, images)
    } else if (tag === "picture") {
      unresolvedImage = !picture(node, base, images)
    } else {
      if (tag === "input" && String(node.properties.type).toLowerCase() === "image") {
        images.from("img").add(firstString(node, ["src"]), base, altOf(node), ...sizeOf(node))
      } else if (tag === "video") {
        images.from("video").add(firstString(node, ["poster"]), base, "", ...sizeOf(node))
      } else if (tag === "image") {
        images.from("svg").add(firstString(node, ["href", "xLinkHref"]), base, altOf(node), ...sizeOf(node))
      }
      walk(node.children, base, images)
    }
  }
}

/** Adds an `img` unless its URL is `taken` (a picture's source); false when it held nothing a person sees. */
const image = (img: Element, base: string, images: Collection, taken?: string): boolean => {
  const url = imageUrl(img)
  if (url === undefined) return false
  if (taken !== undefined && resolve(url, base) === taken) return true
  return images.from("img").add(url, base, altOf(img), ...sizeOf(img))
}

const imageUrl = (img: Element): string | undefined => {
  const src = firstString(img, ["src"])
  const srcset = bestOfSrcset(img, ["srcSet"])
  if (!isPlaceholder(src)) return srcset ?? src
  const lazy = bestOfSrcset(img, lazySrcsetProperties) ?? lazyUrl(firstString(img, lazySrcProperties)) ?? srcset
  if (lazy !== undefined) return lazy
  // A data URI with no lazy alternative is the image itself, unless it is a blank pixel (dropped when added).
  return src !== undefined && /^data:/i.test(src) ? src : undefined
}

const picture = (element: Element, base: string, images: Collection): boolean => {
  const candidates = element.children
    .filter((child): child is Element => child.type === "element" && child.tagName === "source")
    .flatMap((source) => parseSrcset(firstString(source, ["srcSet", ...lazySrcsetProperties]) ?? ""))
    .filter((candidate) => !isPlaceholder(candidate.url))
  const img = element.children.find((child): child is Element => child.type === "element" && child.tagName === "img")
  const alt = img === undefined ? "" : altOf(img)
  const best = bestCandidate(candidates)?.url
  const added = images.from("source").add(best, base, alt)
  const taken = added && best !== undefined ? resolve(best, base) : undefined
  const fallback = img !== undefined && image(img, base, images, taken)
  return added || fallback
}

const backgrounds = (element: Element, base: string, images: Collection): void => {
  const style = element.properties.style
  const urls = typeof style === "string" && /background/i.test(style) ? backgroundUrls(style) : []
  const lazy = firstString(element, lazyBackgroundProperties)
  if (lazy !== undefined) urls.push(...(/url\(/i.test(lazy) ? backgroundUrls(`background:${lazy}`) : [lazy]))
  const label = firstString(element, ["ariaLabel", "title"]) ?? ""
  for (const url of urls) images.from("background").add(url, base, label)
}

/** `og:image` entries (with their `:alt`, `:width`, `:height`), else `twitter:image`, from the page's meta tags. */
const socialImages = (tree: Root, base: string, images: Collection): void => {
  const metas: Array<{ key: string; content: string }> = []
  collectMetas(tree.children, metas)
  const pending: Array<{ url: string; alt: string; width?: number; height?: number }> = []
  for (const { content, key } of metas) {
    const current = pending.at(-1)
    if (key === "og:image" || key === "og:image:url") {
      if (current === undefined || current.url !== content) pending.push({ url: content, alt: "" })
    } else if (current !== undefined && key === "og:image:alt") current.alt = content
    else if (current !== undefined && key === "og:image:width") current.width = dimension(content)
    else if (current !== undefined && key === "og:image:height") current.height = dimension(content)
  }
  if (pending.length === 0) {
    const twitter = metas.find((meta) => meta.key === "twitter:image" || meta.key === "twitter:image:src")
    const alt = metas.find((meta) => meta.key === "twitter:image:alt")?.content ?? ""
    if (twitter !== undefined) pending.push({ url: twitter.content, alt })
  }
  for (const entry of pending) images.from("meta").add(entry.url, base, entry.alt, entry.width, entry.height)
}

const collectMetas = (nodes: ReadonlyArray<RootContent>, out: Array<{ key: string; content: string }>): void => {
  for (const node of nodes) {
    if (node.type !== "element" || node.tagName === "svg" || node.tagName === "template") continue
    if (node.tagName === "meta") {
      const key = node.properties.property ?? node.properties.name
      const content = node.properties.content
      if (typeof key === "string" && typeof content === "string" && content.trim() !== "") {
        out.push({ key: key.trim().toLowerCase(), content: content.trim() })
      }
    } else collectMetas(node.children, out)
  }
}

const altOf = (element: Element): string => {
  const alt = firstString(element, ["alt"]) ?? firstString(element, ["title", "ariaLabel"])
  return alt === undefined ? "" : alt.replace(/\s+/g, " ")
}

const sizeOf = (element: Element): [number | undefined, number | undefined] => [
  dimension(element.properties.width),
  dimension(element.properties.height)
]

/**
 * The collected images of a rendered page with what only the browser knows:
 * - an image without a stated size gets the size the browser decoded (CSS backgrounds included);
 * - visible CSS backgrounds set by style sheets, which the markup never names, are added in document order, but only
 *   when no content filter applies (`filtered` false): the browser cannot tell which of them a filter would keep.
 * Pictures that failed to load (natural size 0), spacers and tracking pixels are never added.
 */
export const withRendered = (
  collected: ReadonlyArray<Image>,
  rendered: ReadonlyArray<Renderer.RenderedImage>,
  options: { readonly filtered: boolean }
): Array<Image> => {
  const natural = new Map<string, { width: number; height: number }>()
  for (const image of rendered) {
    if (image.naturalWidth > 0 && image.naturalHeight > 0 && !natural.has(image.url)) {
      natural.set(image.url, { width: image.naturalWidth, height: image.naturalHeight })
    }
  }
  const sized = (image: Image): Image => {
    const size = natural.get(image.url)
    // The markup's word stands, even half of it: a stated width beside a decoded height would describe no picture.
    if (size === undefined || image.width !== undefined || image.height !== undefined) return image
    const next = { url: image.url, alt: image.alt, width: size.width, height: size.height }
    elements.set(next, elements.get(image) ?? "img")
    return next
  }
  const out = collected.map(sized)
  if (options.filtered) return out
  // Each added background follows the last collected image the browser drew before it (the page's og:image, which
  // the browser does not draw, stays first).
  const positions = new Map(out.map((image, index) => [image.url, index] as const))
  const leadingMeta = out.findIndex((image) => elements.get(image) !== "meta")
  const after = new Map<number, Array<Image>>()
  const added = new Set<string>()
  let anchor = (leadingMeta === -1 ? out.length : leadingMeta) - 1
  for (const image of rendered) {
    const at = positions.get(image.url)
    if (at !== undefined) {
      anchor = Math.max(anchor, at)
      continue
    }
    if (image.source !== "background" || !image.visible || added.has(image.url)) continue
    if (!/^(?:https?|data):/i.test(image.url) || image.naturalWidth === 0) continue
    if (isInvisible(image.url, image.naturalWidth, image.naturalHeight)) continue
    const background = { url: image.url, alt: image.alt.replace(/\s+/g, " ").trim(), width: image.naturalWidth, height: image.naturalHeight }
    elements.set(background, "background")
    added.add(image.url)
    after.set(anchor, [...(after.get(anchor) ?? []), background])
  }
  if (added.size === 0) return out
  return [...(after.get(-1) ?? []), ...out.flatMap((image, index) => [image, ...(after.get(index) ?? [])])]
}

/** Whether a request's content filters narrow the page (include or exclude selectors, main content only). */
const filters = (request: ScrapeRequest.ScrapeRequest): boolean => {
  const shared = request.sharedParams
  return (shared?.includeSelectors?.length ?? 0) + (shared?.excludeSelectors?.length ?? 0) > 0 || shared?.mainContentOnly === true
}

/**
 * `withRendered` over an open render session, within `withinMs`: the browser is asked for its images (natural sizes
 * of backgrounds are decoded in the page); when it cannot answer in time or at all, the collected images stand.
 */
export const fromSession = (
  request: ScrapeRequest.ScrapeRequest,
  collected: ReadonlyArray<Image>,
  session: Pick<Renderer.RenderSession, "images">,
  withinMs: number
): Effect.Effect<Array<Image>> =>
  withinMs <= 0
    ? Effect.succeed([...collected])
    : session.images.pipe(
      Effect.timeoutOption(withinMs),
      Effect.option,
      Effect.map((answer) =>
        Option.isSome(answer) && Option.isSome(answer.value)
          ? withRendered(collected, answer.value.value, { filtered: filters(request) })
          : [...collected])
    )
