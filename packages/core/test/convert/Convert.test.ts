/**
 * Type detection and the text-like formats of POST /parse: what a file is from its bytes, name and Content-Type, and
 * how source code, data files, subtitles and RTF come out as Markdown. Also images (OCR) and legacy Office files
 * (LibreOffice), with the real tools.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { execFileSync, spawnSync } from "node:child_process"
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import JSZip from "jszip"
import sharp from "sharp"
import * as Convert from "../../src/Convert.js"
import * as ParseDocument from "../../src/ParseDocument.js"
import * as Office from "./support/officeFixtures.js"
import * as Pdf from "./support/pdfFixtures.js"

const utf8 = (text: string) => new TextEncoder().encode(text)
const parse = (text: string | Uint8Array, options: Partial<ParseDocument.ParseInput> = {}) =>
  ParseDocument.parse({ bytes: typeof text === "string" ? utf8(text) : text, ...options })

describe("Convert.detect", () => {
  it.effect("binary signatures win over names and headers", () =>
    Effect.gen(function*() {
      const pdf = yield* Effect.promise(() => Pdf.simple(["x"]))
      expect(yield* Convert.detect({ bytes: pdf, contentType: "application/octet-stream" })).toBe("pdf")
      expect(yield* Convert.detect({ bytes: pdf, filename: "report.txt" })).toBe("pdf")
      expect(yield* Convert.detect({ bytes: yield* Effect.promise(Office.docx), contentType: "application/zip" })).toBe("docx")
      expect(yield* Convert.detect({ bytes: yield* Effect.promise(Office.xlsx) })).toBe("xlsx")
      expect(yield* Convert.detect({ bytes: yield* Effect.promise(Office.pptx) })).toBe("pptx")
      expect(yield* Convert.detect({ bytes: Office.tinyPng })).toBe("png")
      expect(yield* Convert.detect({ bytes: utf8("{\\rtf1\\ansi hello}") })).toBe("rtf")
    }))

  it.effect("names and extensions decide text types; the URL's extension only when the Content-Type is generic", () =>
    Effect.gen(function*() {
      const code = utf8("def tide():\n    return 4.8\n")
      expect(yield* Convert.detect({ bytes: code, filename: "tide.py" })).toBe("python")
      expect(yield* Convert.detect({ bytes: code, extension: ".py", filename: "tide.txt" })).toBe("python")
      expect(yield* Convert.detect({ bytes: utf8("a,b\n1,2\n"), contentType: "text/plain", url: "https://x.example/data.csv" })).toBe("csv")
      expect(yield* Convert.detect({ bytes: utf8("<p>hi</p>"), contentType: "text/html", url: "https://x.example/index.php" })).toBe("html")
      expect(yield* Convert.detect({ bytes: utf8("{\"a\":1}"), contentType: "application/json; charset=utf-8" })).toBe("json")
      expect(yield* Convert.detect({ bytes: utf8("<!doctype html><title>t</title>") })).toBe("html")
      expect(yield* Convert.detect({ bytes: utf8("just words") })).toBe("text")
    }))

  it.effect("a name promising a binary format the bytes do not prove is not trusted; unknown binaries are undefined", () =>
    Effect.gen(function*() {
      expect(yield* Convert.detect({ bytes: utf8("not really a pdf"), filename: "fake.pdf" })).toBe("text")
      expect(yield* Convert.detect({ bytes: new Uint8Array([0, 1, 2, 3, 255]), contentType: "application/x-custom" })).toBeUndefined()
    }))

  it.live("images by signature (file-type), Netpbm, OLE2 kinds, Office zips without content types, junk before %PDF-", () =>
    Effect.gen(function*() {
      const picture = sharp({ create: { width: 8, height: 8, channels: 3, background: "#3366cc" } })
      const encoded = yield* Effect.promise(() =>
        Promise.all([picture.clone().jpeg().toBuffer(), picture.clone().gif().toBuffer(), picture.clone().webp().toBuffer(), picture.clone().tiff().toBuffer()])
      )
      const detected = yield* Effect.all(encoded.map((bytes) => Convert.detect({ bytes, contentType: "application/octet-stream" })))
      expect(detected).toEqual(["jpg", "gif", "webp", "tiff"])
      expect(yield* Convert.detect({ bytes: utf8("P6\n1 1\n255\n\u0001\u0002\u0003") })).toBe("ppm")
      // A text file that starts with "BM" is no bitmap (file-type alone would say bmp).
      expect(yield* Convert.detect({ bytes: utf8("BMW service notes: oil, brakes, tyres and the rest of the list") })).toBe("text")
      const pdf = yield* Effect.promise(() => Pdf.simple(["x"]))
      expect(yield* Convert.detect({ bytes: Buffer.concat([Buffer.from("junk before the header\n"), pdf]) })).toBe("pdf")
      // An OLE2 compound file says only "cfb": its streams (UTF-16 names) tell a Word file from a workbook.
      const ole2 = (stream: string) => Buffer.concat([
        Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]), Buffer.alloc(504), Buffer.from(stream, "utf16le"), Buffer.alloc(64)
      ])
      expect(yield* Convert.detect({ bytes: ole2("WordDocument") })).toBe("doc")
      expect(yield* Convert.detect({ bytes: ole2("Workbook") })).toBe("xls")
      expect(yield* Convert.detect({ bytes: ole2("PowerPoint Document") })).toBe("ppt")
      expect(yield* Convert.detect({ bytes: ole2("Unknown"), filename: "old.xls" })).toBe("xls")
      // A zip of Word parts without [Content_Types].xml: file-type says zip, the part names say docx.
      const zip = new JSZip()
      zip.file("word/document.xml", "<w:document/>")
      const bare = yield* Effect.promise(() => zip.generateAsync({ type: "uint8array" }))
      expect(yield* Convert.detect({ bytes: bare })).toBe("docx")
      // Truncated signatures do not throw.
      expect(yield* Convert.detect({ bytes: Office.tinyPng.subarray(0, 20), contentType: "application/x-custom" })).toBe("png")
      expect(yield* Convert.detect({ bytes: (yield* Effect.promise(Office.docx)).subarray(0, 200), contentType: "application/x-custom" })).toBe("docx")
      const brokenZip = Buffer.concat([Buffer.from([0x50, 0x4b, 0x03, 0x04]), Buffer.alloc(40, 0xff)])
      expect(yield* Convert.detect({ bytes: brokenZip, contentType: "application/x-custom" })).toBeUndefined()
    }))
})

describe("text-like files as Markdown", () => {
  it.effect("source code and data files are fenced with their language", () =>
    Effect.gen(function*() {
      const python = yield* parse("def tide():\n    return 4.8\n", { filename: "tide.py" })
      expect(python).toMatchObject({ type: "python", markdown: "```python\ndef tide():\n    return 4.8\n```\n" })
      const yaml = yield* parse("route: north\nfare: 4.5\n", { extension: "yml" })
      expect(yaml.markdown).toBe("```yaml\nroute: north\nfare: 4.5\n```\n")
      const json = yield* parse("{\"fare\": 4.5}", { contentType: "application/json" })
      expect(json).toMatchObject({ type: "json", markdown: "```json\n{\"fare\": 4.5}\n```\n" })
      const fence = yield* parse("const s = `a ``` b`\n", { filename: "x.ts" })
      expect(fence.markdown).toBe("````typescript\nconst s = `a ``` b`\n````\n")
    }))

  it.effect("plain text and Markdown files are their own text; HTML is a page (main content on request)", () =>
    Effect.gen(function*() {
      expect((yield* parse("# Title\n\nSome *text*.\r\n", { filename: "notes.md" })).markdown).toBe("# Title\n\nSome *text*.\n")
      expect((yield* parse("line one\nline two", { filename: "a.txt" })).markdown).toBe("line one\nline two\n")
      const html = yield* parse("<html><body><nav><a href='/'>Home</a></nav><h1>Tides</h1><p>See <a href='/t'>the table</a>.</p></body></html>", {
        filename: "page.html",
        baseUrl: "https://harbour.example/a/"
      })
      expect(html.markdown).toContain("# Tides\n\nSee [the table](https://harbour.example/t).")
      const noLinks = yield* parse("<h1>Tides</h1><p>See <a href='/t'>the table</a>.</p>", { filename: "page.html", includeLinks: false })
      expect(noLinks.markdown).toBe("# Tides\n\nSee the table.\n")
    }))

  it.effect("subtitles become timestamped paragraphs; RTF its paragraphs, code page and Unicode escapes decoded", () =>
    Effect.gen(function*() {
      const srt = yield* parse("1\n00:00:01,000 --> 00:00:03,000\nHigh <i>water</i>\nat six.\n\n2\n00:01:05,500 --> 00:01:08,000\nLow water.\n", { filename: "tides.srt" })
      expect(srt.markdown).toBe("\\[0:01\\] High water at six.\n\n\\[1:05\\] Low water.\n")
      const rtf = yield* parse(utf8("{\\rtf1\\ansi\\ansicpg1252{\\fonttbl{\\f0 Arial;}}{\\*\\generator Word;}\\f0 Caf\\'e9 cr\\'e8me\\par Second \\u8364? line\\par}"), { filename: "menu.rtf" })
      expect(rtf).toMatchObject({ type: "rtf", markdown: "Café crème\n\nSecond € line\n" })
    }))

  it.effect("CSV: delimiter guessed, quoted fields kept, TSV by name", () =>
    Effect.gen(function*() {
      const csv = yield* parse("name,notes\n\"Pier, north\",\"said \"\"hi\"\"\"\n", { filename: "a.csv" })
      expect(csv.markdown).toBe("| name | notes |\n| --- | --- |\n| Pier, north | said \"hi\" |\n")
      const tsv = yield* parse("a\tb\n1\t2\n", { filename: "a.tsv" })
      expect(tsv).toMatchObject({ type: "tsv", markdown: "| a | b |\n| --- | --- |\n| 1 | 2 |\n" })
    }))

  it.effect("a password-protected PDF (LibreOffice export, password `secret`) is a clear 400, not a crash", () =>
    Effect.gen(function*() {
      const error = yield* Effect.flip(parse(new Uint8Array(readFileSync(new URL("../fixtures/documents/encrypted.pdf", import.meta.url)))))
      expect(error._tag === "ContentError" && error.reason).toBe("Corrupt")
      expect(error.errorCode).toBe("INPUT_VALIDATION_ERROR")
      expect(error.message).toContain("encrypted with a password")
    }))

  it.effect("an empty upload, an inverted page range and unknown binaries are refused clearly", () =>
    Effect.gen(function*() {
      expect((yield* Effect.flip(parse(""))).message).toContain("empty")
      expect((yield* Effect.flip(parse("x", { pdfStart: 3, pdfEnd: 2 })))._tag).toBe("InvalidRequest")
      const unknown = yield* Effect.flip(parse(new Uint8Array([0, 1, 2, 0, 9])))
      expect(unknown._tag === "ContentError" && unknown.errorCode).toBe("UNSUPPORTED_CONTENT")
    }))
})

const hasTool = (tool: string, arg: string) => spawnSync(tool, [arg], { stdio: "ignore" }).status === 0

describe.runIf(hasTool("tesseract", "--version") && hasTool("pdftoppm", "-v"))("images through OCR", () => {
  it.live("a PNG of text comes out as that text", () =>
    Effect.gen(function*() {
      const dir = mkdtempSync(join(tmpdir(), "ocr-test-"))
      try {
        writeFileSync(join(dir, "a.pdf"), yield* Effect.promise(() => Pdf.simple(["Boats leave the north pier at seven."])))
        execFileSync("pdftoppm", ["-r", "150", "-png", "-singlefile", join(dir, "a.pdf"), join(dir, "page")])
        const parsed = yield* parse(new Uint8Array(readFileSync(join(dir, "page.png"))), { filename: "scan.png" })
        expect(parsed.type).toBe("png")
        expect(parsed.ocrUsed).toBe(true)
        expect(parsed.markdown).toContain("Boats leave the north pier at seven.")
      } finally {
        rmSync(dir, { recursive: true, force: true })
      }
    }), 60_000)

  it.live("OCR counts only the scanned pages of a PDF", () =>
    Effect.gen(function*() {
      const parsed = yield* parse(new Uint8Array(readFileSync(new URL("../fixtures/documents/scanned.pdf", import.meta.url))), { ocr: true })
      expect(parsed).toMatchObject({ type: "pdf", ocrPages: 1, ocrUsed: true })
      const text = yield* parse(yield* Effect.promise(Pdf.report), { ocr: true })
      expect(text).toMatchObject({ ocrPages: 0, ocrUsed: false })
    }), 60_000)
})

describe.runIf(hasTool("soffice", "--version"))("documents typeset by LibreOffice", () => {
  it.live("a two-column PDF reads column by column; a paragraph cut by the column break is whole again", () =>
    Effect.gen(function*() {
      const dir = mkdtempSync(join(tmpdir(), "columns-test-"))
      try {
        writeFileSync(join(dir, "survey.docx"), yield* Effect.promise(() => Office.twoColumnDocx(16)))
        execFileSync("soffice", [`-env:UserInstallation=file://${join(dir, "profile")}`, "--headless", "--convert-to", "pdf", "--outdir", dir, join(dir, "survey.docx")], { stdio: "ignore" })
        const parsed = yield* parse(new Uint8Array(readFileSync(join(dir, "survey.pdf"))))
        const paragraphs = parsed.markdown.trim().split("\n\n")
        expect(paragraphs[0]).toBe("# Channel survey")
        const survey = paragraphs.filter((p) => p.startsWith("Paragraph "))
        expect(survey).toEqual(Array.from({ length: 16 }, (_, i) => Office.surveyParagraph(i + 1)))
      } finally {
        rmSync(dir, { recursive: true, force: true })
      }
    }), 120_000)


  it.live("a .doc written by LibreOffice from the Word fixture converts like the .docx", () =>
    Effect.gen(function*() {
      const dir = mkdtempSync(join(tmpdir(), "legacy-test-"))
      try {
        writeFileSync(join(dir, "ferry.docx"), yield* Effect.promise(Office.docx))
        execFileSync("soffice", [`-env:UserInstallation=file://${join(dir, "profile")}`, "--headless", "--convert-to", "doc", "--outdir", dir, join(dir, "ferry.docx")], { stdio: "ignore" })
        const parsed = yield* parse(new Uint8Array(readFileSync(join(dir, "ferry.doc"))))
        expect(parsed.type).toBe("doc")
        expect(parsed.markdown).toContain("# Ferry timetable")
        expect(parsed.markdown).toContain("| Harbour to Island | 07:00 | 22:00 | €4.50 |")
      } finally {
        rmSync(dir, { recursive: true, force: true })
      }
    }), 120_000)
})
