/**
 * The one document model of the pipeline: HTML parsed into a hast tree. Filters, main-content extraction and every
 * format read and transform this tree; nothing re-parses HTML between stages.
 *
 * The tree is built by Sift's own builder over htmlparser2's tokenizer (several times faster than parse5), applying
 * the tree-construction repairs that change content: implied html/head/body, `<p>` closed by blocks, implied list
 * item and cell ends, table repair with foster parenting, void and raw-text elements, entities. Nodes carry no
 * source positions.
 *
 * Depth is bounded as Chromium bounds it: no element is deeper than {@link maxDepth} (512); markup nested deeper is
 * kept, as siblings at that depth, so every walk over a parsed tree has a known bound and building stays linear. Trees
 * built elsewhere (a parse5 tree, hand-made hast) carry no such bound.
 *
 * @since 0.1.0
 */
import type { Root } from "hast"
import { build, maxDepth as treeMaxDepth } from "./internal/html/treeBuilder.js"

/** Parses an HTML document (already decoded to a string) into a hast tree, as a browser would. */
export const parse = (html: string): Root => build(html, false)

/** Parses an HTML fragment (no implied html/head/body). */
export const parseFragment = (html: string): Root => build(html, true)

/** No element of a parsed tree is deeper than this (`html` is depth 1): deeper markup becomes siblings, as in Chromium. */
export const maxDepth = treeMaxDepth
