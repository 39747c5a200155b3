/**
 * Text statistics of every element of a tree, computed in one bottom-up pass: how much text it holds, how much of it
 * is link text, how many commas, and how much text sits directly in it (not inside child blocks).
 */
import type { Element, ElementContent } from "hast"

/** The measured statistics of one element. */
export interface Stats {
  /** Non-whitespace characters of text inside. */
  readonly text: number
  /** Of those, characters inside links. */
  readonly link: number
  /** Commas of any script (`,`, `،`, `、`, `，`). */
  readonly commas: number
  /** Non-whitespace characters of text in the element's own inline flow (text nodes and inline children). */
  readonly inline: number
  /** Of those, characters inside links. */
  readonly inlineLink: number
}

/** Phrasing elements: they continue their parent's text flow instead of starting a block. */
export const inlineTags = new Set([
  "a", "abbr", "b", "bdi", "bdo", "big", "br", "cite", "code", "data", "del", "dfn", "em", "font", "i", "img", "ins",
  "kbd", "mark", "q", "s", "samp", "small", "span", "strike", "strong", "sub", "sup", "time", "tt", "u", "var", "wbr",
  "nobr", "label", "acronym"
])

const nonSpace = (value: string): number => {
  let n = 0
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i)
    if (c > 32 && c !== 160 && c !== 0x200b) n++
  }
  return n
}

const commaPattern = /[,،、，]/gu

/** Measures every element under (and including) `root`. */
export const measure = (root: Element): Map<Element, Stats> => {
  const table = new Map<Element, Stats>()
  const visit = (element: Element, inLink: boolean): Stats => {
    const isLink = inLink || element.tagName === "a"
    let text = 0
    let link = 0
    let commas = 0
    let inline = 0
    let inlineLink = 0
    for (const child of element.children as Array<ElementContent>) {
      if (child.type === "text") {
        const n = nonSpace(child.value)
        text += n
        inline += n
        if (isLink) {
          link += n
          inlineLink += n
        }
        if (n > 0) commas += child.value.match(commaPattern)?.length ?? 0
      } else if (child.type === "element") {
        const s = visit(child, isLink)
        text += s.text
        link += s.link
        commas += s.commas
        if (inlineTags.has(child.tagName)) {
          inline += s.text
          inlineLink += s.link
        }
      }
    }
    const stats: Stats = { text, link, commas, inline, inlineLink }
    table.set(element, stats)
    return stats
  }
  visit(root, false)
  return table
}

/** Share of an element's text that is link text. */
export const linkDensity = (s: Stats): number => (s.text === 0 ? 0 : s.link / s.text)

/** The element's text content, whitespace collapsed. */
export const textOf = (node: ElementContent): string => {
  if (node.type === "text") return node.value
  if (node.type !== "element") return ""
  let out = ""
  for (const child of node.children) out += textOf(child)
  return out
}
