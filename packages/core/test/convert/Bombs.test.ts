/**
 * Decompression bombs and oversized decodes (issue 16, item 7): every decoder of the convert stage and the Fetcher is
 * bounded. Each bomb is made here, small on disk and huge once decoded, and converted or fetched in a child process
 * (`support/bombRunner.ts`) whose peak RSS is read afterwards: the answer is `CONTENT_TOO_LARGE` and the process
 * grows by less than 300 MB over its size before the call (a 400 MB docx drove a server to 5 GB and a heap OOM).
 */
import { Effect, Exit } from "effect"
import { mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import sharp from "sharp"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as Convert from "../../src/Convert.js"
import { analyze } from "../../src/internal/images/analysis.js"
import { MAX_ARCHIVE_ENTRIES, MAX_PDF_PAGES } from "../../src/internal/convert/limits.js"
import { rasterDpi } from "../../src/internal/convert/pdf/ocr.js"
import { runTool } from "../../src/internal/convert/tools.js"
import * as FixtureSite from "../support/FixtureSite.js"
import * as Bombs from "./support/bombs.js"
import { type BombReport, runBombs } from "./support/bombRunner.js"

const MiB = 1024 * 1024
/** How much a refused bomb may cost the process at most. */
const MAX_GROWTH = 300 * MiB

const expectRefused = (report: BombReport | undefined, pattern: RegExp) => {
  expect(report?.errorCode, report?.message).toBe("CONTENT_TOO_LARGE")
  expect(report?.message).toMatch(pattern)
  expect(report!.growth, `grew by ${Math.round(report!.growth / MiB)} MiB`).toBeLessThan(MAX_GROWTH)
}

describe("decompression bombs", () => {
  let dir: string
  const file = (name: string, bytes: Uint8Array) => {
    const path = join(dir, name)
    writeFileSync(path, bytes)
    return path
  }
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "sift-bombs-"))
  })
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true })
  })

  it("Office archives whose XML inflates to 320 MB are refused, whether their sizes are declared or hidden", async () => {
    const jobs = [
      { kind: "parse", file: file("honest.docx", await Bombs.officeBomb("docx", 320 * MiB, "honest")), filename: "honest.docx" },
      { kind: "parse", file: file("hidden.docx", await Bombs.officeBomb("docx", 320 * MiB, "tiny")), filename: "hidden.docx" },
      { kind: "parse", file: file("hidden.xlsx", await Bombs.officeBomb("xlsx", 320 * MiB, "tiny")), filename: "hidden.xlsx" },
      { kind: "parse", file: file("hidden.pptx", await Bombs.officeBomb("pptx", 320 * MiB, "tiny")), filename: "hidden.pptx" },
      { kind: "parse", file: file("many.docx", Bombs.manyEntries(MAX_ARCHIVE_ENTRIES + 1)), filename: "many.docx" }
    ] as const
    for (const job of jobs.slice(0, 4)) expect(statSync(job.file).size).toBeLessThan(400 * 1024)
    const [honest, docx, xlsx, pptx, many] = await runBombs(jobs)
    // Declared sizes refuse the file before anything is inflated; hidden ones once inflating passes the cap.
    expectRefused(honest, /docx file's XML declares more than 16 MiB/)
    expectRefused(docx, /docx file's XML inflates to more than 16 MiB/)
    expectRefused(xlsx, /xlsx file's XML inflates to more than 64 MiB/)
    expectRefused(pptx, /pptx file's XML inflates to more than 64 MiB/)
    expectRefused(many, new RegExp(`holds ${MAX_ARCHIVE_ENTRIES + 3} zip entries`))
  }, 180_000)

  it("a PDF whose page content inflates to 400 MB of spaces is refused before pdfjs reads it", async () => {
    const bomb = await Bombs.pdfStreamBomb(400 * MiB)
    expect(bomb.byteLength).toBeLessThan(500 * 1024)
    const [report] = await runBombs([{ kind: "parse", file: file("stream.pdf", bomb), filename: "stream.pdf" }])
    expectRefused(report, /stream of the PDF inflates to more than 16 MiB/)
  }, 180_000)

  it("PDF pages: more than the page cap needs a range, too many scanned pages are not OCRed, text is capped", async () => {
    const pages = file("pages.pdf", Bombs.pdfPages(MAX_PDF_PAGES + 1))
    const [all, range, scans, text] = await runBombs([
      { kind: "parse", file: pages, filename: "pages.pdf" },
      { kind: "parse", file: pages, filename: "pages.pdf", options: { pdfStart: 5, pdfEnd: 7 } },
      { kind: "parse", file: file("scans.pdf", Bombs.pdfPages(101, { scanned: true })), filename: "scans.pdf", options: { ocr: true } },
      { kind: "parse", file: file("text.pdf", await Bombs.pdfLongText(1_000_000, 21)), filename: "text.pdf" }
    ])
    expectRefused(all, new RegExp(`has ${MAX_PDF_PAGES + 1} pages; Sift reads at most ${MAX_PDF_PAGES} pages`))
    expect(range?.ok, range?.message).toBe(true)
    expect(range?.markdown).toBe("Page of text\n\nPage of text\n\nPage of text\n")
    // Refused before a single page is rasterised: 101 pages through tesseract would take minutes.
    expectRefused(scans, /has 101 scanned pages; Sift OCRs at most 100 pages/)
    expect(scans!.ms).toBeLessThan(20_000)
    expectRefused(text, /text passes 20000000 characters by page 21/)
  }, 180_000)

  it("a PNG of 66 bytes claiming 100,000 × 100,000 pixels is refused before OCR; sharp refuses over 40 megapixels", async () => {
    const png = Bombs.hugePng(100_000, 100_000)
    const [report] = await runBombs([{ kind: "parse", file: file("huge.png", png), filename: "huge.png" }])
    expectRefused(report, /100000 × 100000 pixels; Sift reads images of at most 40 megapixels/)
    const exit = await Effect.runPromiseExit(Convert.detectAndConvert({ bytes: png, filename: "scan.png" }))
    expect(Exit.isFailure(exit) && exit.cause._tag === "Fail" && exit.cause.error.errorCode).toBe("CONTENT_TOO_LARGE")
    // Image analysis (images output, enrichment) decodes with sharp's pixel limit at the same 40 megapixels.
    expect(await analyze(png)).toBeUndefined()
    const over = await sharp({ create: { width: 8000, height: 5001, channels: 3, background: "#808080" } }).png({ compressionLevel: 1 }).toBuffer()
    expect(await analyze(over)).toBeUndefined()
    const small = await sharp({ create: { width: 64, height: 48, channels: 3, background: "#808080" } }).png().toBuffer()
    expect(await analyze(small)).toMatchObject({ width: 64, height: 48 })
  }, 60_000)

  it("scanned pages are rasterised at most at 40 megapixels, however large the page claims to be", () => {
    expect(rasterDpi(612, 792)).toBe(300)
    // 200 × 200 inches (the largest PDF page) would be 3.6 gigapixels at 300 dpi.
    const dpi = rasterDpi(14_400, 14_400)
    expect(dpi).toBeLessThan(300)
    expect((200 * dpi) ** 2).toBeLessThanOrEqual(40_000_000)
    expect((200 * (dpi + 1)) ** 2).toBeGreaterThan(40_000_000)
  })

  it("legacy Office files: an input over 25 MiB never reaches LibreOffice; a tool writing past its file cap is stopped", async () => {
    const ole = Buffer.alloc(26 * MiB)
    Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]).copy(ole)
    const exit = await Effect.runPromiseExit(Convert.convert({ bytes: ole, filename: "big.doc" }, "doc"))
    expect(Exit.isFailure(exit) && exit.cause._tag === "Fail" && exit.cause.error.errorCode).toBe("CONTENT_TOO_LARGE")
    // The same file-size limit LibreOffice runs under (prlimit --fsize), on a tool that writes 8 MiB.
    const out = join(dir, "written.bin")
    const failure = await runTool("dd", ["if=/dev/zero", `of=${out}`, "bs=1M", "count=8"], { maxFileBytes: MiB }).then(() => undefined, (error) => error)
    expect(failure?.errorCode, String(failure)).toBe("CONTENT_TOO_LARGE")
    expect(statSync(out).size).toBeLessThanOrEqual(MiB)
  }, 60_000)

  it("gzip, br and deflate bodies that decode to 512 MB to 1 GB are cut off at the 20 MB cap", async () => {
    const site = await FixtureSite.start({
      "/gzip": FixtureSite.html(await Bombs.encodedBody("gzip", 512 * MiB), { headers: { "content-encoding": "gzip" } }),
      "/br": FixtureSite.html(await Bombs.encodedBody("br", 1024 * MiB), { headers: { "content-encoding": "br" } }),
      "/deflate": FixtureSite.html(await Bombs.encodedBody("deflate", 512 * MiB), { headers: { "content-encoding": "deflate" } })
    })
    try {
      const reports = await runBombs(["/gzip", "/br", "/deflate"].map((path) => ({ kind: "fetch", url: `${site.url}${path}` })))
      for (const report of reports) expectRefused(report, /exceeds the 20 MB download cap/)
    } finally {
      await site.close()
    }
  }, 180_000)
})
