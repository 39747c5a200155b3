/**
 * PDF fixtures written with pdf-lib, the way report generators lay text out: positioned text runs, a table drawn as
 * cells on a grid, a two-column page, page numbers in the footer and a link annotation.
 */
import { PDFDocument, PDFName, PDFString, StandardFonts, type PDFFont, type PDFPage } from "pdf-lib"

/** The table on page 1 of `report()`, header first, as the golden cells. */
export const reportTable: ReadonlyArray<ReadonlyArray<string>> = [
  ["Station", "High water", "Low water", "Range (m)"],
  ["North Pier", "06:12", "12:30", "4.8"],
  ["South Quay", "06:20", "12:41", "4.6"],
  ["East Basin", "06:31", "12:55", "3.9"],
  ["Lighthouse Point", "06:05", "12:18", "5.2"]
]

const prose = [
  "The harbour authority measures the tides at four stations every morning. The readings below were taken on the",
  "first Monday of the quarter, when the spring tide was at its highest and the wind came from the south-west."
]

const leftColumn = [
  "Dredging of the eastern channel began in",
  "March and finished two weeks ahead of plan.",
  "The channel now keeps a depth of six metres",
  "at the lowest astronomical tide, which lets",
  "the larger ferries berth at any hour."
]

const rightColumn = [
  "Silt taken from the channel was moved to the",
  "reclamation site north of the breakwater.",
  "Monitoring of the water quality continues",
  "through the summer, with results published",
  "on the authority's website every month."
]

const line = (page: PDFPage, text: string, x: number, y: number, font: PDFFont, size: number) =>
  page.drawText(text, { x, y, size, font })

const footer = (page: PDFPage, n: number, font: PDFFont) => line(page, String(n), 300, 30, font, 9)

const addLink = (doc: PDFDocument, page: PDFPage, rect: [number, number, number, number], url: string) => {
  const annotation = doc.context.obj({
    Type: "Annot",
    Subtype: "Link",
    Rect: rect,
    Border: [0, 0, 0],
    A: { Type: "Action", S: "URI", URI: PDFString.of(url) }
  })
  page.node.set(PDFName.of("Annots"), doc.context.obj([doc.context.register(annotation)]))
}

/** A three-page report: title, prose, a 4×5 table, a bullet list and a link; a two-column page; a numbered list. */
export const report = async (): Promise<Uint8Array> => {
  const doc = await PDFDocument.create()
  doc.setTitle("Quarterly Harbour Report")
  const regular = await doc.embedFont(StandardFonts.Helvetica)
  const bold = await doc.embedFont(StandardFonts.HelveticaBold)

  const one = doc.addPage([612, 792])
  line(one, "Quarterly Harbour Report", 72, 720, bold, 24)
  prose.forEach((text, i) => line(one, text, 72, 680 - i * 14, regular, 10))
  line(one, "Tide measurements", 72, 630, bold, 16)
  const columns = [72, 212, 312, 412]
  reportTable.forEach((row, r) =>
    row.forEach((cell, c) => line(one, cell, columns[c]!, 600 - r * 18, r === 0 ? bold : regular, 10)))
  line(one, "Notes", 72, 490, bold, 16)
  const bullets = ["Times are local and include summer time.", "Ranges are measured against chart datum."]
  bullets.forEach((text, i) => {
    line(one, "•", 80, 465 - i * 14, regular, 10)
    line(one, text, 92, 465 - i * 14, regular, 10)
  })
  const linkText = "Full readings are on the harbour website."
  line(one, linkText, 72, 420, regular, 10)
  const start = regular.widthOfTextAtSize("Full readings are on the ", 10)
  const width = regular.widthOfTextAtSize("harbour website", 10)
  addLink(doc, one, [72 + start, 418, 72 + start + width, 430], "https://harbour.example/readings")
  footer(one, 1, regular)

  const two = doc.addPage([612, 792])
  line(two, "Channel works", 72, 720, bold, 16)
  leftColumn.forEach((text, i) => line(two, text, 72, 690 - i * 14, regular, 10))
  rightColumn.forEach((text, i) => line(two, text, 320, 690 - i * 14, regular, 10))
  footer(two, 2, regular)

  const three = doc.addPage([612, 792])
  line(three, "Next steps", 72, 720, bold, 16)
  const steps = ["Survey the western approach.", "Replace the pier lights.", "Publish the annual tide tables."]
  steps.forEach((text, i) => line(three, `${i + 1}. ${text}`, 72, 690 - i * 14, regular, 10))
  footer(three, 3, regular)

  return doc.save({ useObjectStreams: false })
}

/** A PDF whose only page is a PNG image (a scan): no text layer at all. */
export const imageOnly = async (png: Uint8Array): Promise<Uint8Array> => {
  const doc = await PDFDocument.create()
  const image = await doc.embedPng(png)
  const page = doc.addPage([612, 792])
  page.drawImage(image, { x: 0, y: 0, width: 612, height: 792 })
  return doc.save()
}

/** A one-page PDF with the given lines of text, for quick cases. */
export const simple = async (lines: ReadonlyArray<string>, pages = 1): Promise<Uint8Array> => {
  const doc = await PDFDocument.create()
  const font = await doc.embedFont(StandardFonts.Helvetica)
  for (let p = 0; p < pages; p++) {
    const page = doc.addPage([612, 792])
    line(page, `Page ${p + 1} heading`, 72, 720, font, 18)
    lines.forEach((text, i) => line(page, text, 72, 690 - i * 14, font, 10))
  }
  return doc.save()
}
