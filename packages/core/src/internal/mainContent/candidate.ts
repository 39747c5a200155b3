/**
 * Finds the block holding the main content by scoring: every paragraph-like block earns points for its length and
 * commas, discounted by its link text, and passes them up to its ancestors (fully to the parent, less further up).
 * The best-scoring container wins; its siblings that look like more of the same are merged back in.
 */
import type { Element } from "hast"
import { attributeHint, isLandmark, isLead } from "./hints.js"
import { type Stats, inlineTags, linkDensity, textOf } from "./stats.js"

/** Blocks whose whole text counts as one paragraph. */
const paragraphTags = new Set(["p", "pre", "blockquote", "td", "dd", "li", "dt", "h2", "h3", "h4", "h5", "h6"])

const tagBase: Record<string, number> = {
  div: 5, article: 10, main: 10, section: 3, pre: 3, td: 3, blockquote: 3, form: -3, ol: -3, ul: -3, dl: -3,
  li: -3, dd: -3, dt: -3, address: -3, th: -5, h1: -5, h2: -5, h3: -5, h4: -5, h5: -5, h6: -5, table: 0
}

/** Climbing stops once the winner holds this share of the page's prose... */
const climbShare = 0.8
/** ...or when the parent adds less than this factor of prose. */
const climbGain = 1.2
/** How many prose-less wrapper levels climbing looks through. */
const climbLookahead = 5
const isMain = (element: Element): boolean =>
  element.tagName === "main" || String(element.properties.role ?? "").toLowerCase() === "main"

/** The chosen content: the blocks to keep, in document order, the winning container, and its `main` landmark. */
export interface Selection {
  readonly top: Element
  readonly nodes: ReadonlyArray<Element>
  readonly parents: Map<Element, Element>
  /** The `main` landmark the content sits in, if any (the landmark itself is kept around the content). */
  readonly main: Element | undefined
}

const initialScore = (element: Element): number => {
  const hint = attributeHint(element)
  const weight = hint === "content" ? 25 : hint === "chrome" ? -25 : hint === "weak" || hint === "byline" ? -10 : 0
  return (tagBase[element.tagName] ?? 0) + weight + (isLandmark(element) ? 15 : 0)
}

/** Scores the tree and picks the main content, or `undefined` when no block has paragraph-like text. */
export const selectContent = (body: Element, stats: Map<Element, Stats>): Selection | undefined => {
  const parents = new Map<Element, Element>()
  const scores = new Map<Element, number>()
  const credit = (element: Element, points: number) => {
    scores.set(element, (scores.get(element) ?? initialScore(element)) + points)
  }
  const award = (start: Element | undefined, points: number) => {
    let node = start
    for (let level = 0; node !== undefined && level < 5; level++) {
      credit(node, level === 0 ? points : level === 1 ? points / 2 : points / (level * 3))
      if (node === body) break
      node = parents.get(node)
    }
  }
  // Prose held inside each element: text of paragraph-like blocks that are not mostly links.
  const prose = new Map<Element, number>()
  const visit = (element: Element): number => {
    const s = stats.get(element)!
    let own = 0
    if (paragraphTags.has(element.tagName)) {
      if (s.text >= 25) {
        const points = (1 + s.commas + Math.min(Math.floor(s.text / 100), 3)) * (1 - linkDensity(s))
        award(parents.get(element), points)
        if (linkDensity(s) < 0.5) own = s.text - s.link
      }
    } else if (!inlineTags.has(element.tagName) && s.inline >= 25) {
      // Text written straight into a div (often between <br>s) is a paragraph whose container is the div itself.
      const points = (1 + Math.min(s.commas, s.inline / 30) + Math.min(Math.floor(s.inline / 100), 3)) *
        (1 - s.inlineLink / s.inline)
      award(element, points)
      if (s.inlineLink / s.inline < 0.5) own = s.inline - s.inlineLink
    }
    let inner = 0
    for (const child of element.children) {
      if (child.type === "element") {
        parents.set(child, element)
        inner += visit(child)
      }
    }
    const total = paragraphTags.has(element.tagName) && own > 0 ? own : own + inner
    prose.set(element, total)
    return total
  }
  visit(body)

  let top: Element | undefined
  let best = -Infinity
  for (const [element, score] of scores) {
    const final = score * (1 - linkDensity(stats.get(element)!))
    scores.set(element, final)
    if (final > best) {
      best = final
      top = element
    }
  }
  if (top === undefined) return undefined

  // A container that only wraps the winner is the same content; climbing keeps the content's own wrapper.
  for (let parent = parents.get(top); parent !== undefined && parent !== body; parent = parents.get(parent)) {
    if (stats.get(parent)!.text - stats.get(top)!.text > 10) break
    top = parent
  }

  // Content split over sibling blocks (sections, accordions, columns) is gathered by climbing while the parent adds
  // a real share of prose and the winner does not yet hold most of the page's prose.
  const pageProse = prose.get(body) ?? 0
  // Wrappers that add no prose (a post's author line, layout cells) are looked through.
  climb: while ((prose.get(top) ?? 0) < pageProse * climbShare) {
    const mine = prose.get(top) ?? 0
    let ancestor = parents.get(top)
    for (let level = 0; level < climbLookahead && ancestor !== undefined && ancestor !== body; level++) {
      if ((prose.get(ancestor) ?? 0) >= mine * climbGain) {
        top = ancestor
        continue climb
      }
      ancestor = parents.get(ancestor)
    }
    break
  }

  let main: Element | undefined
  for (let e: Element | undefined = top; e !== undefined && e !== body; e = parents.get(e)) {
    if (isMain(e)) {
      main = e
      break
    }
  }
  const parent = parents.get(top)
  if (parent === undefined) return { top, nodes: [top], parents, main }
  const topScore = scores.get(top) ?? 0
  const threshold = Math.max(10, topScore * 0.2)
  const topClass = String(top.properties.className ?? "")
  const nodes: Array<Element> = []
  for (const sibling of parent.children) {
    if (sibling.type !== "element") continue
    if (sibling === top) {
      nodes.push(sibling)
      continue
    }
    const s = stats.get(sibling)!
    const bonus = topClass !== "" && String(sibling.properties.className ?? "") === topClass ? topScore * 0.2 : 0
    const score = (scores.get(sibling) ?? -Infinity) + bonus
    if (score >= threshold) nodes.push(sibling)
    else if (sibling.tagName === "p" || (!inlineTags.has(sibling.tagName) && s.inline === s.text)) {
      const density = linkDensity(s)
      if (s.text > 80 && density < 0.25) nodes.push(sibling)
      else if (s.text > 0 && density === 0 && /[.!?。！？]\s*$/u.test(textOf(sibling))) {
        nodes.push(sibling)
      }
    }
  }
  const lead = leadBefore(top, body, parents, stats, nodes)
  return { top, nodes: lead === undefined ? nodes : [lead, ...nodes], parents, main }
}

/** How far the lead is looked for: ancestor levels above the content, element siblings before each. */
const leadLevels = 5
const leadSiblings = 4

/**
 * The article's lead paragraph when it sits above the chosen content in the article's header (a standfirst, an intro,
 * a summary named so): the nearest block before the content, or before one of its near ancestors, whose class says
 * lead and that reads as a short paragraph.
 */
const leadBefore = (
  top: Element,
  body: Element,
  parents: Map<Element, Element>,
  stats: Map<Element, Stats>,
  nodes: ReadonlyArray<Element>
): Element | undefined => {
  const find = (element: Element, depth: number): Element | undefined => {
    const s = stats.get(element)
    if (s === undefined || s.text < 40) return undefined
    if (isLead(element) && s.text <= 600 && linkDensity(s) < 0.2) return element
    if (depth === 0 || s.text > 2000) return undefined
    for (const child of element.children) {
      if (child.type !== "element") continue
      const found = find(child, depth - 1)
      if (found !== undefined) return found
    }
    return undefined
  }
  // An article has one lead: none is looked for when the content opens with one.
  const opensWithLead = (element: Element, depth: number): boolean => {
    let seen = 0
    for (const child of element.children) {
      if (child.type !== "element" || seen++ >= leadSiblings) continue
      if (((stats.get(child)?.text ?? 0) >= 40 && isLead(child)) || (depth > 0 && opensWithLead(child, depth - 1))) {
        return true
      }
    }
    return false
  }
  if (nodes.length > 0 && opensWithLead(nodes[0]!, 2)) return undefined
  let node = top
  for (let level = 0; level < leadLevels; level++) {
    const parent = parents.get(node)
    if (parent === undefined || node === body) return undefined
    let seen = 0
    for (let i = parent.children.indexOf(node) - 1; i >= 0 && seen < leadSiblings; i--) {
      const sibling = parent.children[i]!
      if (sibling.type !== "element" || nodes.includes(sibling)) continue
      seen++
      const found = find(sibling, 4)
      if (found !== undefined) return found
    }
    node = parent
  }
  return undefined
}
