/**
 * Office fixtures written by the well-kept writers people's tools use: `docx` (Word), `exceljs` (Excel) and
 * `pptxgenjs` (PowerPoint), plus a semicolon CSV in windows-1252 as a European spreadsheet exports it.
 */
import {
  AlignmentType,
  Document,
  ExternalHyperlink,
  HeadingLevel,
  ImageRun,
  LevelFormat,
  Packer,
  Paragraph,
  SectionType,
  Table,
  TableCell,
  TableRow,
  TextRun
} from "docx"
import ExcelJS from "exceljs"
import PptxGenModule from "pptxgenjs"

// The package is CommonJS typed as an ES default export: at run time the default import is the class itself.
const PptxGenJS = ((PptxGenModule as unknown as { default?: unknown }).default ?? PptxGenModule) as typeof PptxGenModule.default

/** A 2×2 PNG (red, green, blue, white), small enough to inline. */
export const tinyPng = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAIAAAD91JpzAAAAFklEQVR4nGP4z8DAwMDAxMDAwMDAAAANHQEDasKb6QAAAABJRU5ErkJggg==",
  "base64"
)

const cell = (text: string) => new TableCell({ children: [new Paragraph(text)] })

/** A Word report: title, headings, a bulleted and a numbered list, a table, a link and an image. */
export const docx = async (): Promise<Uint8Array> => {
  const doc = new Document({
    title: "Ferry timetable",
    numbering: {
      config: [{
        reference: "steps",
        levels: [{ level: 0, format: LevelFormat.DECIMAL, text: "%1.", alignment: AlignmentType.START }]
      }]
    },
    sections: [{
      children: [
        new Paragraph({ text: "Ferry timetable", heading: HeadingLevel.HEADING_1 }),
        new Paragraph({ children: [new TextRun("Ferries leave the "), new TextRun({ text: "north pier", bold: true }), new TextRun(" every hour.")] }),
        new Paragraph({ text: "Routes", heading: HeadingLevel.HEADING_2 }),
        new Paragraph({ text: "Harbour to Island", bullet: { level: 0 } }),
        new Paragraph({ text: "Island to Lighthouse", bullet: { level: 0 } }),
        new Table({
          rows: [
            new TableRow({ children: ["Route", "First", "Last", "Fare"].map(cell) }),
            new TableRow({ children: ["Harbour to Island", "07:00", "22:00", "€4.50"].map(cell) }),
            new TableRow({ children: ["Island to Lighthouse", "08:15", "19:45", "€3.00"].map(cell) })
          ]
        }),
        new Paragraph({ text: "Boarding", heading: HeadingLevel.HEADING_2 }),
        new Paragraph({ text: "Buy a ticket at the kiosk.", numbering: { reference: "steps", level: 0 } }),
        new Paragraph({ text: "Show it to the crew.", numbering: { reference: "steps", level: 0 } }),
        new Paragraph({
          children: [
            new TextRun("Timetables change in winter; see "),
            new ExternalHyperlink({ link: "https://ferries.example/winter", children: [new TextRun({ text: "the winter timetable", style: "Hyperlink" })] }),
            new TextRun(".")
          ]
        }),
        new Paragraph({
          children: [new ImageRun({ type: "png", data: tinyPng, transformation: { width: 20, height: 20 }, altText: { name: "map", description: "Route map", title: "Route map" } })]
        })
      ]
    }]
  })
  return new Uint8Array(await Packer.toBuffer(doc))
}

/** A workbook: a sheet of dates, numbers and formulas with cached results, a summary sheet, and a hidden sheet. */
export const xlsx = async (): Promise<Uint8Array> => {
  const workbook = new ExcelJS.Workbook()
  workbook.title = "Harbour accounts"
  const tides = workbook.addWorksheet("Sailings")
  tides.columns = [14, 22, 12, 14, 12].map((width) => ({ width }))
  tides.addRow(["Date", "Route", "Passengers", "Revenue", "Load factor"])
  const rows: Array<[Date, string, number, number]> = [
    [new Date(Date.UTC(2024, 2, 1)), "Harbour to Island", 412, 1854],
    [new Date(Date.UTC(2024, 2, 2)), "Island to Lighthouse", 198, 594],
    [new Date(Date.UTC(2024, 2, 3)), "Harbour to Island", 377, 1696.5]
  ]
  rows.forEach(([date, route, passengers, revenue], i) => {
    const row = tides.addRow([date, route, passengers, revenue, { formula: `C${i + 2}/450`, result: passengers / 450 }])
    row.getCell(1).numFmt = "d-mmm-yyyy"
    row.getCell(4).numFmt = "€#,##0.00"
    row.getCell(5).numFmt = "0.0%"
  })
  const total = tides.addRow(["Total", "", { formula: "SUM(C2:C4)", result: 987 }, { formula: "SUM(D2:D4)", result: 4144.5 }])
  total.getCell(4).numFmt = "€#,##0.00"
  const summary = workbook.addWorksheet("Summary")
  summary.columns = [{ width: 22 }, { width: 20 }]
  summary.addRow(["Metric", "Value"])
  summary.addRow(["Busiest day", new Date(Date.UTC(2024, 2, 1, 14, 30))]).getCell(2).numFmt = "yyyy-mm-dd hh:mm"
  summary.addRow(["Average passengers", { formula: "AVERAGE(Sailings!C2:C4)", result: 329 }])
  summary.addRow(["Website", { text: "ferries.example", hyperlink: "https://ferries.example/" }])
  const hidden = workbook.addWorksheet("Scratch", { state: "hidden" })
  hidden.addRow(["do not show"])
  return new Uint8Array(await workbook.xlsx.writeBuffer())
}

/** A deck: a title slide, a bullet slide with speaker notes, a table slide, and a slide with a text box and a link. */
export const pptx = async (): Promise<Uint8Array> => {
  const deck = new PptxGenJS()
  deck.title = "Harbour plans"
  const title = deck.addSlide()
  title.addText("Harbour plans 2025", { x: 0.5, y: 1, w: 9, h: 1, fontSize: 36, placeholder: "title" })
  title.addText("Board meeting, 12 March", { x: 0.5, y: 2.5, w: 9, h: 0.6, fontSize: 18 })
  const bullets = deck.addSlide()
  bullets.addText("Priorities", { x: 0.5, y: 0.3, w: 9, h: 0.8, fontSize: 28 })
  bullets.addText([
    { text: "Deepen the eastern channel", options: { bullet: true } },
    { text: "Replace the pier lights", options: { bullet: true } },
    { text: "LED fittings", options: { bullet: true, indentLevel: 1 } }
  ], { x: 0.5, y: 1.5, w: 9, h: 2 })
  bullets.addNotes("Mention the dredging contract is signed.")
  const table = deck.addSlide()
  table.addText("Budget", { x: 0.5, y: 0.3, w: 9, h: 0.8, fontSize: 28 })
  table.addTable([
    [{ text: "Item" }, { text: "Cost" }],
    [{ text: "Dredging" }, { text: "€1.2m" }],
    [{ text: "Lights" }, { text: "€85k" }]
  ], { x: 0.5, y: 1.5, w: 6 })
  const closing = deck.addSlide()
  closing.addText([{ text: "Questions: ", options: {} }, { text: "harbour.example", options: { hyperlink: { url: "https://harbour.example/" } } }], { x: 0.5, y: 2, w: 9, h: 1 })
  const data = await deck.write({ outputType: "nodebuffer" }) as Buffer
  return new Uint8Array(data)
}

/** A semicolon-separated CSV in windows-1252 (é, è, û and € as single bytes), with a quoted field holding a `;`. */
export const csv1252 = (): Uint8Array => {
  const text = "Produit;Prix;Note\r\nCafé crème;2,50 €;\"Très bon; fort\"\r\nCrème brûlée;4,00 €;Maison\r\n"
  const special: Record<string, number> = { "é": 0xe9, "è": 0xe8, "û": 0xfb, "€": 0x80 }
  return Uint8Array.from([...text].map((c) => special[c] ?? c.charCodeAt(0)))
}

/** A paragraph of the two-column survey, long enough to wrap over several lines. */
export const surveyParagraph = (n: number) =>
  `Paragraph ${n} of the survey. The harbour authority surveyed the eastern channel during the spring and found that the silt had moved north, towards the breakwater, where the current slows. Divers confirmed the depth at twelve points along the channel.`

/** A Word document whose body is set in two columns after a full-width heading and introduction. */
export const twoColumnDocx = async (paragraphs = 16): Promise<Uint8Array> => {
  const doc = new Document({
    sections: [
      {
        children: [
          new Paragraph({ text: "Channel survey", heading: HeadingLevel.HEADING_1 }),
          new Paragraph("An introduction in one column that spans the whole width of the page.")
        ]
      },
      {
        properties: { type: SectionType.CONTINUOUS, column: { space: 708, count: 2 } },
        children: Array.from({ length: paragraphs }, (_, i) => new Paragraph(surveyParagraph(i + 1)))
      }
    ]
  })
  return new Uint8Array(await Packer.toBuffer(doc))
}
