/**
 * Tables from text positions. Consecutive lines of two or more segments whose segments fall into shared column bands
 * (the union of their x ranges splits into at least two disjoint bands) are a table; each band is a column and each
 * line a row. A line with fewer cells that sits closer to the row above than rows sit to each other continues that
 * row's cells (a wrapped cell). Lists are not tables: a leading bullet stays with its text (see `lines.ts`).
 */
import { appendSpans, type Line, type Span } from "./model.js"

/** A table found in a flow: rows of cells, each cell its spans. */
export interface TableBlock {
  readonly kind: "table"
  readonly rows: ReadonlyArray<ReadonlyArray<ReadonlyArray<Span>>>
}

/** A flow cut into tables and runs of ordinary lines. */
export type FlowPart = TableBlock | { readonly kind: "lines"; readonly lines: ReadonlyArray<Line> }

interface Band {
  from: number
  to: number
}

const MIN_ROWS = 2

const bandsOf = (lines: ReadonlyArray<Line>): Array<Band> => {
  const intervals = lines.flatMap((line) => line.segments.map((s) => ({ from: s.x0, to: s.x1 })))
    .sort((a, b) => a.from - b.from)
  const bands: Array<Band> = []
  for (const interval of intervals) {
    const last = bands[bands.length - 1]
    if (last !== undefined && interval.from <= last.to + 1) last.to = Math.max(last.to, interval.to)
    else bands.push({ ...interval })
  }
  return bands
}

/** Every segment of every line lands in its own band: no two cells of a row share a column. */
const fits = (lines: ReadonlyArray<Line>, bands: ReadonlyArray<Band>): boolean =>
  lines.every((line) => {
    const used = line.segments.map((s) => bands.findIndex((band) => s.x0 >= band.from - 1 && s.x1 <= band.to + 1))
    return used.every((index) => index >= 0) && new Set(used).size === used.length
  })

const rowsOf = (lines: ReadonlyArray<Line>, bands: ReadonlyArray<Band>): Array<Array<Array<Span>>> => {
  const gaps = lines.slice(1).map((line, i) => line.y - lines[i]!.y).sort((a, b) => a - b)
  const rowGap = gaps[Math.floor(gaps.length / 2)] ?? Infinity
  const rows: Array<Array<Array<Span>>> = []
  let previous: Line | undefined
  for (const line of lines) {
    const cells: Array<Array<Span>> = bands.map(() => [])
    for (const segment of line.segments) {
      const index = bands.findIndex((band) => segment.x0 >= band.from - 1 && segment.x1 <= band.to + 1)
      appendSpans(cells[index]!, segment.spans)
    }
    const filled = cells.filter((cell) => cell.length > 0).length
    const wrapped = previous !== undefined && filled < bands.length && rows.length > 0 &&
      line.y - previous.y < rowGap * 0.8 && filled < rows[rows.length - 1]!.filter((cell) => cell.length > 0).length
    if (wrapped) {
      const row = rows[rows.length - 1]!
      cells.forEach((cell, i) => {
        if (cell.length === 0) return
        if (row[i]!.length > 0) appendSpans(row[i]!, [{ text: " " }])
        appendSpans(row[i]!, cell)
      })
    } else {
      rows.push(cells)
    }
    previous = line
  }
  return rows
}

/** A candidate run of lines is a table when its bands hold at least two columns and every row fits them. */
const asTable = (lines: ReadonlyArray<Line>): TableBlock | undefined => {
  if (lines.filter((line) => line.segments.length >= 2).length < MIN_ROWS) return undefined
  const bands = bandsOf(lines)
  if (bands.length < 2 || !fits(lines, bands)) return undefined
  const rows = rowsOf(lines, bands)
  if (rows.length < MIN_ROWS) return undefined
  return { kind: "table", rows }
}

/** Whether the next line may continue a table: close enough below, and not a much larger font. */
const continues = (previous: Line, line: Line): boolean =>
  line.y - previous.y <= Math.max(previous.size, line.size) * 3 && line.size <= previous.size * 1.3

/** Cuts a flow into tables and ordinary lines. */
export const findTables = (flow: ReadonlyArray<Line>): Array<FlowPart> => {
  const parts: Array<FlowPart> = []
  let plain: Array<Line> = []
  let i = 0
  while (i < flow.length) {
    if (flow[i]!.segments.length >= 2) {
      // Grow the candidate over multi-segment lines and single-segment wrapped cells between them.
      let j = i + 1
      while (j < flow.length && continues(flow[j - 1]!, flow[j]!) &&
        (flow[j]!.segments.length >= 2 || (j + 1 < flow.length && flow[j + 1]!.segments.length >= 2 && continues(flow[j]!, flow[j + 1]!)))) j++
      // Shrink from the end until the candidate is a consistent table (or too short to be one).
      let end = j
      let table: TableBlock | undefined
      while (end - i >= MIN_ROWS && (table = asTable(flow.slice(i, end))) === undefined) end--
      if (table !== undefined) {
        if (plain.length > 0) parts.push({ kind: "lines", lines: plain })
        plain = []
        parts.push(table)
        i = end
        continue
      }
    }
    plain.push(flow[i]!)
    i++
  }
  if (plain.length > 0) parts.push({ kind: "lines", lines: plain })
  return parts
}
