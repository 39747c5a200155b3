/**
 * Spreadsheet cells read as Excel shows them: a workbook written by exceljs with one cell per number format (fractions,
 * scientific notation, elapsed hours, thousands scaling, percent, dates, currency, the text section, conditional
 * sections), converted to Markdown, each row compared with what Excel displays for that value and format.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import ExcelJS from "exceljs"
import * as ParseDocument from "../../src/ParseDocument.js"

// [value, format code, what Excel displays]
const cells: ReadonlyArray<readonly [ExcelJS.CellValue, string, string]> = [
  [1.25, "# ?/?", "1 1/4"],
  [0.3333, "# ?/?", "1/3"],
  [3.14159, "# ??/??", "3 1/7"],
  [0.75, "?/?", "3/4"],
  [2.5, "# ?/4", "2 2/4"],
  [12345.678, "0.00E+00", "1.23E+04"],
  [0.000123, "0.00E+00", "1.23E-04"],
  [1.5, "[h]:mm:ss", "36:00:00"],
  [1.0625, "[h]:mm", "25:30"],
  [1234567, "#,##0,", "1,235"],
  [1234567, "0.0,,\"M\"", "1.2M"],
  [0.256, "0.0%", "25.6%"],
  [0.5, "0%", "50%"],
  [new Date(Date.UTC(2024, 2, 1)), "d-mmm-yy", "1-Mar-24"],
  [new Date(Date.UTC(2024, 2, 1, 14, 30)), "dddd, mmmm d, yyyy h:mm AM/PM", "Friday, March 1, 2024 2:30 PM"],
  [new Date(Date.UTC(2024, 11, 31, 23, 5, 9)), "yyyy-mm-dd hh:mm:ss", "2024-12-31 23:05:09"],
  [1234.5, "\"$\"#,##0.00", "$1,234.50"],
  [-1234.5, "€#,##0.00;[Red](€#,##0.00)", "(€1,234.50)"],
  ["ABC-12", "\"Ref: \"@", "Ref: ABC-12"],
  ["plain", "@", "plain"],
  [1234567, "[>=1000000]0.0,,\"M\";[>=1000]0.0,\"K\";0", "1.2M"],
  [12345, "[>=1000000]0.0,,\"M\";[>=1000]0.0,\"K\";0", "12.3K"],
  [0, "0.00;-0.00;\"zero\"", "zero"],
  [123456789, "000-00-0000", "123-45-6789"],
  [0.1 + 0.2, "General", "0.3"],
  [4144.5, "#,##0.00", "4,144.50"]
]

const workbook = async (): Promise<Uint8Array> => {
  const book = new ExcelJS.Workbook()
  const sheet = book.addWorksheet("Formats")
  sheet.addRow(["Case", "Shown"])
  cells.forEach(([value, format], i) => {
    const row = sheet.addRow([`case ${i + 1}`, value])
    row.getCell(2).numFmt = format
  })
  return new Uint8Array(await book.xlsx.writeBuffer())
}

describe("spreadsheet number formats", () => {
  it.live("shows each cell as Excel displays it", () =>
    Effect.gen(function*() {
      const bytes = yield* Effect.promise(workbook)
      const parsed = yield* ParseDocument.parse({ bytes, filename: "formats.xlsx" })
      const shown = new Map(
        parsed.markdown.split("\n").flatMap((line) => {
          const match = /^\| (case \d+) \| (.*) \|$/.exec(line)
          return match === null ? [] : [[match[1]!, match[2]!] as const]
        })
      )
      const wrong = cells.flatMap(([value, format, excel], i) =>
        shown.get(`case ${i + 1}`) === excel ? [] : [`${format} of ${String(value)}: ${shown.get(`case ${i + 1}`)} (Excel: ${excel})`]
      )
      expect(wrong).toEqual([])
    }), 60_000)
})
