/**
 * Main-content extraction benchmark on the `extraction-dev` corpus (trafilatura's evaluation set and metric).
 *
 * Scores, in one run and one page at a time: (a) ours, `Html.parse` → `MainContent.extract` → Markdown; (b) the
 * baseline, Mozilla Readability + jsdom + turndown; (c) the floor, the whole body → Markdown. Prints precision, recall,
 * F1, time and pages/s for each, the ours/baseline speed ratio, and the odd/even page-id split (an overfitting check).
 *
 * Flags: `--only ours,body` (skip the slow baseline), `--limit N`, `--ids 0001,0002`, `--errors FILE` (writes each
 * page's missed and wrongly kept segments for ours).
 *
 *   npx tsx bench/extraction/run.ts [--only ours] [--limit 200] [--errors bench/.data/extraction-errors.txt]
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { performance } from "node:perf_hooks"
import { extractionCorpus } from "../corpus.js"
import { type Counts, type EvalPage, add, measures, scorePage } from "./score.js"
import { type Contender, contenders } from "./contenders.js"

const argv = process.argv.slice(2)
const flag = (name: string): string | undefined => {
  const i = argv.indexOf(`--${name}`)
  return i >= 0 ? argv[i + 1] : undefined
}

const dir = extractionCorpus()
let pages: Array<EvalPage> = JSON.parse(readFileSync(join(dir, "evaldata.json"), "utf8"))
const ids = flag("ids")?.split(",")
if (ids) pages = pages.filter((p) => ids.includes(p.id))
const limit = flag("limit")
if (limit) pages = pages.slice(0, Number(limit))
const only = flag("only")?.split(",")
const errorsFile = flag("errors")

const all = await contenders()
const chosen = all.filter((c) => !only || only.includes(c.name))
const bytes = pages.map((p) => readFileSync(join(dir, p.file)))
const decodeNote = all[0]!.notes

interface Tally {
  readonly all: Counts
  readonly odd: Counts
  readonly even: Counts
  ms: number
  failures: number
}

const run = (contender: Contender): Tally => {
  const tally: Tally = {
    all: { tp: 0, fn: 0, fp: 0, tn: 0 },
    odd: { tp: 0, fn: 0, fp: 0, tn: 0 },
    even: { tp: 0, fn: 0, fp: 0, tn: 0 },
    ms: 0,
    failures: 0
  }
  const report: Array<string> = []
  pages.forEach((page, i) => {
    const html = contender.decode(bytes[i]!)
    const start = performance.now()
    let text: string | undefined
    try {
      text = contender.extract(html, page.url)
    } catch (error) {
      tally.failures++
      if (errorsFile) report.push(`## ${page.id} FAILED ${String(error)}`)
    }
    tally.ms += performance.now() - start
    const counts = scorePage(text, page)
    add(tally.all, counts)
    add(Number(page.id) % 2 === 1 ? tally.odd : tally.even, counts)
    if (errorsFile && contender.name === "ours" && (counts.fn > 0 || counts.fp > 0)) {
      const found = (s: string) => text !== undefined && text.includes(s.replace(/\s+/gu, " ").trim())
      report.push(
        `## ${page.id} ${page.url} (${text?.length ?? 0} chars)`,
        ...page.with.filter((s) => !found(s)).map((s) => `  MISS ${s}`),
        ...page.without.filter(found).map((s) => `  KEPT ${s}`)
      )
    }
  })
  if (errorsFile && contender.name === "ours") writeFileSync(errorsFile, report.join("\n") + "\n")
  return tally
}

const fmt = (n: number) => n.toFixed(3)
const results = new Map<string, Tally>()
console.log(`extraction-dev: ${pages.length} pages; ${decodeNote}`)
for (const contender of chosen) {
  const tally = run(contender)
  results.set(contender.name, tally)
  const m = measures(tally.all)
  const odd = measures(tally.odd)
  const even = measures(tally.even)
  const pps = pages.length / (tally.ms / 1000)
  console.log(
    `${contender.label.padEnd(44)} P ${fmt(m.precision)} R ${fmt(m.recall)} F1 ${fmt(m.f1)}` +
      `  | odd P ${fmt(odd.precision)} R ${fmt(odd.recall)} F1 ${fmt(odd.f1)}` +
      `  | even P ${fmt(even.precision)} R ${fmt(even.recall)} F1 ${fmt(even.f1)}` +
      `  | ${(tally.ms / 1000).toFixed(1)} s, ${pps.toFixed(1)} pages/s${tally.failures ? `, ${tally.failures} failed` : ""}`
  )
}
const ours = results.get("ours")
const baseline = results.get("readability")
if (ours && baseline) {
  console.log(`speed ours/readability: ${(baseline.ms / ours.ms).toFixed(2)}x pages/s`)
}
if (errorsFile && existsSync(errorsFile)) console.log(`errors of ours written to ${errorsFile}`)
