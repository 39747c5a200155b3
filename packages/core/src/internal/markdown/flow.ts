/**
 * The two walks of the writer. `flow` turns a list of nodes into blocks (strings without the blank lines between
 * them): consecutive phrasing content becomes one paragraph, block elements go to their handler. `phrasing` writes
 * inline content into an `Inline` buffer. An inline element that wraps blocks (`<a><h2>..</h2></a>`, a `<span>` around
 * a `<div>`) is walked as a block container, so the blocks survive; a link wrapping blocks links each block's text.
 */
import type { Element, ElementContent } from "hast"
import { escapeLineStarts } from "./escape.js"
import { handlers, type Handler } from "./handlers/index.js"
import { linkTarget } from "./handlers/link.js"
import { Inline, opener, type BreakStyle } from "./inline.js"
import type { State } from "./state.js"

const blank = /^[ \t\n\r\f]*$/
const invisible = /^[\s\u200b\u200c\u200d\ufeff]*$/

/** Converts nodes in block context, appending one string per block to `out`. */
export const flow = (nodes: ReadonlyArray<ElementContent>, st: State, out: Array<string>): void => {
  let buf: Inline | undefined
  for (const node of nodes) {
    if (node.type === "text") {
      if (buf === undefined) {
        if (blank.test(node.value)) continue
        buf = startParagraph(st)
      }
      buf.text(node.value, st.link !== undefined)
      continue
    }
    if (node.type !== "element") continue
    const handler: Handler | undefined = handlers.get(node.tagName)
    if (handler !== undefined) {
      if (handler.ignore === true) continue
      if (handler.block !== undefined) {
        if (buf !== undefined) {
          endParagraph(buf, st, out)
          buf = undefined
        }
        handler.block(node, st, out)
        continue
      }
    }
    if (containsBlock(node)) {
      if (buf !== undefined) {
        endParagraph(buf, st, out)
        buf = undefined
      }
      wrapper(node, st, out)
      continue
    }
    buf ??= startParagraph(st)
    phrasing(node, st, buf)
  }
  if (buf !== undefined) endParagraph(buf, st, out)
}

/** Converts the children of `el` in block context and returns the blocks. */
export const blocksOf = (el: Element, st: State): Array<string> => {
  const out: Array<string> = []
  flow(el.children, st, out)
  return out
}

/** Writes one node in inline context. */
export const phrasing = (node: ElementContent, st: State, buf: Inline): void => {
  if (node.type === "text") {
    buf.text(node.value, st.inLink || st.link !== undefined)
    return
  }
  if (node.type !== "element") return
  const handler = handlers.get(node.tagName)
  if (handler === undefined) {
    phrasingChildren(node, st, buf)
  } else if (handler.ignore === true) {
    return
  } else if (handler.inline !== undefined) {
    handler.inline(node, st, buf)
  } else if (handler.block !== undefined) {
    // A block inside inline-only content (a heading, a cell) is set off by spaces, as the lines a browser would show.
    buf.softSpace()
    phrasingChildren(node, st, buf)
    buf.softSpace()
  } else {
    phrasingChildren(node, st, buf)
  }
}

/** Writes the children of `el` in inline context. */
export const phrasingChildren = (el: Element, st: State, buf: Inline): void => {
  for (const child of el.children) phrasing(child, st, buf)
}

/** Opens an inline buffer for a block's content, linked when the block sits inside a link. */
export const startInline = (st: State, breaks: BreakStyle): Inline => {
  const buf = new Inline(st.inTable, breaks === "hard" && st.inTable ? "html" : breaks)
  if (st.link !== undefined) buf.wrapLink(opener("["), st.link.close)
  return buf
}

const startParagraph = (st: State): Inline => startInline(st, "hard")

const endParagraph = (buf: Inline, st: State, out: Array<string>): void => {
  const text = buf.finish()
  // A paragraph of only non-breaking spaces shows as a blank line: nothing to keep.
  if (text.length > 0 && !invisible.test(text)) out.push(st.inTable ? text : escapeLineStarts(text))
}

/** True when `el` holds a block element somewhere below it (ignored subtrees excepted). */
export const containsBlock = (el: Element): boolean => {
  for (const child of el.children) {
    if (child.type !== "element") continue
    const handler = handlers.get(child.tagName)
    if (handler !== undefined) {
      if (handler.ignore === true) continue
      if (handler.block !== undefined) return true
    }
    if (child.children.length > 0 && containsBlock(child)) return true
  }
  return false
}

const wrapper = (el: Element, st: State, out: Array<string>): void => {
  const target = el.tagName === "a" && st.link === undefined && !st.inLink ? linkTarget(el, st) : undefined
  if (target === undefined) {
    flow(el.children, st, out)
    return
  }
  st.link = target
  flow(el.children, st, out)
  st.link = undefined
}
