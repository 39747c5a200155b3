/**
 * Page changes: the unified diff of two normalised texts, with excerpts, a title naming the section that changed and a
 * summary counting lines. No change is reported without a line to show.
 */
import { type Block, lineChanges, lineCounts, unifiedDiff } from "./lineDiff.js"

/** The longest excerpt of each side. */
export const EXCERPT_CHARS = 500

const HEADING = /^#{1,6}\s+(.+?)\s*#*\s*$/

/** The Markdown heading a line sits under, if any. */
export const headingAbove = (lines: ReadonlyArray<string>, index: number): string | undefined => {
  for (let i = Math.min(index, lines.length - 1); i >= 0; i--) {
    const match = HEADING.exec(lines[i]!)
    if (match !== null) return match[1]!.replace(/[*_`]/g, "")
  }
  return undefined
}

const clip = (text: string) => (text.length <= EXCERPT_CHARS ? text : `${text.slice(0, EXCERPT_CHARS - 1)}…`)

/** One side of the changed region: the changed lines of the first blocks, clipped. */
const excerpt = (blocks: ReadonlyArray<Block>, side: "removed" | "added") =>
  clip(blocks.flatMap((b) => b[side]).filter((l) => l.trim() !== "").join("\n"))

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`

/** The change between two texts, or undefined when there is no line to show. */
export const comparePages = (before: string, after: string, url: string) => {
  if (before === after) return undefined
  const changes = lineChanges(before, after)
  const diff = unifiedDiff(changes)
  if (!/^[+-](?![+-]{2} )/m.test(diff.split("\n").slice(2).join("\n"))) return undefined
  const first = changes.blocks[0]!
  const section = headingAbove(changes.after, first.afterStart + Math.max(0, first.added.length - 1)) ??
    headingAbove(changes.before, first.beforeStart)
  const { added, removed } = lineCounts(changes)
  const sections = new Set(changes.blocks.map((b) => headingAbove(changes.after, b.afterStart) ?? headingAbove(changes.before, b.beforeStart)).filter((s) => s !== undefined))
  const where = sections.size === 0 ? "" : sections.size === 1 ? ` in section '${[...sections][0]}'` : ` in ${sections.size} sections`
  return {
    title: section === undefined ? `Page changed: ${url}` : `Page changed: ${section}`,
    summary: `${plural(added, "line")} added, ${removed} removed${where}`,
    diff,
    before_text_excerpt: excerpt(changes.blocks, "removed"),
    after_text_excerpt: excerpt(changes.blocks, "added")
  }
}
