/**
 * The change record of a page target: unified diff, excerpts of both sides, and a title and summary naming the
 * sections that changed. Texts whose lines are equal (they may differ in a final newline or line endings) are no
 * change, so a change always has a diff with at least one `+` or `-` line.
 */
import { type Block, lineChanges, lineCounts, type LineChanges, unifiedDiff } from "./lineDiff.js"
import { headingPaths } from "./markdown.js"

/** At most this many characters in each excerpt. */
export const excerptLimit = 500
/** Context lines are cut to this many characters so they never crowd out the change. */
const contextLimit = 160

/** A page change (the shape of `ChangeDetection.PageChange`). */
export interface PageChangeRecord {
  readonly title: string
  readonly summary: string
  readonly diff: string
  readonly before_text_excerpt: string
  readonly after_text_excerpt: string
}

/** Text cut to `limit` characters with an ellipsis, never splitting a surrogate pair. */
export const clip = (text: string, limit: number): string => {
  if (text.length <= limit) return text
  let end = limit - 1
  const code = text.charCodeAt(end - 1)
  if (code >= 0xd800 && code <= 0xdbff) end--
  return text.slice(0, end) + "…"
}

/** The nearest non-blank line from `from` stepping by `step`, at most 2 lines away. */
const nearbyLine = (lines: ReadonlyArray<string>, from: number, step: number): string | undefined => {
  for (let i = from, n = 0; i >= 0 && i < lines.length && n < 2; i += step, n++) {
    if (lines[i]!.trim() !== "") return clip(lines[i]!, contextLimit)
  }
  return undefined
}

/**
 * One side's excerpt: the changed lines of that side, the first run framed by a line of context above and below,
 * later runs after an ellipsis line, at most `excerptLimit` characters; "" when the side has no changed line.
 */
const excerpt = (lines: ReadonlyArray<string>, blocks: ReadonlyArray<Block>, side: "removed" | "added"): string => {
  const parts: Array<string> = []
  let length = 0
  for (const block of blocks) {
    const changed = block[side]
    if (changed.length === 0) continue
    const start = side === "removed" ? block.beforeStart : block.afterStart
    const part = parts.length === 0
      ? [nearbyLine(lines, start - 1, -1), ...changed, nearbyLine(lines, start + changed.length, 1)]
        .filter((l): l is string => l !== undefined).join("\n")
      : "…\n" + changed.join("\n")
    parts.push(part)
    length += part.length + 1
    if (length >= excerptLimit) break
  }
  return clip(parts.join("\n"), excerptLimit)
}

const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? "" : "s"}`

/** "3 lines added, 1 removed" and its one-sided forms. */
export const countPhrase = (added: number, removed: number): string =>
  added > 0 && removed > 0
    ? `${plural(added, "line")} added, ${removed} removed`
    : added > 0
    ? `${plural(added, "line")} added`
    : `${plural(removed, "line")} removed`

/** The innermost section heading of each block (after text for blocks that add lines, else before), first 50. */
export const blockSections = (changes: LineChanges): ReadonlyArray<ReadonlyArray<string>> => {
  const blocks = changes.blocks.slice(0, 50)
  const afterPaths = headingPaths(changes.after, blocks.map((b) => b.afterStart))
  const beforePaths = headingPaths(changes.before, blocks.map((b) => b.beforeStart))
  return blocks.map((b, i) => (b.added.length > 0 ? afterPaths[i]! : beforePaths[i]!))
}

/** `in section 'A'` / `in sections 'A', 'B' and 2 more`, or "" when no change is under a heading. */
export const sectionPhrase = (sections: ReadonlyArray<ReadonlyArray<string>>): string => {
  const names = [...new Set(sections.flatMap((path) => (path.length === 0 ? [] : [path[path.length - 1]!])))]
  if (names.length === 0) return ""
  const shown = names.slice(0, 3).map((n) => `'${clip(n, 80)}'`).join(", ")
  const more = names.length > 3 ? ` and ${names.length - 3} more` : ""
  return ` in section${names.length === 1 ? "" : "s"} ${shown}${more}`
}

/** The change between two page texts, or undefined when their lines are equal. */
export const comparePages = (before: string, after: string, url: string): PageChangeRecord | undefined => {
  const changes = lineChanges(before, after)
  if (changes.blocks.length === 0) return undefined
  const { added, removed } = lineCounts(changes)
  const sections = blockSections(changes)
  const first = sections[0]!
  const title = first.length === 0
    ? `Page changed: ${url}`
    : `Page changed in '${clip(first[first.length - 1]!, 80)}': ${url}`
  return {
    title,
    summary: countPhrase(added, removed) + sectionPhrase(sections),
    diff: unifiedDiff(changes),
    before_text_excerpt: excerpt(changes.before, changes.blocks, "removed"),
    after_text_excerpt: excerpt(changes.after, changes.blocks, "added")
  }
}

/** The innermost Markdown heading a line sits under, if any. */
export const headingAbove = (lines: ReadonlyArray<string>, index: number): string | undefined => {
  const path = headingPaths(lines, [index])[0]!
  return path.length === 0 ? undefined : path[path.length - 1]
}
