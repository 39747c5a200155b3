/**
 * Removes page chrome from the working copy: navigation, page headers and footers, sidebars, comments, sharing and
 * related-content blocks, ads and banners, recognised by element, ARIA role, or class and id words.
 */
import type { Element, ElementContent } from "hast"
import { attributeHint, isChromeRole } from "./hints.js"
import { type Stats, linkDensity } from "./stats.js"

const chromeTags = new Set(["nav", "aside", "menu"])
/** A byline longer than this is an author box. */
export const maxByline = 100

/** An author box holds paragraphs (a bio, a position); a byline is one line. */
export const holdsParagraph = (element: Element): boolean =>
  element.children.some((c) => c.type === "element" && (c.tagName === "p" || holdsParagraph(c)))
/** Elements whose class names describe formatting (`language-sh`, `date-cell`), never page layout. */
const classExempt = new Set([
  "body", "html", "main", "pre", "code", "kbd", "samp", "tt", "tr", "td", "th", "tbody", "thead", "tfoot", "caption",
  "b", "strong", "i", "em", "sub", "sup", "h1", "h2", "h3", "h4", "h5", "h6"
])

/**
 * Which rules apply: `all` (elements, roles, strong and weak class words), `strong` (without weak class words),
 * `semantic` (elements and roles only). Extraction relaxes them when the strict pass finds too little content.
 */
export type ChromeRules = "all" | "strong" | "semantic"

/** Whether the element is or contains the `main` landmark, which chrome rules never remove. */
const holdsMain = (element: Element): boolean => {
  if (element.tagName === "main" || element.properties.role === "main") return true
  for (const child of element.children) if (child.type === "element" && holdsMain(child)) return true
  return false
}

/**
 * A header holding the page's headline as text (an `h1` that is no link, as a logo is) and few links is the article's
 * header, with its title and lead, not the site's.
 */
const isArticleHeader = (element: Element, s: Stats | undefined): boolean =>
  s !== undefined && s.text <= 1000 && linkDensity(s) < 0.3 && holdsHeadline(element)

const holdsHeadline = (element: Element): boolean =>
  element.children.some((c) =>
    c.type === "element" && (c.tagName === "h1" ? !holdsLink(c) : c.tagName !== "nav" && holdsHeadline(c))
  )

const holdsLink = (element: Element): boolean =>
  element.children.some((c) => c.type === "element" && (c.tagName === "a" || holdsLink(c)))

/** A table with a header cell (`th`) in its first rows: data, whatever its name or link share. */
export const isDataTable = (element: Element): boolean => element.tagName === "table" && holdsHeaderCell(element, 3)

const holdsHeaderCell = (element: Element, depth: number): boolean =>
  element.children.some((c) => c.type === "element" && (c.tagName === "th" || (depth > 0 && holdsHeaderCell(c, depth - 1))))

/** Why an element counts as chrome, if it does. */
export const chromeReason = (
  element: Element,
  insideArticle: boolean,
  s: Stats | undefined,
  rules: ChromeRules = "all"
): string | undefined => {
  const tag = element.tagName
  if (chromeTags.has(tag)) return tag
  if (tag === "header" && !insideArticle && !isArticleHeader(element, s)) return tag
  if (tag === "footer" && !insideArticle) return tag
  if (tag === "footer") return tag
  if (isChromeRole(element)) return "role"
  if (rules === "semantic" || classExempt.has(tag)) return undefined
  const hint = attributeHint(element)
  if (hint === "chrome") return "class"
  // An author line is article text; an author box (bio, other posts) is not.
  if (hint === "byline") return s === undefined || s.text > maxByline || holdsParagraph(element) ? "class" : undefined
  if (rules === "strong") return undefined
  // A weak name (`site-header`, `meta`) needs its text to agree: mostly links, or too short to be an article. A table
  // with header cells is data (a recipe's ingredients in `table.ingredients.table-header`) whatever its name.
  if (hint === "weak" && (s === undefined || s.text < 200 || linkDensity(s) > 0.33) && !isDataTable(element)) {
    return "weak class"
  }
  return undefined
}

/**
 * Removes chrome in place. An element holding at least `guardShare` of the page's text is kept whatever its names
 * say (`<div class="has-sidebar">` wrapping the whole page), and so is anything holding the `main` landmark.
 */
export const removeChrome = (
  body: Element,
  stats: Map<Element, Stats>,
  rules: ChromeRules = "all",
  guardShare = 0.5
): number => {
  const total = stats.get(body)?.text ?? 0
  let removed = 0
  const visit = (element: Element, insideArticle: boolean): void => {
    const kept: Array<ElementContent> = []
    for (const child of element.children) {
      if (child.type !== "element") {
        kept.push(child)
        continue
      }
      const s = stats.get(child)
      // A span inside a paragraph is the sentence's own text whatever its class says (`<span class="dateline">KOBE –`).
      const inParagraph = element.tagName === "p" && child.tagName === "span"
      const reason = inParagraph ? undefined : chromeReason(child, insideArticle, s, rules)
      const guarded = s !== undefined && s.text >= total * guardShare && linkDensity(s) < 0.5
      if (reason !== undefined && !guarded && !holdsMain(child)) {
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
