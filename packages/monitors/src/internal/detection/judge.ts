/**
 * The deterministic semantic judge: which changes matter to a monitor's `instructions`, decided from the words and
 * values of the changed lines (no model, no network), and structured data read from pages by labels, tables and
 * headings. Reproducible: the same texts always give the same verdict.
 */
import { stem } from "@sift/core/Stem"
import { lineChanges } from "./lineDiff.js"
import { headingPaths } from "./markdown.js"

/** A verdict (the shape of `ChangeDetection.Judgement`). */
export interface Verdict {
  readonly relevant: boolean
  readonly confidence: number
  readonly importance: "low" | "medium" | "high"
  readonly evidence: ReadonlyArray<{ readonly before: string; readonly after: string; readonly url?: string | undefined }>
  readonly title: string
  readonly summary: string
  readonly matched_urls: ReadonlyArray<string>
}

const STOP = new Set(("a an and any are as at be been but by can could did do does for from had has have how i if in into is it its " +
  "let me my of on or our should so than that the their them then there these this those to up us was we what when where which " +
  "who will with would you your tell notify alert watch monitor track know let change changes changed changing about page site " +
  "please whenever every new updated update updates").split(" "))

const words = (text: string): Array<string> => (text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [])

/** Quoted phrases: "double", “curly” or 'single' quotes (an apostrophe inside a word, as in "don't", is no quote). */
const QUOTED = /["“]([^"”]{2,80})["”]|(?:^|(?<=[\s(]))[‘']([^'’]{2,80})['’](?=$|[\s).,;:!?])/g
/** Words that turn the rest of their clause into what the instructions do not care about. */
const NEGATION = /\b(?:ignore|ignoring|except|excluding|exclude|other than|apart from|do(?:n'?t| not) care about|do(?:n'?t| not) (?:notify|tell|alert) (?:me|us) (?:about|of|to|when))\b/i
/** A clause opening with "not" or "never" ("..., but not the footer"). */
const NEGATED_CLAUSE = /^\s*(?:and\s+|or\s+)?(?:not|never)\b/i

const stemsOf = (text: string) => [...new Set(words(text).filter((w) => !STOP.has(w) && w.length > 1).map(stem))]

/**
 * The terms of instructions: quoted phrases whole, other words stemmed without stop words; words of a negated
 * clause ("ignore the footer", "but not the blog") are `negative`: a change only about them is not relevant.
 */
export const termsOf = (instructions: string): {
  readonly phrases: ReadonlyArray<string>
  readonly stems: ReadonlyArray<string>
  readonly negative: ReadonlyArray<string>
  /** The instructions without their negated clauses (what value kinds are asked about is read from it). */
  readonly asked: string
} => {
  const phrases = [...instructions.matchAll(QUOTED)].map((m) => (m[1] ?? m[2]!).toLowerCase())
  const rest = instructions.replace(QUOTED, " ")
  const positive: Array<string> = []
  const negative: Array<string> = []
  for (const clause of rest.split(/[.;,!?\n]|\bbut\b/i)) {
    const inline = NEGATION.exec(clause)
    if (inline !== null) {
      positive.push(clause.slice(0, inline.index))
      negative.push(clause.slice(inline.index + inline[0].length))
    } else if (NEGATED_CLAUSE.test(clause)) {
      negative.push(clause.replace(NEGATED_CLAUSE, " "))
    } else {
      positive.push(clause)
    }
  }
  const neg = stemsOf(negative.join(" "))
  const stems = stemsOf(positive.join(" ")).filter((t) => !neg.includes(t))
  return { phrases, stems, negative: neg, asked: [...positive, ...phrases].join(" ") }
}

/** What kinds of values the instructions care about. */
const intents = (instructions: string) => {
  const text = instructions.toLowerCase()
  return {
    money: /\b(price|prices|pricing|cost|costs|fee|fees|plan|plans|subscription|discount|\$|€|£|usd|eur)\b|[$€£]/.test(text),
    date: /\b(date|dates|deadline|release|released|schedule|launch|event|events|opening|hours)\b/.test(text),
    version: /\b(version|versions|release|releases|changelog)\b/.test(text),
    stock: /\b(stock|availability|available|sold out|inventory|in stock|out of stock)\b/.test(text)
  }
}

const MONEY = /(?:[$€£¥]\s?\d[\d,]*(?:\.\d+)?|\d[\d,]*(?:\.\d+)?\s?(?:usd|eur|gbp|dollars?|euros?))/gi
const NUMBER = /\d[\d,]*(?:\.\d+)?/g
const DATE = /\b(?:\d{4}-\d{2}-\d{2}|\d{1,2}\/\d{1,2}\/\d{2,4}|(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.? \d{1,2}(?:, \d{4})?|\d{1,2} (?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]* \d{4})\b/gi
const VERSION = /\bv?\d+\.\d+(?:\.\d+)?\b/g
const STOCK = /\b(in stock|out of stock|sold out|available|unavailable|back ?order(?:ed)?|pre-?order)\b/gi

/** Words naming the kinds of values instructions ask about. */
const INTENT_WORDS = /\b(price|prices|pricing|priced|cost|costs|fee|fees|subscription|discount|stock|availability|available|unavailable|sold out|inventory|date|dates|deadline|release|released|version|changelog|launch|schedule)\b/i

const valuesOf = (text: string, pattern: RegExp) => (text.match(pattern) ?? []).map((v) => v.toLowerCase().replace(/\s+/g, " "))

const differs = (a: ReadonlyArray<string>, b: ReadonlyArray<string>) => a.join("|") !== b.join("|")

const clip = (text: string, max = 300) => (text.length <= max ? text : `${text.slice(0, max - 1)}…`)

/** How strongly a changed block touches the instructions. */
const scoreBlock = (
  terms: ReturnType<typeof termsOf>,
  want: ReturnType<typeof intents>,
  removed: string,
  added: string,
  section: string
) => {
  const changed = `${removed}\n${added}`.toLowerCase()
  const changedStems = new Set(words(changed).map(stem))
  const sectionStems = new Set(words(section).map(stem))
  const lineHits = terms.stems.filter((t) => changedStems.has(t)).length + terms.phrases.filter((p) => changed.includes(p)).length
  const sectionHits = terms.stems.filter((t) => sectionStems.has(t)).length + terms.phrases.filter((p) => section.toLowerCase().includes(p)).length
  const kinds: Array<{ kind: string; before: ReadonlyArray<string>; after: ReadonlyArray<string> }> = []
  const consider = (on: boolean, kind: string, pattern: RegExp) => {
    if (!on) return
    const before = valuesOf(removed, pattern)
    const after = valuesOf(added, pattern)
    if ((before.length > 0 || after.length > 0) && differs(before, after)) kinds.push({ kind, before, after })
  }
  consider(want.money, "price", MONEY)
  consider(want.date, "date", DATE)
  consider(want.version, "version", VERSION)
  consider(want.stock, "availability", STOCK)
  // A changed bare number next to a matched word counts as a value change too (quantities, counts).
  const numbers = lineHits > 0 && differs(valuesOf(removed, NUMBER), valuesOf(added, NUMBER))
  const negativeHits = terms.negative.filter((t) => changedStems.has(t) || sectionStems.has(t)).length
  return { lineHits, sectionHits, values: kinds, numbers, negativeHits }
}

const regions = (n: number) => `${n} changed region${n === 1 ? "" : "s"}`

/** Whether a page text change matters to `instructions`. */
export const judgePage = (input: { readonly instructions: string; readonly url: string; readonly before: string; readonly after: string }): Verdict => {
  const terms = termsOf(input.instructions)
  const want = intents(terms.asked)
  const changes = lineChanges(input.before, input.after)
  // Sections of all blocks in one pass over each text (a per-block search is quadratic on long pages).
  const afterPaths = headingPaths(changes.after, changes.blocks.map((b) => b.afterStart))
  const beforePaths = headingPaths(changes.before, changes.blocks.map((b) => b.beforeStart))
  const scored = changes.blocks.map((block, i) => {
    const removed = block.removed.join("\n")
    const added = block.added.join("\n")
    const path = afterPaths[i]!.length > 0 ? afterPaths[i]! : beforePaths[i]!
    const section = path.length === 0 ? "" : path[path.length - 1]!
    return { removed, added, section, ...scoreBlock(terms, want, removed, added, section) }
  })
  // A block is about the instructions when its lines or the section it sits in name what they care about.
  // Instructions naming nothing in particular ("any change") make every change relevant.
  const anything = terms.stems.length === 0 && terms.phrases.length === 0
  // A block about what the instructions exclude counts only when its changed lines also name what they ask for.
  const considered = scored.filter((s) => s.negativeHits === 0 || s.lineHits > 0)
  const matched = considered.filter((s) => anything || s.lineHits > 0 || s.sectionHits > 0)
  // A value of the wanted kind that changed counts even without a matching word when the instructions are only about it.
  const valueOnly = considered.filter((s) => !matched.includes(s) && s.values.length > 0 && terms.stems.length <= 3)
  const found = [...matched, ...valueOnly]
  // Instructions about a kind of value (a price, stock, a date, a version) are met by a change of such a value or of
  // lines naming it; a word they share with an unrelated line ("teams" in a tagline for "the Team plan's price") is not.
  const wantsValue = want.money || want.date || want.version || want.stock
  const namesIntent = (s: (typeof scored)[number]) => INTENT_WORDS.test(`${s.removed}\n${s.added}\n${s.section}`)
  const relevantBlocks = wantsValue ? found.filter((s) => s.values.length > 0 || namesIntent(s)) : found
  if (relevantBlocks.length === 0 && found.length > 0) {
    const weak = found[0]!
    return {
      relevant: false,
      confidence: 0.3,
      importance: "low",
      evidence: found.slice(0, 3).map((s) => ({ before: clip(s.removed), after: clip(s.added), url: input.url })),
      title: `Unrelated change on ${input.url}`,
      summary: `Changed lines share words with the instructions${weak.section === "" ? "" : ` in '${weak.section}'`}, but no ` +
        `value they ask about changed`,
      matched_urls: []
    }
  }
  if (relevantBlocks.length === 0) {
    return {
      relevant: false,
      confidence: changes.blocks.length === 0 ? 0 : 0.1,
      importance: "low",
      evidence: [],
      title: `Unrelated change on ${input.url}`,
      summary: `${regions(changes.blocks.length)}, none about: ${input.instructions.slice(0, 120)}`,
      matched_urls: []
    }
  }
  const best = relevantBlocks.reduce((a, b) => (b.lineHits * 2 + b.sectionHits + b.values.length * 3 > a.lineHits * 2 + a.sectionHits + a.values.length * 3 ? b : a))
  const valueChanged = relevantBlocks.some((s) => s.values.length > 0 || s.numbers)
  const lineHits = Math.max(...relevantBlocks.map((s) => s.lineHits))
  const sectionHits = Math.max(...relevantBlocks.map((s) => s.sectionHits))
  const confidence = anything ? 0.6 : Math.min(0.97, 0.4 + 0.15 * Math.min(lineHits, 3) + 0.15 * Math.min(sectionHits, 2) + (valueChanged ? 0.25 : 0))
  // A changed value of the kind the instructions ask about (a price for pricing instructions) is what they care most about.
  const wantedValue = relevantBlocks.some((s) => s.values.length > 0)
  const importance = wantedValue || (valueChanged && (lineHits > 0 || sectionHits > 0)) ? "high" : lineHits > 0 ? "medium" : "low"
  const value = best.values[0]
  const title = value !== undefined && value.before.length > 0 && value.after.length > 0
    ? `${value.kind[0]!.toUpperCase()}${value.kind.slice(1)} changed from ${value.before[0]} to ${value.after[0]}`
    : best.section !== ""
    ? `Relevant change in '${best.section}'`
    : `Relevant change on ${input.url}`
  return {
    relevant: true,
    confidence: Math.round(confidence * 100) / 100,
    importance,
    evidence: relevantBlocks.slice(0, 5).map((s) => ({ before: clip(s.removed), after: clip(s.added), url: input.url })),
    title,
    summary: (value === undefined
      ? ""
      : `${value.kind[0]!.toUpperCase()}${value.kind.slice(1)}: ${value.before.join(", ") || "none"} → ${value.after.join(", ") || "none"}` +
        (best.section === "" ? "" : ` in section '${best.section}'`) + ". ") +
      `${relevantBlocks.length} of ${regions(changes.blocks.length)} concern${changes.blocks.length === 1 ? "s" : ""} the instructions` +
      (value === undefined && best.section !== "" ? `, mainly in section '${best.section}'` : "") + ".",
    matched_urls: [input.url]
  }
}

// ---- Structured data ----

/** The pages an extraction reads. */
export interface Page {
  readonly url: string
  readonly title: string
  readonly text: string
}

const clean = (text: string) => text.replace(/[*_`]/g, "").replace(/\[([^\]]*)\]\([^)]*\)/g, "$1").trim()

const labelMatches = (label: string, property: string) => {
  const a = words(label).map(stem).join(" ")
  const b = words(property.replace(/([a-z])([A-Z])/g, "$1 $2").replace(/_/g, " ")).map(stem).join(" ")
  return a !== "" && b !== "" && (a === b || a.includes(b) || b.includes(a))
}

/** Candidate "label: value" pairs of a Markdown text: label lines, bold labels, table rows. */
const pairsOf = (text: string): Array<{ label: string; value: string }> => {
  const pairs: Array<{ label: string; value: string }> = []
  // A definition list renders as a bold term line, then ": definition" after a blank line.
  let term: string | undefined
  for (const raw of text.split("\n")) {
    if (raw.trim() === "") continue
    const definition = /^\s*:\s+(.+)$/.exec(raw)
    if (definition !== null && term !== undefined) {
      pairs.push({ label: term, value: clean(definition[1]!) })
      term = undefined
      continue
    }
    const termLine = /^\*\*([^*]{1,60})\*\*\s*$/.exec(raw.trim())
    term = termLine === null ? undefined : clean(termLine[1]!)
    if (termLine !== null) continue
    const line = raw.replace(/^\s*(?:[-*+]|\d+\.)\s+/, "")
    const bold = /^\*\*([^*]{1,60})\*\*:?\s*(.+)$/.exec(line)
    if (bold !== null) {
      pairs.push({ label: clean(bold[1]!), value: clean(bold[2]!.replace(/^:\s*/, "")) })
      continue
    }
    const colon = /^([^:|]{1,60}):\s+(.+)$/.exec(line)
    if (colon !== null && !/^https?$/i.test(colon[1]!.trim())) {
      pairs.push({ label: clean(colon[1]!), value: clean(colon[2]!) })
      continue
    }
    const row = /^\|(.+)\|\s*$/.exec(line)
    if (row !== null) {
      const cells = row[1]!.split("|").map((c) => clean(c))
      if (cells.length >= 2 && !cells.every((c) => /^:?-{2,}:?$/.test(c))) pairs.push({ label: cells[0]!, value: cells.slice(1).join(" ").trim() })
    }
  }
  return pairs
}

/** Bullet items under the heading matching `property`. */
const listUnder = (text: string, property: string): Array<string> | undefined => {
  const lines = text.split("\n")
  for (let i = 0; i < lines.length; i++) {
    const heading = /^#{1,6}\s+(.+)$/.exec(lines[i]!)
    if (heading === null || !labelMatches(clean(heading[1]!), property)) continue
    const items: Array<string> = []
    for (let j = i + 1; j < lines.length && !/^#{1,6}\s/.test(lines[j]!); j++) {
      const item = /^\s*(?:[-*+]|\d+\.)\s+(.+)$/.exec(lines[j]!)
      if (item !== null) items.push(clean(item[1]!))
    }
    if (items.length > 0) return items
  }
  return undefined
}

/** The first paragraph under the heading matching `property`. */
const paragraphUnder = (text: string, property: string): string | undefined => {
  const lines = text.split("\n")
  for (let i = 0; i < lines.length; i++) {
    const heading = /^#{1,6}\s+(.+)$/.exec(lines[i]!)
    if (heading === null || !labelMatches(clean(heading[1]!), property)) continue
    for (let j = i + 1; j < lines.length && !/^#{1,6}\s/.test(lines[j]!); j++) {
      if (lines[j]!.trim() !== "" && !/^\s*(?:[-*+]|\d+\.)\s/.test(lines[j]!)) return clean(lines[j]!)
    }
  }
  return undefined
}

/** Coerces text to a JSON Schema type. */
export const coerce = (value: string, type: unknown): unknown => {
  switch (type) {
    case "number":
    case "integer": {
      const match = /-?\d[\d,]*(?:\.\d+)?/.exec(value)
      if (match === null) return null
      const n = Number(match[0].replace(/,/g, ""))
      return type === "integer" ? Math.round(n) : n
    }
    case "boolean": {
      const text = value.toLowerCase()
      if (/\b(out of stock|sold out|unavailable|no|false|none)\b/.test(text)) return false
      if (/\b(in stock|available|yes|true|included)\b/.test(text)) return true
      return null
    }
    case "array":
      return value.split(/\s*[,;]\s*/).filter((v) => v !== "")
    default:
      return value
  }
}

/** A short "Label: value" or "**Label** value" line: data, not prose for a summary. */
const isLabelLine = (p: string) => p.length < 120 && (/^\*\*[^*]{1,60}\*\*/.test(p) || /^[^:\n]{1,40}:\s/.test(p))

/** Prose paragraphs: not headings, lists, tables or label lines. */
const firstParagraphs = (text: string) =>
  text.split(/\n{2,}/).map((p) => p.trim()).filter((p) =>
    p !== "" && !/^#{1,6}\s/.test(p) && !/^\s*(?:[-*+]|\d+\.)\s/.test(p) && !/^\|/.test(p) && !isLabelLine(p)
  )

/** Structured data of the pages: per schema property, or a summary and key points. */
export const extract = (input: { readonly instructions: string; readonly schema?: Readonly<Record<string, unknown>> | undefined; readonly pages: ReadonlyArray<Page> }): Record<string, unknown> => {
  const properties = (input.schema?.properties ?? undefined) as Record<string, { type?: unknown }> | undefined
  if (properties !== undefined && typeof properties === "object") {
    const data: Record<string, unknown> = {}
    for (const [name, definition] of Object.entries(properties)) {
      const type = definition?.type
      let found: unknown = null
      for (const page of input.pages) {
        if (type === "array") {
          const items = listUnder(page.text, name)
          if (items !== undefined) {
            found = items
            break
          }
        }
        const pair = pairsOf(page.text).find((p) => labelMatches(p.label, name))
        const text = pair?.value ?? paragraphUnder(page.text, name)
        if (text !== undefined) {
          const value = coerce(text, type)
          if (value !== null) {
            found = value
            break
          }
        }
      }
      data[name] = found
    }
    return data
  }
  const terms = termsOf(input.instructions)
  const paragraphs = input.pages.flatMap((p) => firstParagraphs(p.text))
  const summary = clean(paragraphs.slice(0, 3).join(" ")).slice(0, 500)
  const candidates = input.pages.flatMap((p) =>
    p.text.split("\n").filter((l) => /^\s*(?:[-*+]|\d+\.)\s|^#{1,6}\s/.test(l)).map((l) => clean(l.replace(/^\s*(?:[-*+]|\d+\.|#{1,6})\s+/, ""))))
  const relevant = candidates.filter((l) => terms.stems.some((t) => words(l).map(stem).includes(t)))
  const keyPoints = [...new Set([...relevant, ...candidates])].filter((l) => l !== "").slice(0, 10)
  return { summary, key_points: keyPoints }
}

const show = (value: unknown) => (value === null || value === undefined ? "none" : typeof value === "string" ? value : JSON.stringify(value))

const same = (a: unknown, b: unknown): boolean => {
  if (Array.isArray(a) && Array.isArray(b)) {
    const left = new Set(a.map((v) => JSON.stringify(v)))
    const right = new Set(b.map((v) => JSON.stringify(v)))
    return left.size === right.size && [...left].every((v) => right.has(v))
  }
  return JSON.stringify(a) === JSON.stringify(b)
}

/** Whether extracted data changed in a way the instructions care about; undefined when it did not change. */
export const judgeExtract = (input: { readonly instructions: string; readonly before: Readonly<Record<string, unknown>>; readonly after: Readonly<Record<string, unknown>>; readonly urls: ReadonlyArray<string> }): Verdict | undefined => {
  const fields = [...new Set([...Object.keys(input.before), ...Object.keys(input.after)])]
  const changed = fields.filter((f) => !same(input.before[f], input.after[f]))
  if (changed.length === 0) return undefined
  const terms = termsOf(input.instructions)
  const want = intents(terms.asked)
  const relates = (f: string, values: ReadonlyArray<unknown>) => {
    const text = [f.replace(/([a-z])([A-Z])/g, "$1 $2").replace(/_/g, " "), ...values.map(show)].join(" ")
    const stems = words(text).map(stem)
    return terms.stems.some((t) => stems.includes(t)) || terms.phrases.some((p) => text.toLowerCase().includes(p))
  }
  const related = changed.filter((f) => relates(f, [input.before[f], input.after[f]]))
  // A better signal: the instructions name fields of the data, and none of them changed (the price is watched, the
  // warranty text changed). Otherwise the data was extracted for the instructions, so any change of it counts.
  const namesUnchanged = related.length === 0 && fields.some((f) => relates(f, []))
  const numeric = changed.some((f) =>
    typeof input.before[f] === "number" || typeof input.after[f] === "number" ||
    (want.money && new RegExp(MONEY.source, "i").test(`${show(input.before[f])} ${show(input.after[f])}`))
  )
  const relevant = !namesUnchanged
  const confidence = namesUnchanged
    ? 0.2
    : related.length > 0
    ? Math.min(0.95, 0.6 + 0.1 * related.length + (numeric ? 0.1 : 0))
    : 0.55
  const first = related[0] ?? changed[0]!
  return {
    relevant,
    confidence: Math.round(confidence * 100) / 100,
    importance: namesUnchanged ? "low" : numeric ? "high" : "medium",
    evidence: changed.slice(0, 10).map((f) => ({ before: `${f}: ${show(input.before[f])}`, after: `${f}: ${show(input.after[f])}`, url: input.urls[0] })),
    title: `${first.replace(/_/g, " ")} changed from ${clip(show(input.before[first]), 60)} to ${clip(show(input.after[first]), 60)}`,
    summary: `${changed.length} field${changed.length === 1 ? "" : "s"} changed: ${changed.join(", ")}` +
      (namesUnchanged ? "; none of them is what the instructions ask about" : ""),
    matched_urls: relevant ? [...input.urls] : []
  }
}
