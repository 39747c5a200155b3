/** `hr` → a thematic break. */
import type { Element } from "hast"
import type { State } from "../state.js"

/** `---` between blank lines (never right under a paragraph line, where it would make a setext heading). */
export const thematicBreak = (_el: Element, st: State, out: Array<string>): void => {
  if (!st.inTable) out.push("---")
}
