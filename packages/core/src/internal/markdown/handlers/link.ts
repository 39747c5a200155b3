/**
 * `a` → `[text](url "title")`. URLs are resolved against the base; links without a usable target (no `href`, empty,
 * `javascript:`) and all links when `includeLinks` is false are written as their text. A link with no text vanishes.
 */
import type { Element } from "hast"
import { destination, title } from "../escape.js"
import { phrasingChildren } from "../flow.js"
import { type Inline, opener } from "../inline.js"
import { type LinkTarget, resolveUrl, type State, stringProperty } from "../state.js"

const scriptUrl = /^\s*(?:javascript|vbscript):/i

/** The link an `a` element makes, or undefined when it is written as plain text. */
export const linkTarget = (el: Element, st: State): LinkTarget | undefined => {
  if (!st.options.includeLinks) return undefined
  const href = stringProperty(el, "href")
  if (href === undefined || href.trim() === "" || scriptUrl.test(href)) return undefined
  const url = resolveUrl(st, href)
  return { close: `](${destination(url, st.inTable)}${title(stringProperty(el, "title"), st.inTable)})` }
}

/** Writes a link around its converted text (nested links are text: Markdown links cannot nest). */
export const link = (el: Element, st: State, buf: Inline): void => {
  const target = st.inLink || st.link !== undefined ? undefined : linkTarget(el, st)
  if (target === undefined) {
    phrasingChildren(el, st, buf)
    return
  }
  const open = opener("[")
  buf.open(open)
  st.inLink = true
  phrasingChildren(el, st, buf)
  st.inLink = false
  buf.close(open, target.close)
}
