/**
 * PDF → Markdown throughput and table fidelity.
 *
 * Speed: pages per second through Sift (pdfjs text layer → lines, columns, tables, blocks → hast → Markdown) against
 * bare pdfjs `getTextContent` over every page of the same file, measured in the same run, rounds interleaved; the
 * ratio Sift/bare is the figure (target ≥ 0.5 while adding structure and tables). Two files: a 30-page report written
 * with pdf-lib (positioned runs, as report generators write them) and, when LibreOffice is installed, a document
 * LibreOffice typeset from Word (embedded fonts, word-level runs, real table layout).
 *
 * Tables: cell accuracy on the fixture tables = cells whose text equals the source cell at the same row and column,
 * over all source cells (a table that is not found scores 0 for its cells).
 *
 * Usage: npx tsx bench/documents/run.ts [rounds=5]
 */
import { execFileSync, spawnSync } from "node:child_process"
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { PDFDocument } from "pdf-lib"
import { getDocument } from "pdfjs-dist/legacy/build/pdf.mjs"
import type { Element, Root } from "hast"
import { convertPdf } from "../../packages/core/src/internal/convert/pdf/document.js"
import * as Markdown from "../../packages/core/src/Markdown.js"
import * as Office from "../../packages/core/test/convert/support/officeFixtures.js"
import * as Pdf from "../../packages/core/test/convert/support/pdfFixtures.js"

const rounds = Number(process.argv[2] ?? 5)

const repeated = async (source: Uint8Array, times: number): Promise<Uint8Array> => {
  const src = await PDFDocument.load(source)
  const out = await PDFDocument.create()
  for (let i = 0; i < times; i++) {
    for (const page of await out.copyPages(src, src.getPageIndices())) out.addPage(page)
  }
  return out.save()
}

const hasSoffice = spawnSync("soffice", ["--version"], { stdio: "ignore" }).status === 0
const scratch = mkdtempSync(join(tmpdir(), "bench-documents-"))
const viaLibreOffice = (name: string, bytes: Uint8Array): Uint8Array | undefined => {
  if (!hasSoffice) return undefined
  writeFileSync(join(scratch, name), bytes)
  execFileSync("soffice", [`-env:UserInstallation=file://${join(scratch, "profile")}`, "--headless", "--convert-to", "pdf", "--outdir", scratch, join(scratch, name)], { stdio: "ignore" })
  return new Uint8Array(readFileSync(join(scratch, name.replace(/\.\w+$/, ".pdf"))))
}

// Fixtures: the report (its table known cell by cell), and LibreOffice typesetting of the Word and Excel fixtures.
const report = await Pdf.report()
const longReport = await repeated(report, 10)
const docxPdf = viaLibreOffice("ferry.docx", await Office.docx())
const xlsxPdf = viaLibreOffice("accounts.xlsx", await Office.xlsx())
const longDocx = docxPdf === undefined ? undefined : await repeated(docxPdf, 30)

const bare = async (bytes: Uint8Array): Promise<number> => {
  const pdf = await getDocument({ data: new Uint8Array(bytes), verbosity: 0 }).promise
  let items = 0
  for (let n = 1; n <= pdf.numPages; n++) {
    const page = await pdf.getPage(n)
    items += (await page.getTextContent()).items.length
    page.cleanup()
  }
  const pages = pdf.numPages
  await pdf.destroy()
  return items > 0 ? pages : 0
}

const sift = async (bytes: Uint8Array): Promise<number> => {
  const doc = await convertPdf(bytes)
  return Markdown.fromHast(doc.tree).length > 0 ? doc.pageCount : 0
}

const time = async (run: (bytes: Uint8Array) => Promise<number>, bytes: Uint8Array): Promise<number> => {
  const start = performance.now()
  const pages = await run(bytes)
  return pages / ((performance.now() - start) / 1000)
}

const median = (xs: ReadonlyArray<number>) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!

const speed = async (name: string, bytes: Uint8Array) => {
  await bare(bytes)
  await sift(bytes) // warm-up: module init, font metrics
  const ours: Array<number> = []
  const base: Array<number> = []
  for (let r = 0; r < rounds; r++) {
    base.push(await time(bare, bytes))
    ours.push(await time(sift, bytes))
  }
  const o = median(ours)
  const b = median(base)
  console.log(`${name.padEnd(34)} bare pdfjs ${b.toFixed(1).padStart(7)} p/s   sift ${o.toFixed(1).padStart(7)} p/s   ratio ${(o / b).toFixed(2)}`)
  return o / b
}

const tablesOf = (tree: Root): Array<Array<Array<string>>> => {
  const out: Array<Array<Array<string>>> = []
  const text = (node: Element | Root): string =>
    node.children.map((c) => c.type === "text" ? c.value : c.type === "element" ? text(c) : "").join("")
  const visit = (node: Element | Root) => {
    for (const child of node.children) {
      if (child.type !== "element") continue
      if (child.tagName === "table") {
        const rows: Array<Array<string>> = []
        const walk = (el: Element) => {
          for (const c of el.children) {
            if (c.type !== "element") continue
            if (c.tagName === "tr") rows.push(c.children.flatMap((cell) => cell.type === "element" ? [text(cell).replace(/\s+/g, " ").trim()] : []))
            else walk(c)
          }
        }
        walk(child)
        out.push(rows)
      } else visit(child)
    }
  }
  visit(tree)
  return out
}

/** Matched cells of the best-matching extracted table, and the number of source cells. */
const cellScore = (expected: ReadonlyArray<ReadonlyArray<string>>, found: ReadonlyArray<ReadonlyArray<ReadonlyArray<string>>>) => {
  const total = expected.reduce((n, row) => n + row.length, 0)
  let best = 0
  for (const table of found) {
    let hits = 0
    expected.forEach((row, r) => row.forEach((cell, c) => { if (table[r]?.[c] === cell) hits++ }))
    best = Math.max(best, hits)
  }
  return { hits: best, total }
}

console.log(`PDF speed (median of ${rounds} rounds, pages per second)`)
const ratios = [await speed("pdf-lib report, 30 pages", longReport)]
if (longDocx !== undefined) ratios.push(await speed("LibreOffice from Word, 30 pages", longDocx))
console.log(`lowest ratio sift/bare: ${Math.min(...ratios).toFixed(2)} (target ≥ 0.5)\n`)

const cases: Array<{ name: string; pdf: Uint8Array | undefined; expected: ReadonlyArray<ReadonlyArray<string>> }> = [
  { name: "report table (pdf-lib)", pdf: report, expected: Pdf.reportTable },
  {
    name: "ferry table (LibreOffice from Word)",
    pdf: docxPdf,
    expected: [["Route", "First", "Last", "Fare"], ["Harbour to Island", "07:00", "22:00", "€4.50"], ["Island to Lighthouse", "08:15", "19:45", "€3.00"]]
  },
  {
    name: "sailings sheet (LibreOffice from Excel)",
    pdf: xlsxPdf,
    expected: [
      ["Date", "Route", "Passengers", "Revenue", "Load factor"],
      ["1-Mar-2024", "Harbour to Island", "412", "€1,854.00", "91.6%"],
      ["2-Mar-2024", "Island to Lighthouse", "198", "€594.00", "44.0%"],
      ["3-Mar-2024", "Harbour to Island", "377", "€1,696.50", "83.8%"]
    ]
  }
]
console.log("Table cell accuracy")
let hits = 0
let total = 0
for (const c of cases) {
  if (c.pdf === undefined) {
    console.log(`${c.name.padEnd(40)} skipped (LibreOffice not installed)`)
    continue
  }
  const score = cellScore(c.expected, tablesOf((await convertPdf(c.pdf)).tree))
  hits += score.hits
  total += score.total
  console.log(`${c.name.padEnd(40)} ${score.hits}/${score.total} cells`)
}
console.log(`overall ${hits}/${total} = ${(100 * hits / Math.max(1, total)).toFixed(1)}% (a text-only PDF path such as MarkItDown's keeps 0 table cells)`)
rmSync(scratch, { recursive: true, force: true })
