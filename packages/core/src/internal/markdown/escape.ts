/**
 * Escaping: text is escaped only where a character could start Markdown syntax, so ordinary prose stays readable
 * (`snake_case`, `2 * 3`, `a < b` are left alone).
 */

const special = /[\\`*_[\]<&~|]/
const candidates = /[\\`*_[\]<&~|]/g
const asciiPunctuation = /[!-/:-@[-`{-~]/
const alphanumeric = /[\p{L}\p{N}]/u
const entityLike = /^&(?:#[0-9]{1,7};|#[xX][0-9a-fA-F]{1,6};|[A-Za-z][A-Za-z0-9]{1,31};)/
const tagLike = /^<[A-Za-z/!?]/

/**
 * Escapes one run of collapsed text (no leading or trailing space) for use inside a paragraph or cell; `linked` text
 * (inside a link) needs no guard against GFM's autolinks, which never form inside a link.
 */
export const escapeText = (text: string, table: boolean, linked = false): string => {
  const escaped = special.test(text) ? escapeSyntax(text, table) : text
  return linked || !autolinkLike(escaped) ? escaped : escapeAutolinks(escaped)
}

/** Whether GFM might link part of the text (`www.`, `http://`, `https://`, an e-mail address); cheap, may say yes. */
const autolinkLike = (text: string): boolean =>
  text.includes("@") || text.includes("://") || text.includes("w.") || text.includes("W.")
const autolinkParts = /(^|[^\p{L}\p{N}])(www)\.(?=[\p{L}\p{N}_-])|(https?):(?=\/\/)|(?<=[A-Za-z0-9._+-])@(?=[A-Za-z0-9_-])/giu

/** Escapes the character that makes GFM link bare text (`www\.`, `https\://`, `name\@host`): the text reads the same. */
const escapeAutolinks = (text: string): string =>
  text.replace(autolinkParts, (match, before: string | undefined, www: string | undefined, scheme: string | undefined) =>
    www !== undefined ? `${before}${www}\\.` : scheme !== undefined ? `${scheme}\\:` : "\\@"
  )

const escapeSyntax = (text: string, table: boolean): string =>
  text.replace(candidates, (ch, offset: number) => {
    // At the edges of the run the neighbours are unknown (an emphasis marker may sit there): not a space.
    const prev = offset > 0 ? text[offset - 1]! : ""
    const next = offset + 1 < text.length ? text[offset + 1]! : ""
    switch (ch) {
      case "\\":
        return next === "" || next === " " || asciiPunctuation.test(next) ? "\\\\" : ch
      case "*":
      case "~":
        // Surrounded by spaces it can neither open nor close.
        return prev === " " && next === " " ? ch : "\\" + ch
      case "_":
        // Inside a word `_` cannot open or close emphasis.
        return alphanumeric.test(prev) && alphanumeric.test(next) ? ch : "\\_"
      case "<":
        return tagLike.test(text.slice(offset, offset + 2)) ? "\\<" : ch
      case "&":
        return entityLike.test(text.slice(offset, offset + 40)) ? "\\&" : ch
      case "|":
        return table ? "\\|" : ch
      default:
        return "\\" + ch
    }
  })

const blockStart = /^(?:[#>]|[-+*](?: |$)|\d{1,9}[.)](?: |$)|=+ *$|-+ *$)/

/** Escapes what would start a block construct at the beginning of each line of a paragraph. */
export const escapeLineStarts = (paragraph: string): string => {
  if (!paragraph.includes("\n")) return escapeLineStart(paragraph)
  return paragraph.split("\n").map(escapeLineStart).join("\n")
}

const escapeLineStart = (line: string): string => {
  const match = blockStart.exec(line)
  if (match === null) return line
  const first = line.charCodeAt(0)
  if (first >= 48 && first <= 57) {
    const markerAt = match[0].search(/[.)]/)
    return line.slice(0, markerAt) + "\\" + line.slice(markerAt)
  }
  if (first === 35 /* # */ && !/^#{1,6}(?: |$)/.test(line)) return line
  return "\\" + line
}

/** An inline code span whose fence is longer than any backtick run inside. */
export const codeSpan = (code: string, table: boolean): string => {
  const content = table ? code.replace(/\|/g, "\\|") : code
  let longest = 0
  let run = 0
  for (let i = 0; i < content.length; i++) {
    if (content.charCodeAt(i) === 96) longest = Math.max(longest, ++run)
    else run = 0
  }
  const fence = "`".repeat(longest + 1)
  const pad = content.startsWith("`") || content.endsWith("`") ||
      (content.startsWith(" ") && content.endsWith(" ") && content.trim() !== "")
    ? " "
    : ""
  return fence + pad + content + pad + fence
}

/** A link or image destination, in angle brackets when it holds spaces or parentheses. */
export const destination = (url: string, table: boolean): string => {
  let out = /[\s()<>]/.test(url) ? `<${url.replace(/[<>\n]/g, (c) => encodeURIComponent(c))}>` : url
  if (table) out = out.replace(/\|/g, "\\|")
  return out
}

/** A link or image title in double quotes. */
export const title = (text: string | undefined, table: boolean): string => {
  if (text === undefined) return ""
  const collapsed = text.replace(/\s+/g, " ").trim()
  if (collapsed === "") return ""
  const escaped = collapsed.replace(/["\\]/g, "\\$&")
  return ` "${table ? escaped.replace(/\|/g, "\\|") : escaped}"`
}

/** Escapes image alt text (it is link text: brackets and backslashes matter). */
export const escapeAlt = (alt: string, table: boolean): string => {
  const collapsed = alt.replace(/\s+/g, " ").trim()
  const escaped = collapsed.replace(/[\\[\]]/g, "\\$&")
  return table ? escaped.replace(/\|/g, "\\|") : escaped
}
