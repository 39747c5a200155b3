/**
 * Readable text of a hast subtree, close to what `innerText` gives: block elements and `<br>` start new lines, table
 * cells are separated by a space, whitespace inside a line collapses, and nothing a browser does not render (scripts,
 * styles, templates, `hidden` elements) is read.
 */
import type { Element, Nodes } from "hast"

const blocks = new Set([
  "address", "article", "aside", "blockquote", "caption", "dd", "details", "dialog", "div", "dl", "dt", "fieldset",
  "figcaption", "figure", "footer", "form", "h1", "h2", "h3", "h4", "h5", "h6", "header", "hgroup", "hr", "legend", "li",
  "main", "menu", "nav", "ol", "option", "p", "pre", "section", "summary", "table", "tbody", "tfoot", "thead", "title",
  "tr", "ul", "body", "html", "head"
])

const unrendered = new Set(["script", "style", "noscript", "template", "iframe", "object", "head"])

const cells = new Set(["td", "th"])

// Structural line breaks are marked apart from newlines in the source, which are just whitespace (except in `pre`).
const lineBreak = "\u2028"

/** Text of `node`, one line per block, whitespace collapsed within lines, empty lines dropped. */
export const blockText = (node: Nodes): string => {
  const parts: Array<string> = []
  collect(node, parts, true)
  const lines: Array<string> = []
  for (const line of parts.join("").split(lineBreak)) {
    const collapsed = line.replace(/\s+/g, " ").trim()
    if (collapsed !== "") lines.push(collapsed)
  }
  return lines.join("\n")
}

/** Text of `node` on a single line: every run of whitespace, line breaks included, becomes one space. */
export const inlineText = (node: Nodes): string => {
  const parts: Array<string> = []
  collect(node, parts, true)
  return parts.join("").replace(/\s+/g, " ").trim()
}

const collect = (node: Nodes, parts: Array<string>, isTop: boolean, inPre = false): void => {
  switch (node.type) {
    case "text":
      parts.push(inPre ? node.value.replace(/\r?\n/g, lineBreak) : node.value.replace(/\s+/g, " "))
      return
    case "root":
      for (const child of node.children) collect(child, parts, false, inPre)
      return
    case "element":
      collectElement(node, parts, isTop, inPre)
      return
    default:
      return
  }
}

const collectElement = (element: Element, parts: Array<string>, isTop: boolean, inPre: boolean): void => {
  // The selected element itself is read even when it is, say, a `<head>` or `<noscript>`: the caller asked for it.
  if (!isTop && (unrendered.has(element.tagName) || element.properties.hidden === true)) return
  if (element.tagName === "br") {
    parts.push(lineBreak)
    return
  }
  const block = blocks.has(element.tagName)
  if (block) parts.push(lineBreak)
  else if (cells.has(element.tagName)) parts.push(" ")
  const pre = inPre || element.tagName === "pre" || element.tagName === "textarea"
  for (const child of element.children) collect(child, parts, false, pre)
  if (block) parts.push(lineBreak)
  else if (cells.has(element.tagName)) parts.push(" ")
}
