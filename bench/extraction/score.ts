/** The trafilatura project's evaluation metric: `with`/`without` segments searched in the plain text of an output. */

/** One page of `evaldata.json`. */
export interface EvalPage {
  readonly id: string
  readonly file: string
  readonly url: string
  readonly with: ReadonlyArray<string>
  readonly without: ReadonlyArray<string>
}

/** Counts over segments. */
export interface Counts {
  tp: number
  fn: number
  fp: number
  tn: number
}

/** Collapses every run of whitespace to one space, as the metric compares segments. */
export const collapse = (text: string): string => text.replace(/\s+/gu, " ").trim()

/**
 * Reduces Markdown to plain text: link targets, image syntax, emphasis and heading marks, table pipes and
 * backslash escapes go, so a segment is found whatever formatting surrounded it.
 */
export const markdownToText = (markdown: string): string =>
  collapse(
    markdown
      .replace(/!\[[^\]]*\]\([^)]*\)/gu, " ")
      .replace(/\[([^\]]*)\]\((?:[^()]|\([^)]*\))*\)/gu, "$1")
      .replace(/\[([^\]]*)\]\[[^\]]*\]/gu, "$1")
      .replace(/^\s{0,3}#{1,6}\s+/gmu, "")
      .replace(/^\s*\|?(?:\s*:?-{3,}:?\s*\|)+\s*(?::?-{3,}:?)?\s*$/gmu, " ")
      .replace(/\s*\|\s*/gu, " ")
      .replace(/(\*\*|__|~~)(?=\S)([\s\S]*?\S)\1/gu, "$2")
      .replace(/(^|[^\w*])([*_])(?=\S)([^*_\n]*?\S)\2(?!\w)/gu, "$1$3")
      .replace(/^\s*(?:[-*+]|\d+[.)])\s+/gmu, "")
      .replace(/^\s*>\s?/gmu, "")
      .replace(/^\s*(?:```|~~~).*$/gmu, " ")
      .replace(/`([^`]*)`/gu, "$1")
      .replace(/\\([\\`*_{}[\]()#+\-.!|<>~&@:])/gu, "$1")
  )

/** Scores one page's plain text against its segments. */
export const scorePage = (text: string | undefined, page: EvalPage): Counts => {
  const counts: Counts = { tp: 0, fn: 0, fp: 0, tn: 0 }
  const haystack = text === undefined ? "" : collapse(text)
  for (const segment of page.with) {
    if (text !== undefined && haystack.includes(collapse(segment))) counts.tp++
    else counts.fn++
  }
  for (const segment of page.without) {
    if (text !== undefined && haystack.includes(collapse(segment))) counts.fp++
    else counts.tn++
  }
  return counts
}

/** Adds `b` into `a`. */
export const add = (a: Counts, b: Counts): void => {
  a.tp += b.tp
  a.fn += b.fn
  a.fp += b.fp
  a.tn += b.tn
}

/** Precision, recall and F1 of summed counts. */
export const measures = (c: Counts): { precision: number; recall: number; f1: number } => {
  const precision = c.tp / (c.tp + c.fp || 1)
  const recall = c.tp / (c.tp + c.fn || 1)
  const f1 = precision + recall === 0 ? 0 : (2 * precision * recall) / (precision + recall)
  return { precision, recall, f1 }
}
