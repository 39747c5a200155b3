/**
 * CSV and TSV → one table (first row as header), parsed by papaparse: quoted fields with embedded delimiters and line
 * breaks, and the delimiter guessed among comma, tab, semicolon and pipe when the type does not fix it. Bytes are
 * decoded by `Charset` (BOM, declared charset, else UTF-8 with a windows-1252 fallback, as spreadsheets export).
 */
import type { Root } from "hast"
import Papa from "papaparse"
import * as Charset from "../../Charset.js"
import { documentTree, h, table } from "./hast.js"

/** Parses delimited text into rows, dropping blank lines and trailing empty columns. */
export const parseRows = (text: string, delimiter?: string): Array<Array<string>> => {
  const parsed = Papa.parse<Array<string>>(text.replace(/^\ufeff/, ""), {
    delimiter: delimiter ?? "",
    delimitersToGuess: [",", "\t", ";", "|"],
    skipEmptyLines: "greedy"
  })
  const rows = parsed.data.map((row) => row.map((cell) => cell.trim()))
  let width = 0
  for (const row of rows) {
    let last = row.length
    while (last > 0 && row[last - 1] === "") last--
    width = Math.max(width, last)
  }
  return rows.map((row) => Array.from({ length: width }, (_, i) => row[i] ?? ""))
}

/** Converts CSV (`tsv` fixes the tab delimiter) into a document holding one table. */
export const convertCsv = (bytes: Uint8Array, contentType: string | undefined, tsv: boolean): Root => {
  const { text } = Charset.decode(bytes, contentType)
  const rows = parseRows(text, tsv ? "\t" : undefined)
  if (rows.length === 0) return documentTree(undefined, [])
  // A single column is a list of values, not a table: the Markdown writer would write it as paragraphs anyway.
  return documentTree(undefined, rows[0]!.length <= 1 ? rows.map((row) => h("p", {}, [row[0] ?? ""])) : [table(rows)])
}
