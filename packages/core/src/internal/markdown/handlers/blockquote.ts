/** `blockquote` → `>` quotes, nested by prefixing again. */
import type { Element } from "hast"
import { indent, joinBlocks } from "../blocks.js"
import { blocksOf } from "../flow.js"
import type { State } from "../state.js"

/** Every line of the quoted blocks prefixed with `> ` (`>` alone on blank lines). */
export const blockquote = (el: Element, st: State, out: Array<string>): void => {
  const blocks = blocksOf(el, st)
  if (blocks.length === 0) return
  const content = joinBlocks(blocks, st)
  out.push(st.inTable ? content : indent(content, "> ", "> "))
}
