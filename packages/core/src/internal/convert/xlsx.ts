/**
 * Excel (.xlsx) → one table per sheet under the sheet's name as a heading, read by exceljs. Cells show what a person
 * sees: formulas their cached result, dates and numbers through the cell's number format, rich text as text, links as
 * links. Empty leading and trailing rows and columns are trimmed; hidden sheets are skipped.
 */
// exceljs (and its zip and CSV libraries, ~7 MB of heap) is loaded at the first spreadsheet, not at start.
import type ExcelJS from "exceljs"
import type { Element, ElementContent, Root } from "hast"
import { ContentError } from "../../Errors.js"
import { checkArchive } from "./archive.js"
import { formatDate, formatNumber, formatText } from "./cellFormat.js"
import { documentTree, h, table } from "./hast.js"

type CellValue = ExcelJS.CellValue

/** The text of a value as shown with the given number format. */
export const displayValue = (value: CellValue, format: string | undefined): string => {
  if (value === null || value === undefined) return ""
  if (value instanceof Date) return formatDate(value, format)
  if (typeof value === "number") return formatNumber(value, format)
  if (typeof value === "boolean") return value ? "TRUE" : "FALSE"
  if (typeof value === "string") return formatText(value, format)
  if ("richText" in value) return value.richText.map((part) => part.text).join("")
  if ("error" in value) return String(value.error)
  if ("hyperlink" in value) return displayValue(value.text as CellValue, format)
  if ("formula" in value || "sharedFormula" in value) {
    const result = (value as { result?: unknown }).result
    if (result === undefined || result === null) return ""
    if (typeof result === "object" && result !== null && "error" in result) return String((result as { error: unknown }).error)
    return displayValue(result as CellValue, format)
  }
  return ""
}

const cellContent = (cell: ExcelJS.Cell): string | Array<ElementContent> => {
  const text = displayValue(cell.value, cell.numFmt).replace(/\s+/g, " ").trim()
  const value = cell.value
  if (typeof value === "object" && value !== null && "hyperlink" in value && /^(?:https?:|mailto:)/i.test(value.hyperlink)) {
    return [h("a", { href: value.hyperlink }, [text])]
  }
  return text
}

const sheetTable = (sheet: ExcelJS.Worksheet): Element | undefined => {
  const grid: Array<Array<string | Array<ElementContent>>> = []
  sheet.eachRow({ includeEmpty: true }, (row, rowNumber) => {
    const cells: Array<string | Array<ElementContent>> = []
    row.eachCell({ includeEmpty: true }, (cell, column) => {
      // Only the top-left cell of a merged range carries the value; the others repeat it in exceljs.
      cells[column - 1] = cell.isMerged && cell.master !== cell ? "" : cellContent(cell)
    })
    grid[rowNumber - 1] = cells
  })
  const empty = (value: string | Array<ElementContent> | undefined) => value === undefined || value === ""
  const rows = Array.from(grid, (row) => row ?? [])
  while (rows.length > 0 && rows[rows.length - 1]!.every(empty)) rows.pop()
  while (rows.length > 0 && rows[0]!.every(empty)) rows.shift()
  if (rows.length === 0) return undefined
  const width = Math.max(...rows.map((row) => row.length))
  let first = 0
  while (first < width && rows.every((row) => empty(row[first]))) first++
  let last = width
  while (last > first && rows.every((row) => empty(row[last - 1]))) last--
  return table(rows.map((row) => Array.from({ length: last - first }, (_, i) => row[first + i] ?? "")))
}

/** Converts a workbook; a file exceljs cannot open is `Corrupt`, one that inflates past the caps `TooLarge`. */
export const convertXlsx = async (bytes: Uint8Array): Promise<Root> => {
  await checkArchive(bytes, "xlsx")
  const { default: excel } = await import("exceljs")
  const workbook = new excel.Workbook()
  try {
    await workbook.xlsx.load(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength) as unknown as ExcelJS.Buffer)
  } catch (error) {
    throw new ContentError({ reason: "Corrupt", detail: `The spreadsheet cannot be read: ${(error as Error).message}` })
  }
  const body: Array<Element> = []
  for (const sheet of workbook.worksheets) {
    if (sheet.state !== "visible") continue
    const content = sheetTable(sheet)
    body.push(h("h2", {}, [sheet.name]))
    if (content !== undefined) body.push(content)
  }
  const title = workbook.title === "" ? undefined : workbook.title
  return documentTree(title, body)
}
