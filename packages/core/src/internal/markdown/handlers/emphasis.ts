/**
 * Emphasis-like phrasing: `**strong**`, `*emphasis*`, `~~strikethrough~~`, quotes, and the elements GFM has no syntax
 * for (`sub`, `sup`, `kbd`, `mark`), which stay inline HTML tags around Markdown content.
 */
import type { Element } from "hast"
import { phrasingChildren } from "../flow.js"
import { type Inline, opener } from "../inline.js"
import type { State } from "../state.js"

type Kind = "strong" | "emphasis" | "strike"

const delimited = (kind: Kind, markdown: string, tag: string) => (el: Element, st: State, buf: Inline): void => {
  // Nested same-kind emphasis adds nothing visible and `****` would not parse: only the outermost is written.
  if (st[kind] > 0) {
    phrasingChildren(el, st, buf)
    return
  }
  const open = opener(markdown, tag)
  buf.open(open)
  st[kind]++
  phrasingChildren(el, st, buf)
  st[kind]--
  buf.close(open, markdown)
}

/** `b`, `strong` → `**text**`. */
export const strong = delimited("strong", "**", "strong")

/** `i`, `em`, `cite`, `dfn` → `*text*`. */
export const emphasis = delimited("emphasis", "*", "em")

/** `del`, `s`, `strike` → `~~text~~`. */
export const strike = delimited("strike", "~~", "del")

/** `sub`, `sup`, `kbd`, `mark` → the same inline HTML tag around the converted content. */
export const htmlTag = (el: Element, st: State, buf: Inline): void => {
  const open = opener(`<${el.tagName}>`)
  buf.open(open)
  phrasingChildren(el, st, buf)
  buf.close(open, `</${el.tagName}>`)
}

/** `q` → text in typographic quotes, as browsers show it. */
export const quote = (el: Element, st: State, buf: Inline): void => {
  const open = opener("\u201c")
  buf.open(open)
  phrasingChildren(el, st, buf)
  buf.close(open, "\u201d")
}
