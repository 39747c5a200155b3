/**
 * Code: `pre` → a fenced block with its whitespace kept exactly and the language taken from a `language-x`,
 * `lang-x` or `highlight-x` class (on the `pre` or its `code`); `code`, `tt`, `samp` → a code span.
 */
import type { Element, ElementContent } from "hast"
import { codeSpan } from "../escape.js"
import type { Inline } from "../inline.js"
import { type State, stringProperty } from "../state.js"
import { handlers } from "./index.js"

const languageClass = /^(?:language|lang|highlight(?:-source)?)-(.+)$/

/** The text a browser shows for preformatted content: every text node, `<br>` as a newline. */
export const preText = (nodes: ReadonlyArray<ElementContent>): string => {
  let out = ""
  for (const node of nodes) {
    if (node.type === "text") out += node.value
    else if (node.type === "element") {
      if (node.tagName === "br") out += "\n"
      else if (handlers.get(node.tagName)?.ignore !== true) out += preText(node.children)
    }
  }
  return out
}

const languageOf = (el: Element): string | undefined => {
  const fromClass = (node: Element): string | undefined => {
    const classes = node.properties.className
    if (Array.isArray(classes)) {
      for (const c of classes) {
        const match = languageClass.exec(String(c))
        if (match !== null && !/^(?:none|plain|plaintext|text)$/i.test(match[1]!)) return match[1]
      }
    }
    return stringProperty(node, "dataLang") ?? stringProperty(node, "dataLanguage")
  }
  const own = fromClass(el)
  if (own !== undefined) return own
  for (const child of el.children) {
    if (child.type === "element" && child.tagName === "code") return fromClass(child)
  }
  return undefined
}

const longestRun = (text: string, code: number): number => {
  let longest = 0
  let run = 0
  for (let i = 0; i < text.length; i++) {
    if (text.charCodeAt(i) === code) longest = Math.max(longest, ++run)
    else run = 0
  }
  return longest
}

/** A fenced code block; the fence is longer than any run of its character inside. */
export const codeBlock = (el: Element, st: State, out: Array<string>): void => {
  let text = preText(el.children)
  if (text.endsWith("\n")) text = text.slice(0, -1)
  if (text.trim() === "") return
  if (st.inTable) {
    out.push(text.split("\n").filter((l) => l.trim() !== "").map((l) => codeSpan(l, true)).join("<br>"))
    return
  }
  const language = languageOf(el)?.trim().replace(/\s+/g, "-") ?? ""
  const mark = language.includes("`") ? "~" : "`"
  const fence = mark.repeat(Math.max(3, longestRun(text, mark.charCodeAt(0)) + 1))
  out.push(`${fence}${language}\n${text}\n${fence}`)
}

/** A `pre` inside inline-only content (a heading): its text as a code span. */
export const codeBlockInline = (el: Element, st: State, buf: Inline): void => {
  const text = preText(el.children).replace(/\s+/g, " ").trim()
  if (text !== "") buf.literal(codeSpan(text, st.inTable))
}

/** A code span with the element's text, whitespace collapsed as a browser does for inline code. */
export const inlineCode = (el: Element, st: State, buf: Inline): void => {
  const collapsed = preText(el.children).replace(/[ \t\n\r\f]+/g, " ")
  const text = collapsed.trim()
  if (text === "") {
    if (collapsed !== "") buf.softSpace()
    return
  }
  if (collapsed.startsWith(" ")) buf.softSpace()
  buf.literal(codeSpan(text, st.inTable))
  if (collapsed.endsWith(" ")) buf.softSpace()
}
