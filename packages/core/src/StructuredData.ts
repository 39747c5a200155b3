/**
 * A page's microdata and RDFa items as JSON-LD-like nodes (`{"@type": [...], name: ..., address: {...}}`), read by the
 * same walker the product readers use (bounded in elements and value length), for callers outside core that fill
 * fields from structured data (`POST /web/extract` without a model).
 *
 * @since 0.1.0
 */
import { parse } from "./Html.js"
import { markupItems } from "./internal/products/structured.js"

/** The top-level microdata and RDFa items of an HTML document, as nodes. */
export const markupNodes = (html: string): Array<Record<string, unknown>> => markupItems(parse(html)).map(({ node }) => node)
