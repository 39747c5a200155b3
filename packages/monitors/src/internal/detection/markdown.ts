/** Reading Markdown structure the detection needs: section headings and plain text of inline markup. */

/** An ATX heading (`## Pricing ##`). */
const atx = /^ {0,3}(#{1,6})[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$/
/** A setext underline (`===` or `---` under a line of text). */
const setext = /^ {0,3}(=+|-+)[ \t]*$/

/** Plain text of inline Markdown: links and images as their text, emphasis, code marks and escapes dropped. */
export const plainInline = (text: string): string =>
  text
    .replace(/!\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/(\*\*|__|~~|`)/g, "")
    .replace(/(^|[\s(])[*_]([^*_\s][^*_]*?)[*_](?=$|[\s).,;:!?])/g, "$1$2")
    .replace(/<br\s*\/?>/gi, " ")
    .replace(/\\([\\`*_{}[\]()#+\-.!|])/g, "$1")
    .replace(/\s+/g, " ")
    .trim()

/** The heading a line is, with its level, or undefined. `next` is the following line (for setext headings). */
export const headingOf = (
  line: string,
  next: string | undefined
): { readonly level: number; readonly text: string } | undefined => {
  const m = atx.exec(line)
  if (m !== null) {
    const text = plainInline(m[2]!)
    return text === "" ? undefined : { level: m[1]!.length, text }
  }
  if (next !== undefined && setext.test(next) && line.trim() !== "" && !/^\s*([-*+]|\d+[.)]|>|\|)/.test(line)) {
    return { level: next.trim().startsWith("=") ? 1 : 2, text: plainInline(line) }
  }
  return undefined
}

/**
 * The heading texts above each of the given lines, outermost first (`["Plans", "Pro"]`; empty when a line is in no
 * section). One pass over the text, however many lines are asked about.
 */
export const headingPaths = (
  lines: ReadonlyArray<string>,
  targets: ReadonlyArray<number>
): ReadonlyArray<ReadonlyArray<string>> => {
  const order = targets.map((line, i) => ({ line, i })).sort((a, b) => a.line - b.line)
  const result: Array<ReadonlyArray<string>> = new Array(targets.length)
  const stack: Array<{ level: number; text: string }> = []
  let next = 0
  for (let i = 0; i < lines.length && next < order.length; i++) {
    const heading = headingOf(lines[i]!, lines[i + 1])
    if (heading !== undefined) {
      while (stack.length > 0 && stack[stack.length - 1]!.level >= heading.level) stack.pop()
      stack.push(heading)
    }
    while (next < order.length && order[next]!.line <= i) result[order[next++]!.i] = stack.map((h) => h.text)
  }
  while (next < order.length) result[order[next++]!.i] = stack.map((h) => h.text)
  return result
}
