/**
 * Runs → lines. Runs whose baselines agree (within a third of the font size) form a line; inside a line, a gap wider
 * than about one em starts a new segment (a table cell, the other column), and a smaller visible gap becomes a space.
 */
import { appendSpans, type Line, type Run, type Segment, type Span } from "./model.js"

/** A gap wider than this many ems separates segments: word spacing in justified text stays well below it. */
const SEGMENT_GAP_EM = 1.0
/** A gap wider than this many ems between runs is a space the PDF did not spell out. */
const SPACE_GAP_EM = 0.12

const listMarker = /^\s*(?:[•●○◦▪■▸►‣⁃∙·*–-]|\(?\d{1,3}[.)]|\(?[a-zA-Z][.)])\s*$/

const endsWithSpace = (spans: ReadonlyArray<Span>) => /\s$/.test(spans[spans.length - 1]?.text ?? "")
const startsWithSpace = (spans: ReadonlyArray<Span>) => /^\s/.test(spans[0]?.text ?? "")

const segmentOf = (runs: ReadonlyArray<Run>): Segment => {
  const spans: Array<Span> = []
  let x1 = runs[0]!.x
  let size = 0
  for (const run of runs) {
    if (spans.length > 0 && run.x - x1 > run.size * SPACE_GAP_EM && !endsWithSpace(spans) && !startsWithSpace(run.spans)) {
      appendSpans(spans, [{ text: " ", href: spans[spans.length - 1]!.href === run.spans[0]?.href ? run.spans[0]?.href : undefined }])
    }
    appendSpans(spans, run.spans)
    x1 = Math.max(x1, run.x + run.width)
    size = Math.max(size, run.size)
  }
  return { x0: runs[0]!.x, x1, size, spans: trimSpans(spans) }
}

/** Drops leading and trailing whitespace and collapses inner runs of whitespace. */
const trimSpans = (spans: ReadonlyArray<Span>): Array<Span> => {
  const out: Array<Span> = []
  for (const span of spans) appendSpans(out, [{ text: span.text.replace(/\s+/g, " "), href: span.href }])
  if (out.length > 0) out[0] = { ...out[0]!, text: out[0]!.text.trimStart() }
  if (out.length > 0) out[out.length - 1] = { ...out[out.length - 1]!, text: out[out.length - 1]!.text.trimEnd() }
  return out.filter((span) => span.text !== "")
}

const isBlank = (run: Run) => run.spans.every((span) => span.text.trim() === "")

/** Groups a page's runs into lines, top to bottom. */
export const toLines = (runs: ReadonlyArray<Run>): Array<Line> => {
  const sorted = runs.filter((run) => !isBlank(run)).sort((a, b) => a.y - b.y || a.x - b.x)
  const groups: Array<Array<Run>> = []
  for (const run of sorted) {
    const group = groups[groups.length - 1]
    const baseline = group?.[0]?.y
    if (group !== undefined && baseline !== undefined && Math.abs(run.y - baseline) <= Math.max(run.size, group[0]!.size) * 0.35) {
      group.push(run)
    } else {
      groups.push([run])
    }
  }
  return groups.map(lineOf).filter((line) => line.segments.length > 0)
}

const lineOf = (runs: Array<Run>): Line => {
  runs.sort((a, b) => a.x - b.x)
  const segments: Array<Segment> = []
  let current: Array<Run> = []
  let end = -Infinity
  for (const run of runs) {
    const gap = run.x - end
    const marker = current.length > 0 && listMarker.test(current.map((r) => r.spans.map((s) => s.text).join("")).join(""))
    if (current.length > 0 && gap > run.size * SEGMENT_GAP_EM && !(marker && gap < run.size * 3)) {
      segments.push(segmentOf(current))
      current = []
    }
    current.push(run)
    end = Math.max(end, run.x + run.width)
  }
  if (current.length > 0) segments.push(segmentOf(current))
  const kept = segments.filter((segment) => segment.spans.length > 0)
  const sizes = new Map<number, number>()
  for (const run of runs) {
    const size = Math.round(run.size * 2) / 2
    sizes.set(size, (sizes.get(size) ?? 0) + run.spans.reduce((n, span) => n + span.text.length, 0))
  }
  const size = [...sizes.entries()].sort((a, b) => b[1] - a[1])[0]?.[0] ?? runs[0]!.size
  return {
    y: runs.reduce((sum, run) => sum + run.y, 0) / runs.length,
    x0: kept[0]?.x0 ?? runs[0]!.x,
    x1: Math.max(...kept.map((segment) => segment.x1)),
    size,
    segments: kept
  }
}
