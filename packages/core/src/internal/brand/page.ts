/**
 * What a home page says about its brand, read from its tree in one walk: icon and manifest links, theme colors, logo
 * candidates (header images, images and inline SVGs named logo, a `<picture>`'s dark-scheme source), anchors (socials,
 * blog/careers/contact/pricing/privacy/terms, `mailto:`, `tel:`), the text of its style sheets (for accent colors), and
 * the schema.org Organization among its JSON-LD objects. Bounded: at most 2,000 anchors, 40 logo candidates, 256 KiB
 * of CSS and inline SVGs of 64 KiB.
 */
import type { Element, Root, RootContent } from "hast"
import { serialize } from "../page/serialize.js"

/** An image that may be the brand's logo or icon, in the page's order of relevance. */
export interface LogoCandidate {
  readonly url: string
  /** Where it came from (ranks it and tells icons from logos). */
  readonly source: "jsonld" | "header" | "named" | "dark" | "apple-touch-icon" | "icon" | "mask-icon" | "manifest" | "favicon"
  /** Inline SVG markup (then `url` is the page's URL with a fragment naming it). */
  readonly inline?: string
  /** The page says this variant is for dark color schemes. */
  readonly dark?: boolean
  /** Declared size (`sizes="192x192"`), when given. */
  readonly declaredSize?: number
}

/** One anchor of the page. */
export interface Anchor {
  readonly href: string
  readonly text: string
}

/** A `theme-color` with the media it applies to. */
export interface ThemeColor {
  readonly value: string
  readonly media: string | undefined
}

/** The signals of one page. */
export interface PageSignals {
  readonly logos: ReadonlyArray<LogoCandidate>
  readonly manifestUrl: string | undefined
  readonly themeColors: ReadonlyArray<ThemeColor>
  readonly anchors: ReadonlyArray<Anchor>
  readonly css: string
  readonly h1: string | undefined
  readonly rating: string | undefined
}

const MAX_ANCHORS = 2_000
const MAX_LOGOS = 40
const MAX_CSS = 256 * 1024
const MAX_INLINE_SVG = 64 * 1024

const str = (value: unknown): string | undefined =>
  typeof value === "string" ? value : Array.isArray(value) ? value.map(String).join(" ") : typeof value === "number" ? String(value) : undefined

const textOf = (node: Element | Root, out: Array<string> = [], budget = { left: 2_000 }): string => {
  for (const child of node.children) {
    if (budget.left <= 0) break
    if (child.type === "text") {
      out.push(child.value)
      budget.left -= child.value.length
    } else if (child.type === "element" && child.tagName !== "script" && child.tagName !== "style") textOf(child, out, budget)
  }
  return out.join("").replace(/\s+/g, " ").trim()
}

const resolve = (href: string | undefined, base: string): string | undefined => {
  if (href === undefined || href.trim() === "" || href.trim().startsWith("data:")) return undefined
  try {
    const url = new URL(href.trim(), base)
    return url.protocol === "http:" || url.protocol === "https:" ? url.href : undefined
  } catch {
    return undefined
  }
}

const namesLogo = (element: Element): boolean => {
  const hint = [element.properties.className, element.properties.id, element.properties.alt, element.properties.src, element.properties.ariaLabel, element.properties.title]
    .map(str).filter((v) => v !== undefined).join(" ").toLowerCase()
  return /logo|brand|wordmark/.test(hint)
}

const sizeOf = (sizes: unknown): number | undefined => {
  const text = str(sizes)
  if (text === undefined) return undefined
  let best: number | undefined
  for (const token of text.split(/\s+/)) {
    const match = /^(\d+)x(\d+)$/i.exec(token)
    if (match !== null) best = Math.max(best ?? 0, Number(match[1]))
  }
  return best
}

const srcOf = (element: Element): string | undefined => {
  const src = str(element.properties.src) ?? str(element.properties.dataSrc)
  if (src !== undefined && src.trim() !== "") return src
  const set = str(element.properties.srcSet)
  return set?.split(",")[0]?.trim().split(/\s+/)[0]
}

const darkMedia = (media: string | undefined): boolean => media !== undefined && /prefers-color-scheme\s*:\s*dark/i.test(media)

/** Reads the page's brand signals; `base` resolves relative URLs. */
export const read = (tree: Root, base: string): PageSignals => {
  const logos: Array<LogoCandidate> = []
  const anchors: Array<Anchor> = []
  const themeColors: Array<ThemeColor> = []
  const css: Array<string> = []
  let cssSize = 0
  let manifestUrl: string | undefined
  let h1: string | undefined
  let rating: string | undefined
  let svgCount = 0

  const addLogo = (candidate: LogoCandidate | undefined) => {
    if (candidate !== undefined && logos.length < MAX_LOGOS && !logos.some((l) => l.url === candidate.url)) logos.push(candidate)
  }

  const visit = (node: Root | Element, inHeader: boolean, inLogoLink: boolean): void => {
    for (const child of node.children as Array<RootContent>) {
      if (child.type !== "element") continue
      const tag = child.tagName
      const props = child.properties
      switch (tag) {
        case "link": {
          const rels = (str(props.rel) ?? "").toLowerCase().split(/\s+/)
          const href = resolve(str(props.href), base)
          if (href === undefined) break
          if (rels.includes("manifest")) manifestUrl ??= href
          else if (rels.includes("apple-touch-icon") || rels.includes("apple-touch-icon-precomposed")) {
            addLogo({ url: href, source: "apple-touch-icon", ...withSize(sizeOf(props.sizes)) })
          } else if (rels.includes("mask-icon")) addLogo({ url: href, source: "mask-icon" })
          else if (rels.includes("icon")) addLogo({ url: href, source: "icon", ...withSize(sizeOf(props.sizes)) })
          break
        }
        case "meta": {
          const name = (str(props.name) ?? "").toLowerCase()
          const content = str(props.content)
          if (content === undefined) break
          if (name === "theme-color") themeColors.push({ value: content, media: str(props.media) })
          else if (name === "rating") rating = content
          break
        }
        case "style": {
          const text = textOf(child, [], { left: MAX_CSS })
          if (cssSize < MAX_CSS) {
            css.push(text.slice(0, MAX_CSS - cssSize))
            cssSize += text.length
          }
          continue
        }
        case "script":
        case "template":
        case "noscript":
          continue
        case "a": {
          const href = str(props.href)
          if (href !== undefined && anchors.length < MAX_ANCHORS) anchors.push({ href: href.trim(), text: textOf(child) })
          const logoLink = inHeader && href !== undefined && (resolve(href, base) === new URL("/", base).href || namesLogo(child))
          visit(child, inHeader, inLogoLink || logoLink)
          continue
        }
        case "h1":
          h1 ??= textOf(child) || undefined
          break
        case "source": {
          const media = str(props.media)
          const set = str(props.srcSet)?.split(",")[0]?.trim().split(/\s+/)[0]
          if (darkMedia(media) && (inHeader || inLogoLink)) addLogo(mapUrl(resolve(set, base), (url) => ({ url, source: "dark", dark: true })))
          break
        }
        case "img": {
          if (namesLogo(child) || inLogoLink) {
            const dark = /dark|white|inverse|negative/i.test(`${str(props.className) ?? ""} ${str(props.id) ?? ""} ${str(props.src) ?? ""}`)
            addLogo(mapUrl(resolve(srcOf(child), base), (url) => ({ url, source: inHeader || inLogoLink ? "header" : "named", ...(dark ? { dark } : {}) })))
          }
          break
        }
        case "svg": {
          if ((namesLogo(child) || inLogoLink) && svgCount < 5) {
            const markup = serialize(child)
            if (markup.length <= MAX_INLINE_SVG) {
              svgCount++
              const svg = /\sxmlns=/.test(markup.slice(0, markup.indexOf(">"))) ? markup : markup.replace(/^<svg/, "<svg xmlns=\"http://www.w3.org/2000/svg\"")
              addLogo({ url: `${base.split("#")[0]}#inline-svg-${svgCount}`, source: inHeader || inLogoLink ? "header" : "named", inline: svg })
            }
          }
          continue
        }
      }
      visit(child, inHeader || tag === "header" || tag === "nav", inLogoLink)
    }
  }
  visit(tree, false, false)
  return { logos, manifestUrl, themeColors, anchors, css: css.join("\n"), h1, rating }
}

const withSize = (size: number | undefined) => (size === undefined ? {} : { declaredSize: size })

const mapUrl = (url: string | undefined, f: (url: string) => LogoCandidate): LogoCandidate | undefined => (url === undefined ? undefined : f(url))
