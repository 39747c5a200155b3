/**
 * RTF → plain paragraphs. Control words are dropped, `\par` and `\line` break, `\'hh` is a byte in the document's code
 * page (windows-1252 unless `\ansicpg` says otherwise and the decoder knows it), `\uN` is a Unicode character whose
 * fallback character (`\ucN`, default 1) is skipped, and destinations that hold no body text (font and colour tables,
 * stylesheets, pictures, `\*` groups) are skipped whole.
 */
import * as Charset from "../../Charset.js"

const skippedDestinations = new Set([
  "fonttbl", "colortbl", "stylesheet", "info", "pict", "header", "footer", "headerl", "headerr", "footerl", "footerr",
  "listtable", "listoverridetable", "rsidtbl", "generator", "xmlnstbl", "themedata", "colorschememapping", "latentstyles",
  "datastore", "filetbl", "revtbl", "object", "fldinst"
])

/** Extracts the text of an RTF document, paragraphs separated by blank lines. */
export const rtfToText = (rtf: string): string => {
  let out = ""
  let encoding = "windows-1252"
  const stack: Array<{ skip: boolean; uc: number }> = []
  let state = { skip: false, uc: 1 }
  let pendingSkip = 0
  const bytes: Array<number> = []
  const flush = () => {
    if (bytes.length === 0) return
    if (!state.skip) out += Charset.decodeAs(new Uint8Array(bytes), encoding)
    bytes.length = 0
  }
  const emit = (text: string) => {
    flush()
    if (pendingSkip > 0) {
      const skipped = Math.min(pendingSkip, text.length)
      pendingSkip -= skipped
      text = text.slice(skipped)
    }
    if (!state.skip) out += text
  }
  const token = /\\([a-z]{1,32})(-?\d{1,10})? ?|\\'([0-9a-f]{2})|\\([^a-z])|([{}])|([\r\n]+)|([^\\{}\r\n]+)/gi
  let match: RegExpExecArray | null
  let groupStart = false
  while ((match = token.exec(rtf)) !== null) {
    const [, word, param, hex, symbol, brace, , plain] = match
    if (hex !== undefined) {
      if (pendingSkip > 0) pendingSkip--
      else bytes.push(parseInt(hex, 16))
      groupStart = false
      continue
    }
    if (brace === "{") {
      flush()
      stack.push(state)
      state = { ...state }
      groupStart = true
      continue
    }
    if (brace === "}") {
      flush()
      state = stack.pop() ?? { skip: false, uc: 1 }
      groupStart = false
      continue
    }
    if (word !== undefined) {
      const name = word.toLowerCase()
      if (groupStart && skippedDestinations.has(name)) state.skip = true
      else if (name === "ansicpg" && param !== undefined) encoding = Charset.encodingForLabel(`windows-${param}`) ?? encoding
      else if (name === "uc" && param !== undefined) state.uc = Number(param)
      else if (name === "u" && param !== undefined) {
        const code = Number(param)
        emit(String.fromCharCode(code < 0 ? code + 65536 : code))
        pendingSkip = state.uc
      } else if (name === "par" || name === "sect") emit("\n\n")
      else if (name === "line") emit("\n")
      else if (name === "tab" || name === "cell") emit("\t")
      else if (name === "row") emit("\n")
      groupStart = false
      continue
    }
    if (symbol !== undefined) {
      if (symbol === "*") state.skip = true
      else if (symbol === "~") emit("\u00a0")
      else if (symbol === "\\" || symbol === "{" || symbol === "}") emit(symbol)
      else if (symbol === "\n" || symbol === "\r") emit("\n\n")
      groupStart = false
      continue
    }
    if (plain !== undefined) {
      emit(plain)
      groupStart = false
    }
  }
  flush()
  return out.replace(/[ \t]+\n/g, "\n").replace(/\n{3,}/g, "\n\n").trim()
}
