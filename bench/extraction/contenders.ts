/** The three contenders of the extraction benchmark, each turning page HTML into the plain text that is scored. */
import { existsSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"
import { Readability } from "@mozilla/readability"
import type { Element, Root } from "hast"
import { toText } from "hast-util-to-text"
import { JSDOM, VirtualConsole } from "jsdom"
import TurndownService from "turndown"
// @ts-expect-error: the plugin ships no types
import { gfm } from "turndown-plugin-gfm"
import * as Html from "../../packages/core/src/Html.js"
import * as MainContent from "../../packages/core/src/MainContent.js"
import { markdownToText } from "./score.js"

/** One extractor under test. */
export interface Contender {
  readonly name: string
  readonly label: string
  readonly notes: string
  readonly decode: (bytes: Uint8Array) => string
  readonly extract: (html: string, url: string) => string
}

const coreSrc = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "packages", "core", "src")

/** Loads our Markdown converter and charset decoder once they exist; the hast text and UTF-8 stand in until then. */
const loadPipeline = async () => {
  let toPlain: (tree: Root, url: string) => string = (tree) => toText(tree)
  let markdownNote = "text via hast-util-to-text (Markdown.ts absent)"
  if (existsSync(join(coreSrc, "Markdown.ts"))) {
    const Markdown: any = await import("../../packages/core/src/Markdown.js")
    toPlain = (tree, url) =>
      markdownToText(Markdown.fromHast(tree, { baseUrl: url, includeLinks: true, includeImages: false }))
    markdownNote = "our Markdown.fromHast"
  }
  const utf8 = new TextDecoder("utf-8")
  let decode = (bytes: Uint8Array): string => utf8.decode(bytes)
  let decodeNote = "UTF-8 decoding (Charset.ts absent)"
  if (existsSync(join(coreSrc, "Charset.ts"))) {
    const Charset: any = await import("../../packages/core/src/Charset.js")
    decode = (bytes) => {
      const decoded = Charset.decode(bytes)
      return typeof decoded === "string" ? decoded : decoded.text
    }
    decodeNote = "Charset.decode"
  }
  return { toPlain, decode, notes: `${decodeNote}; ${markdownNote}` }
}

const bodyOf = (tree: Root): Root => {
  const html = tree.children.find((n): n is Element => n.type === "element" && n.tagName === "html")
  const body = html?.children.find((n): n is Element => n.type === "element" && n.tagName === "body")
  return { type: "root", children: body ? [body] : tree.children }
}

/** Ours, the Readability baseline and the whole-body floor. */
export const contenders = async (): Promise<Array<Contender>> => {
  const { toPlain, decode, notes } = await loadPipeline()
  const turndown = new TurndownService({ headingStyle: "atx", codeBlockStyle: "fenced" })
  turndown.use(gfm)
  turndown.remove(["script", "style", "noscript"])
  const quiet = new VirtualConsole()
  return [
    {
      name: "ours",
      label: "ours: parse + MainContent.extract + Markdown",
      notes,
      decode,
      extract: (html, url) => toPlain(MainContent.extract(Html.parse(html), { url }).tree, url)
    },
    {
      name: "readability",
      label: "baseline: Readability + jsdom + turndown",
      notes,
      decode,
      extract: (html, url) => {
        const dom = new JSDOM(html, { url, virtualConsole: quiet })
        const article = new Readability(dom.window.document).parse()
        dom.window.close()
        return article?.content ? markdownToText(turndown.turndown(article.content)) : ""
      }
    },
    {
      name: "body",
      label: "floor: whole body + Markdown",
      notes,
      decode,
      extract: (html, url) => toPlain(bodyOf(Html.parse(html)), url)
    }
  ]
}
