/**
 * The one document model of the pipeline: HTML parsed into a hast tree. Filters, main-content extraction and every
 * format read and transform this tree; nothing re-parses HTML between stages.
 *
 * @since 0.1.0
 */
import type { Root } from "hast"
import { fromHtml } from "hast-util-from-html"

/** Parses an HTML document (already decoded to a string) into a hast tree, as a browser would. */
export const parse = (html: string): Root => fromHtml(html)

/** Parses an HTML fragment (no implied html/head/body). */
export const parseFragment = (html: string): Root => fromHtml(html, { fragment: true })
