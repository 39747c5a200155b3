/**
 * The include/exclude selector filters of `sharedParams` (interface.md: only matching subtrees are kept; exclusion is
 * applied after inclusion and wins). Pure functions over the hast tree; the input is never changed.
 *
 * @since 0.1.0
 */
import type { Element, ElementContent, Root, RootContent } from "hast"
import { InvalidRequest } from "./Errors.js"
import { indexTree, selectAll, type TreeIndex } from "./internal/page/select.js"
import { validateSelector } from "./internal/page/selector.js"

/** The selectors of one request, as given by the caller. */
export interface SelectorFilters {
  readonly includeSelectors?: ReadonlyArray<string> | null
  readonly excludeSelectors?: ReadonlyArray<string> | null
}

/** The most selectors a list may hold (interface.md, limits). */
export const maxSelectors = 50
/** The longest selector accepted. */
export const maxSelectorLength = 2048

/**
 * Applies the filters. With include selectors, the outermost matches are kept in document order inside a fresh
 * `<body>`, beside the original `<head>` (metadata readers still need it); exclude selectors then remove their matches
 * wherever they are, inside included subtrees too. Returns `tree` itself when there is nothing to do, else a new tree.
 * A selector written with commas is one selector list; the lists of `includeSelectors` are joined the same way.
 */
export const select = (tree: Root, options: SelectorFilters): Root => {
  const include = options.includeSelectors ?? []
  const exclude = options.excludeSelectors ?? []
  if (include.length === 0 && exclude.length === 0) return tree
  const index = indexTree(tree)
  const excluded = matchAll(exclude, index)
  if (include.length === 0) return copy(tree, excluded)
  const included = matchAll(include, index)
  const picked: Array<ElementContent> = []
  const html = tree.children.find((node): node is Element => node.type === "element" && node.tagName === "html")
  if (pick(tree.children, included, excluded, picked)) return copy(tree, excluded)
  // A fragment has no document structure to keep: the matches are the result.
  if (html === undefined) return { type: "root", children: picked }
  const head = html.children.find((node): node is Element => node.type === "element" && node.tagName === "head")
  const body: Element = { type: "element", tagName: "body", properties: {}, children: picked }
  const children: Array<ElementContent> = head === undefined || excluded.has(head) ? [body] : [copy(head, excluded), body]
  return {
    type: "root",
    children: [
      ...tree.children.filter((node) => node.type === "doctype").map((node) => ({ ...node })),
      { type: "element", tagName: "html", properties: copyProperties(html), children }
    ]
  }
}

/** Why the selector list of `field` cannot be used, naming the bad entry (`sharedParams.includeSelectors[2]`). */
export const validateSelectors = (
  selectors: ReadonlyArray<string> | null | undefined,
  field: string
): InvalidRequest | undefined => {
  if (selectors === null || selectors === undefined) return undefined
  if (selectors.length > maxSelectors) {
    return new InvalidRequest({ reason: "Invalid", field, detail: `at most ${maxSelectors} selectors are allowed` })
  }
  for (const [index, selector] of selectors.entries()) {
    const problem = selector.length > maxSelectorLength
      ? `a selector may have at most ${maxSelectorLength} characters`
      : validateSelector(selector)
    if (problem !== undefined) {
      return new InvalidRequest({ reason: "Invalid", field: `${field}[${index}]`, detail: `invalid CSS selector: ${problem}` })
    }
  }
  return undefined
}

const matchAll = (selectors: ReadonlyArray<string>, index: TreeIndex): Set<Element> => {
  const found = new Set<Element>()
  for (const selector of selectors) for (const element of selectAll(selector, index)) found.add(element)
  return found
}

/**
 * Collects the outermost included elements in document order into `out`, skipping excluded subtrees. Returns true
 * when `<html>` itself is included, which means "keep the whole document".
 */
const pick = (
  nodes: ReadonlyArray<RootContent>,
  included: ReadonlySet<Element>,
  excluded: ReadonlySet<Element>,
  out: Array<ElementContent>
): boolean => {
  for (const node of nodes) {
    if (node.type !== "element" || excluded.has(node)) continue
    if (included.has(node)) {
      if (node.tagName === "html") return true
      // The head is kept anyway; an included body contributes its content to the fresh body.
      if (node.tagName === "body") out.push(...copyChildren(node.children, excluded))
      else if (node.tagName !== "head") out.push(copy(node, excluded))
      continue
    }
    if (pick(node.children, included, excluded, out)) return true
  }
  return false
}

function copy(node: Root, excluded: ReadonlySet<Element>): Root
function copy(node: Element, excluded: ReadonlySet<Element>): Element
function copy(node: Root | Element, excluded: ReadonlySet<Element>): Root | Element {
  if (node.type === "root") return { type: "root", children: copyChildren(node.children, excluded) as Array<RootContent> }
  const element: Element = {
    type: "element",
    tagName: node.tagName,
    properties: copyProperties(node),
    children: copyChildren(node.children, excluded)
  }
  if (node.content !== undefined) element.content = copy(node.content, excluded)
  return element
}

const copyChildren = (
  nodes: ReadonlyArray<RootContent>,
  excluded: ReadonlySet<Element>
): Array<ElementContent> => {
  const out: Array<ElementContent> = []
  for (const node of nodes) {
    if (node.type === "element") {
      if (!excluded.has(node)) out.push(copy(node, excluded))
    } else if (node.type === "text" || node.type === "comment") {
      out.push({ ...node })
    } else if (node.type === "doctype") {
      // Only roots hold a doctype; callers copying a root cast the result back.
      out.push({ ...node } as unknown as ElementContent)
    }
  }
  return out
}

// Token lists are copied too, so no array is shared between the input and the result.
const copyProperties = (element: Element): Element["properties"] => {
  const properties: Element["properties"] = {}
  for (const [key, value] of Object.entries(element.properties)) {
    properties[key] = Array.isArray(value) ? [...value] : value
  }
  return properties
}
