/**
 * A PDF → the hast document: pdfjs (legacy build, which runs on Node 20) reads each page's text layer; pages without
 * text but with images are scans, recognised with OCR when allowed; every page's runs go through the same layout
 * (lines, columns, tables, blocks). Running headers, footers and page numbers are dropped. What a PDF may decode into is
 * bounded before and while pdfjs reads it: Flate streams (`streams.ts`), image pixels, pages read, text taken and
 * pages OCRed (`../limits.ts`).
 */
import type { Element, Root } from "hast"
import { createRequire } from "node:module"
import { dirname, join } from "node:path"
import { pathToFileURL } from "node:url"
import type { PDFDocumentProxy, PDFPageProxy } from "pdfjs-dist/legacy/build/pdf.mjs"
import { ContentError, InvalidRequest } from "../../../Errors.js"
import { documentTree } from "../hast.js"
import { MAX_IMAGE_PIXELS, MAX_OCR_PAGES, MAX_PDF_PAGES, MAX_PDF_TEXT_CHARS, tooLarge } from "../limits.js"
import { appendAcrossSeam, blocksOfPage } from "./page.js"
import { type Line, lineText } from "./model.js"
import { toLines } from "./lines.js"
import { ocrPdfPages } from "./ocr.js"
import { pdfjs } from "./pdfjs.js"
import { checkStreams } from "./streams.js"
import { type LinkAnnotation, pageRuns } from "./textRuns.js"
import { typographyOf } from "./blocks.js"

/** What the caller controls: the inclusive 1-based page range and whether scans may be OCRed. */
export interface PdfOptions {
  readonly startPage?: number | undefined
  readonly endPage?: number | undefined
  readonly ocr?: boolean | undefined
  readonly signal?: AbortSignal | undefined
}

/** The converted document and how many pages needed OCR (each is charged). */
export interface PdfDocument {
  readonly tree: Root
  readonly pageCount: number
  readonly ocrPages: number
}

const pdfjsRoot = dirname(createRequire(import.meta.url).resolve("pdfjs-dist/package.json"))
// pdfjs reads these from the file system on Node (a trailing slash is required), only when a document needs them:
// CMaps for CJK text, wasm decoders for JPEG 2000 and JBIG2 images. The standard 14 fonts' glyph data is left out on
// purpose: text extraction needs only their metrics, which pdfjs has built in, and loading the data slows every page.
const assets = {
  cMapUrl: join(pdfjsRoot, "cmaps") + "/",
  cMapPacked: true,
  wasmUrl: pathToFileURL(join(pdfjsRoot, "wasm")).href + "/"
}

const hasImages = async (page: PDFPageProxy): Promise<boolean> => {
  const { OPS } = await pdfjs()
  const imageOps = new Set<number>([OPS.paintImageXObject, OPS.paintInlineImageXObject, OPS.paintImageMaskXObject, OPS.paintImageXObjectRepeat, OPS.paintInlineImageXObjectGroup])
  return (await page.getOperatorList()).fnArray.some((op) => imageOps.has(op))
}

const open = async (bytes: Uint8Array): Promise<PDFDocumentProxy> => {
  try {
    // pdfjs takes ownership of (and detaches) the buffer it is given, so it gets a copy.
    const { getDocument } = await pdfjs()
    // maxImageSize: pdfjs skips an image declaring more pixels instead of decoding it.
    return await getDocument({
      data: new Uint8Array(bytes),
      verbosity: 0,
      isEvalSupported: false,
      useSystemFonts: false,
      maxImageSize: MAX_IMAGE_PIXELS,
      ...assets
    }).promise
  } catch (error) {
    const name = (error as { name?: string }).name
    if (name === "PasswordException") {
      throw new ContentError({ reason: "Corrupt", detail: "The PDF is encrypted with a password; Sift cannot open it" })
    }
    throw new ContentError({ reason: "Corrupt", detail: `The PDF cannot be read: ${(error as Error).message ?? String(error)}` })
  }
}

const pageNumberLine = /^(?:page\s*)?\d{1,4}(?:\s*(?:of|\/)\s*\d{1,4})?$|^[-–—]\s*\d{1,4}\s*[-–—]$/i

/** Drops page numbers and running headers/footers: lines in the outer bands that repeat across pages. */
const dropFurniture = (pages: ReadonlyArray<{ lines: Array<Line>; height: number }>): void => {
  const edge = (line: Line, height: number) => line.y < height * 0.1 || line.y > height * 0.9
  const shape = (line: Line) => lineText(line).replace(/\d+/g, "#").trim().toLowerCase()
  const counts = new Map<string, number>()
  for (const page of pages) {
    for (const key of new Set(page.lines.filter((line) => edge(line, page.height)).map(shape))) counts.set(key, (counts.get(key) ?? 0) + 1)
  }
  const repeated = (line: Line) => pages.length >= 3 && (counts.get(shape(line)) ?? 0) >= Math.max(3, pages.length * 0.6)
  for (const page of pages) {
    page.lines = page.lines.filter((line, i) => {
      const outer = i === 0 || i === page.lines.length - 1
      if (!edge(line, page.height)) return true
      return !(repeated(line) || (outer && pageNumberLine.test(lineText(line).trim())))
    })
  }
}

const checkRange = (options: PdfOptions, count: number): [number, number] => {
  const start = options.startPage ?? 1
  const end = Math.min(options.endPage ?? count, count)
  if (start > count) {
    throw new InvalidRequest({ reason: "Invalid", field: "pdf.start", detail: `The PDF has ${count} page${count === 1 ? "" : "s"}; start page ${start} is past its end` })
  }
  if (end < start) throw new InvalidRequest({ reason: "Invalid", field: "pdf.end", detail: "must not be before the start page" })
  if (end - start + 1 > MAX_PDF_PAGES) {
    throw tooLarge(`The PDF has ${count} pages; Sift reads at most ${MAX_PDF_PAGES} pages of a PDF per request: ask for a page range (pdf start and end)`)
  }
  return [start, end]
}

/**
 * Link annotations of the pages in range, by page index, in one call: `getAnnotations` per page would also extract
 * the text under every link (pdfjs's `overlaidText`), a second text pass that costs as much as the page itself.
 */
const linksByPage = async (pdf: PDFDocumentProxy, start: number, end: number): Promise<Map<number, Array<LinkAnnotation>>> => {
  const skip = new Set<number>()
  for (let i = 0; i < pdf.numPages; i++) if (i < start - 1 || i > end - 1) skip.add(i)
  const { AnnotationType } = await pdfjs()
  const found = await pdf.getAnnotationsByType(new Set([AnnotationType.LINK]), skip).catch(() => []) as Array<LinkAnnotation & { pageIndex?: number }>
  const out = new Map<number, Array<LinkAnnotation>>()
  for (const annotation of found ?? []) {
    if (annotation === null || annotation.pageIndex === undefined) continue
    out.set(annotation.pageIndex, [...(out.get(annotation.pageIndex) ?? []), annotation])
  }
  return out
}

/** Converts a PDF; rejects with `ContentError` (corrupt, encrypted, images only) or `InvalidRequest` (page range). */
export const convertPdf = async (bytes: Uint8Array, options: PdfOptions = {}): Promise<PdfDocument> => {
  checkStreams(bytes)
  const pdf = await open(bytes)
  try {
    const [start, end] = checkRange(options, pdf.numPages)
    const pages: Array<{ number: number; lines: Array<Line>; width: number; height: number }> = []
    const scans: Array<number> = []
    const links = await linksByPage(pdf, start, end)
    let characters = 0
    for (let number = start; number <= end; number++) {
      options.signal?.throwIfAborted()
      const page = await pdf.getPage(number)
      const runs = await pageRuns(page, links.get(number - 1))
      for (const run of runs) for (const span of run.spans) characters += span.text.length
      if (characters > MAX_PDF_TEXT_CHARS) {
        throw tooLarge(`The PDF's text passes ${MAX_PDF_TEXT_CHARS} characters by page ${number}; Sift takes at most that much text from one PDF: ask for a page range`)
      }
      const lines = toLines(runs)
      if (lines.length === 0 && await hasImages(page)) scans.push(number)
      const viewport = page.getViewport({ scale: 1 })
      pages.push({ number, lines, width: viewport.width, height: viewport.height })

    }
    const textPages = pages.filter((page) => page.lines.length > 0).length
    if (scans.length > 0 && textPages === 0 && options.ocr !== true) {
      throw new ContentError({
        reason: "PdfImagesOnly",
        detail: `The PDF is scanned: ${scans.length === 1 ? "its page is an image" : `its ${scans.length} pages are images`} without a text layer; retry with OCR enabled`
      })
    }
    let ocrPages = 0
    if (scans.length > 0 && options.ocr === true) {
      if (scans.length > MAX_OCR_PAGES) {
        throw tooLarge(`The PDF has ${scans.length} scanned pages; Sift OCRs at most ${MAX_OCR_PAGES} pages per request: ask for a page range`)
      }
      const recognised = await ocrPdfPages(bytes, pages.filter((page) => scans.includes(page.number)), options.signal)
      for (const page of pages) {
        const runs = recognised.get(page.number)
        if (runs === undefined) continue
        page.lines = toLines(runs)
        if (page.lines.length > 0) ocrPages++
      }
    }
    dropFurniture(pages)
    const typography = typographyOf(pages.flatMap((page) => page.lines))
    const body: Array<Element> = []
    for (const page of pages) appendAcrossSeam(body, blocksOfPage(page.lines, typography))
    const info = (await pdf.getMetadata().catch(() => undefined))?.info as { Title?: unknown } | undefined
    const title = typeof info?.Title === "string" ? info.Title : undefined
    return { tree: documentTree(title, body), pageCount: pdf.numPages, ocrPages }
  } finally {
    await pdf.destroy()
  }
}

