/**
 * Copies the page body without what is never content: scripts, styles, SVG, form controls, embedded frames, comments
 * and hidden elements, except the hidden rest of an article right after its "Read more" control. Extraction works on
 * this copy, so the caller's tree is never mutated.
 */
import type { Element, ElementContent, Root, RootContent } from "hast"
import { continuation } from "./phrases.js"

const dropped = new Set([
  "script", "style", "template", "svg", "math", "canvas", "iframe", "frame", "frameset", "object",
  "embed", "applet", "link", "meta", "base", "head", "title", "button", "input", "select", "option", "optgroup",
  "textarea", "datalist", "output", "progress", "meter", "dialog", "audio", "video", "source", "track", "map", "area",
  "label", "fieldset", "legend", "rt", "rp"
])

const hiddenStyle = /(?:^|;)\s*(?:display\s*:\s*none|visibility\s*:\s*hidden)\s*(?:!important)?\s*(?:;|$)/iu

/** Whether the author hid the element from readers. */
const isHidden = (element: Element): boolean => {
  const props = element.properties
  if (props.hidden !== undefined && props.hidden !== false && props.hidden !== null) return true
  if (String(props.ariaHidden) === "true") return true
  const style = props.style
  return typeof style === "string" && hiddenStyle.test(style)
}

const textSize = (node: ElementContent, limit: number): number => {
  if (node.type === "text") return node.value.trim().length
  if (node.type !== "element") return 0
  let n = 0
  for (const child of node.children) n += textSize(child, limit)
  return n
}

/** The short text of a node, or undefined past `limit` characters or 64 nodes (a control is a few words). */
const shortText = (node: ElementContent, limit: number): string | undefined => {
  let out = ""
  let nodes = 0
  const walk = (n: ElementContent): boolean => {
    if (++nodes > 64) return false
    if (n.type === "text") {
      out += n.value
      return out.length <= limit * 4
    }
    if (n.type !== "element") return true
    for (const child of n.children) if (!walk(child)) return false
    return true
  }
  if (!walk(node)) return undefined
  const text = out.replace(/\s+/gu, " ").trim()
  return text.length <= limit ? text : undefined
}

/** A "Read more" / "Weiterlesen" control: what it reveals is the rest of the article. */
const isContinuationControl = (node: Element): boolean => {
  const text = shortText(node, 40)
  return text !== undefined && text !== "" && continuation.test(text)
}

const copyChildren = (children: ReadonlyArray<ElementContent>): Array<ElementContent> => {
  const out: Array<ElementContent> = []
  // The element before, when only whitespace lies between: a hidden element after a "Read more" control is kept.
  let previous: Element | undefined
  for (const child of children) {
    if (child.type === "text") {
      if (child.value.trim() !== "") previous = undefined
      out.push({ type: "text", value: child.value })
    } else if (child.type === "element") {
      const before = previous
      previous = child
      if (dropped.has(child.tagName)) continue
      if (isHidden(child) && (before === undefined || !isContinuationControl(before))) continue
      if (child.tagName === "noscript") {
        // A noscript holding a page's worth of markup (an unclosed element swallowed the page) is unwrapped;
        // the usual "enable JavaScript" notice or tracking pixel is dropped.
        if (textSize(child, 0) > 500) out.push(...copyChildren(child.children))
        continue
      }
      out.push({
        type: "element",
        tagName: child.tagName,
        properties: { ...child.properties },
        children: copyChildren(child.tagName === "template" ? [] : child.children)
      })
    }
  }
  return out
}

/** Finds the `body` element of a document tree (or the root itself for fragments). */
export const findBody = (tree: Root): Element | undefined => {
  const search = (nodes: ReadonlyArray<RootContent | ElementContent>): Element | undefined => {
    for (const node of nodes) {
      if (node.type !== "element") continue
      if (node.tagName === "body") return node
      if (node.tagName === "html") return search(node.children)
    }
    return undefined
  }
  return search(tree.children)
}

/** A cleaned copy of the body (or of every top-level element of a fragment), wrapped in a `body` element. */
export const strippedBody = (tree: Root): Element => {
  const body = findBody(tree)
  const children = body
    ? body.children
    : tree.children.filter((n): n is ElementContent => n.type === "element" || n.type === "text")
  return { type: "element", tagName: "body", properties: {}, children: copyChildren(children) }
}
