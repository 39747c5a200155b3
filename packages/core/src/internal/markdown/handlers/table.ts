/**
 * `table` → a GFM table. The first row is the header (GFM requires one); a `colspan` cell is followed by empty cells
 * and short rows are padded, so every row has the same number of columns; alignment comes from `align` or
 * `style="text-align: ..."`. Cell content is written on one line: blocks and `<br>` become `<br>`, pipes are escaped.
 * Layout tables (a table nested in a cell, or a single column without a header row) are not data: their cells are
 * written as blocks.
 * `rowspan` is not expanded: the cells of the following rows shift left, as in most converters.
 */
import type { Element } from "hast"
import { joinBlocks } from "../blocks.js"
import { blocksOf, flow } from "../flow.js"
import { type State, stringProperty } from "../state.js"

type Align = "left" | "center" | "right" | undefined

/** Writes the table (its caption first, as a paragraph). */
export const table = (el: Element, st: State, out: Array<string>): void => {
  const rows: Array<Element> = []
  const captions: Array<Element> = []
  collectRows(el, rows, captions)
  let columns = 0
  for (const row of rows) columns = Math.max(columns, width(row))
  // One column is a layout table unless its first row is a header row (a list with a title, kept as a table).
  if (st.inTable || columns === 0 || (columns === 1 && !headerRow(rows[0]!)) || rows.some(hasNestedTable)) {
    flow(el.children, st, out)
    return
  }
  for (const caption of captions) flow(caption.children, st, out)
  const aligns: Array<Align> = new Array(columns).fill(undefined)
  const lines: Array<string> = []
  const inTable = st.inTable
  st.inTable = true
  for (const row of rows) {
    const cells: Array<string> = []
    for (const cell of row.children) {
      if (cell.type !== "element" || (cell.tagName !== "td" && cell.tagName !== "th")) continue
      const align = alignOf(cell)
      if (align !== undefined && aligns[cells.length] === undefined) aligns[cells.length] = align
      cells.push(joinBlocks(blocksOf(cell, st), st))
      const span = spanOf(cell)
      for (let i = 1; i < span && cells.length < columns; i++) cells.push("")
    }
    if (cells.every((c) => c === "") && lines.length > 0) continue
    while (cells.length < columns) cells.push("")
    lines.push(cells.map((c) => (c === "" ? "| " : `| ${c} `)).join("") + "|")
  }
  st.inTable = inTable
  if (lines.length === 0) return
  const delimiter = aligns.map((a) =>
    a === "left" ? "| :-- " : a === "center" ? "| :-: " : a === "right" ? "| --: " : "| --- "
  ).join("") + "|"
  lines.splice(1, 0, delimiter)
  out.push(lines.join("\n"))
}

const sections = new Set(["thead", "tbody", "tfoot"])

/** Whether every cell of the row is a `th` (a header row, in `thead` or not). */
const headerRow = (row: Element): boolean => {
  let cells = 0
  for (const cell of row.children) {
    if (cell.type !== "element") continue
    if (cell.tagName === "td") return false
    if (cell.tagName === "th") cells++
  }
  return cells > 0
}

const collectRows = (el: Element, rows: Array<Element>, captions: Array<Element>): void => {
  for (const child of el.children) {
    if (child.type !== "element") continue
    if (child.tagName === "tr") rows.push(child)
    else if (child.tagName === "caption") captions.push(child)
    else if (sections.has(child.tagName)) collectRows(child, rows, captions)
  }
}

const spanOf = (cell: Element): number => {
  const span = cell.properties.colSpan
  return typeof span === "number" && span > 1 ? Math.min(span, 1000) : 1
}

const width = (row: Element): number => {
  let n = 0
  for (const cell of row.children) {
    if (cell.type === "element" && (cell.tagName === "td" || cell.tagName === "th")) n += spanOf(cell)
  }
  return n
}

const hasTable = (el: Element): boolean =>
  el.children.some((c) => c.type === "element" && (c.tagName === "table" || hasTable(c)))

const hasNestedTable = (row: Element): boolean => hasTable(row)

const alignOf = (cell: Element): Align => {
  const style = stringProperty(cell, "style")
  const fromStyle = style === undefined ? undefined : /text-align\s*:\s*(left|center|right)/i.exec(style)?.[1]
  const value = (fromStyle ?? stringProperty(cell, "align"))?.toLowerCase()
  return value === "left" || value === "center" || value === "right" ? value : undefined
}
