/**
 * One page's lines → blocks: split into flows (columns), cut each flow into tables and ordinary lines, and render.
 */
import type { Element, ElementContent } from "hast"
import { h, table } from "../hast.js"
import { linesToBlocks, type Typography } from "./blocks.js"
import { toFlows } from "./columns.js"
import type { Line, Span } from "./model.js"
import { findTables } from "./tables.js"

const cellContent = (spans: ReadonlyArray<Span>): Array<ElementContent> =>
  spans.map((span) => span.href === undefined ? { type: "text", value: span.text } : h("a", { href: span.href }, [span.text]))

/** The blocks of one page, in reading order. */
export const blocksOfPage = (lines: ReadonlyArray<Line>, typography: Typography): Array<Element> =>
  toFlows(lines).flatMap((flow) =>
    findTables(flow).flatMap((part) =>
      part.kind === "table"
        ? [table(part.rows.map((row) => row.map(cellContent)))]
        : linesToBlocks(part.lines, typography)
    )
  )
