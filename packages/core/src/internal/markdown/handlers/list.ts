/**
 * `ul`, `ol` (`menu`, `dir`) → GFM lists. Item content is indented by the marker's width, so nested lists, paragraphs
 * and code blocks stay inside their item and never become indented code. Ordered lists honour `start`, `reversed` and
 * an item's `value`; a checkbox opening an item makes a task item (`- [x] `). A list right after another of the same
 * kind switches marker (`-`/`*`, `.`/`)`), or Markdown would merge the two.
 */
import type { Element, ElementContent } from "hast"
import { indent, joinBlocks } from "../blocks.js"
import { flow } from "../flow.js"
import { maxNesting, type State } from "../state.js"

const blank = /^[ \t\n\r\f]*$/
// A nested list may follow its item's paragraph without a blank line only where it can interrupt a paragraph.
const interruptingList = /^(?:[-*](?: |\n|$)|1[.)](?: |\n|$))/

/** The list as one block (items separated by newlines, or blank lines when an item holds several blocks). */
export const list = (el: Element, st: State, out: Array<string>): void => {
  // Past `maxNesting` the items are written as their blocks, unmarked and unindented.
  if (st.nesting >= maxNesting) return flow(el.children, st, out)
  const ordered = el.tagName === "ol"
  const items = groupItems(el.children)
  if (items.length === 0) return
  const previous = out.length > 0 ? out[out.length - 1]! : ""
  const bullet = /^-(?: |\n|$)/.test(previous) ? "*" : "-"
  const delimiter = /^\d{1,9}\.(?: |\n|$)/.test(previous) ? ")" : "."
  const reversed = ordered && el.properties.reversed === true
  const start = typeof el.properties.start === "number" ? el.properties.start : reversed ? items.length : 1
  let number = start
  let loose = false
  const written: Array<string> = []
  for (const item of items) {
    const value = item.properties.value
    if (ordered && typeof value === "number") number = value
    const checkbox = taskInput(item)
    const task = checkbox === undefined ? undefined : checkbox.properties.checked === true
    const blocks: Array<string> = []
    const outerTask = st.taskInput
    st.taskInput = checkbox
    st.nesting++
    flow(item.children, st, blocks)
    st.nesting--
    st.taskInput = outerTask
    if (blocks.length > 0) {
      const marker = ordered ? `${Math.max(0, Math.min(number, 999_999_999))}${delimiter}` : bullet
      let content = st.inTable ? joinBlocks(blocks, st) : joinItem(blocks)
      // `- ---` is itself a rule (the item would vanish): a rule opening a `-` item is written `***`.
      if (!ordered && bullet === "-" && /^---(?:\n|$)/.test(content)) content = "***" + content.slice(3)
      if (!st.inTable && blocks.length > 1 && !isTight(blocks)) loose = true
      const box = task === undefined ? "" : task ? "[x] " : "[ ] "
      written.push(st.inTable ? `${marker} ${box}${content}` : indent(content, `${marker} ${box}`, " ".repeat(marker.length + 1)))
    }
    number += reversed ? -1 : 1
  }
  if (written.length === 0) return
  out.push(written.join(st.inTable ? "<br>" : loose ? "\n\n" : "\n"))
}

const tightJoin = (blocks: ReadonlyArray<string>, i: number): boolean =>
  interruptingList.test(blocks[i]!) && !blocks[i - 1]!.startsWith("|")

// Loose when the item's own blocks are separated by blank lines (blank lines inside a nested list do not count).
const isTight = (blocks: ReadonlyArray<string>): boolean => {
  for (let i = 1; i < blocks.length; i++) if (!tightJoin(blocks, i)) return false
  return true
}

const joinItem = (blocks: ReadonlyArray<string>): string => {
  let out = blocks[0]!
  for (let i = 1; i < blocks.length; i++) out += (tightJoin(blocks, i) ? "\n" : "\n\n") + blocks[i]
  return out
}

// Content directly inside a list but outside any `li` is kept, each run as an item of its own.
const groupItems = (children: ReadonlyArray<ElementContent>): Array<Element> => {
  const items: Array<Element> = []
  let stray: Array<ElementContent> = []
  const flush = () => {
    if (stray.length > 0) items.push({ type: "element", tagName: "li", properties: {}, children: stray })
    stray = []
  }
  for (const child of children) {
    if (child.type === "element" && child.tagName === "li") {
      flush()
      items.push(child)
    } else if (child.type === "element" || (child.type === "text" && !blank.test(child.value))) {
      stray.push(child)
    }
  }
  flush()
  return items
}

/** The checkbox opening the item, if any. */
const taskInput = (item: Element): Element | undefined => {
  let node: Element = item
  for (let depth = 0; depth < 4; depth++) {
    const first = node.children.find((c) => c.type !== "comment" && !(c.type === "text" && blank.test(c.value)))
    if (first === undefined || first.type !== "element") return undefined
    if (first.tagName === "input") {
      return first.properties.type === "checkbox" ? first : undefined
    }
    node = first
  }
  return undefined
}
