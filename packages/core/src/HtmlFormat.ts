/**
 * The `html` output format: the (filtered) page as HTML a client can store or display without running anything of the
 * target's, and with every link still working out of context.
 *
 * @since 0.1.0
 */
import type { Element, ElementContent, Properties, Root, RootContent } from "hast"
import { find, html } from "property-information"
import { serialize } from "./internal/page/serialize.js"
import { absoluteSrcset, documentBase, isScriptUrl, resolve } from "./internal/page/url.js"

/** Elements dropped whole: active content, styles, fallbacks for no script, inert templates, and `<base>`. */
const droppedElements = new Set(["script", "style", "noscript", "template", "base"])

// Attribute names (as written in HTML) holding one URL, several space-separated URLs, or a `srcset`.
const singleUrlAttributes = [
  "href", "src", "action", "formaction", "poster", "cite", "data", "background", "longdesc", "manifest", "codebase",
  "icon", "itemid", "xlink:href", "data-src", "data-lazy-src", "data-original", "data-href", "data-url"
]
const srcsetAttributes = ["srcset", "imagesrcset", "data-srcset", "data-lazy-srcset"]
const urlListAttributes = ["ping"]

// The same names as hast property names (`formaction` is `formAction`, `data-src` is `dataSrc`).
const toProperties = (names: ReadonlyArray<string>) => new Set(names.map((name) => find(html, name).property))
const singleUrlProperties = toProperties(singleUrlAttributes)
const srcsetProperties = toProperties(srcsetAttributes)
const urlListProperties = toProperties(urlListAttributes)

/** What the HTML output needs besides the tree: the page URL relative references resolve against. */
export interface HtmlContext {
  readonly baseUrl: string
}

/**
 * Serialises `tree` as the cleaned HTML of the `html` output: no scripts, styles, `noscript`, templates, comments,
 * event-handler attributes, `javascript:` URLs or `srcdoc` documents; every URL attribute (and `url()` in inline
 * styles) absolute against the page's `<base href>` (resolved against `baseUrl`), and `<base>` itself removed since
 * nothing depends on it any more.
 * Everything else is kept as it was. The input tree is not changed.
 */
export const toHtml = (tree: Root, context: HtmlContext): string => serialize(clean(tree, context))

/** The cleaned tree {@link toHtml} serialises, for callers that transform it further. */
export const clean = (tree: Root, context: HtmlContext): Root => {
  const base = documentBase(tree, context.baseUrl)
  const children: Array<RootContent> = []
  for (const node of tree.children) {
    if (node.type === "doctype") children.push({ ...node })
    else {
      const cleaned = cleanNode(node, base)
      if (cleaned !== undefined) children.push(cleaned)
    }
  }
  return { type: "root", children }
}

const cleanNode = (node: RootContent, base: string): ElementContent | undefined => {
  switch (node.type) {
    case "text":
      return { ...node }
    case "element":
      return droppedElements.has(node.tagName) ? undefined : cleanElement(node, base)
    default:
      // Comments (and stray doctypes) go.
      return undefined
  }
}

const cleanElement = (element: Element, base: string): Element => {
  const children: Array<ElementContent> = []
  for (const child of element.children) {
    const cleaned = cleanNode(child, base)
    if (cleaned !== undefined) children.push(cleaned)
  }
  return { type: "element", tagName: element.tagName, properties: cleanProperties(element.properties, base), children }
}

const cleanProperties = (properties: Properties, base: string): Properties => {
  const out: Properties = {}
  for (const [property, value] of Object.entries(properties)) {
    // Event handlers are `onClick` once parsed, unknown ones keep their lower-case name: both start with "on".
    if (/^on/i.test(property) || property === "srcDoc") continue
    if (value === undefined || value === null) continue
    if (singleUrlProperties.has(property) && typeof value === "string") {
      if (isScriptUrl(value)) continue
      out[property] = resolve(value, base) ?? value
    } else if (srcsetProperties.has(property) && typeof value === "string") {
      if (isScriptUrl(value)) continue
      out[property] = absoluteSrcset(value, base)
    } else if (property === "style" && typeof value === "string") {
      out[property] = absoluteStyleUrls(value, base)
    } else if (urlListProperties.has(property) && Array.isArray(value)) {
      out[property] = value.map(String).filter((url) => !isScriptUrl(url)).map((url) => resolve(url, base) ?? url)
    } else {
      out[property] = Array.isArray(value) ? [...value] : value
    }
  }
  return out
}

// Inline styles keep their `url(...)` references working out of context too (backgrounds are images people see).
const absoluteStyleUrls = (style: string, base: string): string =>
  style.includes("url(")
    ? style.replace(/url\(\s*(['"]?)(.*?)\1\s*\)/gi, (whole, quote: string, url: string) => {
      if (isScriptUrl(url)) return "none"
      const absolute = resolve(url, base)
      return absolute === undefined ? whole : `url(${quote}${absolute}${quote})`
    })
    : style
