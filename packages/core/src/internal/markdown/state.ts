/**
 * The conversion state threaded through every handler: resolved options, the base URL, and the few flags that change
 * how content is written (inside a link, a table cell, an emphasis of the same kind).
 */
import type { Element, ElementContent, Root } from "hast"

/** Options after defaults are applied. */
export interface ResolvedOptions {
  readonly includeLinks: boolean
  readonly includeImages: boolean
  readonly inlineImages: "placeholder" | "preserve"
}

/** A link that wraps block content (`<a><h2>..</h2></a>`): each block's inline content is linked on its own. */
export interface LinkTarget {
  /** The Markdown that closes the link text: `](url "title")`. */
  readonly close: string
}

/** Mutable conversion state; handlers save and restore the fields they change. */
export interface State {
  readonly options: ResolvedOptions
  /** Absolute base for relative URLs, or undefined to keep them as written. */
  readonly base: string | undefined
  /** Set while converting blocks inside a link. */
  link: LinkTarget | undefined
  /** Inside link text: nested links are written as their text. */
  inLink: boolean
  /** The checkbox written as a task item's `[x]` marker, so it is not written again as text. */
  taskInput: Element | undefined
  /** Inside a GFM table cell: no newlines, pipes escaped, `<br>` for breaks. */
  inTable: boolean
  /** Depth of open emphasis per kind, so `<b><b>x</b></b>` does not write `****x****`. */
  strong: number
  emphasis: number
  strike: number
  /** Open list items, quotes and definitions: each indents its lines once more (see {@link maxNesting}). */
  nesting: number
}

/**
 * Lists, quotes and definitions nested deeper than this are written flat, at the indentation of the last level: every
 * level repeats its indentation on every line below it, so a page of deeply nested lists (as deep as `Html.maxDepth`)
 * would otherwise write hundreds of spaces per line and rewrite its text once per level.
 */
export const maxNesting = 16

/** The blocks of `el`'s children one nesting level deeper, or undefined (nothing written) when the levels are used up. */
export const nestedBlocks = (
  el: Element,
  st: State,
  flow: (nodes: ReadonlyArray<ElementContent>, st: State, out: Array<string>) => void
): Array<string> | undefined => {
  if (st.nesting >= maxNesting) return undefined
  const out: Array<string> = []
  st.nesting++
  flow(el.children, st, out)
  st.nesting--
  return out
}

/** Any node a handler may meet. */
export type Node = Root | ElementContent

const absolute = /^[a-z][a-z0-9+.-]*:/i

/** Resolves `url` against the base when it is relative and a base is known. */
export const resolveUrl = (st: State, url: string): string => {
  const trimmed = url.trim()
  if (st.base === undefined || absolute.test(trimmed)) return trimmed
  try {
    return new URL(trimmed, st.base).href
  } catch {
    return trimmed
  }
}

/** The absolute base of a tree: the caller's base, overridden by the first `<base href>` resolved against it. */
export const findBase = (tree: Root | Element, baseUrl: string | undefined): string | undefined => {
  const href = findBaseHref(tree, 0)
  const start = validBase(baseUrl)
  if (href === undefined) return start
  try {
    return new URL(href, start).href
  } catch {
    return start
  }
}

const validBase = (url: string | undefined): string | undefined => {
  if (url === undefined || url === "") return undefined
  try {
    return new URL(url).href
  } catch {
    return undefined
  }
}

// `<base>` belongs in the head; only the top levels (root, html, head) are searched, so the walk is constant time.
const findBaseHref = (node: Root | Element, depth: number): string | undefined => {
  for (const child of node.children) {
    if (child.type !== "element") continue
    if (child.tagName === "base" && typeof child.properties.href === "string") return child.properties.href
    if (depth < 2 && (child.tagName === "html" || child.tagName === "head")) {
      const found = findBaseHref(child, depth + 1)
      if (found !== undefined) return found
    }
  }
  return undefined
}

/** A string property of an element, or undefined (one implementation, shared with the page outputs). */
export { stringProperty } from "../page/url.js"
