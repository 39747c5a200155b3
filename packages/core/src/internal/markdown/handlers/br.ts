/** `br` → a hard line break. */
import type { Element } from "hast"
import type { Inline } from "../inline.js"
import type { State } from "../state.js"

/** A hard break (`\` at the end of the line; `<br>` in table cells; a space in headings). */
export const br = (_el: Element, _st: State, buf: Inline): void => {
  buf.hardBreak()
}
