import type { Root } from "hast"
import * as Charset from "../../Charset.js"
import { ContentError } from "../../Errors.js"
import * as Html from "../../Html.js"
import type { LoadedPage } from "./page.js"

/** The kinds of content the pipeline turns into a document today; PDF and office formats join with the convert stage. */
export type DocumentKind = "html" | "text"

const htmlTypes = new Set(["text/html", "application/xhtml+xml"])
const textTypes = new Set(["text/plain", "text/markdown", "text/x-markdown"])

/** Looks at the first bytes for HTML, the way browsers sniff a response without a usable Content-Type. */
const looksLikeHtml = (body: Uint8Array): boolean => {
  const head = new TextDecoder("latin1").decode(body.subarray(0, 512)).trimStart().toLowerCase()
  return /^(?:\ufeff)?(?:<!doctype html|<html|<head|<body|<!--|<meta|<title|<div|<p[\s>])/.test(head)
}

/** Which document kind a page is, or undefined when the pipeline cannot convert it. */
export const kindOf = (page: LoadedPage): DocumentKind | undefined => {
  const type = page.contentType
  if (type !== undefined && htmlTypes.has(type)) return "html"
  if (type !== undefined && textTypes.has(type)) return "text"
  if (type === undefined || type === "application/octet-stream" || type === "text/xml") {
    return looksLikeHtml(page.body) ? "html" : type === undefined ? "text" : undefined
  }
  return undefined
}

/** Plain text shows as a browser shows it: preformatted, in an otherwise empty document. */
const textTree = (text: string): Root => ({
  type: "root",
  children: [{
    type: "element",
    tagName: "html",
    properties: {},
    children: [
      { type: "element", tagName: "head", properties: {}, children: [] },
      {
        type: "element",
        tagName: "body",
        properties: {},
        children: [{ type: "element", tagName: "pre", properties: {}, children: [{ type: "text", value: text }] }]
      }
    ]
  }]
})

/** A page turned into the pipeline's document: its kind, its hast tree and, for text, the decoded text itself. */
export interface PageDocument {
  readonly kind: DocumentKind
  readonly tree: Root
  readonly text: string
}

/** Plain text as Markdown: the text itself (as MarkItDown and browsers treat it), line endings normalised. */
export const textAsMarkdown = (text: string): string => {
  const normalised = text.replace(/^\ufeff/, "").replace(/\r\n?/g, "\n").replace(/[ \t]+$/gm, "").trim()
  return normalised === "" ? "" : normalised + "\n"
}

/** Decodes and parses a page into the hast document every filter and format works on. */
export const toDocument = (page: LoadedPage): PageDocument | ContentError => {
  const kind = kindOf(page)
  if (kind === undefined) {
    return new ContentError({
      reason: "Unsupported",
      detail: `Cannot convert content of type ${page.contentType} from ${page.url}; request only the bytes format for it`
    })
  }
  const { text } = Charset.decode(page.body, page.headers["content-type"])
  return { kind, text, tree: kind === "html" ? Html.parse(text) : textTree(text) }
}
