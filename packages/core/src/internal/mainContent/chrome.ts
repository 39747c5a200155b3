/**
 * Removes page chrome from the working copy: navigation, page headers and footers, sidebars, comments, sharing and
 * related-content blocks, ads and banners, recognised by element, ARIA role, or class and id words.
 */
import type { Element, ElementContent } from "hast"
import { attributeHint, isChromeRole } from "./hints.js"
import type { Stats } from "./stats.js"

const chromeTags = new Set(["nav", "aside", "menu"])

/** Whether the element is or contains the `main` landmark, which chrome rules never remove. */
const holdsMain = (element: Element): boolean => {
  if (element.tagName === "main" || element.properties.role === "main") return true
  for (const child of element.children) if (child.type === "element" && holdsMain(child)) return true
  return false
}

/** Why an element counts as chrome, if it does. */
export const chromeReason = (element: Element, insideArticle: boolean): string | undefined => {
  const tag = element.tagName
  if (chromeTags.has(tag)) return tag
  if ((tag === "header" || tag === "footer") && !insideArticle) return tag
  if (tag === "footer") return tag
  if (isChromeRole(element)) return "role"
  if (tag !== "body" && tag !== "main" && attributeHint(element) === "chrome") return "class"
  return undefined
}

/**
 * Removes chrome in place. An element holding at least `guardShare` of the page's text is kept whatever its names
 * say (`<div class="has-sidebar">` wrapping the whole page), and so is anything holding the `main` landmark.
 */
export const removeChrome = (body: Element, stats: Map<Element, Stats>, guardShare = 0.5): number => {
  const total = stats.get(body)?.text ?? 0
  let removed = 0
  const visit = (element: Element, insideArticle: boolean): void => {
    const kept: Array<ElementContent> = []
    for (const child of element.children) {
      if (child.type !== "element") {
        kept.push(child)
        continue
      }
      const reason = chromeReason(child, insideArticle)
      const share = total === 0 ? 0 : (stats.get(child)?.text ?? 0) / total
      if (reason !== undefined && share < guardShare && !holdsMain(child)) {
        removed++
        continue
      }
      visit(child, insideArticle || child.tagName === "article" || child.tagName === "main")
      kept.push(child)
    }
    element.children = kept
  }
  visit(body, false)
  return removed
}
