/**
 * Spreadsheet values shown as a person sees them in Excel: dates through their number format (`d-mmm-yy`,
 * `yyyy-mm-dd hh:mm`), numbers with their decimals, thousands separators, percent and currency, and everything else
 * as plain text. Only the common format codes are understood; anything else falls back to a readable default.
 */

const monthsShort = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
const monthsLong = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"]
const daysShort = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
const daysLong = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"]

const pad = (n: number, width = 2) => String(n).padStart(width, "0")

/** The first section of a format code, without colours, conditions, and escapes that change no digits. */
const firstSection = (format: string): string =>
  format.split(";")[0]!.replace(/\[(?:Red|Black|Blue|Green|White|Yellow|Cyan|Magenta|Color\s*\d+|[<>=][^\]]*)\]/gi, "")

/** Whether a number format shows a date or time. */
export const isDateFormat = (format: string | undefined): boolean => {
  if (format === undefined) return false
  const code = firstSection(format).replace(/"[^"]*"|\\.|\[\$[^\]]*\]/g, "")
  return /[dmyhs]/i.test(code) && !/^[#0.,%\s]*$/.test(code)
}

/** Formats a date (Excel dates are wall-clock times, read here in UTC) with a date format code. */
export const formatDate = (date: Date, format: string | undefined): string => {
  if (Number.isNaN(date.getTime())) return ""
  const code = firstSection(format ?? "").replace(/\[\$[^\]]*\]/g, "")
  const hasTime = date.getUTCHours() + date.getUTCMinutes() + date.getUTCSeconds() > 0
  if (code === "" || !isDateFormat(code)) {
    const day = `${date.getUTCFullYear()}-${pad(date.getUTCMonth() + 1)}-${pad(date.getUTCDate())}`
    return hasTime ? `${day} ${pad(date.getUTCHours())}:${pad(date.getUTCMinutes())}` : day
  }
  const twelve = /AM\/PM|A\/P/i.test(code)
  const tokens = code.match(/"[^"]*"|\\.|AM\/PM|A\/P|y+|m+|d+|h+|s+|./gi) ?? []
  let out = ""
  let afterHour = false
  tokens.forEach((token, i) => {
    const lower = token.toLowerCase()
    const hours = date.getUTCHours()
    if (token.startsWith("\"")) out += token.slice(1, -1)
    else if (token.startsWith("\\")) out += token.slice(1)
    else if (/^am\/pm$/i.test(token)) out += hours < 12 ? "AM" : "PM"
    else if (/^a\/p$/i.test(token)) out += hours < 12 ? "A" : "P"
    else if (lower.startsWith("y")) out += lower.length <= 2 ? pad(date.getUTCFullYear() % 100) : String(date.getUTCFullYear())
    else if (lower.startsWith("d")) {
      out += lower.length === 1 ? String(date.getUTCDate()) : lower.length === 2 ? pad(date.getUTCDate())
        : lower.length === 3 ? daysShort[date.getUTCDay()] : daysLong[date.getUTCDay()]
    } else if (lower.startsWith("h")) {
      const h = twelve ? ((hours + 11) % 12) + 1 : hours
      out += lower.length === 1 ? String(h) : pad(h)
      afterHour = true
      return
    } else if (lower.startsWith("s")) out += lower.length === 1 ? String(date.getUTCSeconds()) : pad(date.getUTCSeconds())
    else if (lower.startsWith("m")) {
      // `m` is minutes right after hours or right before seconds, months otherwise.
      const nextUnit = tokens.slice(i + 1).find((t) => /^[a-z]/i.test(t))?.toLowerCase()
      if ((afterHour || nextUnit?.startsWith("s")) && lower.length <= 2) {
        out += lower.length === 1 ? String(date.getUTCMinutes()) : pad(date.getUTCMinutes())
      } else {
        const month = date.getUTCMonth()
        out += lower.length === 1 ? String(month + 1) : lower.length === 2 ? pad(month + 1)
          : lower.length === 3 ? monthsShort[month] : lower.length === 5 ? monthsLong[month]![0] : monthsLong[month]
      }
    } else out += token
    if (/^[a-z]/i.test(token)) afterHour = false
  })
  return out
}

const general = (value: number): string => {
  if (Number.isInteger(value)) return String(value)
  // Excel shows at most about 10 significant digits in General; this also hides binary noise (0.1 + 0.2).
  return String(Number(value.toPrecision(10)))
}

/** Formats a number with a number format code (General when absent or not understood). */
export const formatNumber = (value: number, format: string | undefined): string => {
  if (format === undefined || format === "" || /^general$/i.test(format)) return general(value)
  const sections = format.split(";")
  const section = value < 0 && sections[1] !== undefined ? sections[1] : sections[0]!
  const code = section.replace(/\[[^\]]*\]/g, (m) => /^\[\$([^-\]]*)/.exec(m)?.[1] ?? "").replace(/_.|\*./g, "")
  const digits = /[#0?][#0?,.]*%?/.exec(code.replace(/"[^"]*"/g, (m) => " ".repeat(m.length)))
  if (digits === null) return general(value)
  const pattern = digits[0]
  const percent = code.includes("%")
  const decimals = /\.([0#?]*)/.exec(pattern)?.[1]?.length ?? 0
  const grouped = /[#0],[#0]/.test(pattern)
  const negative = value < 0 && sections[1] === undefined
  const number = Math.abs(percent ? value * 100 : value)
    .toLocaleString("en-US", { minimumFractionDigits: decimals, maximumFractionDigits: decimals, useGrouping: grouped })
  const strip = (part: string) => part.replace(/"([^"]*)"/g, "$1").replace(/\\(.)/g, "$1")
  const prefix = strip(code.slice(0, digits.index))
  const suffix = strip(code.slice(digits.index + pattern.length))
  return `${negative ? "-" : ""}${prefix}${number}${pattern.endsWith("%") ? "%" : ""}${suffix}`.trim()
}
