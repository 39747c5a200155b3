import { describe, expect, it } from "@effect/vitest"
import * as Charset from "../src/Charset.js"

const ascii = (text: string): Uint8Array => new TextEncoder().encode(text)
const concat = (...parts: ReadonlyArray<Uint8Array | ReadonlyArray<number>>): Uint8Array => {
  const arrays = parts.map((part) => (part instanceof Uint8Array ? part : Uint8Array.from(part)))
  const out = new Uint8Array(arrays.reduce((n, a) => n + a.length, 0))
  let offset = 0
  for (const a of arrays) {
    out.set(a, offset)
    offset += a.length
  }
  return out
}

// "日本語こんにちは" in Shift_JIS.
const shiftJis = [0x93, 0xfa, 0x96, 0x7b, 0x8c, 0xea, 0x82, 0xb1, 0x82, 0xf1, 0x82, 0xc9, 0x82, 0xbf, 0x82, 0xcd]
// "中文网页" in GBK.
const gbk = [0xd6, 0xd0, 0xce, 0xc4, 0xcd, 0xf8, 0xd2, 0xb3]
// "café €“”" in windows-1252 (0x80, 0x93, 0x94 are where windows-1252 differs from ISO-8859-1).
const cp1252 = [0x63, 0x61, 0x66, 0xe9, 0x20, 0x80, 0x93, 0x94]

describe("Charset.decode", () => {
  it("decodes Shift_JIS named by the Content-Type header", () => {
    const bytes = concat(ascii("<html><body><p>"), shiftJis, ascii("</p></body></html>"))
    const decoded = Charset.decode(bytes, "text/html; charset=Shift_JIS")
    expect(decoded.encoding).toBe("shift_jis")
    expect(decoded.text).toBe("<html><body><p>日本語こんにちは</p></body></html>")
  })

  it("decodes Shift_JIS named only by <meta charset> with an alias label", () => {
    const bytes = concat(ascii(`<!doctype html><html><head><meta charset="x-sjis"><title>`), shiftJis, ascii("</title>"))
    const decoded = Charset.decode(bytes, "text/html")
    expect(decoded.encoding).toBe("shift_jis")
    expect(decoded.text).toContain("<title>日本語こんにちは</title>")
  })

  it("decodes GBK declared as gb2312 through http-equiv", () => {
    const head = `<html><head><meta http-equiv="Content-Type" content="text/html; charset=gb2312"></head><body>`
    const decoded = Charset.decode(concat(ascii(head), gbk, ascii("</body>")))
    expect(decoded.encoding).toBe("gbk")
    expect(decoded.text).toContain("<body>中文网页</body>")
  })

  it("ignores a content charset without http-equiv", () => {
    const head = `<html><head><meta name="x" content="text/html; charset=gb2312"></head><body>`
    const decoded = Charset.decode(concat(ascii(head), gbk))
    expect(decoded.encoding).toBe("windows-1252")
  })

  it("reads iso-8859-1 and latin1 as windows-1252", () => {
    const bytes = concat(ascii("<p>"), cp1252, ascii("</p>"))
    for (const label of ["iso-8859-1", "latin1", "\"ISO-8859-1\""]) {
      const decoded = Charset.decode(bytes, `text/html; charset=${label}`)
      expect(decoded.encoding).toBe("windows-1252")
      expect(decoded.text).toBe("<p>café €“”</p>")
    }
  })

  it("falls back to windows-1252 for undeclared bytes that are not UTF-8", () => {
    const decoded = Charset.decode(concat(ascii("<p>"), cp1252, ascii("</p>")), "text/html")
    expect(decoded).toEqual({ text: "<p>café €“”</p>", encoding: "windows-1252" })
  })

  it("falls back to UTF-8 for undeclared valid UTF-8", () => {
    const decoded = Charset.decode(ascii("<p>Grüße, 世界</p>"), "text/html")
    expect(decoded).toEqual({ text: "<p>Grüße, 世界</p>", encoding: "utf-8" })
  })

  it("lets a UTF-8 BOM override the header and strips it", () => {
    const decoded = Charset.decode(concat([0xef, 0xbb, 0xbf], ascii("<p>Grüße</p>")), "text/html; charset=windows-1252")
    expect(decoded).toEqual({ text: "<p>Grüße</p>", encoding: "utf-8" })
  })

  it("decodes UTF-16LE with a BOM", () => {
    const text = "<p>Hé 日本</p>"
    const bytes = new Uint8Array(2 + text.length * 2)
    bytes.set([0xff, 0xfe])
    for (let i = 0; i < text.length; i++) {
      const code = text.charCodeAt(i)
      bytes[2 + i * 2] = code & 0xff
      bytes[3 + i * 2] = code >> 8
    }
    expect(Charset.decode(bytes, "text/html; charset=utf-8")).toEqual({ text, encoding: "utf-16le" })
  })

  it("lets the header win over a conflicting meta", () => {
    const bytes = concat(ascii(`<meta charset="shift_jis"><p>`), cp1252)
    const decoded = Charset.decode(bytes, "text/html; charset=windows-1252")
    expect(decoded.encoding).toBe("windows-1252")
    expect(decoded.text).toContain("café")
  })

  it("skips an unknown header label and uses the meta", () => {
    const bytes = concat(ascii(`<meta charset="gbk"><p>`), gbk)
    const decoded = Charset.decode(bytes, "text/html; charset=no-such-charset")
    expect(decoded.encoding).toBe("gbk")
    expect(decoded.text).toBe(`<meta charset="gbk"><p>中文网页`)
  })

  it("ignores a meta inside a comment and one past the first 1024 bytes", () => {
    const commented = concat(ascii(`<!-- <meta charset="shift_jis"> --><p>`), cp1252)
    expect(Charset.decode(commented).encoding).toBe("windows-1252")
    const late = concat(ascii(`<p>${" ".repeat(1100)}</p><meta charset="shift_jis">`), shiftJis)
    expect(Charset.decode(late).encoding).toBe("windows-1252")
  })

  it("does not take a meta charset from an attribute value of another tag", () => {
    const bytes = concat(ascii(`<div title='<meta charset="shift_jis">'><meta charset=gbk>`), gbk)
    expect(Charset.decode(bytes).encoding).toBe("gbk")
  })

  it("reads a meta UTF-16 declaration as UTF-8", () => {
    expect(Charset.decode(ascii(`<meta charset="utf-16"><p>Grüße</p>`)).encoding).toBe("utf-8")
  })

  it("reads a meta whose content ends at \"charset\" as no declaration, without failing", () => {
    const bytes = concat(ascii(`<meta http-equiv="Content-Type" content="text/html; charset"><p>`), cp1252)
    expect(Charset.decode(bytes)).toEqual({ text: `<meta http-equiv="Content-Type" content="text/html; charset"><p>café €“”`, encoding: "windows-1252" })
    expect(Charset.sniff(ascii(`<meta http-equiv="content-type" content="charset =">`))).toEqual({ encoding: undefined, source: "none" })
  })

  it("uses the XML declaration for XML types", () => {
    const bytes = concat(ascii(`<?xml version="1.0" encoding="Shift_JIS"?><urlset><loc>`), shiftJis)
    expect(Charset.decode(bytes, "application/xml").text).toContain("<loc>日本語こんにちは")
  })
})

describe("Charset.encodingForLabel", () => {
  it("normalises WHATWG labels and rejects unknown ones", () => {
    expect(Charset.encodingForLabel("Latin1")).toBe("windows-1252")
    expect(Charset.encodingForLabel(" GB2312 ")).toBe("gbk")
    expect(Charset.encodingForLabel("x-sjis")).toBe("shift_jis")
    expect(Charset.encodingForLabel("koi8-r")).toBe("koi8-r")
    expect(Charset.encodingForLabel("iso-2022-kr")).toBeUndefined()
    expect(Charset.encodingForLabel("klingon")).toBeUndefined()
  })

  it("reads the charset parameter of a Content-Type", () => {
    expect(Charset.charsetParameter("text/html; charset=\"EUC-KR\"")).toBe("EUC-KR")
    expect(Charset.charsetParameter("text/html;charset=utf-8;foo=bar")).toBe("utf-8")
    expect(Charset.charsetParameter("text/html")).toBeUndefined()
  })
})
