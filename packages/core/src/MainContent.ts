/**
 * Main-content extraction on the hast tree: keeps the article (and the `main` landmark itself) and drops page chrome:
 * headers, footers, sidebars, navigation, related-content blocks, comments, ads, cookie banners, scripts, styles and
 * SVG. Our own extractor, in the spirit of Readability and trafilatura: chrome removal by semantics and class words,
 * paragraph scoring with text and link density, sibling merging, then cleaning of the chosen blocks.
 *
 * @since 0.1.0
 */
import type { Element, Root } from "hast"
import { selectContent } from "./internal/mainContent/candidate.js"
import { removeChrome } from "./internal/mainContent/chrome.js"
import { pruneContent } from "./internal/mainContent/prune.js"
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
  /** The page's URL (reserved for URL-aware rules; extraction is generic). */
  readonly url?: string
}

/** Content shorter than this (non-whitespace characters) is not trusted when the page holds more text. */
const minimumText = 200

const rootOf = (nodes: ReadonlyArray<Element>): Root => ({ type: "root", children: [...nodes] })

/** Extracts the main content of a page: drops chrome, keeps the article and the main landmark itself. */
export const extract = (tree: Root, _options?: ExtractOptions): Extraction => {
  const body = strippedBody(tree)
  const pageText = measure(body).get(body)!.text
  if (pageText === 0) return { tree: rootOf([body]), fallback: true, reason: "The page has no text" }

  const cleaned = strippedBody(tree)
  removeChrome(cleaned, measure(cleaned))
  const stats = measure(cleaned)
  const cleanedText = stats.get(cleaned)!.text
  const selection = selectContent(cleaned, stats)
  if (selection !== undefined) {
    pruneContent(selection.nodes, stats)
    const content = rootOf(selection.nodes)
    const contentText = selection.nodes.reduce((n, node) => n + (measure(node).get(node)?.text ?? 0), 0)
    if (contentText >= Math.min(minimumText, cleanedText * 0.5)) return { tree: content, fallback: false }
  }
  if (cleanedText > 0) {
    return {
      tree: rootOf([cleaned]),
      fallback: true,
      reason: selection === undefined
        ? "No block reads like the main content; kept the body without page chrome"
        : "The best block holds too little text; kept the body without page chrome"
    }
  }
  return { tree: rootOf([body]), fallback: true, reason: "Only page chrome holds text; kept the whole body" }
}
