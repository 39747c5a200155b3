/**
 * Main-content extraction on the hast tree: keeps the article (and the `main` landmark itself) and drops page chrome:
 * headers, footers, sidebars, navigation, related-content blocks, comments, ads, cookie banners, scripts, styles and
 * SVG. Our own extractor, in the spirit of Readability and trafilatura: chrome removal by semantics and class words,
 * paragraph scoring with text and link density, sibling merging, then cleaning of the chosen blocks.
 *
 * The article's byline (a short author line), its lead paragraph above the body and its figures' captions are kept,
 * picture credits, author boxes (a bio), datelines and the publisher's notes and prompts to the reader are not. The
 * hidden rest of an article after a "Read more" control is joined; a "Read also" teaser inside the body goes alone
 * (the paragraph after it stays); teasers of other posts repeated in the article's column and linked blocks after its
 * last paragraph go.
 *
 * @since 0.1.0
 */
import type { Element, Root } from "hast"
import { selectContent } from "./internal/mainContent/candidate.js"
import { type ChromeRules, removeChrome } from "./internal/mainContent/chrome.js"
import { pruneContent, trimRelated } from "./internal/mainContent/prune.js"
import { measure } from "./internal/mainContent/stats.js"
import { strippedBody } from "./internal/mainContent/strip.js"

/** The result of an extraction. */
export interface Extraction {
  /** A new tree holding the main content (the input tree is not mutated). */
  readonly tree: Root
  /** True when no confident main content was found and a fallback was used. */
  readonly fallback: boolean
  /** Why the fallback happened, for metadata. */
  readonly reason?: string
}

/** Options of `extract`. */
export interface ExtractOptions {
  /** The page's URL (reserved for URL-aware rules; extraction itself is generic). */
  readonly url?: string
}

/** Chrome rules from strict to lenient: when class words removed the article itself, a laxer pass finds it. */
const passes: ReadonlyArray<ChromeRules> = ["all", "strong", "semantic"]

/** A short best block still beats the whole body when it holds this share of the trusted length. */
const shortShare = 0.4

const rootOf = (nodes: ReadonlyArray<Element>): Root => ({ type: "root", children: [...nodes] })

/** Puts the chosen blocks back inside their `main` landmark: the landmark element itself is kept, its chrome not. */
const keepMain = (nodes: ReadonlyArray<Element>, main: Element | undefined): ReadonlyArray<Element> =>
  main === undefined || nodes.includes(main)
    ? nodes
    : [{ type: "element", tagName: main.tagName, properties: { ...main.properties }, children: [...nodes] }]

const textOf = (nodes: ReadonlyArray<Element>): number =>
  nodes.reduce((n, node) => n + (measure(node).get(node)?.text ?? 0), 0)

/** Extracts the main content of a page: drops chrome, keeps the article and the main landmark itself. */
export const extract = (tree: Root, _options?: ExtractOptions): Extraction => {
  let pageText = -1
  // Enough text to trust a pass: a short article's worth, or a good share of a short page.
  let enough = 0
  let best: { nodes: ReadonlyArray<Element>; text: number } | undefined
  for (const rules of passes) {
    const body = strippedBody(tree)
    const before = measure(body)
    if (pageText < 0) {
      pageText = before.get(body)!.text
      if (pageText === 0) return { tree: rootOf([body]), fallback: true, reason: "The page has no text" }
      enough = Math.min(250, pageText * 0.25)
    }
    removeChrome(body, before, rules)
    const stats = measure(body)
    const selection = selectContent(body, stats)
    if (selection === undefined) continue
    pruneContent(selection.nodes, stats)
    trimRelated(selection.nodes, stats)
    const text = textOf(selection.nodes)
    if (text >= enough) return { tree: rootOf(keepMain(selection.nodes, selection.main)), fallback: false }
    if (best === undefined || text > best.text) best = { nodes: keepMain(selection.nodes, selection.main), text }
  }
  if (best !== undefined && best.text >= enough * shortShare) {
    return { tree: rootOf(best.nodes), fallback: true, reason: "The main content is short; kept the best-scoring block" }
  }
  const cleaned = strippedBody(tree)
  removeChrome(cleaned, measure(cleaned), "all")
  if (measure(cleaned).get(cleaned)!.text > 0) {
    return {
      tree: rootOf([cleaned]),
      fallback: true,
      reason: best === undefined
        ? "No block reads like the main content; kept the body without page chrome"
        : "The best block holds too little text; kept the body without page chrome"
    }
  }
  return { tree: rootOf([strippedBody(tree)]), fallback: true, reason: "Only page chrome holds text; kept the whole body" }
}
