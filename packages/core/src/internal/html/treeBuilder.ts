/**
 * A fast HTML tree builder: htmlparser2's tokenizer (raw-text elements, entities, comments) feeding a compact version
 * of the browser's tree-construction rules, building hast directly. It does what changes the tree in practice: implied
 * `html`/`head`/`body`, `p` closed by block starts, implied `li`/`dd`/`dt`/heading/`option` ends, table repair
 * (implied `tbody`/`tr`, stray cells ignored, other content foster-parented before the table), void elements, `pre`'s
 * leading newline, `template` content, end tags that do not cross block boundaries, formatting end tags that do.
 * Formatting closed by a block end is reopened (the list of active formatting elements, with markers and the limit of
 * three alike), and `<a>` inside an open link closes it as the adoption agency does; not done: the rest of the
 * adoption agency (formatting between a link and a block is not copied) and `noscript` as raw text; hast
 * positions are not recorded.
 *
 * Depth is bounded as Chromium bounds it (`kMaximumHTMLParserDOMTreeDepth`): once `maxDepth` elements are open, a new
 * element becomes a child of the current node's parent (a sibling) instead of nesting deeper, so no element of the
 * tree is deeper than `maxDepth` and every recursive walk over it has a known bound. The open-element stack itself is
 * not cut (end tags still match what was opened), and every question asked of it (is a `p` in scope, which table is
 * open, where does this end tag close) is answered from per-name and per-category position lists in constant time, so
 * building stays linear however deep the markup nests.
 */
import type { Comment, Element, ElementContent, Properties, Root, RootContent, Text } from "hast"
import { type TokenizerCallbacks, Tokenizer } from "htmlparser2"
import { find, html as htmlSchema, normalize, svg as svgSchema } from "property-information"
import {
  closesParagraph,
  formatting,
  headContent,
  headings,
  scopeBoundary,
  special,
  tableContext,
  tableInPlace,
  tableSections,
  voidElements
} from "./elements.js"

type Info = ReturnType<typeof find>
// An attribute's schema information, remembered per name: a page repeats a few names thousands of times, and
// `find` normalizes and looks each one up again (a visible share of parsing). Bounded: names come from the page.
const infos = { html: new Map<string, Info>(), svg: new Map<string, Info>() }
const infoOf = (foreign: boolean, name: string): Info => {
  const known = foreign ? infos.svg : infos.html
  let info = known.get(name)
  if (info === undefined) {
    info = find(foreign ? svgSchema : htmlSchema, name)
    if (known.size < 5_000) known.set(name, info)
  }
  return info
}

type Parent = Root | Element

/**
 * htmlparser2's tokenizer (pinned at 12.0.0) keeps its read position in `index`; setting it inside a callback makes it
 * continue after that position (the callback returns into a loop that moves on by one). Tested in Html.test.ts.
 */
interface Rewindable {
  index: number
}

/** No element of a built tree is deeper than this (`html` is at depth 1); Chromium's parser uses the same bound. */
export const maxDepth = 512

const element = (tagName: string, properties: Properties = {}): Element => ({
  type: "element",
  tagName,
  properties,
  children: []
})

/** Elements that put a marker on the active formatting list (formatting from outside is not reopened inside them). */
const markers = new Set(["applet", "caption", "marquee", "object", "td", "th", "template"])
/** Special elements whose start still reopens active formatting (everything not special does). */
const reopensFormatting = new Set(["applet", "area", "br", "embed", "img", "input", "keygen", "marquee", "object", "wbr", "xmp"])
/** The active formatting list keeps at most this many entries since the last marker (so reopening is bounded). */
const maxActive = 64

/** Same attributes, in any order (the Noah's ark comparison). */
const sameAttributes = (a: ReadonlyArray<[string, string]>, b: ReadonlyArray<[string, string]>): boolean => {
  if (a.length !== b.length) return false
  for (const [name, value] of a) if (!b.some((other) => other[0] === name && other[1] === value)) return false
  return true
}

const tableEnds = new Set(["table", "tbody", "thead", "tfoot", "tr", "caption", "colgroup"])
/** Special elements an `li`/`dd`/`dt` start looks through for the item it closes. */
const listItemPassable = new Set(["address", "div", "p"])

// Categories of a tag name, as bits, computed once per name.
const scopeBit = 1
const specialBit = 2
const listStopBit = 4
const headingBit = 8
const formattingBit = 16
const categories = new Map<string, number>()
const categoriesOf = (tag: string): number => {
  let bits = categories.get(tag)
  if (bits === undefined) {
    bits = (scopeBoundary.has(tag) ? scopeBit : 0) |
      (special.has(tag) ? specialBit | (listItemPassable.has(tag) ? 0 : listStopBit) : 0) |
      (headings.has(tag) ? headingBit : 0) |
      (formatting.has(tag) ? formattingBit : 0)
    // Foreign and custom element names are unbounded in number; only the HTML vocabulary is remembered.
    if (bits !== 0 || categories.size < 1024) categories.set(tag, bits)
  }
  return bits
}

/** The last entry of a position list, or -1. */
const last = (positions: ReadonlyArray<number> | undefined): number =>
  positions === undefined || positions.length === 0 ? -1 : positions[positions.length - 1]!
const whitespace = /^[ \t\n\f\r]*$/
const spaces = /[ \t\n\f\r]+/

class TreeBuilder implements TokenizerCallbacks {
  readonly root: Root = { type: "root", children: [] }
  private readonly source: string
  private readonly stack: Array<Element> = []
  /** The node each open element was attached to (not always the element below it: foster parenting, the cap). */
  private readonly parents: Array<Parent> = []
  /** Per open element: its name's position list and category bits, so popping needs no lookup. */
  private readonly positionLists: Array<Array<number>> = []
  private readonly bits: Array<number> = []
  /** Stack positions of the open elements by tag name, and of the categories the tree rules ask about. */
  private readonly open = new Map<string, Array<number>>()
  private readonly scopeAt: Array<number> = []
  private readonly specialAt: Array<number> = []
  private readonly listStopAt: Array<number> = []
  private readonly headingAt: Array<number> = []
  /** Where the innermost table was last seen among its parent's children (foster parenting inserts before it). */
  private fosterHint = 0
  private readonly fragment: boolean
  private html: Element | undefined
  private head: Element | undefined
  private body: Element | undefined
  private foreign = 0
  /** The tokenizer feeding this builder, for the one place HTML sends it back (CDATA outside foreign content). */
  tokenizer: Rewindable | undefined
  /**
   * The list of active formatting elements (`null` is a marker, set at cells, captions, objects and templates) and
   * each entry's name-and-attributes key: formatting closed by a block end is opened again before the next content.
   */
  private readonly active: Array<Element | null> = []
  private readonly activeAttributes: Array<ReadonlyArray<[string, string]>> = []
  /** The formatting elements now on the stack (whether an active entry is open, in constant time at any depth). */
  private readonly openFormatting = new Set<Element>()
  private skipNewline = false
  private tagName = ""
  private attributes: Array<[string, string]> = []
  private attributeName = ""
  private attributeValue = ""

  constructor(source: string, fragment: boolean) {
    this.source = source
    this.fragment = fragment
    if (!fragment) {
      this.html = element("html")
      this.head = element("head")
      this.html.children.push(this.head)
      this.root.children.push(this.html)
      this.push(this.html, this.root)
      this.push(this.head, this.html)
    }
  }

  // ---- tokenizer callbacks ----

  ontext(start: number, end: number): void {
    this.text(this.source.slice(start, end))
  }
  ontextentity(codepoint: number): void {
    this.text(String.fromCodePoint(codepoint))
  }
  onopentagname(start: number, end: number): void {
    this.tagName = this.source.slice(start, end).toLowerCase()
    this.attributes = []
  }
  onattribname(start: number, end: number): void {
    this.attributeName = this.source.slice(start, end).toLowerCase()
  }
  onattribdata(start: number, end: number): void {
    this.attributeValue += this.source.slice(start, end)
  }
  onattribentity(codepoint: number): void {
    this.attributeValue += String.fromCodePoint(codepoint)
  }
  onattribend(): void {
    const name = this.attributeName
    if (!this.attributes.some((a) => a[0] === name)) this.attributes.push([name, this.attributeValue])
    this.attributeValue = ""
  }
  onopentagend(): void {
    this.start(this.tagName, this.attributes, false)
  }
  onselfclosingtag(): void {
    this.start(this.tagName, this.attributes, this.foreign > 0)
  }
  onclosetag(start: number, end: number): void {
    this.skipNewline = false
    this.end(this.source.slice(start, end).toLowerCase())
  }
  oncomment(start: number, end: number, offset: number): void {
    this.skipNewline = false
    const node: Comment = { type: "comment", value: this.source.slice(start, end - offset) }
    this.append(node)
  }
  oncdata(start: number, end: number, offset: number): void {
    const value = this.source.slice(start, end - offset)
    if (this.foreign > 0) return this.text(value)
    // In HTML content `<![CDATA[` opens a bogus comment that ends at the first `>`, and what follows is markup and
    // text again (`<![CDATA[ <p>kept</p> ]]>` keeps "kept ]]>" as browsers do); the tokenizer read on to `]]>`, so it
    // is sent back to just after that first `>`.
    const close = this.source.indexOf(">", start)
    if (close >= 0 && close < end && this.tokenizer !== undefined) {
      this.append({ type: "comment", value: this.source.slice(start - 7, close) })
      this.tokenizer.index = close
      return
    }
    this.append({ type: "comment", value: `[CDATA[${value}]]` })
  }
  ondeclaration(start: number, end: number): void {
    if (/^doctype/i.test(this.source.slice(start, end))) {
      if (this.root.children.every((c) => c.type !== "doctype")) (this.root.children as Array<RootContent>).unshift({ type: "doctype" } as RootContent)
    }
  }
  onprocessinginstruction(start: number, end: number): void {
    this.append({ type: "comment", value: this.source.slice(start, end) })
  }
  onend(): void {
    if (!this.fragment && this.body === undefined) this.openBody()
    while (this.stack.length > 0) this.pop()
  }
  isInForeignContext(): boolean {
    return this.foreign > 0
  }

  // ---- tree construction ----

  private get current(): Parent {
    return this.stack.length > 0 ? this.stack[this.stack.length - 1]! : this.root
  }

  private text(value: string): void {
    if (this.skipNewline) {
      this.skipNewline = false
      if (value.charCodeAt(0) === 10) value = value.slice(1)
      if (value === "") return
    }
    if (!this.fragment && this.body === undefined && (this.current === this.html || this.current === this.head)) {
      if (whitespace.test(value)) return
      this.openBody()
    }
    if (this.active.length > 0 && this.foreign === 0) this.reconstruct()
    let parent = this.current
    let before: Element | undefined
    if (parent.type === "element" && tableContext.has(parent.tagName) && !whitespace.test(value)) {
      ;[parent, before] = this.fosterTarget()
    }
    const siblings = parent.children
    const index = before === undefined ? siblings.length : this.indexOf(siblings, before)
    const previous = siblings[index - 1]
    if (previous !== undefined && previous.type === "text") previous.value += value
    else siblings.splice(index, 0, { type: "text", value } satisfies Text)
  }

  private append(node: ElementContent): void {
    ;(this.current.children as Array<RootContent>).push(node)
  }

  private openBody(properties: Properties = {}): void {
    while (this.stack.length > 1) this.pop()
    this.body = element("body", properties)
    this.html!.children.push(this.body)
    this.push(this.body, this.html!)
  }

  private properties(attributes: ReadonlyArray<[string, string]>): Properties {
    const foreign = this.foreign > 0
    const properties: Properties = {}
    for (const [name, value] of attributes) {
      const info = infoOf(foreign, name)
      let result: Properties[string]
      if (info.spaceSeparated) result = value.split(spaces).filter((s) => s !== "")
      else if (info.commaSeparated) result = value.split(",").map((s) => s.trim()).filter((s) => s !== "")
      else if (info.commaOrSpaceSeparated) result = value.split(/[ \t\n\f\r,]+/).filter((s) => s !== "")
      else if (info.number && value !== "" && !Number.isNaN(Number(value))) result = Number(value)
      else if ((info.boolean || info.overloadedBoolean) && (value === "" || normalize(value) === normalize(name))) {
        result = true
      } else result = value
      properties[info.property] = result
    }
    return properties
  }

  private start(rawName: string, attributes: ReadonlyArray<[string, string]>, selfClosing: boolean): void {
    this.skipNewline = false
    const name = rawName === "image" && this.foreign === 0 ? "img" : rawName
    if (this.foreign > 0) {
      this.insert(element(name, this.properties(attributes)), !selfClosing)
      if (name === "svg" || name === "math") this.foreign++
      return
    }
    if (!this.fragment) {
      if (name === "html") return this.merge(this.html!, attributes)
      if (name === "head") return
      if (name === "body") {
        if (this.body === undefined) this.openBody(this.properties(attributes))
        else this.merge(this.body, attributes)
        return
      }
      if (this.body === undefined) {
        if (headContent.has(name) || (name === "noscript" && this.current === this.head)) {
          if (this.current !== this.head && this.stack.length === 1) this.push(this.head!, this.html!)
          this.insert(element(name, this.properties(attributes)), !voidElements.has(name))
          return
        }
        this.openBody()
      }
    } else if (name === "html" || name === "head" || name === "body") return

    if (tableSections.has(name) || name === "tr" || name === "td" || name === "th") {
      if (!this.table(name)) return
    } else if (name === "table" && this.current.type === "element" && tableContext.has(this.current.tagName)) {
      this.popUntil("table")
    }
    if (closesParagraph.has(name) && this.inScope("p", true)) this.popUntil("p")
    if (headings.has(name) && this.current.type === "element" && headings.has(this.current.tagName)) this.pop()
    if (name === "li") this.closeListItem(["li"])
    else if (name === "dd" || name === "dt") this.closeListItem(["dd", "dt"])
    else if (name === "a") {
      this.forgetActive("a")
      this.closeOpenLink()
    }
    else if (name === "button" && this.inScope("button", false)) this.popUntil("button")
    else if (name === "option" || name === "optgroup") {
      if (this.current.type === "element" && this.current.tagName === "option") this.pop()
      if (name === "optgroup" && this.current.type === "element" && this.current.tagName === "optgroup") this.pop()
    }

    if (this.active.length > 0 && (!special.has(name) || reopensFormatting.has(name))) this.reconstruct()
    const node = element(name, this.properties(attributes))
    const parent = this.current
    if (parent.type === "element" && tableContext.has(parent.tagName) && !this.isTablePart(name)) {
      const [fosterParent, before] = this.fosterTarget()
      fosterParent.children.splice(this.indexOf(fosterParent.children, before), 0, node)
      if (!voidElements.has(name)) this.push(node, fosterParent)
    } else {
      this.insert(node, !voidElements.has(name))
    }
    if (formatting.has(name)) this.remember(node, name, attributes)
    else if (markers.has(name)) this.active.push(null), this.activeAttributes.push([])
    if (name === "svg" || name === "math") this.foreign++
    if (name === "pre" || name === "listing" || name === "textarea") this.skipNewline = true
  }

  private isTablePart(name: string): boolean {
    return tableContext.has(name) || name === "td" || name === "th" || tableInPlace.has(name) ||
      (name === "form")
  }

  /** Prepares the stack for a table part; false when the tag is to be ignored (no table open). */
  private table(name: string): boolean {
    const tableAt = this.lastOpen("table")
    if (tableAt === -1 || tableAt < Math.max(this.lastOpen("template"), this.lastOpen("html"))) return false
    // Close what is open inside the table up to the level this part belongs at.
    const keep = name === "td" || name === "th" ? ["tr", "tbody", "thead", "tfoot", "table"]
      : name === "tr" ? ["tbody", "thead", "tfoot", "table"]
      : ["table"]
    while (this.stack.length - 1 > tableAt && !keep.includes(this.stack[this.stack.length - 1]!.tagName)) this.pop()
    const top = this.stack[this.stack.length - 1]!.tagName
    if ((name === "tr" || name === "td" || name === "th") && top === "table") this.insert(element("tbody"), true)
    if ((name === "td" || name === "th") && this.stack[this.stack.length - 1]!.tagName !== "tr") {
      this.insert(element("tr"), true)
    }
    return true
  }

  /** Where foster-parented content goes: the parent of the innermost open table, before it. */
  private fosterTarget(): [Parent, Element] {
    const i = this.lastOpen("table")
    if (i >= 0) return [this.parents[i]!, this.stack[i]!]
    return [this.current, this.current as Element]
  }

  /** Where `node` sits among `siblings`: the remembered place first, since foster parenting keeps inserting there. */
  private indexOf(siblings: ReadonlyArray<RootContent>, node: Element): number {
    const hint = this.fosterHint
    const index = siblings[hint] === node ? hint : siblings[hint - 1] === node ? hint - 1 : siblings.indexOf(node)
    // What is inserted at `index` pushes the node one place on (text merged into a text node does not).
    this.fosterHint = index + 1
    return index
  }

  /** Inserts into the current node, or beside it once `maxDepth` elements are open (so the tree never gets deeper). */
  private insert(node: Element, open: boolean): void {
    const parent = this.stack.length >= maxDepth ? this.parents[this.stack.length - 1]! : this.current
    parent.children.push(node)
    if (open) this.push(node, parent)
  }

  private push(node: Element, parent: Parent): void {
    const at = this.stack.length
    const tag = node.tagName
    this.stack.push(node)
    this.parents.push(parent)
    let positions = this.open.get(tag)
    if (positions === undefined) this.open.set(tag, positions = [])
    positions.push(at)
    this.positionLists.push(positions)
    const bits = categoriesOf(tag)
    this.bits.push(bits)
    if (bits === 0) return
    if (bits & scopeBit) this.scopeAt.push(at)
    if (bits & specialBit) this.specialAt.push(at)
    if (bits & listStopBit) this.listStopAt.push(at)
    if (bits & headingBit) this.headingAt.push(at)
    if (bits & formattingBit) this.openFormatting.add(node)
  }

  /** Stack position of the innermost open element named `name`, or -1. */
  private lastOpen(name: string): number {
    return last(this.open.get(name))
  }

  private merge(target: Element, attributes: ReadonlyArray<[string, string]>): void {
    const properties = this.properties(attributes)
    for (const key in properties) if (!(key in target.properties)) target.properties[key] = properties[key]!
  }

  private pop(): void {
    const node = this.stack.pop()!
    this.parents.pop()
    this.positionLists.pop()!.pop()
    const bits = this.bits.pop()!
    if (bits !== 0) {
      if (bits & scopeBit) this.scopeAt.pop()
      if (bits & specialBit) this.specialAt.pop()
      if (bits & listStopBit) this.listStopAt.pop()
      if (bits & headingBit) this.headingAt.pop()
      if (bits & formattingBit) this.openFormatting.delete(node)
    }
    if (bits & scopeBit && this.active.length > 0 && markers.has(node.tagName)) this.clearToMarker()
    if (node.tagName === "svg" || node.tagName === "math") this.foreign = Math.max(0, this.foreign - 1)
    if (node.tagName === "template" && this.foreign === 0) {
      node.content = { type: "root", children: node.children }
      node.children = []
    }
  }

  private popUntil(name: string): void {
    while (this.stack.length > 0) {
      const tag = this.stack[this.stack.length - 1]!.tagName
      this.pop()
      if (tag === name) return
    }
  }

  /** An open `name` (never itself a boundary) with no scope boundary (or `button`) above it. */
  private inScope(name: string, button: boolean): boolean {
    const at = this.lastOpen(name)
    return at >= 0 && at > last(this.scopeAt) && (!button || at > this.lastOpen("button"))
  }

  /** An open `name` reachable without crossing a special (block) element: `<a>` closes such an `a`. */
  private openInline(name: string): boolean {
    const at = this.lastOpen(name)
    return at >= 0 && at > last(this.specialAt)
  }

  /**
   * `<a>` while a link is open closes it (links do not nest). With blocks opened inside the link since, this is the
   * adoption agency's result: each block moves out of the link to the element it was opened in, and its content stays
   * linked through a copy of the link, so `<a href=1><div>x<a href=2>y` gives `<a href=1></a><div><a href=1>x</a>
   * <a href=2>y</a></div>` as in browsers. Formatting elements between the link and a block are not copied.
   */
  private closeOpenLink(): void {
    const at = this.lastOpen("a")
    if (at < 0 || at <= last(this.scopeAt)) return
    if (at > last(this.specialAt)) return this.popTo(at)
    let link = this.stack[at]!
    let holder = this.parents[at]!
    const above = this.stack.slice(at + 1)
    const aboveParents = this.parents.slice(at + 1)
    this.popTo(at)
    // Bounded as the adoption agency's outer loop is (8 rounds); deeper blocks stay inside the last copy.
    for (let round = 0, i = 0; round < 8; round++) {
      while (i < above.length && !special.has(above[i]!.tagName)) i++
      if (i >= above.length) return
      const block = above[i]!
      const from = aboveParents[i]!.children as Array<RootContent>
      const index = from.lastIndexOf(block)
      if (index >= 0) from.splice(index, 1)
      const copy = element("a", { ...link.properties })
      copy.children = block.children
      block.children = [copy]
      // Elements opened in the block now sit in the copy.
      for (let j = i + 1; j < above.length; j++) if (aboveParents[j] === block) aboveParents[j] = copy
      ;(holder.children as Array<RootContent>).push(block)
      this.push(block, holder)
      link = copy
      holder = block
      i++
    }
  }

  /** Adds a formatting element to the active list; as browsers do, at most 3 alike (name and attributes) since the marker. */
  private remember(node: Element, name: string, attributes: ReadonlyArray<[string, string]>): void {
    let alike = 0
    let first = -1
    let marker = this.active.length - 1
    for (; marker >= 0; marker--) {
      const entry = this.active[marker]
      if (entry === null) break
      if (entry!.tagName === name && sameAttributes(this.activeAttributes[marker]!, attributes)) {
        alike++
        first = marker
      }
    }
    if (alike >= 3) this.removeActive(first)
    else if (this.active.length - marker - 1 >= maxActive) this.removeActive(marker + 1)
    this.active.push(node)
    this.activeAttributes.push(attributes)
  }

  private removeActive(index: number): void {
    this.active.splice(index, 1)
    this.activeAttributes.splice(index, 1)
  }

  /** Drops the last active entry named `name` since the marker (its end tag was seen, or `<a>` replaces a link). */
  private forgetActive(name: string): void {
    for (let i = this.active.length - 1; i >= 0; i--) {
      const entry = this.active[i]
      if (entry === null) return
      if (entry!.tagName === name) return this.removeActive(i)
    }
  }

  private clearToMarker(): void {
    while (this.active.length > 0) {
      this.activeAttributes.pop()
      if (this.active.pop() === null) return
    }
  }

  private isOpen(node: Element): boolean {
    return this.openFormatting.has(node)
  }

  /** Reopens formatting elements closed by a block end (`<p><b>x</p><p>y` makes `y` bold too, as in browsers). */
  private reconstruct(): void {
    let i = this.active.length - 1
    const lastEntry = this.active[i]
    if (lastEntry === null || this.isOpen(lastEntry!)) return
    const current = this.current
    // Inside table structure the copies would need foster parenting; left closed there.
    if (current.type === "element" && tableContext.has(current.tagName)) return
    while (i > 0) {
      const previous = this.active[i - 1]
      if (previous === null || this.isOpen(previous!)) break
      i--
    }
    for (; i < this.active.length; i++) {
      const entry = this.active[i]!
      const copy = element(entry.tagName, { ...entry.properties })
      this.insert(copy, true)
      this.active[i] = copy
    }
  }

  /** Closes the innermost open item of `names` unless a special element other than address, div, p is above it. */
  private closeListItem(names: ReadonlyArray<string>): void {
    let at = -1
    for (const name of names) at = Math.max(at, this.lastOpen(name))
    // Items are special themselves: the innermost stop may be the item.
    if (at >= 0 && at >= last(this.listStopAt)) this.popTo(at)
  }

  /** Pops the element at stack position `at` and everything above it. */
  private popTo(at: number): void {
    while (this.stack.length > at) this.pop()
  }

  private end(name: string): void {
    if (this.foreign > 0) {
      const at = this.lastOpen(name)
      if (at >= 0) this.popTo(at)
      return
    }
    if (name === "html" || name === "body") return
    if (name === "head") {
      if (this.body === undefined && this.current === this.head) this.pop()
      return
    }
    if (name === "p") {
      if (this.inScope("p", true)) this.popUntil("p")
      else this.start("p", [], false), this.popUntil("p")
      return
    }
    if (name === "br") return this.start("br", [], false)
    if (headings.has(name)) {
      const at = last(this.headingAt)
      if (at >= 0 && at > last(this.scopeAt)) this.popTo(at)
      return
    }
    // Block and formatting end tags close their element when it is in scope; others stop at any special element.
    // The element itself may be a boundary: it is found first.
    if (this.active.length > 0 && formatting.has(name)) this.forgetActive(name)
    const at = this.lastOpen(name)
    if (at < 0) return
    // `</li>` looks in list-item scope: a list opened inside the item (`<li>a<ul></li>`) hides it.
    if (name === "li" && at < Math.max(this.lastOpen("ul"), this.lastOpen("ol"))) return
    const boundary = tableEnds.has(name)
      ? Math.max(this.lastOpen("html"), this.lastOpen("template"), this.lastOpen("table"))
      : special.has(name) || formatting.has(name)
      ? last(this.scopeAt)
      : last(this.specialAt)
    if (at >= boundary) this.popTo(at)
  }
}

/** Builds a hast tree from HTML: a whole document (implied html/head/body) or a fragment. */
export const build = (html: string, fragment: boolean): Root => {
  const source = html.includes("\r") ? html.replace(/\r\n?/g, "\n") : html
  const builder = new TreeBuilder(source, fragment)
  const tokenizer = new Tokenizer({ decodeEntities: true }, builder)
  builder.tokenizer = tokenizer as unknown as Rewindable
  tokenizer.write(source)
  tokenizer.end()
  return builder.root
}
