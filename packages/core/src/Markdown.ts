/**
 * The Markdown format: a hast tree (or HTML) to GitHub-flavoured Markdown, written by Sift's own writer over hast.
 *
 * - Whitespace collapses as a browser would render it; blocks are separated by one blank line; the output ends with
 *   exactly one newline (an empty document gives the empty string).
 * - Links are absolute when a base is known (`baseUrl`, overridden by the tree's `<base href>`), keep their titles,
 *   and are reduced to their text when `includeLinks` is false or they have no usable target (`javascript:`, empty).
 * - Images are written only with `includeImages`; with `inlineImages: "placeholder"` (the default) a `data:` URI keeps
 *   its media type and loses its payload: `![logo](data:image/png;base64,...)`.
 * - GFM has no syntax for `sub`, `sup`, `kbd` and `mark`: they stay inline HTML tags. Emphasis that cannot parse in
 *   place (`foo<b>"bar"</b>baz`) is written as `<strong>`/`<em>`/`<del>` rather than lost.
 * - It reads back as the page meant under GFM: bare `www.`/`http(s)://` URLs and e-mail addresses in text are escaped
 *   (`www\.`, `https\://`, `\@`) so GFM does not link them, a literal `!` before a link is `\!`, a rule opening a `-`
 *   item is `***`, a lone `*` or `~` inside emphasis is escaped, and a one-column table with a header row stays a table.
 * - Definition lists: `**term**` then `: definition`.
 * - Lists, quotes and definitions nested more than 16 deep (`maxNesting`) are written flat at the 16th level.
 * - `script`, `style`, `noscript`, `template`, `svg`, `canvas`, `head` and embedded media are dropped.
 *
 * @since 0.1.0
 */
import type { Element, Root } from "hast"
import { parse } from "./Html.js"
import { flow } from "./internal/markdown/flow.js"
import { findBase, type State } from "./internal/markdown/state.js"

/** How the Markdown is written. */
export interface MarkdownOptions {
  /** Relative `href`/`src` are resolved against it (and against a `<base href>` in the tree). */
  readonly baseUrl?: string
  /** Default true; false keeps link text only. */
  readonly includeLinks?: boolean
  /** Default false; false drops images (their alt text too). */
  readonly includeImages?: boolean
  /** Default `"placeholder"`: `data:` URIs become `data:<type>,...`; `"preserve"` keeps them whole. */
  readonly inlineImages?: "placeholder" | "preserve"
}

/** Converts a hast tree (a whole document or a subtree) to GitHub-flavoured Markdown. */
export const fromHast = (tree: Root | Element, options: MarkdownOptions = {}): string => {
  const st: State = {
    options: {
      includeLinks: options.includeLinks ?? true,
      includeImages: options.includeImages ?? false,
      inlineImages: options.inlineImages ?? "placeholder"
    },
    base: findBase(tree, options.baseUrl),
    link: undefined,
    inLink: false,
    taskInput: undefined,
    inTable: false,
    strong: 0,
    emphasis: 0,
    strike: 0,
    nesting: 0
  }
  const blocks: Array<string> = []
  flow(tree.type === "root" ? tree.children as Element["children"] : [tree], st, blocks)
  return blocks.length === 0 ? "" : blocks.join("\n\n") + "\n"
}

/** Parses HTML and converts it. */
export const fromHtml = (html: string, options?: MarkdownOptions): string => fromHast(parse(html), options)
