/**
 * Cleans the chosen content: blocks inside it that read like chrome (mostly links, or names saying so) are removed,
 * while headings, paragraphs, lists of text, tables, code and images stay.
 */
import type { Element, ElementContent } from "hast"
import { attributeHint } from "./hints.js"
import { furniture, furnitureOpening, relatedLabel } from "./phrases.js"
import { type Stats, linkDensity, textOf } from "./stats.js"

/** Blocks inside the content that are more than this share link text are navigation left over. */
const maxLinkDensity = 0.35
const containerTags = new Set(["div", "section", "ul", "ol", "dl", "table", "form", "header", "nav", "center", "span"])

/** Whether a block inside the content is chrome left over from the page layout. */
const isLeftover = (element: Element, s: Stats): boolean => {
  if (!containerTags.has(element.tagName)) return false
  if (attributeHint(element) === "chrome" && s.text < 400) return true
  const density = linkDensity(s)
  if (density > maxLinkDensity && s.text < 1000) return true
  return false
}

/** Class words of picture captions and credits. */
const captionWords = /(?:^|[-_\s])(?:caption|credits?|copyright|image|img|photo|picture|figure|media|attachment)(?:$|[-_\s])/iu

const isCaption = (element: Element, s: Stats): boolean => {
  if (element.tagName === "figcaption") return true
  if (s.text > 250 || element.tagName === "p") return false
  const names = `${Array.isArray(element.properties.className) ? element.properties.className.join(" ") : ""} ${
    typeof element.properties.id === "string" ? element.properties.id : ""
  }`
  return captionWords.test(names)
}

/** The images inside a caption block, kept when its text goes. */
const imagesIn = (element: Element): Array<Element> => {
  const out: Array<Element> = []
  for (const child of element.children) {
    if (child.type !== "element") continue
    if (child.tagName === "img" || child.tagName === "picture") out.push(child)
    else out.push(...imagesIn(child))
  }
  return out
}

const labelTags = new Set([
  "h2", "h3", "h4", "h5", "h6", "p", "div", "span", "strong", "b", "header", "li", "dt", "a", "em", "i", "u", "small",
  "font", "section", "aside"
])
/** Tags whose label may open a related section (phrasing such as a link cannot cut what follows). */
const sectionLabelTags = new Set(["h2", "h3", "h4", "h5", "h6", "p", "div", "strong", "b", "header", "span", "dt"])

/** Removes leftover chrome under each root in place (the roots themselves are kept). */
export const pruneContent = (roots: ReadonlyArray<Element>, stats: Map<Element, Stats>): void => {
  const visit = (element: Element): void => {
    const kept: Array<ElementContent> = []
    let cut = false
    for (const child of element.children) {
      if (cut) continue
      if (child.type === "element") {
        const s = stats.get(child)
        if (s !== undefined) {
          if (isLeftover(child, s)) continue
          if (isCaption(child, s)) {
            kept.push(...imagesIn(child))
            continue
          }
          if (s.text <= 80 && labelTags.has(child.tagName)) {
            const label = textOf(child).replace(/\s+/gu, " ").trim()
            // A "Related articles" label ends the content of its block: what follows is the list it announces.
            if (relatedLabel.test(label) && sectionLabelTags.has(child.tagName)) {
              cut = true
              continue
            }
            if (furniture.test(label) || relatedLabel.test(label) || furnitureOpening.test(label)) continue
          }
        }
        visit(child)
      }
      kept.push(child)
    }
    element.children = kept
  }
  for (const root of roots) visit(root)
}
