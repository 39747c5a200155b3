/**
 * Definition lists: GFM has none, so a term is a bold paragraph and each definition a paragraph opened by `: `,
 * its further lines indented by two spaces (the shape Pandoc and PHP Markdown Extra read as a definition list).
 */
import type { Element } from "hast"
import { indent, joinBlocks } from "../blocks.js"
import { blocksOf, containsBlock, flow, phrasingChildren, startInline } from "../flow.js"
import { opener } from "../inline.js"
import { escapeLineStarts } from "../escape.js"
import { nestedBlocks, type State } from "../state.js"

/** `dt` → `**term**` (block content, when a term has any, is written as blocks). */
export const term = (el: Element, st: State, out: Array<string>): void => {
  if (containsBlock(el)) {
    for (const block of blocksOf(el, st)) out.push(block)
    return
  }
  const buf = startInline(st, "hard")
  const open = opener("**", "strong")
  buf.open(open)
  st.strong++
  phrasingChildren(el, st, buf)
  st.strong--
  buf.close(open, "**")
  const text = buf.finish()
  if (text.length > 0) out.push(st.inTable ? text : escapeLineStarts(text))
}

/** `dd` → `: definition`. */
export const definition = (el: Element, st: State, out: Array<string>): void => {
  const blocks = nestedBlocks(el, st, flow)
  if (blocks === undefined) return flow(el.children, st, out)
  if (blocks.length === 0) return
  const content = joinBlocks(blocks, st)
  if (st.inTable) out.push(`: ${content}`)
  // A fence, table, heading or quote must start its own line, or it would be read as text after the `: `.
  else if (/^(?:`{3}|~{3}|\||#|>)/.test(content)) out.push(":\n" + indent(content, "  ", "  "))
  else out.push(indent(content, ": ", "  "))
}
