/**
 * A pdfjs page → runs: each text item placed in top-down page coordinates, with the link annotations laid over it
 * (a run partly under a link is split at the characters the link rectangle covers).
 */
import type { PDFPageProxy } from "pdfjs-dist/legacy/build/pdf.mjs"
import type { Run, Span } from "./model.js"

interface LinkArea {
  readonly x0: number
  readonly x1: number
  readonly y0: number
  readonly y1: number
  readonly href: string
}

interface TextItemLike {
  readonly str: string
  readonly transform: ReadonlyArray<number>
  readonly width: number
}

const isTextItem = (item: unknown): item is TextItemLike =>
  typeof item === "object" && item !== null && typeof (item as { str?: unknown }).str === "string"

/** Only links a reader can follow: web and mail addresses (not `javascript:` or in-document destinations). */
const usableHref = (url: unknown): string | undefined =>
  typeof url === "string" && /^(?:https?:|mailto:)/i.test(url) ? url : undefined

/** A link annotation as pdfjs reports it. */
export interface LinkAnnotation {
  readonly subtype?: string
  readonly url?: unknown
  readonly rect?: Array<number>
}

const linkAreas = (annotations: ReadonlyArray<LinkAnnotation>, viewport: ReturnType<PDFPageProxy["getViewport"]>): Array<LinkArea> =>
  annotations.flatMap((annotation) => {
    const href = usableHref(annotation.url)
    if (annotation.subtype !== "Link" || href === undefined || annotation.rect === undefined) return []
    const [ax, ay, bx, by] = viewport.convertToViewportRectangle(annotation.rect)
    return [{ x0: Math.min(ax!, bx!), x1: Math.max(ax!, bx!), y0: Math.min(ay!, by!), y1: Math.max(ay!, by!), href }]
  })

/** Splits a run's text by the links over it, assuming evenly wide characters (exact enough for link boundaries). */
const linkSpans = (text: string, x: number, width: number, y: number, size: number, links: ReadonlyArray<LinkArea>): Array<Span> => {
  const hits = links.filter((link) => y >= link.y0 - size * 0.3 && y - size * 0.5 <= link.y1 + size * 0.3 && link.x1 > x && link.x0 < x + width)
  if (hits.length === 0) return [{ text }]
  const perChar = width / Math.max(1, text.length)
  const hrefs: Array<string | undefined> = [...text].map((_, i) => {
    const middle = x + (i + 0.5) * perChar
    return hits.find((link) => middle >= link.x0 && middle <= link.x1)?.href
  })
  const spans: Array<Span> = []
  const chars = [...text]
  chars.forEach((char, i) => {
    const last = spans[spans.length - 1]
    if (last !== undefined && last.href === hrefs[i]) spans[spans.length - 1] = { text: last.text + char, href: last.href }
    else spans.push({ text: char, href: hrefs[i] })
  })
  return spans
}

/** The text runs of a page, in page coordinates (points, y downwards), with the page's link annotations laid over. */
export const pageRuns = async (page: PDFPageProxy, annotations: ReadonlyArray<LinkAnnotation> = []): Promise<Array<Run>> => {
  const viewport = page.getViewport({ scale: 1 })
  const content = await page.getTextContent()
  const links = linkAreas(annotations, viewport)
  const runs: Array<Run> = []
  for (const item of content.items) {
    if (!isTextItem(item) || item.str === "") continue
    const [a, b, c, d, e, f] = item.transform as [number, number, number, number, number, number]
    const size = Math.hypot(c, d) || Math.hypot(a, b)
    if (size <= 0) continue
    const [x, y] = viewport.convertToViewportPoint(e, f) as [number, number]
    const width = Math.abs(item.width)
    runs.push({ x, y, width, size, spans: links.length === 0 ? [{ text: item.str }] : linkSpans(item.str, x, width, y, size, links) })
  }
  return runs
}
