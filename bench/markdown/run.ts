/**
 * HTML → Markdown throughput over the extraction corpus, whole pages one at a time, in MB/s of HTML:
 * (a) Sift's `Markdown.fromHtml` (parse included), (b) turndown 7 + turndown-plugin-gfm (the baseline),
 * (c) the unified route (rehype-parse → rehype-remark → remark-gfm → remark-stringify), (d) `Html.parse` alone (the
 * floor), plus parse5 via hast-util-from-html for comparison. Prints a table and the ratio ours/turndown (target ≥ 3).
 *
 * Also checks parser parity: the share of pages whose Markdown is identical when the tree comes from parse5 instead.
 *
 * Usage: npx tsx bench/markdown/run.ts [pageCount=200] [rounds=2]
 */
import { existsSync, readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { fromHtml as parse5Parse } from "hast-util-from-html"
import rehypeParse from "rehype-parse"
import rehypeRemark from "rehype-remark"
import remarkGfm from "remark-gfm"
import remarkStringify from "remark-stringify"
import TurndownService from "turndown"
// @ts-expect-error: the plugin ships no types
import { gfm } from "turndown-plugin-gfm"
import { unified } from "unified"
import { parse } from "../../packages/core/src/Html.js"
import { fromHast, fromHtml } from "../../packages/core/src/Markdown.js"
import { extractionCorpus } from "../corpus.js"

const pageCount = Number(process.argv[2] ?? 200)
const rounds = Number(process.argv[3] ?? 2)

const decoder: (bytes: Uint8Array) => string = await (async () => {
  const charset = new URL("../../packages/core/src/Charset.ts", import.meta.url)
  if (existsSync(charset)) {
    const module = await import(charset.href)
    if (typeof module.decode === "function") {
      return (bytes: Uint8Array) => {
        const decoded = module.decode(bytes) as string | { readonly text: string }
        return typeof decoded === "string" ? decoded : decoded.text
      }
    }
  }
  const utf8 = new TextDecoder("utf-8")
  return (bytes: Uint8Array) => utf8.decode(bytes)
})()

const dir = join(extractionCorpus(), "html")
const files = readdirSync(dir).filter((f) => f.endsWith(".html")).sort().slice(0, pageCount)
const pages = files.map((f) => decoder(readFileSync(join(dir, f))))

const turndown = new TurndownService({ headingStyle: "atx", codeBlockStyle: "fenced", bulletListMarker: "-" })
turndown.use(gfm)
const unifiedRoute = unified().use(rehypeParse).use(rehypeRemark).use(remarkGfm).use(remarkStringify)

interface Route {
  readonly name: string
  readonly run: (html: string) => unknown
}

const routes: ReadonlyArray<Route> = [
  { name: "ours: Markdown.fromHtml", run: (html) => fromHtml(html) },
  { name: "turndown + gfm", run: (html) => turndown.turndown(html) },
  { name: "unified (rehype-remark)", run: (html) => unifiedRoute.processSync(html).toString() },
  { name: "floor: Html.parse", run: (html) => parse(html) },
  { name: "parse5: hast-util-from-html", run: (html) => parse5Parse(html) }
]

// A page a route throws on is skipped for every route, so all rows measure the same bytes.
const failed = new Set<number>()
for (const route of routes) {
  pages.forEach((page, i) => {
    try {
      route.run(page)
    } catch {
      failed.add(i)
    }
  })
}
const measured = pages.filter((_, i) => !failed.has(i))
const measuredMb = measured.reduce((n, p) => n + Buffer.byteLength(p), 0) / 1e6

const best = new Map<string, number>()
for (let round = 0; round < rounds; round++) {
  for (const route of routes) {
    const start = performance.now()
    for (const page of measured) route.run(page)
    const seconds = (performance.now() - start) / 1000
    best.set(route.name, Math.max(best.get(route.name) ?? 0, measuredMb / seconds))
  }
}

console.log(`${measured.length} pages, ${measuredMb.toFixed(1)} MB of HTML (${failed.size} skipped: a route threw)`)
console.log("| route | MB/s |")
console.log("| --- | ---: |")
for (const route of routes) console.log(`| ${route.name} | ${best.get(route.name)!.toFixed(2)} |`)
const ratio = best.get(routes[0]!.name)! / best.get(routes[1]!.name)!
console.log(`\nours / turndown = ${ratio.toFixed(2)}x (target >= 3x)`)

let identical = 0
for (const page of measured) if (fromHtml(page) === fromHast(parse5Parse(page))) identical++
console.log(
  `parser parity: ${identical}/${measured.length} pages give identical Markdown from Html.parse and from parse5 ` +
    `(${(100 * identical / measured.length).toFixed(1)}%)`
)
