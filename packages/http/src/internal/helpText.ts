/**
 * Help text of the `sift` command line, rendered from @effect/cli's `HelpDoc` with word wrap at a given width and
 * with colour only when asked. @effect/cli's own `HelpDoc.toAnsiText` always writes ANSI codes and never wraps (its
 * command table pads each usage to the longest one, so lines ran past 400 characters), which is unreadable in a pipe,
 * a pager or a log. The wrap is our own greedy one: @effect/printer's `reflow` overflows the stack at about 100 words
 * and its `smart` layout does not finish on a long paragraph.
 *
 * @since 0.1.0
 */
import type * as HelpDoc from "@effect/cli/HelpDoc"
import type * as Span from "@effect/cli/HelpDoc/Span"
import * as Ansi from "@effect/printer-ansi/Ansi"
import * as AnsiDoc from "@effect/printer-ansi/AnsiDoc"

/** How to lay the text out: the line width, and whether to write colour and bold codes. */
export interface Layout {
  readonly width: number
  readonly color: boolean
}

/** The width help is wrapped to when stdout is not a terminal. */
export const PIPED_WIDTH = 100

/** Narrower than this, indented text would have no room left: a terminal reporting less is laid out this wide. */
const MIN_WIDTH = 40

/**
 * The layout for a stream: a terminal gets its own width and colour (unless `NO_COLOR` is set, https://no-color.org);
 * anything else (a pipe, a file) gets plain text wrapped at `PIPED_WIDTH`.
 */
export const layoutFor = (
  stream: { readonly isTTY?: boolean; readonly columns?: number },
  env: Readonly<Record<string, string | undefined>>
): Layout => {
  const tty = stream.isTTY === true
  const noColor = env.NO_COLOR !== undefined && env.NO_COLOR !== ""
  return {
    width: tty && typeof stream.columns === "number" && stream.columns > 0 ? Math.max(MIN_WIDTH, stream.columns) : PIPED_WIDTH,
    color: tty && !noColor
  }
}

type Style = ReadonlyArray<Ansi.Ansi>

/** A run of text with the styles of the spans around it. */
interface Styled {
  readonly text: string
  readonly style: Style
}

/** The leaves of a span in order, each with the styles of the spans around it. */
const leaves = (span: Span.Span, style: Style = []): ReadonlyArray<Styled> => {
  switch (span._tag) {
    case "Text":
      return span.value === "" ? [] : [{ text: span.value, style }]
    case "URI":
      return [{ text: span.value, style: [...style, Ansi.underlined] }]
    case "Strong":
      return leaves(span.value, [...style, Ansi.bold])
    case "Weak":
      return leaves(span.value, [...style, Ansi.blackBright])
    case "Highlight":
      return leaves(span.value, [...style, Ansi.color(span.color)])
    case "Sequence":
      return [...leaves(span.left, style), ...leaves(span.right, style)]
  }
}

/** A word: styled pieces with no space between them, and its width on screen. */
interface Word {
  readonly pieces: ReadonlyArray<Styled>
  readonly length: number
}

/**
 * Styled text split into lines (at newlines) of words (at runs of spaces). With `usage`, a bracketed group
 * (`[--log-level trace | debug]`, `(-f, --format markdown | html)`, `<URL>`) is one word, so a usage line breaks only
 * between its items.
 */
const words = (parts: ReadonlyArray<Styled>, usage = false): ReadonlyArray<ReadonlyArray<Word>> => {
  const lines: Array<Array<Word>> = [[]]
  let pieces: Array<Styled> = []
  let depth = 0
  const endWord = () => {
    if (pieces.length > 0) lines[lines.length - 1]!.push({ pieces, length: pieces.reduce((n, piece) => n + piece.text.length, 0) })
    pieces = []
  }
  for (const part of parts) {
    for (const piece of part.text.split(/(\n| +)/)) {
      if (piece === "") continue
      if (piece === "\n") {
        endWord()
        lines.push([])
      } else if (piece.startsWith(" ") && depth === 0) endWord()
      else {
        pieces.push({ text: piece, style: part.style })
        if (usage) depth = Math.max(0, depth + (piece.match(/[[(<]/g)?.length ?? 0) - (piece.match(/[\])>]/g)?.length ?? 0))
      }
    }
  }
  endWord()
  return lines
}

/** Lays words out greedily in lines of at most `width` characters (a longer word stands alone on its line). */
const fill = (lines: ReadonlyArray<ReadonlyArray<Word>>, width: number): ReadonlyArray<ReadonlyArray<Word>> =>
  lines.flatMap((line) => {
    const out: Array<Array<Word>> = [[]]
    let used = 0
    for (const word of line) {
      const current = out[out.length - 1]!
      if (current.length > 0 && used + 1 + word.length > width) {
        out.push([word])
        used = word.length
      } else {
        current.push(word)
        used += (current.length > 1 ? 1 : 0) + word.length
      }
    }
    return out
  })

/** Lines of text, each already indented, with no trailing newline. */
type Block = ReadonlyArray<string>

interface Context {
  readonly width: number
  readonly paint: (piece: Styled) => string
}

const wrap = (parts: ReadonlyArray<Styled>, width: number, context: Context, usage = false): Block =>
  fill(words(parts, usage), Math.max(1, width)).map((line) => line.map((word) => word.pieces.map(context.paint).join("")).join(" "))

const indent = (block: Block, first: string, rest: string = " ".repeat(first.length)): Block =>
  block.map((line, i) => line === "" ? "" : `${i === 0 ? first : rest}${line}`)

/**
 * A row of @effect/cli's command table (`usage`, padding of two or more spaces, `description`) as the usage followed by
 * its description indented beneath it; `undefined` for any other paragraph.
 */
const commandRow = (span: Span.Span, width: number, context: Context): Block | undefined => {
  const parts = leaves(span)
  const pad = parts.findIndex((part) => /^ {2,}$/.test(part.text))
  if (pad <= 0 || pad === parts.length - 1) return undefined
  return [...wrap(parts.slice(0, pad), width, context, true), ...indent(wrap(parts.slice(pad + 1), width - 4, context), "    ")]
}

/** The blocks of a help document, each to be followed by a blank line, laid out in `width` columns. */
const blocks = (help: HelpDoc.HelpDoc, width: number, context: Context): ReadonlyArray<Block> => {
  switch (help._tag) {
    case "Empty":
      return []
    case "Header":
      return [wrap(leaves(help.value, [Ansi.bold]), width, context)]
    case "Paragraph": {
      // A usage line ("$ sift scrape [...] <URL>", as @effect/cli writes them) wraps between its items, under itself.
      const parts = leaves(help.value)
      return parts[0]?.text.startsWith("$ ") === true
        ? [indent(wrap(parts, width - 2, context, true), "", "  ")]
        : [wrap(parts, width, context)]
    }
    case "DescriptionList":
      return help.definitions.flatMap(([term, description]) => [
        wrap(leaves(term, [Ansi.bold]), width, context),
        ...blocks(description, width - 2, context).map((block) => indent(block, "  "))
      ])
    case "Enumeration":
      return help.elements.flatMap((element) => {
        const row = element._tag === "Paragraph" ? commandRow(element.value, width - 4, context) : undefined
        const inner = row === undefined ? blocks(element, width - 4, context) : [row]
        return inner.map((block, i) => indent(block, i === 0 ? "  - " : "    ", "    "))
      })
    case "Sequence":
      return [...blocks(help.left, width, context), ...blocks(help.right, width, context)]
  }
}

const painter = (color: boolean) => (piece: Styled): string =>
  !color || piece.style.length === 0
    ? piece.text
    : AnsiDoc.render(piece.style.reduce<AnsiDoc.AnsiDoc>((doc, style) => AnsiDoc.annotate(doc, style), AnsiDoc.text(piece.text)), { style: "pretty" })

/** Renders help as text: words wrapped at `layout.width` (a longer word stands alone), ANSI codes only with `color`. */
export const render = (help: HelpDoc.HelpDoc, layout: Layout): string =>
  blocks(help, layout.width, { width: layout.width, paint: painter(layout.color) }).map((block) => block.join("\n")).join("\n\n") + "\n"
