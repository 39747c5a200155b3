/** Generic block containers (`div`, `p`, `section`, ...): their content, as blocks. */
import type { Element } from "hast"
import { flow } from "../flow.js"
import type { State } from "../state.js"

/** Converts the children in block context; a container adds no Markdown of its own. */
export const container = (el: Element, st: State, out: Array<string>): void => {
  flow(el.children, st, out)
}
