/**
 * OCR with the real `tesseract`: a PDF page is rasterised by poppler's `pdftoppm` (an image is read as it is), and
 * tesseract's TSV output (word boxes grouped in lines) becomes runs in points, so recognised text goes through the
 * same layout as a text layer: headings by size, paragraphs, columns and tables from word positions.
 */
import { mkdtemp, readdir, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { MAX_IMAGE_PIXELS } from "../limits.js"
import { runTool } from "../tools.js"
import type { Run } from "./model.js"

/** Rasterising resolution: tesseract's accuracy drops well below 300 dpi on body text. */
const DPI = 300
/** Words tesseract is less sure of than this (0 to 100) are noise such as specks and rules, not text. */
const MIN_CONFIDENCE = 30

/** Parses tesseract TSV into runs; pixel coordinates become points at `dpi`. */
export const tsvRuns = (tsv: string, dpi: number): Array<Run> => {
  const scale = 72 / dpi
  const lines = new Map<string, { top: number; bottom: number; words: Array<{ x: number; width: number; text: string }> }>()
  for (const row of tsv.split("\n").slice(1)) {
    const cols = row.split("\t")
    if (cols.length < 12 || cols[0] !== "5") continue
    const text = cols.slice(11).join("\t").trim()
    if (text === "" || Number(cols[10]) < MIN_CONFIDENCE) continue
    const [left, top, width, height] = cols.slice(6, 10).map(Number) as [number, number, number, number]
    const key = cols.slice(1, 5).join(".")
    const line = lines.get(key) ?? { top, bottom: top + height, words: [] }
    line.top = Math.min(line.top, top)
    line.bottom = Math.max(line.bottom, top + height)
    line.words.push({ x: left, width, text })
    lines.set(key, line)
  }
  const runs: Array<Run> = []
  for (const line of lines.values()) {
    // A line box spans ascenders to descenders, about 1.2 em for mixed text.
    const size = ((line.bottom - line.top) / 1.2) * scale
    for (const word of line.words) {
      runs.push({ x: word.x * scale, y: line.bottom * scale, width: word.width * scale, size, spans: [{ text: word.text }] })
    }
  }
  return runs
}

/** Recognises an image file (any format leptonica reads: PNG, JPEG, TIFF, BMP, GIF, WebP, PNM). */
export const imageRuns = async (path: string, signal?: AbortSignal, dpi = DPI): Promise<Array<Run>> => {
  const tsv = await runTool("tesseract", [path, "stdout", "--psm", "3", "--dpi", String(dpi), "tsv"], { signal })
  return tsvRuns(tsv.toString("utf8"), dpi)
}

/** A scratch folder for one conversion, removed afterwards whatever happens. */
export const withScratch = async <A>(use: (dir: string) => Promise<A>): Promise<A> => {
  const dir = await mkdtemp(join(tmpdir(), "sift-convert-"))
  try {
    return await use(dir)
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
}

/**
 * The resolution a page of `width` × `height` points is rasterised at: 300 dpi, lowered for a page so large that
 * 300 dpi would pass {@link MAX_IMAGE_PIXELS} (a page may declare 200 × 200 inches: 3.6 gigapixels at 300 dpi).
 */
export const rasterDpi = (width: number, height: number): number => {
  const squareInches = Math.max(1e-6, (width / 72) * (height / 72))
  return Math.max(1, Math.min(DPI, Math.floor(Math.sqrt(MAX_IMAGE_PIXELS / squareInches))))
}

/** Largest image pdftoppm may write: an 8-bit grey page at the pixel cap, with room for PNG's overhead. */
const MAX_RASTER_BYTES = MAX_IMAGE_PIXELS + 16 * 1024 * 1024

/** OCRs the given 1-based pages of a PDF (sizes in points), returning each page's runs in points. */
export const ocrPdfPages = (
  bytes: Uint8Array,
  pages: ReadonlyArray<{ readonly number: number; readonly width: number; readonly height: number }>,
  signal?: AbortSignal
): Promise<Map<number, Array<Run>>> =>
  withScratch(async (dir) => {
    const pdf = join(dir, "input.pdf")
    await writeFile(pdf, bytes)
    const out = new Map<number, Array<Run>>()
    for (const { number, width, height } of pages) {
      const prefix = join(dir, `page-${number}`)
      const dpi = rasterDpi(width, height)
      await runTool("pdftoppm", ["-r", String(dpi), "-gray", "-png", "-f", String(number), "-l", String(number), "-singlefile", pdf, prefix], {
        signal,
        maxFileBytes: MAX_RASTER_BYTES
      })
      const image = (await readdir(dir)).find((name) => name.startsWith(`page-${number}.`))
      out.set(number, image === undefined ? [] : await imageRuns(join(dir, image), signal, dpi))
    }
    return out
  })
