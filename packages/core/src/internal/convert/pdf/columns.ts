/**
 * Reading order across columns. A run of lines that all leave the same vertical strip free near the middle of the text
 * block, with prose on both sides, is a two-column region: its left column is read before its right one. Tables also
 * leave free strips between their columns, but their cells are short, so the prose test keeps them whole.
 */
import { type Line, type Segment, spansText } from "./model.js"

/** Lines in reading order; each flow is read top to bottom. */
export type Flow = ReadonlyArray<Line>

interface Interval {
  readonly from: number
  readonly to: number
}

/** The narrowest gutter that still separates columns. */
const MIN_GUTTER = 8
/** Prose-like text: the average segment in each column is at least this many characters. */
const MIN_PROSE_CHARS = 25
const MIN_REGION_LINES = 3

const free = (line: Line, within: Interval): Array<Interval> => {
  const out: Array<Interval> = []
  let from = within.from
  for (const segment of line.segments) {
    if (segment.x0 > from) out.push({ from, to: Math.min(segment.x0, within.to) })
    from = Math.max(from, segment.x1)
  }
  if (from < within.to) out.push({ from, to: within.to })
  return out.filter((interval) => interval.to - interval.from > 0)
}

const intersect = (a: ReadonlyArray<Interval>, b: ReadonlyArray<Interval>): Array<Interval> => {
  const out: Array<Interval> = []
  for (const x of a) {
    for (const y of b) {
      const from = Math.max(x.from, y.from)
      const to = Math.min(x.to, y.to)
      if (to - from >= MIN_GUTTER) out.push({ from, to })
    }
  }
  return out
}

const lineOnSide = (line: Line, keep: (segment: Segment) => boolean): Line | undefined => {
  const segments = line.segments.filter(keep)
  if (segments.length === 0) return undefined
  return { ...line, segments, x0: segments[0]!.x0, x1: segments[segments.length - 1]!.x1 }
}

const proseLike = (lines: ReadonlyArray<Line>): boolean => {
  const segments = lines.flatMap((line) => line.segments)
  if (segments.length === 0) return false
  const chars = segments.reduce((n, segment) => n + spansText(segment.spans).length, 0)
  return chars / segments.length >= MIN_PROSE_CHARS && segments.length <= lines.length * 1.5
}

/** Splits a page's lines into flows in reading order. */
export const toFlows = (lines: ReadonlyArray<Line>): Array<Flow> => {
  if (lines.length === 0) return []
  const left = Math.min(...lines.map((line) => line.x0))
  const right = Math.max(...lines.map((line) => line.x1))
  const middle: Interval = { from: left + (right - left) * 0.25, to: left + (right - left) * 0.75 }
  const flows: Array<Flow> = []
  let single: Array<Line> = []
  let i = 0
  while (i < lines.length) {
    let gutters = free(lines[i]!, middle).filter((interval) => interval.to - interval.from >= MIN_GUTTER)
    let j = i + 1
    while (j < lines.length && gutters.length > 0) {
      const next = intersect(gutters, free(lines[j]!, middle))
      if (next.length === 0) break
      gutters = next
      j++
    }
    const gutter = gutters.sort((a, b) => (b.to - b.from) - (a.to - a.from))[0]
    const cut = gutter === undefined ? 0 : (gutter.from + gutter.to) / 2
    const bothSides = (line: Line) => line.segments.some((s) => s.x1 <= cut) && line.segments.some((s) => s.x0 >= cut)
    // Columns start level: lines before the first one with text on both sides (a short line of a paragraph or a
    // heading above the columns) belong to the flow above.
    let k = i
    while (gutter !== undefined && k < j && !bothSides(lines[k]!)) k++
    if (gutter !== undefined && j - k >= MIN_REGION_LINES) {
      const region = lines.slice(k, j)
      const lefts = region.flatMap((line) => lineOnSide(line, (s) => s.x1 <= cut) ?? [])
      const rights = region.flatMap((line) => lineOnSide(line, (s) => s.x0 >= cut) ?? [])
      if (lefts.length >= 2 && rights.length >= 2 && proseLike(lefts) && proseLike(rights)) {
        single.push(...lines.slice(i, k))
        if (single.length > 0) flows.push(single)
        flows.push(lefts, rights)
        single = []
        i = j
        continue
      }
    }
    single.push(lines[i]!)
    i++
  }
  if (single.length > 0) flows.push(single)
  return flows
}
