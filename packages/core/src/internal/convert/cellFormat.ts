/**
 * Spreadsheet values shown as a person sees them in Excel, through the cell's number format code: dates and elapsed
 * times (`d-mmm-yy`, `[h]:mm:ss`), fractions (`# ?/?`), scientific notation, thousands scaling (`#,##0,`), percent,
 * currency, conditional sections and the text section (`@`). The format codes are read by `numfmt`, which follows
 * ECMA-376 and Excel's quirks; Sift keeps only its own "General": integers in full and at most 10 significant digits
 * otherwise (Excel's General shortens to the column's width, which a Markdown table does not have).
 */
import * as Numfmt from "numfmt"

/** Excel refuses number format codes longer than this; a longer one is read as General. */
const MAX_FORMAT_LENGTH = 255

/**
 * numfmt keeps every pattern it has parsed (about 4 KB each) for the life of the process, so the distinct patterns
 * handed to it are capped: past this many, a new pattern is read as General (real workbooks use a few dozen).
 */
const MAX_DISTINCT_FORMATS = 2_000
const known = new Set<string>()

const options = { throws: true, locale: "en" } as const

/** The format code to hand to numfmt, or undefined for General (absent, General, too long, or past the cap). */
const usable = (format: string | undefined): string | undefined => {
  if (format === undefined || format === "" || format.length > MAX_FORMAT_LENGTH || /^general$/i.test(format)) return undefined
  if (known.has(format)) return format
  if (known.size >= MAX_DISTINCT_FORMATS || !Numfmt.isValidFormat(format)) return undefined
  known.add(format)
  return format
}

const pad = (n: number) => String(n).padStart(2, "0")

const general = (value: number): string => {
  if (Number.isInteger(value)) return String(value)
  // At most 10 significant digits, as Excel's General in a wide column; this also hides binary noise (0.1 + 0.2).
  return String(Number(value.toPrecision(10)))
}

const attempt = (format: string, value: unknown): string | undefined => {
  try {
    return Numfmt.format(format, value, options)
  } catch {
    return undefined
  }
}

/** Whether a number format shows a date or time. */
export const isDateFormat = (format: string | undefined): boolean => {
  const code = usable(format)
  return code !== undefined && Numfmt.isDateFormat(code)
}

/** Formats a number with a number format code (General when absent or not understood). */
export const formatNumber = (value: number, format: string | undefined): string => {
  const code = usable(format)
  return (code === undefined ? undefined : attempt(code, value)) ?? general(value)
}

/** Formats text with the text section of a format code (`"Note: "@`); General and number-only codes keep it as is. */
export const formatText = (text: string, format: string | undefined): string => {
  const code = usable(format)
  return (code === undefined ? undefined : attempt(code, text)) ?? text
}

/**
 * Formats a date with a date format code. Excel dates are wall-clock times, which exceljs gives as UTC; the serial
 * day number is taken from the UTC clock. Without a date format, the ISO date (and time, when there is one).
 */
export const formatDate = (date: Date, format: string | undefined): string => {
  const time = date.getTime()
  if (Number.isNaN(time)) return ""
  const code = usable(format)
  if (code !== undefined && Numfmt.isDateFormat(code)) {
    // Days since 1899-12-30, the serial date of the 1900 system (1900-03-01 onwards; earlier dates are rare in sheets).
    const shown = attempt(code, time / 86_400_000 + 25_569)
    if (shown !== undefined) return shown
  }
  const day = `${date.getUTCFullYear()}-${pad(date.getUTCMonth() + 1)}-${pad(date.getUTCDate())}`
  const hasTime = date.getUTCHours() + date.getUTCMinutes() + date.getUTCSeconds() > 0
  return hasTime ? `${day} ${pad(date.getUTCHours())}:${pad(date.getUTCMinutes())}` : day
}
