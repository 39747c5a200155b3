/**
 * HTML serialisation (hast-util-to-html, default options) whose cost does not grow with the depth of the tree.
 *
 * hast-util-to-html joins the strings of each element's children into one string per level, so every character is
 * copied once per ancestor: a page whose content sits 500 elements deep (as deep as `Html.maxDepth` allows) costs 500
 * times its size, seconds for a few megabytes. Here subtrees of modest height go to the library whole, and only the
 * elements above them are written by an iterative walk (each from a childless copy, so attributes, void elements
 * and the SVG namespace are still the library's), with every piece joined once at the end.
 */
import type { Element, Nodes, Root, RootContent } from "hast"
import { toHtml } from "hast-util-to-html"

/** Subtrees up to this height are serialised by the library in one call (normal pages are shallower). */
const libraryHeight = 48

/** The tree's HTML, exactly as `hast-util-to-html` writes it with default options. */
export const serialize = (tree: Root | Element): string => {
  if (!deeperThan(tree, libraryHeight)) return toHtml(tree)
  const tall = tallSubtrees(tree)
  const parts: Array<string> = []
  // A string on the stack is a closing tag to write; a node is to be serialised in the given space.
  const stack: Array<string | [Nodes, "html" | "svg"]> = []
  const pushChildren = (children: ReadonlyArray<RootContent>, space: "html" | "svg") => {
    for (let i = children.length - 1; i >= 0; i--) stack.push([children[i]!, space])
  }
  if (tree.type === "root") pushChildren(tree.children, "html")
  else stack.push([tree, "html"])
  while (stack.length > 0) {
    const entry = stack.pop()!
    if (typeof entry === "string") {
      parts.push(entry)
      continue
    }
    const [node, space] = entry
    if (node.type !== "element" || !tall.has(node)) {
      parts.push(toHtml(node, { space }))
      continue
    }
    const shell = toHtml({ ...node, children: [] }, { space })
    const closing = `</${node.tagName}>`
    if (!shell.endsWith(closing)) {
      // A void element: the library writes no children for it either.
      parts.push(shell)
      continue
    }
    parts.push(shell.slice(0, -closing.length))
    stack.push(closing)
    pushChildren(node.children, space === "html" && node.tagName === "svg" ? "svg" : space)
  }
  return parts.join("")
}

/** Whether some element lies more than `limit` elements deep (a cheap check before measuring heights). */
const deeperThan = (tree: Root | Element, limit: number): boolean => {
  const stack: Array<[Root | Element, number]> = [[tree, tree.type === "root" ? 0 : 1]]
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!
    if (depth > limit) return true
    for (const child of node.children) if (child.type === "element") stack.push([child, depth + 1])
  }
  return false
}

/** The elements taller than `libraryHeight` (measured without recursion). */
const tallSubtrees = (tree: Root | Element): Set<Element> => {
  const height = new Map<Element, number>()
  const tall = new Set<Element>()
  // Post-order: an element is finished once all its children are.
  const stack: Array<[Element, boolean]> = []
  const roots = tree.type === "root" ? tree.children : [tree]
  for (const node of roots) if (node.type === "element") stack.push([node, false])
  while (stack.length > 0) {
    const [element, done] = stack.pop()!
    if (!done) {
      stack.push([element, true])
      for (const child of element.children) if (child.type === "element") stack.push([child, false])
      continue
    }
    let own = 1
    for (const child of element.children) {
      if (child.type === "element") own = Math.max(own, height.get(child)! + 1)
    }
    height.set(element, own)
    if (own > libraryHeight) tall.add(element)
  }
  return tall
}
