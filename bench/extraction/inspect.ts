/**
 * Error analysis for one corpus page: how chrome removal and scoring treated it, and which segments ours misses or
 * wrongly keeps.   npx tsx bench/extraction/inspect.ts 0922 [0061 ...]
 */
import { readFileSync } from "node:fs"
import { join } from "node:path"
import type { Element } from "hast"
import { toText } from "hast-util-to-text"
import * as Charset from "../../packages/core/src/Charset.js"
import * as Html from "../../packages/core/src/Html.js"
import * as MainContent from "../../packages/core/src/MainContent.js"
import { selectContent } from "../../packages/core/src/internal/mainContent/candidate.js"
import { removeChrome } from "../../packages/core/src/internal/mainContent/chrome.js"
import { measure } from "../../packages/core/src/internal/mainContent/stats.js"
import { strippedBody } from "../../packages/core/src/internal/mainContent/strip.js"
import { extractionCorpus } from "../corpus.js"
import { type EvalPage, collapse } from "./score.js"

const dir = extractionCorpus()
const pages: Array<EvalPage> = JSON.parse(readFileSync(join(dir, "evaldata.json"), "utf8"))
const name = (e: Element) =>
  `${e.tagName}${e.properties.id ? "#" + String(e.properties.id) : ""}${
    Array.isArray(e.properties.className) ? "." + e.properties.className.join(".") : ""
  }`
for (const id of process.argv.slice(2)) {
  const page = pages.find((p) => p.id === id)!
  const decoded: any = (Charset as any).decode(readFileSync(join(dir, page.file)))
  const tree = Html.parse(typeof decoded === "string" ? decoded : decoded.text)
  const body = strippedBody(tree)
  const before = measure(body).get(body)!.text
  const removed = removeChrome(body, measure(body))
  const stats = measure(body)
  const selection = selectContent(body, stats)
  const result = MainContent.extract(tree, { url: page.url })
  const text = collapse(toText(result.tree))
  console.log(`# ${id} ${page.url}\n  body ${before} chars, ${removed} chrome blocks removed, ${stats.get(body)!.text} left`)
  if (selection) {
    const path: Array<string> = []
    for (let e: Element | undefined = selection.top; e; e = selection.parents.get(e)) path.unshift(name(e))
    console.log(`  top ${path.join(" > ")} (${stats.get(selection.top)!.text} chars), ${selection.nodes.length} nodes`)
  }
  console.log(`  fallback ${result.fallback} ${result.reason ?? ""}; output ${text.length} chars`)
  for (const s of page.with) if (!text.includes(collapse(s))) console.log(`  MISS ${s}`)
  for (const s of page.without) if (text.includes(collapse(s))) console.log(`  KEPT ${s}`)
  if (process.env.SHOW) console.log(text.slice(0, Number(process.env.SHOW)))
}
