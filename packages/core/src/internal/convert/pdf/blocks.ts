/**
 * Lines → blocks: headings from font size (larger than the body text, largest first), paragraphs re-flowed across
 * line breaks (hyphenated words joined again), bullet and numbered lists with their wrapped lines, and links kept.
 */
import type { Element, ElementContent } from "hast"
import { h } from "../hast.js"
import { appendSpans, type Line, lineText, type Span } from "./model.js"

/** Document-wide type sizes: the body size and which larger sizes are headings, at which level. */
export interface Typography {
  readonly body: number
  readonly levels: ReadonlyMap<number, number>
}

const roundSize = (size: number) => Math.round(size * 2) / 2

/** Measures the body size (most characters) and ranks the larger sizes into heading levels 1 to 4. */
export const typographyOf = (lines: ReadonlyArray<Line>): Typography => {
  const chars = new Map<number, number>()
  for (const line of lines) {
    const size = roundSize(line.size)
    chars.set(size, (chars.get(size) ?? 0) + lineText(line).length)
  }
  const body = [...chars.entries()].sort((a, b) => b[1] - a[1])[0]?.[0] ?? 10
  const larger = [...chars.keys()].filter((size) => size >= body * 1.15).sort((a, b) => b - a).slice(0, 4)
  return { body, levels: new Map(larger.map((size, i) => [size, i + 1])) }
}

const bullet = /^\s*([•●○◦▪■▸►‣⁃∙·*–-])\s+/
const numbered = /^\s*\(?(\d{1,3}|[a-z])[.)]\s+/

type Block =
  | { kind: "heading"; level: number; spans: Array<Span>; last: Line }
  | { kind: "paragraph"; spans: Array<Span>; last: Line; first: Line }
  | { kind: "item"; ordered: boolean; start: number; spans: Array<Span>; last: Line; textX: number }

const stripPrefix = (spans: ReadonlyArray<Span>, length: number): Array<Span> => {
  const out: Array<Span> = []
  let skip = length
  for (const span of spans) {
    if (skip >= span.text.length) {
      skip -= span.text.length
      continue
    }
    out.push({ text: span.text.slice(skip), href: span.href })
    skip = 0
  }
  return out
}

const lineSpans = (line: Line): Array<Span> => {
  const out: Array<Span> = []
  line.segments.forEach((segment, i) => {
    if (i > 0) appendSpans(out, [{ text: " " }])
    appendSpans(out, segment.spans)
  })
  return out
}

/** Joins a wrapped line: a word hyphenated at the line end is joined again, otherwise one space. */
const joinLine = (into: Array<Span>, spans: ReadonlyArray<Span>): void => {
  const last = into[into.length - 1]
  const next = spans[0]?.text ?? ""
  if (last !== undefined && /\p{Ll}-$/u.test(last.text) && /^\p{Ll}/u.test(next)) {
    into[into.length - 1] = { ...last, text: last.text.slice(0, -1) }
  } else if (into.length > 0) {
    appendSpans(into, [{ text: " " }])
  }
  appendSpans(into, spans)
}

const inline = (spans: ReadonlyArray<Span>): Array<ElementContent> =>
  spans.map((span) => span.href === undefined ? { type: "text", value: span.text } : h("a", { href: span.href }, [span.text]))

/** Converts one run of ordinary lines (one flow, between tables) into blocks. */
export const linesToBlocks = (lines: ReadonlyArray<Line>, typography: Typography): Array<Element> => {
  const blocks: Array<Block> = []
  const width = Math.max(...lines.map((line) => line.x1)) - Math.min(...lines.map((line) => line.x0))
  for (const line of lines) {
    const text = lineText(line)
    const spans = lineSpans(line)
    const level = text.length <= 200 ? typography.levels.get(roundSize(line.size)) : undefined
    const current = blocks[blocks.length - 1]
    const gap = current === undefined ? Infinity : line.y - current.last.y
    const close = gap <= Math.max(line.size, current?.last.size ?? 0) * 1.75
    const sameSize = current !== undefined && Math.abs(roundSize(current.last.size) - roundSize(line.size)) < 0.6
    if (level !== undefined) {
      if (current?.kind === "heading" && current.level === level && close) {
        joinLine(current.spans, spans)
        current.last = line
      } else {
        blocks.push({ kind: "heading", level, spans, last: line })
      }
      continue
    }
    const bulletMark = bullet.exec(text)
    const mark = bulletMark ?? numbered.exec(text)
    if (mark !== null) {
      const ordered = bulletMark === null
      const start = ordered ? (/^\d+$/.test(mark[1]!) ? Number(mark[1]) : mark[1]!.charCodeAt(0) - 96) : 1
      const textX = line.x0 + (line.x1 - line.x0) * (mark[0].length / Math.max(1, text.length))
      blocks.push({ kind: "item", ordered, start, spans: stripPrefix(spans, mark[0].length), last: line, textX })
      continue
    }
    if (current?.kind === "item" && close && sameSize && line.x0 >= current.textX - line.size * 0.6) {
      joinLine(current.spans, spans)
      current.last = line
      continue
    }
    if (current?.kind === "paragraph" && close && sameSize) {
      const previousText = lineText(current.last)
      const shortEnd = /[.!?:]["'”’)]?$/.test(previousText) && current.last.x1 - current.last.x0 < width * 0.8
      const indented = line.x0 > current.last.x0 + line.size && /[.!?:]["'”’)]?$/.test(previousText)
      if (!shortEnd && !indented) {
        joinLine(current.spans, spans)
        current.last = line
        continue
      }
    }
    blocks.push({ kind: "paragraph", spans, last: line, first: line })
  }
  return render(blocks)
}

const render = (blocks: ReadonlyArray<Block>): Array<Element> => {
  const out: Array<Element> = []
  let list: Element | undefined
  let listOrdered = false
  for (const block of blocks) {
    if (block.kind !== "item") {
      list = undefined
      out.push(block.kind === "heading" ? h(`h${block.level}`, {}, inline(block.spans)) : h("p", {}, inline(block.spans)))
      continue
    }
    if (list === undefined || listOrdered !== block.ordered) {
      listOrdered = block.ordered
      list = h(block.ordered ? "ol" : "ul", block.ordered && block.start !== 1 ? { start: block.start } : {})
      out.push(list)
    }
    list.children.push(h("li", {}, inline(block.spans)))
  }
  return out
}
