/**
 * The phrasing buffer: collects the inline content of one block (a paragraph, a heading, a cell) and writes it as one
 * Markdown string.
 *
 * Whitespace is collapsed as a browser does: a space is only remembered (`space`) and written before the next visible
 * content, never at the start of the block, after a hard break, or inside an emphasis marker. Openers (`**`, `[`) are
 * also held back until content follows them, so empty emphasis and empty links vanish and `<b> x </b>` becomes
 * ` **x** `. Emphasis markers are resolved at the end against the characters around them (CommonMark's flanking
 * rules); a pair that could not parse as emphasis in place (`foo<b>"bar"</b>baz`) is written as an HTML tag instead.
 */
import { escapeText } from "./escape.js"

/** An emphasis-like marker pair member, or a held-back literal opener such as a link's `[`. */
export interface Delimiter {
  /** The Markdown marker (`**`, `*`, `~~`) or the literal text for plain delimiters. */
  readonly markdown: string
  /** The HTML tag used when the marker cannot parse in place; undefined for plain delimiters (always literal). */
  readonly tag: string | undefined
  readonly open: boolean
  /** For a closer: its opener. */
  readonly partner: Delimiter | undefined
  /** Resolution result: write `<tag>` instead of the marker. */
  html: boolean
  /** Dropped (merged with an adjacent pair of the same kind). */
  dropped: boolean
}

type Part = string | Delimiter

/** How a `<br>` is written: a hard break, an HTML `<br>` (table cells), or a space (headings). */
export type BreakStyle = "hard" | "html" | "space"

const HARD_BREAK = "\\\n"
const whitespaceRun = /[ \t\n\r\f]+/g

/** Creates an opening delimiter; pass `tag` for emphasis-like markers that need flanking checks. */
export const opener = (markdown: string, tag?: string): Delimiter => ({
  markdown,
  tag,
  open: true,
  partner: undefined,
  html: false,
  dropped: false
})

/** The inline content of one block being written. */
export class Inline {
  private readonly parts: Array<Part> = []
  private pending: Array<Delimiter> = []
  private space = false
  private lineStart = true
  private readonly table: boolean
  private readonly breaks: BreakStyle
  private link: { readonly open: Delimiter; readonly close: string } | undefined

  constructor(table: boolean, breaks: BreakStyle) {
    this.table = table
    this.breaks = breaks
  }

  /** Links the whole content (a block inside `<a>`): `[content](url)`, nothing when the content is empty. */
  wrapLink(open: Delimiter, close: string): void {
    this.link = { open, close }
    this.open(open)
  }

  /** True when nothing visible was written yet. */
  get isEmpty(): boolean {
    return this.parts.length === 0
  }

  /** Adds a text node's value: whitespace collapsed, Markdown syntax escaped (`linked`: inside a link). */
  text(value: string, linked = false): void {
    const collapsed = value.replace(whitespaceRun, " ")
    const length = collapsed.length
    if (length === 0) return
    let start = 0
    let end = length
    if (collapsed.charCodeAt(0) === 32) {
      this.space = true
      start = 1
    }
    if (end > start && collapsed.charCodeAt(end - 1) === 32) end--
    if (end > start) {
      const run = start === 0 && end === length ? collapsed : collapsed.slice(start, end)
      this.literal(escapeText(run, this.table, linked || this.link !== undefined))
      if (end < length) this.space = true
    }
  }

  /** Adds text exactly as given (already valid Markdown), after any pending space and openers. */
  literal(markdown: string): void {
    if (markdown.length === 0) return
    if (this.space && this.parts.length > 0 && !this.lineStart) this.parts.push(" ")
    this.space = false
    this.lineStart = false
    if (this.pending.length > 0) {
      for (const d of this.pending) this.parts.push(d)
      this.pending = []
    }
    this.parts.push(markdown)
  }

  /** Remembers a collapsible space (as between words). */
  softSpace(): void {
    this.space = true
  }

  /** Holds an opener back until content follows it. */
  open(delimiter: Delimiter): void {
    this.pending.push(delimiter)
  }

  /** Closes `opener` with `markdown`; returns false (and writes nothing) when nothing was written since it opened. */
  close(openDelimiter: Delimiter, markdown: string): boolean {
    const index = this.pending.indexOf(openDelimiter)
    if (index !== -1) {
      this.pending.splice(index, 1)
      return false
    }
    this.parts.push({
      markdown,
      tag: openDelimiter.tag,
      open: false,
      partner: openDelimiter,
      html: false,
      dropped: false
    })
    return true
  }

  /** A `<br>`: a hard line break (`<br>` inside table cells, where newlines end the row). */
  hardBreak(): void {
    if (this.breaks === "space") {
      this.space = true
      return
    }
    if (this.parts.length === 0) return
    this.parts.push(this.breaks === "html" ? "<br>" : HARD_BREAK)
    this.space = false
    this.lineStart = true
  }

  /** Writes the buffer as Markdown (no trailing newline). */
  finish(): string {
    if (this.link !== undefined) this.close(this.link.open, this.link.close)
    const parts = this.parts
    trimTrailingBreaks(parts, this.breaks === "html" ? "<br>" : HARD_BREAK)
    mergeAdjacent(parts)
    resolveFlanking(parts)
    let out = ""
    for (const part of parts) {
      if (typeof part === "string") out += part
      else if (part.dropped) continue
      // A literal `!` right before a link's `[` would make it an image.
      else if (part.tag === undefined && part.open && part.markdown === "[" && out.endsWith("!")) {
        out = out.slice(0, -1) + "\\!["
      } else if (part.html && part.tag !== undefined) out += part.open ? `<${part.tag}>` : `</${part.tag}>`
      else out += part.markdown
    }
    return out
  }
}

const trimTrailingBreaks = (parts: Array<Part>, hardBreak: string): void => {
  for (let i = parts.length - 1; i >= 0; i--) {
    const part = parts[i]
    if (part === hardBreak) parts.splice(i, 1)
    else if (typeof part === "string" || part.open) return
  }
}

// `<b>a</b><b>b</b>` would write `**a****b**`; a closer directly followed by an opener of the same marker joins them.
const mergeAdjacent = (parts: Array<Part>): void => {
  for (let i = 0; i + 1 < parts.length; i++) {
    const a = parts[i]
    const b = parts[i + 1]
    if (typeof a === "string" || typeof b === "string") continue
    if (!a.open && b.open && a.tag !== undefined && a.markdown === b.markdown) {
      a.dropped = true
      b.dropped = true
    }
  }
}

const punctuation = /[\p{P}\p{S}]/u
const whitespace = /\s/u

type CharClass = 0 | 1 | 2 // 0 whitespace or edge, 1 punctuation, 2 other

const classify = (ch: string | undefined): CharClass =>
  ch === undefined || whitespace.test(ch) ? 0 : punctuation.test(ch) ? 1 : 2

const charBefore = (parts: Array<Part>, index: number): CharClass => {
  for (let i = index - 1; i >= 0; i--) {
    const part = parts[i]!
    if (typeof part === "string") {
      if (part.length > 0) return classify(lastChar(part))
    } else if (!part.dropped) return 1
  }
  return 0
}

const charAfter = (parts: Array<Part>, index: number): CharClass => {
  for (let i = index + 1; i < parts.length; i++) {
    const part = parts[i]!
    if (typeof part === "string") {
      if (part.length > 0) return classify(firstChar(part))
    } else if (!part.dropped) return 1
  }
  return 0
}

const lastChar = (s: string): string => {
  const code = s.charCodeAt(s.length - 1)
  return code >= 0xdc00 && code <= 0xdfff && s.length > 1 ? s.slice(-2) : s[s.length - 1]!
}

const firstChar = (s: string): string => String.fromCodePoint(s.codePointAt(0)!)

// CommonMark: an opener must be left-flanking, a closer right-flanking; a pair that fails either side becomes HTML.
const resolveFlanking = (parts: Array<Part>): void => {
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i]!
    if (typeof part === "string" || part.tag === undefined || part.dropped || part.open) continue
    const closeOk = closerOk(parts, i)
    const openIndex = parts.indexOf(part.partner!)
    const openOk = openIndex !== -1 && openerOk(parts, openIndex)
    if (!closeOk || !openOk) {
      part.html = true
      part.partner!.html = true
    }
  }
}

const openerOk = (parts: Array<Part>, index: number): boolean => {
  const next = charAfter(parts, index)
  if (next === 0) return false
  return next === 2 || charBefore(parts, index) !== 2
}

const closerOk = (parts: Array<Part>, index: number): boolean => {
  const prev = charBefore(parts, index)
  if (prev === 0) return false
  return prev === 2 || charAfter(parts, index) !== 2
}
