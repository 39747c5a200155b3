/**
 * Cleans the chosen content: blocks inside it that read like chrome (mostly links, or names saying so) are removed,
 * while headings, paragraphs, lists of text, tables, code and images stay.
 */
import type { Element, ElementContent } from "hast"
import { attributeHint } from "./hints.js"
import { type Stats, linkDensity } from "./stats.js"

const containerTags = new Set(["div", "section", "ul", "ol", "dl", "table", "form", "header", "nav", "center", "span"])

/** Whether a block inside the content is chrome left over from the page layout. */
const isLeftover = (element: Element, s: Stats): boolean => {
  if (!containerTags.has(element.tagName)) return false
  if (attributeHint(element) === "chrome" && s.text < 400) return true
  const density = linkDensity(s)
  if (density > 0.5 && s.text < 1000) return true
  return false
}

/** Removes leftover chrome under each root in place (the roots themselves are kept). */
export const pruneContent = (roots: ReadonlyArray<Element>, stats: Map<Element, Stats>): void => {
  const visit = (element: Element): void => {
    const kept: Array<ElementContent> = []
    for (const child of element.children) {
      if (child.type === "element") {
        const s = stats.get(child)
        if (s !== undefined && isLeftover(child, s)) continue
        visit(child)
      }
      kept.push(child)
    }
    element.children = kept
  }
  for (const root of roots) visit(root)
}
