/**
 * The one table of element handlers. An element with a `block` handler is block-level (it ends the paragraph around
 * it); one with only an `inline` handler is phrasing; `ignore` drops the whole subtree. Elements not listed are
 * transparent phrasing (`span`, `font`, custom elements), walked as blocks when they wrap blocks.
 */
import type { Element } from "hast"
import type { Inline } from "../inline.js"
import type { State } from "../state.js"
import { blockquote } from "./blockquote.js"
import { br } from "./br.js"
import { codeBlock, codeBlockInline, inlineCode } from "./code.js"
import { definition, term } from "./definitionList.js"
import { emphasis, htmlTag, quote, strike, strong } from "./emphasis.js"
import { container } from "./container.js"
import { heading } from "./heading.js"
import { thematicBreak } from "./thematicBreak.js"
import { image } from "./image.js"
import { link } from "./link.js"
import { list } from "./list.js"
import { table } from "./table.js"

/** Writes a block element, appending its blocks to `out`. */
export type BlockHandler = (el: Element, st: State, out: Array<string>) => void
/** Writes a phrasing element into the current inline buffer. */
export type InlineHandler = (el: Element, st: State, buf: Inline) => void

/** How one element name is converted. */
export interface Handler {
  readonly block?: BlockHandler
  readonly inline?: InlineHandler
  readonly ignore?: boolean
}

const ignored: Handler = { ignore: true }
const nothing: Handler = { inline: () => {} }
// A checkbox outside a task marker shows its state as text.
const input: Handler = {
  inline: (el, st, buf) => {
    if (el.properties.type === "checkbox" && el !== st.taskInput) buf.literal(el.properties.checked === true ? "[x]" : "[ ]")
  }
}

const entries: Array<[ReadonlyArray<string>, Handler]> = [
  // Not content: scripts, styles, metadata, embedded and interactive widgets whose text is not page text.
  [
    [
      "script", "style", "noscript", "template", "svg", "canvas", "head", "title", "meta", "link", "base", "iframe",
      "object", "embed", "video", "audio", "source", "track", "select", "datalist", "textarea", "map", "area",
      "applet", "frame", "frameset", "noframes", "param", "slot", "dialog"
    ],
    ignored
  ],
  [["wbr"], nothing],
  [["input"], input],
  [
    [
      "html", "body", "address", "article", "aside", "center", "details", "div", "fieldset", "figure", "figcaption",
      "footer", "form", "header", "hgroup", "legend", "main", "nav", "section", "summary", "search", "p", "li",
      "caption", "tbody", "thead", "tfoot", "tr", "td", "th", "dl", "optgroup", "option"
    ],
    { block: container }
  ],
  [["h1", "h2", "h3", "h4", "h5", "h6"], { block: heading }],
  [["blockquote"], { block: blockquote }],
  [["ul", "ol", "menu", "dir"], { block: list }],
  [["pre", "listing", "xmp", "plaintext"], { block: codeBlock, inline: codeBlockInline }],
  [["hr"], { block: thematicBreak, inline: (_el, _st, buf) => buf.softSpace() }],
  [["table"], { block: table }],
  [["dt"], { block: term }],
  [["dd"], { block: definition }],
  [["a"], { inline: link }],
  [["img"], { inline: image }],
  [["br"], { inline: br }],
  [["code", "tt", "samp"], { inline: inlineCode }],
  [["b", "strong"], { inline: strong }],
  [["i", "em", "cite", "dfn"], { inline: emphasis }],
  [["del", "s", "strike"], { inline: strike }],
  [["sub", "sup", "kbd", "mark"], { inline: htmlTag }],
  [["q"], { inline: quote }]
]

/** Element name to handler. */
export const handlers: ReadonlyMap<string, Handler> = new Map(
  entries.flatMap(([names, handler]) => names.map((name) => [name, handler] as const))
)
