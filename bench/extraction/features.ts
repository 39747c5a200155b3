/**
 * Error analysis across the corpus: which element kinds inside our extracted content hold `without` segments (wrongly
 * kept) versus `with` segments (rightly kept). Features are tag names and class/id words; counts are segments, split
 * by odd and even page ids so a rule chosen from them can be checked for overfitting.
 *   npx tsx bench/extraction/features.ts [maxChars=300]
 */
import { readFileSync } from "node:fs"
import { join } from "node:path"
import type { Element, Root, RootContent } from "hast"
import * as Charset from "../../packages/core/src/Charset.js"
import * as Html from "../../packages/core/src/Html.js"
import * as MainContent from "../../packages/core/src/MainContent.js"
import { extractionCorpus } from "../corpus.js"
import { type EvalPage, collapse } from "./score.js"

const maxChars = Number(process.argv[2] ?? 300)
const dir = extractionCorpus()
const pages: Array<EvalPage> = JSON.parse(readFileSync(join(dir, "evaldata.json"), "utf8"))
const table = new Map<string, [number, number, number, number]>() // with odd, with even, without odd, without even
const textOf = (n: Root | RootContent): string =>
  n.type === "text" ? n.value : "children" in n ? n.children.map(textOf).join("") : ""
const features = (e: Element): Array<string> => {
  const out = [e.tagName]
  const cls = Array.isArray(e.properties.className) ? e.properties.className.map(String) : []
  if (typeof e.properties.id === "string") cls.push(e.properties.id)
  for (const c of cls) for (const w of c.replace(/([a-z])([A-Z])/gu, "$1 $2").toLowerCase().split(/[^a-z0-9]+/u)) if (w) out.push("." + w)
  return [...new Set(out)]
}
for (const page of pages) {
  const decoded: any = (Charset as any).decode(readFileSync(join(dir, page.file)))
  const tree = MainContent.extract(Html.parse(decoded.text ?? decoded)).tree
  const odd = Number(page.id) % 2 === 1
  const walk = (n: Root | RootContent) => {
    if (n.type === "element") {
      const text = collapse(textOf(n))
      if (text.length > 0 && text.length <= maxChars) {
        const w = page.with.filter((s) => text.includes(collapse(s))).length
        const wo = page.without.filter((s) => text.includes(collapse(s))).length
        if (w + wo > 0) {
          for (const f of features(n)) {
            const row = table.get(f) ?? [0, 0, 0, 0]
            row[odd ? 0 : 1] += w
            row[odd ? 2 : 3] += wo
            table.set(f, row)
          }
        }
      }
    }
    if ("children" in n) n.children.forEach(walk)
  }
  walk(tree)
}
const rows = [...table.entries()].filter(([, r]) => r[2] + r[3] >= 4).sort((a, b) => (b[1][2] + b[1][3] - b[1][0] - b[1][1]) - (a[1][2] + a[1][3] - a[1][0] - a[1][1]))
console.log("feature            with(odd/even)  without(odd/even)")
for (const [f, r] of rows.slice(0, 60)) console.log(`${f.padEnd(18)} ${String(r[0]).padStart(4)}/${String(r[1]).padEnd(4)}    ${String(r[2]).padStart(4)}/${r[3]}`)
