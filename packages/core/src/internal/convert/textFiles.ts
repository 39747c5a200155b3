/**
 * Text-like files as documents: source code and data files (JSON, YAML, XML, CSS...) fenced with their language so the
 * Markdown keeps them verbatim; subtitles (SRT) as timestamped paragraphs; RTF as its text; HTML parsed as a page.
 */
import type { Element, Root } from "hast"
import { documentTree, codeBlock, h } from "./hast.js"
import { rtfToText } from "./rtf.js"

/** The fence language of each code-like document type. */
export const fenceLanguage: Readonly<Record<string, string>> = {
  xml: "xml",
  svg: "xml",
  json: "json",
  jsonl: "jsonl",
  yaml: "yaml",
  python: "python",
  java: "java",
  javascript: "javascript",
  typescript: "typescript",
  php: "php",
  shell: "shell",
  ruby: "ruby",
  css: "css",
  scss: "scss",
  less: "less",
  stylus: "stylus",
  sass: "sass"
}

/** A code-like file in one fenced block; JSON that parses is kept as written (its layout is the author's). */
export const codeDocument = (text: string, language: string): Root =>
  documentTree(undefined, text.trim() === "" ? [] : [codeBlock(text.replace(/^\ufeff/, "").replace(/\r\n?/g, "\n").replace(/\n+$/, ""), language)])

const timestamp = /(\d{1,2}):(\d{2}):(\d{2})[,.](\d{1,3})\s*-->/

/** `[m:ss]` (or `[h:mm:ss]` past an hour) for a time in seconds. */
export const clock = (seconds: number): string => {
  const s = Math.floor(seconds)
  const hours = Math.floor(s / 3600)
  const minutes = Math.floor((s % 3600) / 60)
  const rest = String(s % 60).padStart(2, "0")
  return hours > 0 ? `[${hours}:${String(minutes).padStart(2, "0")}:${rest}]` : `[${minutes}:${rest}]`
}

/** Subtitles: one paragraph per cue, opened by its start time; markup tags inside cues are dropped. */
export const srtDocument = (text: string): Root => {
  const blocks: Array<Element> = []
  for (const cue of text.replace(/\r\n?/g, "\n").split(/\n\s*\n/)) {
    const lines = cue.split("\n").filter((line) => line.trim() !== "")
    const at = lines.findIndex((line) => timestamp.test(line))
    if (at < 0) continue
    const [, h1, m1, s1] = timestamp.exec(lines[at]!)!
    const words = lines.slice(at + 1).join(" ").replace(/<[^>]+>/g, "").replace(/\{\\[^}]*\}/g, "").trim()
    if (words !== "") blocks.push(h("p", {}, [`${clock(Number(h1) * 3600 + Number(m1) * 60 + Number(s1))} ${words}`]))
  }
  return documentTree(undefined, blocks)
}

/** RTF: its text, one paragraph per `\par`. */
export const rtfDocument = (text: string): Root =>
  documentTree(undefined, rtfToText(text).split(/\n\s*\n/).map((p) => p.trim()).filter(Boolean).map((p) =>
    h("p", {}, p.split("\n").flatMap((line, i) => i === 0 ? [line] : [h("br"), line]))))
