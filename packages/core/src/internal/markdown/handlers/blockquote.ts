/** `blockquote` → `>` quotes, nested by prefixing again. */
import type { Element } from "hast"
import { indent, joinBlocks } from "../blocks.js"
import { blocksOf, flow } from "../flow.js"
import { nested, type State } from "../state.js"

/** Every line of the quoted blocks prefixed with `> ` (`>` alone on blank lines); past `maxNesting`, the blocks alone. */
export const blockquote = (el: Element, st: State, out: Array<string>): void => {
  let blocks: Array<string> = []
  if (!nested(st, () => (blocks = blocksOf(el, st)))) return flow(el.children, st, out)
  if (blocks.length === 0) return
  const content = joinBlocks(blocks, st)
  out.push(st.inTable ? content : indent(content, "> ", "> "))
}
