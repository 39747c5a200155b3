/** `blockquote` → `>` quotes, nested by prefixing again. */
import type { Element } from "hast"
import { indent, joinBlocks } from "../blocks.js"
import { flow } from "../flow.js"
import { nestedBlocks, type State } from "../state.js"

/** Every line of the quoted blocks prefixed with `> ` (`>` alone on blank lines); past `maxNesting`, the blocks alone. */
export const blockquote = (el: Element, st: State, out: Array<string>): void => {
  const blocks = nestedBlocks(el, st, flow)
  if (blocks === undefined) return flow(el.children, st, out)
  if (blocks.length === 0) return
  const content = joinBlocks(blocks, st)
  out.push(st.inTable ? content : indent(content, "> ", "> "))
}
