/** `h1`–`h6` → ATX headings. A heading's content is one line, so breaks become spaces. */
import type { Element } from "hast"
import { phrasingChildren, startInline } from "../flow.js"
import type { State } from "../state.js"

/** An ATX heading; empty headings are dropped. Inside a table cell, bold text (cells hold no headings). */
export const heading = (el: Element, st: State, out: Array<string>): void => {
  const buf = startInline(st, "space")
  phrasingChildren(el, st, buf)
  const text = buf.finish()
  if (text.length === 0) return
  if (st.inTable) {
    out.push(`**${text}**`)
    return
  }
  const level = Number(el.tagName.charCodeAt(1) - 48)
  // A trailing ` #` would be read as the optional closing sequence.
  const content = / #+$/.test(text) ? text.replace(/#+$/, (hashes) => "\\" + hashes) : text
  out.push("#".repeat(level) + " " + content)
}
