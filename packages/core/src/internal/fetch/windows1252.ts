/**
 * A windows-1252 decoder. Node 20's `TextDecoder("windows-1252")` takes a Latin-1 fast path and returns C1 control
 * characters for 0x80–0x9F (nodejs/node#56542), so curly quotes, dashes and the euro sign of countless Western pages
 * would come out as invisible controls. Latin-1 is right for every other byte; only those 32 need the table.
 */

// Code points of 0x80–0x9F in windows-1252 (WHATWG index); the five undefined bytes map to themselves.
const high = [
  0x20ac, 0x81, 0x201a, 0x192, 0x201e, 0x2026, 0x2020, 0x2021, 0x2c6, 0x2030, 0x160, 0x2039, 0x152, 0x8d, 0x17d, 0x8f,
  0x90, 0x2018, 0x2019, 0x201c, 0x201d, 0x2022, 0x2013, 0x2014, 0x2dc, 0x2122, 0x161, 0x203a, 0x153, 0x9d, 0x17e, 0x178
]
const replacements: Record<string, string> = Object.fromEntries(
  high.map((code, i) => [String.fromCharCode(0x80 + i), String.fromCharCode(code)])
)
const c1 = /[\x80-\x9f]/g

/** Decodes windows-1252 bytes (also what the labels `latin1`, `iso-8859-1` and `ascii` mean on the web). */
export const decodeWindows1252 = (bytes: Uint8Array): string => {
  const latin1 = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("latin1")
  return latin1.replace(c1, (c) => replacements[c]!)
}
