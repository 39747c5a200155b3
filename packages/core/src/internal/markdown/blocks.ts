/** Joining and indenting blocks: the layout of container blocks (list items, quotes, cells). */
import type { State } from "./state.js"

/** Joins sibling blocks: a blank line between them, `<br>` inside a table cell where newlines end the row. */
export const joinBlocks = (blocks: ReadonlyArray<string>, st: State): string =>
  st.inTable ? blocks.map((b) => b.replace(/\n/g, "<br>")).join("<br>") : blocks.join("\n\n")

/** Prefixes the first line with `first` and every other non-empty line with `rest`. */
export const indent = (text: string, first: string, rest: string): string => {
  if (!text.includes("\n")) return first + text
  const lines = text.split("\n")
  let out = first + lines[0]!
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i]!
    out += line === "" ? "\n" + rest.trimEnd() : "\n" + rest + line
  }
  return out
}
