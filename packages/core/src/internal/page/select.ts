/**
 * CSS selector matching over hast, in linear time whatever the depth of the tree or the length of the selector.
 *
 * `hast-util-select` matches top-down and carries, into every element, one copy of each pending rule per matching
 * ancestor: `div div div` on a 256-deep chain of divs took 79 s and on a 512-deep one (as deep as Chromium builds)
 * ran out of memory, and even `p` costs as many tests per element as it has ancestors. Here the tree is indexed once
 * (document order, parents, previous siblings, sibling counts, language, direction, editability), and each compound
 * of a selector is evaluated for every element in document order, its combinator answered from the result of the
 * compound before it (for descendants and general siblings through a running "some ancestor/sibling matched" array),
 * so a selector costs O(elements × compounds) and nothing recurses on the tree.
 *
 * The semantics are `hast-util-select`'s (selectors-4 syntax through the same parser, the same pseudo-classes and
 * attribute rules), except that `:is()` and `:not()` with combinators look at the whole tree, as browsers
 * do, where `hast-util-select` only looked below the element.
 */
import type { Element, Root, RootContent } from "hast"
import {
  type AstAttribute,
  type AstPseudoClass,
  type AstRule,
  type AstSelector,
  createParser
} from "css-selector-parser"
import { find, html, svg } from "property-information"

const parseSelector = createParser({ syntax: "selectors-4" })

/** The tree as arrays in document order: what every compound needs to know about an element and its neighbours. */
export interface TreeIndex {
  readonly elements: ReadonlyArray<Element>
  /** Position of the parent element, -1 when the parent is the root (or the indexed element itself is the top). */
  readonly parent: Int32Array
  /** Position of the previous element sibling, or -1. */
  readonly previous: Int32Array
  /** One past the last position inside the element's subtree. */
  readonly end: Int32Array
  /** Place among the parent's element children and of those of the same name; -1 for the top of an element tree. */
  readonly elementIndex: Int32Array
  readonly elementCount: Int32Array
  readonly typeIndex: Int32Array
  readonly typeCount: Int32Array
  readonly language: ReadonlyArray<string | undefined>
  readonly rtl: Uint8Array
  readonly editable: Uint8Array
  readonly inSvg: Uint8Array
  /** True when the top of the tree is a root (its children are the scope, their parent is a root). */
  readonly rooted: boolean
  /** Positions of the scope elements (`:scope`): the root's children, or the indexed element. */
  readonly scope: ReadonlySet<number>
}

interface Inherited {
  readonly language: string | undefined
  readonly rtl: boolean
  readonly editable: boolean
  readonly svg: boolean
}

interface Frame {
  readonly children: ReadonlyArray<RootContent>
  next: number
  readonly parent: number
  readonly inherited: Inherited
  previous: number
  before: number
  readonly beforeTypes: Map<string, number>
  readonly count: number
  readonly types: Map<string, number>
}

/** Indexes `tree` (a root, or an element and its subtree) for matching; iterative, so any depth is fine. */
export const indexTree = (tree: Root | Element): TreeIndex => {
  const elements: Array<Element> = []
  const parent: Array<number> = []
  const previous: Array<number> = []
  const end: Array<number> = []
  const elementIndex: Array<number> = []
  const elementCount: Array<number> = []
  const typeIndex: Array<number> = []
  const typeCount: Array<number> = []
  const language: Array<string | undefined> = []
  const rtl: Array<number> = []
  const editable: Array<number> = []
  const inSvg: Array<number> = []
  const start: Inherited = { language: undefined, rtl: false, editable: false, svg: false }
  const add = (element: Element, at: Omit<Frame, "children" | "next" | "beforeTypes" | "types" | "count">, index: number, type: number, counts: [number, number]): Frame => {
    const position = elements.length
    const inherited = enter(element, at.inherited)
    elements.push(element)
    parent.push(at.parent)
    previous.push(at.previous)
    end.push(position + 1)
    elementIndex.push(index)
    typeIndex.push(type)
    elementCount.push(counts[0])
    typeCount.push(counts[1])
    language.push(inherited.language)
    rtl.push(inherited.rtl ? 1 : 0)
    editable.push(inherited.editable ? 1 : 0)
    inSvg.push(inherited.svg ? 1 : 0)
    return frameOf(element.children, position, inherited)
  }
  const stack: Array<Frame> = []
  if (tree.type === "root") stack.push(frameOf(tree.children, -1, start))
  else stack.push(add(tree, { parent: -1, inherited: start, previous: -1, before: 0 }, -1, -1, [-1, -1]))
  while (stack.length > 0) {
    const frame = stack[stack.length - 1]!
    if (frame.next >= frame.children.length) {
      stack.pop()
      if (frame.parent >= 0) end[frame.parent] = elements.length
      continue
    }
    const child = frame.children[frame.next++]!
    if (child.type !== "element") continue
    const name = child.tagName.toUpperCase()
    const type = frame.beforeTypes.get(name) ?? 0
    const position = elements.length
    const childFrame = add(child, frame, frame.before, type, [frame.count, frame.types.get(name) ?? 0])
    frame.previous = position
    frame.before++
    frame.beforeTypes.set(name, type + 1)
    stack.push(childFrame)
  }
  return {
    elements,
    parent: Int32Array.from(parent),
    previous: Int32Array.from(previous),
    end: Int32Array.from(end),
    elementIndex: Int32Array.from(elementIndex),
    elementCount: Int32Array.from(elementCount),
    typeIndex: Int32Array.from(typeIndex),
    typeCount: Int32Array.from(typeCount),
    language,
    rtl: Uint8Array.from(rtl),
    editable: Uint8Array.from(editable),
    inSvg: Uint8Array.from(inSvg),
    rooted: tree.type === "root",
    scope: tree.type === "root"
      ? new Set(elements.flatMap((_, i) => (parent[i] === -1 ? [i] : [])))
      : new Set([0])
  }
}

const frameOf = (children: ReadonlyArray<RootContent>, position: number, inherited: Inherited): Frame => {
  let count = 0
  const types = new Map<string, number>()
  for (const child of children) {
    if (child.type !== "element") continue
    count++
    const name = child.tagName.toUpperCase()
    types.set(name, (types.get(name) ?? 0) + 1)
  }
  return { children, next: 0, parent: position, inherited, previous: -1, before: 0, beforeTypes: new Map(), count, types }
}

/** The language, direction, editability and namespace in force at `element` (hast-util-select's rules). */
const enter = (element: Element, outer: Inherited): Inherited => {
  const props = element.properties
  // `||`, as hast-util-select: an empty `xml:lang` defers to `lang`.
  const lang = props.xmlLang || props.lang
  const language = lang === null || lang === undefined ? outer.language : String(lang)
  if (outer.svg) {
    // Editing is off in non-HTML spaces.
    return language === outer.language && !outer.editable ? outer : { ...outer, language, editable: false }
  }
  const editable = outer.editable || props.contentEditable === "true"
  const svg = element.tagName === "svg"
  const dir = directionProperty(element)
  const type = props.type || "text"
  let inferred: "ltr" | "rtl" | undefined
  if (dir === "rtl") inferred = "rtl"
  else if (dir === "ltr" || (dir !== "auto" && element.tagName === "html") || (dir !== "auto" && element.tagName === "input" && type === "tel")) {
    inferred = "ltr"
  } else if (dir === "auto" || element.tagName === "bdi") {
    if (element.tagName === "textarea") inferred = bidi(textContent(element))
    else if (element.tagName === "input" && (type === "email" || type === "search" || type === "tel" || type === "text")) {
      inferred = props.value ? bidi(String(props.value)) : "ltr"
    } else inferred = inferDirection(element)
  }
  const rtl = inferred === undefined ? outer.rtl : inferred === "rtl"
  if (language === outer.language && rtl === outer.rtl && editable === outer.editable && svg === outer.svg) return outer
  return { language, rtl, editable, svg }
}

const directionProperty = (element: Element): "auto" | "ltr" | "rtl" | undefined => {
  const value = typeof element.properties.dir === "string" ? element.properties.dir.toLowerCase() : undefined
  return value === "auto" || value === "ltr" || value === "rtl" ? value : undefined
}

// The `direction` package's ranges: the first strong character decides.
const rtlRange = "\u0591-\u07FF\uFB1D-\uFDFD\uFE70-\uFEFC"
const ltrRange = "A-Za-z\u00C0-\u00D6\u00D8-\u00F6\u00F8-\u02B8\u0300-\u0590\u0800-\u1FFF\u200E\u2C00-\uFB1C\uFE00-\uFE6F\uFEFD-\uFFFF"
// eslint-disable-next-line no-misleading-character-class
const rtlFirst = new RegExp("^[^" + ltrRange + "]*[" + rtlRange + "]")
// eslint-disable-next-line no-misleading-character-class
const ltrFirst = new RegExp("^[^" + rtlRange + "]*[" + ltrRange + "]")

const bidi = (value: string): "ltr" | "rtl" | undefined =>
  rtlFirst.test(value) ? "rtl" : ltrFirst.test(value) ? "ltr" : undefined

const textContent = (element: Element): string => {
  let out = ""
  const stack: Array<RootContent> = [...element.children].reverse()
  while (stack.length > 0) {
    const node = stack.pop()!
    if (node.type === "text") out += node.value
    else if (node.type === "element") for (let i = node.children.length - 1; i >= 0; i--) stack.push(node.children[i]!)
  }
  return out
}

/** `dir=auto`: the first text with a strong direction, skipping elements that set their own. */
const inferDirection = (element: Element): "ltr" | "rtl" | undefined => {
  const stack: Array<RootContent> = [...element.children].reverse()
  while (stack.length > 0) {
    const node = stack.pop()!
    if (node.type === "text") {
      const found = bidi(node.value)
      if (found !== undefined) return found
    } else if (node.type === "element") {
      const tag = node.tagName
      if (tag === "bdi" || tag === "script" || tag === "style" || tag === "textarea" || directionProperty(node)) continue
      for (let i = node.children.length - 1; i >= 0; i--) stack.push(node.children[i]!)
    }
  }
  return undefined
}

// ---- compiled selectors ----

/** Per element: 0 not yet known, 1 matches, 2 does not. */
type Memo = Uint8Array

/** A parsed selector list, matched against one index; argument selectors of pseudo-classes are memoised per index. */
class Matcher {
  private readonly lists = new Map<AstSelector, Memo>()
  private readonly has = new Map<AstPseudoClass, Memo>()
  private readonly counts = new Map<AstRule, Int32Array>()

  constructor(readonly index: TreeIndex) {}

  /** Whether the element at `position` matches the selector list (computed for the whole tree on first use). */
  matches(selector: AstSelector, position: number): boolean {
    let memo = this.lists.get(selector)
    if (memo === undefined) {
      memo = this.evaluate(selector)
      this.lists.set(selector, memo)
    }
    return memo[position] === 1
  }

  /** Every position's answer for a selector list. */
  evaluate(selector: AstSelector): Memo {
    const n = this.index.elements.length
    const result = new Uint8Array(n).fill(2)
    for (const rule of selector.rules) {
      const matched = this.chain(rule, 0, n, -1)
      for (let i = 0; i < n; i++) if (matched[i] === 1) result[i] = 1
    }
    return result
  }

  /**
   * Evaluates the compounds of one rule from left to right over positions [from, to); positions outside the range
   * never satisfy a combinator. `anchor` >= 0 ties the leftmost compound to a `:has()` element: its child for `>`
   * (and, as hast-util-select, `+`/`~`), any element below it otherwise.
   */
  chain(rule: AstRule, from: number, to: number, anchor: number): Memo {
    const { parent, previous } = this.index
    const size = to - from
    let left: Memo | undefined
    let combinator: string | undefined = anchor >= 0 ? rule.combinator : undefined
    for (let compound: AstRule | undefined = rule; compound !== undefined; compound = compound.nestedRule) {
      const current = new Uint8Array(size)
      // For descendant and general-sibling combinators: does some ancestor (sibling) before this one match `left`?
      const some = left !== undefined && combinator !== ">" && combinator !== "+" ? new Uint8Array(size) : undefined
      for (let k = 0; k < size; k++) {
        const i = from + k
        let related: boolean
        if (left === undefined) {
          related = anchor < 0 || combinator === undefined || combinator === " " ? true : parent[i] === anchor
        } else if (combinator === ">" || combinator === "+") {
          const j = combinator === ">" ? parent[i]! : previous[i]!
          related = j >= from && left[j - from] === 1
        } else {
          const j = combinator === "~" ? previous[i]! : parent[i]!
          const inside = j >= from
          some![k] = inside && (left[j - from] === 1 || some![j - from] === 1) ? 1 : 0
          related = some![k] === 1
        }
        current[k] = related && this.compound(compound, i) ? 1 : 0
      }
      left = current
      combinator = compound.nestedRule?.combinator
    }
    return left!
  }

  /** Whether the element at `i` matches every item of a compound. */
  compound(rule: AstRule, i: number): boolean {
    const element = this.index.elements[i]!
    for (const item of rule.items) {
      switch (item.type) {
        case "TagName":
          if (item.name !== element.tagName) return false
          break
        case "WildcardTag":
          break
        case "Id":
          if (element.properties.id !== item.name) return false
          break
        case "ClassName": {
          // A token list in hast; a hand-made tree may hold a plain string.
          const names: unknown = element.properties.className
          const listed = Array.isArray(names) ? names : typeof names === "string" ? names.split(/[ \t\n\r\f]+/) : []
          if (!listed.includes(item.name)) return false
          break
        }
        case "Attribute":
          if (!attribute(item, element, this.index.inSvg[i] === 1)) return false
          break
        case "PseudoClass":
          if (!this.pseudo(item, element, i)) return false
          break
        case "PseudoElement":
          throw new Error("Invalid selector: `::" + item.name + "`")
        default:
          throw new Error("Unsupported selector part: " + item.type)
      }
    }
    return true
  }

  private pseudo(query: AstPseudoClass, element: Element, i: number): boolean {
    const index = this.index
    const tag = element.tagName
    switch (query.name) {
      case "any-link":
        return (tag === "a" || tag === "area" || tag === "link") && hasProperty(element, "href")
      case "blank":
        return !element.children.some((c) => c.type === "element" || (c.type === "text" && !/^[ \t\n\f\r]*$/.test(c.value)))
      case "checked":
        if (tag === "input" || tag === "menuitem") {
          const type = element.properties.type
          return (type === "checkbox" || type === "radio") && hasProperty(element, "checked")
        }
        return tag === "option" && hasProperty(element, "selected")
      case "dir":
        return (index.rtl[i] === 1 ? "rtl" : "ltr") === stringArgument(query)
      case "disabled":
        return isDisabled(element)
      case "enabled":
        return !isDisabled(element)
      case "empty":
        return !element.children.some((c) => c.type === "element" || c.type === "text")
      case "first-child":
        return index.elementIndex[i] === 0
      case "first-of-type":
        return index.typeIndex[i] === 0
      case "last-child":
        return index.elementCount[i]! > 0 && index.elementIndex[i] === index.elementCount[i]! - 1
      case "last-of-type":
        return index.typeIndex[i]! >= 0 && index.typeIndex[i] === index.typeCount[i]! - 1
      case "only-child":
        return index.elementCount[i] === 1
      case "only-of-type":
        return index.typeCount[i] === 1
      case "nth-child":
        return index.elementIndex[i]! >= 0 && nth(query, index.elementIndex[i]!)
      case "nth-last-child":
        return index.elementIndex[i]! >= 0 && nth(query, index.elementCount[i]! - index.elementIndex[i]! - 1)
      case "nth-of-type":
        return index.typeIndex[i]! >= 0 && nth(query, index.typeIndex[i]!)
      case "nth-last-of-type":
        return index.typeIndex[i]! >= 0 && nth(query, index.typeCount[i]! - 1 - index.typeIndex[i]!)
      case "has":
        return this.hasMatch(query, i)
      case "is":
        return this.matches(selectorArgument(query), i)
      case "not":
        return !this.matches(selectorArgument(query), i)
      case "lang": {
        const language = index.language[i]
        return language !== undefined && language !== "" && languageMatches(language, stringArgument(query))
      }
      case "optional":
        return !isRequired(element)
      case "required":
        return isRequired(element)
      case "read-write":
        return isReadWrite(element, index.editable[i] === 1)
      case "read-only":
        return !isReadWrite(element, index.editable[i] === 1)
      case "root":
        return index.parent[i] === -1 && (index.rooted || i === 0) && (tag === "html" || tag === "svg")
      case "scope":
        return index.scope.has(i)
      default:
        throw new Error("Unknown pseudo-selector `" + query.name + "`")
    }
  }

  /** `:has(...)`: some element below matches the relative selector (hast-util-select's reading of its combinators). */
  private hasMatch(query: AstPseudoClass, i: number): boolean {
    let memo = this.has.get(query)
    if (memo === undefined) {
      memo = new Uint8Array(this.index.elements.length)
      this.has.set(query, memo)
    }
    if (memo[i] === 0) memo[i] = this.hasBelow(selectorArgument(query), i) ? 1 : 2
    return memo[i] === 1
  }

  /** For a single compound: how many elements before each position match it (a subtree is a range of positions). */
  private countBefore(rule: AstRule): Int32Array {
    let counts = this.counts.get(rule)
    if (counts === undefined) {
      const n = this.index.elements.length
      counts = new Int32Array(n + 1)
      const single: AstRule = { ...rule, combinator: undefined }
      for (let i = 0; i < n; i++) counts[i + 1] = counts[i]! + (this.compound(single, i) ? 1 : 0)
      this.counts.set(rule, counts)
    }
    return counts
  }

  private hasBelow(selector: AstSelector, i: number): boolean {
    const from = i + 1
    const to = this.index.end[i]!
    if (to <= from) return false
    for (const rule of selector.rules) {
      if (rule.nestedRule === undefined && (rule.combinator === undefined || rule.combinator === " ")) {
        // A single compound anywhere below: its answers for the whole tree serve every `:has()` element.
        if (this.countBefore(rule)[to]! > this.countBefore(rule)[from]!) return true
        continue
      }
      const matched = this.chain(rule, from, to, i)
      if (matched.includes(1)) return true
    }
    return false
  }
}

const selectorArgument = (query: AstPseudoClass): AstSelector => {
  if (query.argument?.type !== "Selector") throw new Error("Expected a selector argument for `:" + query.name + "`")
  return query.argument
}

const stringArgument = (query: AstPseudoClass): string => {
  if (query.argument?.type !== "String") throw new Error("Expected a plain argument for `:" + query.name + "`")
  return query.argument.value
}

/** `:nth-*(An+B)` for a 0-based position. */
const nth = (query: AstPseudoClass, position: number): boolean => {
  const argument = query.argument
  if (argument?.type !== "Formula") {
    throw new Error("Expected `nth` formula, such as `even` or `2n+1` (`of` is not yet supported)")
  }
  const { a, b } = argument
  const place = position + 1
  if (a === 0) return place === b
  const steps = (place - b) / a
  return Number.isInteger(steps) && steps >= 0
}

const hasProperty = (element: Element, name: string): boolean => {
  const value = element.properties[name]
  return value !== null && value !== undefined && value !== false
}

const isDisabled = (element: Element): boolean =>
  ["button", "input", "select", "textarea", "optgroup", "option", "menuitem", "fieldset"].includes(element.tagName) &&
  hasProperty(element, "disabled")

const isRequired = (element: Element): boolean =>
  (element.tagName === "input" || element.tagName === "textarea" || element.tagName === "select") &&
  hasProperty(element, "required")

const isReadWrite = (element: Element, editable: boolean): boolean =>
  element.tagName === "input" || element.tagName === "textarea"
    ? !hasProperty(element, "readOnly") && !hasProperty(element, "disabled")
    : editable

/** BCP 47 extended filtering (RFC 4647 §3.3.2) of one tag against a comma-separated list of ranges. */
const languageMatches = (tag: string, ranges: string): boolean => {
  const left = tag.toLowerCase().split("-")
  for (const raw of ranges.split(",")) {
    const range = raw.trim().toLowerCase()
    if (range !== "" && extendedMatch(left, range.split("-"))) return true
  }
  return false
}

const extendedMatch = (left: ReadonlyArray<string>, right: ReadonlyArray<string>): boolean => {
  if (right[0] !== "*" && left[0] !== right[0]) return false
  let l = 1
  let r = 1
  while (r < right.length) {
    if (right[r] === "*") {
      r++
    } else if (left[l] === undefined || left[l] === "") {
      return false
    } else if (left[l] === right[r]) {
      l++
      r++
    } else if (left[l]!.length === 1) {
      return false
    } else {
      l++
    }
  }
  return true
}

/** An attribute selector against the element's property, written back as its attribute text. */
const attribute = (query: AstAttribute, element: Element, inSvg: boolean): boolean => {
  const info = find(inSvg ? svg : html, query.name)
  const raw = element.properties[info.property]
  let value: string | undefined
  if (raw === null || raw === undefined) value = undefined
  else if (typeof raw === "boolean") value = raw ? info.attribute : undefined
  else if (Array.isArray(raw)) value = raw.length > 0 ? raw.join(info.commaSeparated ? ", " : " ") : undefined
  else value = String(raw)
  if (query.value === undefined) return value !== undefined
  if (query.value.type !== "String") throw new Error("Expected a plain attribute value")
  if (value === undefined) return false
  let key = query.value.value
  if (query.caseSensitivityModifier === "i") {
    key = key.toLowerCase()
    value = value.toLowerCase()
  }
  switch (query.operator) {
    case "=":
      return key === value
    case "$=":
      return key === value.slice(-key.length)
    case "*=":
      return value.includes(key)
    case "^=":
      return key === value.slice(0, key.length)
    case "|=":
      return key === value || (key === value.slice(0, key.length) && value.charAt(key.length) === "-")
    case "~=":
      return key === value || value.trim().split(/[ \t\n\r\f]+/).includes(key)
    default:
      return false
  }
}

// ---- entry points ----

// Requests repeat the same few selectors; parsing is cached (bounded) so a page's rules parse once.
const parsed = new Map<string, AstSelector>()
const maxCached = 512

/** Parses a selector list (throws the parser's error for a bad one). */
export const compile = (selector: string): AstSelector => {
  let ast = parsed.get(selector)
  if (ast === undefined) {
    ast = parseSelector(selector)
    if (parsed.size >= maxCached) parsed.clear()
    parsed.set(selector, ast)
  }
  return ast
}

/** A matcher over one indexed tree, for running several selectors against the same tree. */
export const matcher = (index: TreeIndex) => new Matcher(index)

/** Every element matching `selector`, in document order. */
export const selectAll = (selector: string, tree: Root | Element | TreeIndex): Array<Element> => {
  const index = "elements" in tree ? tree : indexTree(tree)
  const memo = new Matcher(index).evaluate(compile(selector))
  const out: Array<Element> = []
  for (let i = 0; i < memo.length; i++) if (memo[i] === 1) out.push(index.elements[i]!)
  return out
}

/** The first element matching `selector` in document order, if any. */
export const select = (selector: string, tree: Root | Element | TreeIndex): Element | undefined => {
  const index = "elements" in tree ? tree : indexTree(tree)
  const memo = new Matcher(index).evaluate(compile(selector))
  const first = memo.indexOf(1)
  return first === -1 ? undefined : index.elements[first]
}
