/**
 * Line differences of two texts and their unified diff. The common head and tail are cut first, so a small change in
 * a 1 MB page diffs only the lines around it; jsdiff (`diffArrays`, Myers) diffs the rest under a time budget, and a
 * middle too different to diff in time becomes one replaced block (still a correct diff, only less fine-grained).
 */
import { diffArrays } from "diff"
import { splitLines } from "./text.js"

/** A run of changed lines: `removed` replaced `before[beforeStart..]`, `added` is `after[afterStart..]`. */
export interface Block {
  readonly beforeStart: number
  readonly afterStart: number
  readonly removed: ReadonlyArray<string>
  readonly added: ReadonlyArray<string>
}

/** Both texts as lines and the changed blocks in order (none when the lines are equal). */
export interface LineChanges {
  readonly before: ReadonlyArray<string>
  readonly after: ReadonlyArray<string>
  readonly blocks: ReadonlyArray<Block>
}

/** Lines of context around each change in a hunk (the unified diff default). */
export const contextLines = 3
/** The time jsdiff may spend on the differing middle before it is reported as one replaced block. */
const diffBudgetMs = 400

/** The changed blocks between two texts, compared line by line (line endings and one final newline ignored). */
export const lineChanges = (beforeText: string, afterText: string): LineChanges => {
  const before = splitLines(beforeText)
  const after = splitLines(afterText)
  let head = 0
  while (head < before.length && head < after.length && before[head] === after[head]) head++
  let tail = 0
  while (
    tail < before.length - head && tail < after.length - head &&
    before[before.length - 1 - tail] === after[after.length - 1 - tail]
  ) tail++
  const midBefore = before.slice(head, before.length - tail)
  const midAfter = after.slice(head, after.length - tail)
  if (midBefore.length === 0 && midAfter.length === 0) return { before, after, blocks: [] }
  const parts = midBefore.length === 0 || midAfter.length === 0
    ? undefined
    : diffArrays(midBefore, midAfter, { timeout: diffBudgetMs })
  const blocks: Array<Block> = []
  if (parts === undefined) {
    blocks.push({ beforeStart: head, afterStart: head, removed: midBefore, added: midAfter })
    return { before, after, blocks }
  }
  let b = head
  let a = head
  let open: { beforeStart: number; afterStart: number; removed: Array<string>; added: Array<string> } | undefined
  for (const part of parts) {
    if (!part.added && !part.removed) {
      if (open !== undefined) blocks.push(open)
      open = undefined
      b += part.count
      a += part.count
      continue
    }
    open ??= { beforeStart: b, afterStart: a, removed: [], added: [] }
    if (part.removed) {
      open.removed.push(...part.value)
      b += part.count
    } else {
      open.added.push(...part.value)
      a += part.count
    }
  }
  if (open !== undefined) blocks.push(open)
  return { before, after, blocks }
}

/** Counts of changed lines. */
export const lineCounts = (changes: LineChanges): { readonly added: number; readonly removed: number } => {
  let added = 0
  let removed = 0
  for (const block of changes.blocks) {
    added += block.added.length
    removed += block.removed.length
  }
  return { added, removed }
}

/**
 * The unified diff (`--- before`, `+++ after`, `@@` hunks with 3 lines of context; hunks closer than 6 lines merge),
 * in the format of jsdiff's `createTwoFilesPatch` with file headers only. Empty when there are no blocks.
 */
export const unifiedDiff = (changes: LineChanges): string => {
  const { before, blocks } = changes
  if (blocks.length === 0) return ""
  const out: Array<string> = ["--- before", "+++ after"]
  let i = 0
  while (i < blocks.length) {
    // A hunk takes blocks while the unchanged gap between them is at most twice the context.
    let j = i
    while (
      j + 1 < blocks.length &&
      blocks[j + 1]!.beforeStart - (blocks[j]!.beforeStart + blocks[j]!.removed.length) <= 2 * contextLines
    ) j++
    const first = blocks[i]!
    const last = blocks[j]!
    const lead = Math.min(contextLines, first.beforeStart)
    const beforeEnd = last.beforeStart + last.removed.length
    const trail = Math.min(contextLines, before.length - beforeEnd)
    const body: Array<string> = []
    for (let k = first.beforeStart - lead; k < first.beforeStart; k++) body.push(" " + before[k]!)
    for (let n = i; n <= j; n++) {
      const block = blocks[n]!
      for (const line of block.removed) body.push("-" + line)
      for (const line of block.added) body.push("+" + line)
      const gapEnd = n < j ? blocks[n + 1]!.beforeStart : beforeEnd + trail
      for (let k = block.beforeStart + block.removed.length; k < gapEnd; k++) body.push(" " + before[k]!)
    }
    const oldLines = lead + (beforeEnd - first.beforeStart) + trail
    const afterEnd = last.afterStart + last.added.length
    const newLines = lead + (afterEnd - first.afterStart) + trail
    // Unified diff quirk: an empty side names the line before it.
    const oldStart = oldLines === 0 ? first.beforeStart - lead : first.beforeStart - lead + 1
    const newStart = newLines === 0 ? first.afterStart - lead : first.afterStart - lead + 1
    out.push(`@@ -${oldStart},${oldLines} +${newStart},${newLines} @@`, ...body)
    i = j + 1
  }
  return out.join("\n") + "\n"
}
