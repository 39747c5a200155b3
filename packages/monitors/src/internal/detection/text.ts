/**
 * Text normalisation of page targets: the same page rendered twice must give the same text, so formatting noise of
 * the Markdown (line endings, spacing, blank lines, Unicode composition) never reads as a change.
 */
import { createHash } from "node:crypto"

/** Horizontal whitespace, including the no-break and other Unicode spaces pages use for layout. */
const horizontalRun = /[ \t\f\v\u00a0\u1680\u2000-\u200a\u202f\u205f\u3000]+/g
/** Characters that render as nothing (zero-width spaces and joiners, the byte-order mark, soft hyphens). */
const invisible = /[\u200b\u200c\u200d\u2060\ufeff\u00ad]/g

/** Line endings as LF (CRLF and lone CR both occur in served pages). */
export const toLf = (text: string): string => text.replace(/\r\n?/g, "\n")

/**
 * The normalised text. With `normalizeWhitespace`: NFC, LF line endings, invisible characters dropped, runs of
 * spaces collapsed to one, lines trimmed at the end, at most one blank line in a row, the whole trimmed. Leading
 * indentation is kept as it is because it carries Markdown structure (nested lists, continuations). Without it:
 * LF line endings and no trailing whitespace at the end of the document, nothing else.
 */
export const normalizeText = (text: string, normalizeWhitespace: boolean): string => {
  const lf = toLf(text)
  if (!normalizeWhitespace) return lf.trimEnd()
  const lines = lf.normalize("NFC").replace(invisible, "").split("\n")
  const out: Array<string> = []
  for (const raw of lines) {
    const indent = /^[ \t]*/.exec(raw)![0]
    const line = (indent + raw.slice(indent.length).replace(horizontalRun, " ")).trimEnd()
    if (line === "" && (out.length === 0 || out[out.length - 1] === "")) continue
    out.push(line)
  }
  return out.join("\n").trim()
}

/** SHA-256 (hex) of the text as given (callers hash the normalised text). */
export const contentHash = (text: string): string => createHash("sha256").update(text, "utf8").digest("hex")

/** The lines of a text: LF, CRLF or CR separated; one final line ending is not a line (so "a\n" and "a" agree). */
export const splitLines = (text: string): Array<string> => {
  if (text === "") return []
  const lines = toLf(text).split("\n")
  if (lines[lines.length - 1] === "") lines.pop()
  return lines
}
