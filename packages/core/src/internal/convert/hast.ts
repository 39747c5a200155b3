/**
 * Small builders for the hast document every converter produces, so a PDF, a spreadsheet or a transcript reaches the
 * filters and formats in the same shape as a web page: `html > head > title` and `body` with the content.
 */
import type { Element, ElementContent, Properties, Root, Text } from "hast"

/** A text node. */
export const text = (value: string): Text => ({ type: "text", value })

/** An element; string children become text nodes. */
export const h = (
  tagName: string,
  properties: Properties = {},
  children: ReadonlyArray<ElementContent | string> = []
): Element => ({
  type: "element",
  tagName,
  properties,
  children: children.map((child) => typeof child === "string" ? text(child) : child)
})

/** A whole document: the title (when known) in the head, the blocks in the body. */
export const documentTree = (title: string | undefined, body: ReadonlyArray<ElementContent>): Root => ({
  type: "root",
  children: [h("html", {}, [
    h("head", {}, title === undefined || title.trim() === "" ? [] : [h("title", {}, [title.trim()])]),
    h("body", {}, body)
  ])]
})

/** A table whose first row is the header row, every cell plain text. */
export const table = (rows: ReadonlyArray<ReadonlyArray<string | ReadonlyArray<ElementContent>>>): Element => {
  const cell = (tag: "th" | "td", value: string | ReadonlyArray<ElementContent>) =>
    h(tag, {}, typeof value === "string" ? [value] : value)
  const [head, ...rest] = rows
  return h("table", {}, [
    h("thead", {}, head === undefined ? [] : [h("tr", {}, head.map((value) => cell("th", value)))]),
    h("tbody", {}, rest.map((row) => h("tr", {}, row.map((value) => cell("td", value)))))
  ])
}

/** A fenced code block: `pre > code.language-x`, which the Markdown writer fences with the language. */
export const codeBlock = (code: string, language?: string): Element =>
  h("pre", {}, [h("code", language === undefined ? {} : { className: [`language-${language}`] }, [code])])
