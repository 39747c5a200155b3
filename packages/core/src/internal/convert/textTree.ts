/**
 * Plain text as a document: preformatted, in an otherwise empty page, as a browser shows a text/plain response.
 */
import type { Root } from "hast"
import { documentTree, h } from "./hast.js"

/** The document of a plain-text file. */
export const textTree = (text: string): Root => documentTree(undefined, [h("pre", {}, [text])])
