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

const plainText = (el: Element): string =>
  el.children.map((c) => c.type === "text" ? c.value : c.type === "element" ? plainText(c) : "").join("")

/**
 * Appends blocks, continuing a paragraph that a column or page break cut: the paragraph before the seam does not end
 * a sentence and the one after starts in lower case. A word hyphenated across the seam is joined again.
 */
export const appendAcrossSeam = (into: Array<Element>, next: ReadonlyArray<Element>): void => {
  const last = into[into.length - 1]
  const first = next[0]
  if (last?.tagName === "p" && first?.tagName === "p") {
    const before = plainText(last)
    const after = plainText(first)
    if (!/[.!?:;"”’)\]]$/.test(before) && /^\p{Ll}/u.test(after)) {
      const tail = last.children[last.children.length - 1]
      if (tail?.type === "text" && /\p{Ll}-$/u.test(tail.value)) tail.value = tail.value.slice(0, -1)
      else last.children.push({ type: "text", value: " " })
      last.children.push(...first.children)
      into.push(...next.slice(1))
      return
    }
  }
  into.push(...next)
}

/** The blocks of one page, in reading order. */
export const blocksOfPage = (lines: ReadonlyArray<Line>, typography: Typography): Array<Element> => {
  const out: Array<Element> = []
  for (const flow of toFlows(lines)) {
    appendAcrossSeam(out, findTables(flow).flatMap((part) =>
      part.kind === "table"
        ? [table(part.rows.map((row) => row.map(cellContent)))]
        : linesToBlocks(part.lines, typography)
    ))
  }
  return out
}
