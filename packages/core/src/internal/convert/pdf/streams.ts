/**
 * A PDF's Flate streams measured before pdfjs reads the file. pdfjs decodes a stream into one growing buffer with no
 * limit, so a 400 KB file whose page content inflates to 400 MB of spaces costs about 900 MB of memory; pdfjs has no
 * option to bound it. Every stream whose first filter is FlateDecode (page contents, forms, fonts, object and xref
 * streams) is inflated here with a hard output cap, and the file is refused past {@link MAX_PDF_STREAM_BYTES} for
 * one stream ({@link MAX_PDF_FONT_BYTES} for a font program) or {@link MAX_PDF_STREAMS_BYTES} for all. Images are left
 * to pdfjs's own `maxImageSize`, attachments are never decoded for text. Streams under other filters (LZW, ASCII85
 * before Flate) and encrypted streams are not measured.
 */
import { inflateSync, constants } from "node:zlib"
import { MAX_PDF_FONT_BYTES, MAX_PDF_STREAM_BYTES, MAX_PDF_STREAMS_BYTES, mib, tooLarge } from "../limits.js"

const STREAM = Buffer.from("stream")
const ENDSTREAM = Buffer.from("endstream")
/** How far back from `stream` its dictionary is looked for; real stream dictionaries are far shorter. */
const MAX_DICT_BYTES = 64 * 1024

const isSpace = (byte: number | undefined) =>
  byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09 || byte === 0x0c || byte === 0x00

/** The start of the `<<` that the `>>` ending at `close` (exclusive) closes, or -1. */
const dictionaryStart = (bytes: Buffer, close: number): number => {
  let depth = 0
  const floor = Math.max(0, close - MAX_DICT_BYTES)
  for (let i = close - 2; i >= floor; i--) {
    if (bytes[i] === 0x3e && bytes[i + 1] === 0x3e) {
      depth++
      i--
    } else if (bytes[i] === 0x3c && bytes[i + 1] === 0x3c) {
      depth--
      if (depth === 0) return i
      i--
    }
  }
  return -1
}

/** The dictionary text before a `stream` keyword at `at`, when the keyword follows one. */
const dictionaryBefore = (bytes: Buffer, at: number): string | undefined => {
  let end = at
  while (end > 0 && isSpace(bytes[end - 1])) end--
  if (bytes[end - 1] !== 0x3e || bytes[end - 2] !== 0x3e) return undefined
  const start = dictionaryStart(bytes, end)
  return start < 0 ? undefined : bytes.toString("latin1", start, end)
}

const flate = (dictionary: string) => {
  const filter = /\/Filter\s*(?:\[\s*)?\/([A-Za-z0-9]+)/.exec(dictionary)?.[1]
  return filter === "FlateDecode" || filter === "Fl"
}

/** Font programs: FontFile (Length1-3), FontFile2 (Length1), FontFile3 (a font Subtype). */
const isFontProgram = (dictionary: string) =>
  /\/Length[123]\b/.test(dictionary) || /\/Subtype\s*\/(?:Type1C|CIDFontType0C|OpenType)\b/.test(dictionary)

const notDecodedForText = (dictionary: string) =>
  /\/Subtype\s*\/Image\b/.test(dictionary) || /\/Type\s*\/EmbeddedFile\b/.test(dictionary)

/**
 * Refuses a PDF with a Flate stream that inflates past its cap, or whose Flate streams together
 * inflate past {@link MAX_PDF_STREAMS_BYTES} (`TooLarge`). At most one stream's capped output is held at a time.
 */
export const checkStreams = (data: Uint8Array): void => {
  const bytes = Buffer.from(data.buffer, data.byteOffset, data.byteLength)
  let total = 0
  for (let at = bytes.indexOf(STREAM); at >= 0; at = bytes.indexOf(STREAM, at + STREAM.length)) {
    if (at >= 3 && bytes.toString("latin1", at - 3, at) === "end") continue
    let start = at + STREAM.length
    if (bytes[start] === 0x0d) start++
    if (bytes[start] === 0x0a) start++
    if (start === at + STREAM.length) continue
    const dictionary = dictionaryBefore(bytes, at)
    if (dictionary === undefined || !flate(dictionary) || notDecodedForText(dictionary)) continue
    const declared = /\/Length\s+(\d+)(?!\s+\d+\s+R)/.exec(dictionary)?.[1]
    let end = declared === undefined ? -1 : start + Number(declared)
    if (end < start || end > bytes.length) end = bytes.indexOf(ENDSTREAM, start)
    if (end < 0) end = bytes.length
    const own = isFontProgram(dictionary) ? MAX_PDF_FONT_BYTES : MAX_PDF_STREAM_BYTES
    const room = MAX_PDF_STREAMS_BYTES - total
    const cap = Math.max(1, Math.min(own, room))
    let inflated: number
    try {
      inflated = inflateSync(bytes.subarray(start, end), { maxOutputLength: cap, finishFlush: constants.Z_SYNC_FLUSH }).byteLength
    } catch (error) {
      if ((error as { code?: string }).code !== "ERR_BUFFER_TOO_LARGE") continue // not Flate data after all: pdfjs decides
      throw cap === own
        ? tooLarge(`A stream of the PDF inflates to more than ${mib(own)}; Sift reads PDF ${own === MAX_PDF_STREAM_BYTES ? "streams" : "font programs"} of at most that size`)
        : tooLarge(`The PDF's compressed streams inflate to more than ${mib(MAX_PDF_STREAMS_BYTES)} together; Sift reads at most that much`)
    }
    total += inflated
    at = Math.max(at, end - STREAM.length)
  }
}
