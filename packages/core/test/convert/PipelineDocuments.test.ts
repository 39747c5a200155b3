/**
 * Documents through the whole pipeline: served by a local `node:http` server, fetched, converted and formatted by
 * `Pipeline.scrape` exactly as a web page is.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { readFileSync } from "node:fs"
import * as Cache from "../../src/Cache.js"
import * as Fetcher from "../../src/Fetcher.js"
import * as Pipeline from "../../src/Pipeline.js"
import * as FixtureSite from "../support/FixtureSite.js"
import * as Office from "./support/officeFixtures.js"
import * as Pdf from "./support/pdfFixtures.js"

const TestLayer = Layer.mergeAll(
  FixtureSite.layer({}),
  Fetcher.layer({ allowPrivateTargets: true }),
  Cache.layerMemory()
)

const serve = (path: string, body: Uint8Array, contentType: string) =>
  Effect.gen(function*() {
    const site = yield* FixtureSite.FixtureSite
    site.route(path, FixtureSite.html(body, { contentType }))
    return `${site.url}${path}`
  })

const report = Effect.promise(Pdf.report)
const scanned = Effect.sync(() => new Uint8Array(readFileSync(new URL("../fixtures/documents/scanned.pdf", import.meta.url))))

describe("Pipeline with documents", () => {
  it.layer(TestLayer, { timeout: 60_000 })((it) => {
    it.effect("a PDF URL gives Markdown with a GFM table, and bytes return the original file", () =>
      Effect.gen(function*() {
        const pdf = yield* report
        const url = yield* serve("/report.pdf", pdf, "application/pdf")
        const result = yield* Pipeline.scrape({ url, formats: { markdown: true, bytes: true, html: true }, maxAgeMs: 0 })
        expect(result.markdown.data).toContain("| Station | High water | Low water | Range (m) |\n| --- | --- | --- | --- |\n| North Pier | 06:12 | 12:30 | 4.8 |")
        expect(result.markdown.data).toContain("# Quarterly Harbour Report")
        expect(result.html.data).toContain("<table>")
        expect(Buffer.from(result.bytes.data!.base64, "base64").equals(Buffer.from(pdf))).toBe(true)
        expect(result.bytes.data!.contentType).toBe("application/pdf")
        expect(result.metadata.title).toBe("Quarterly Harbour Report")
      }))

    it.effect("a PDF served as application/octet-stream is still a PDF; selectors apply to it", () =>
      Effect.gen(function*() {
        const url = yield* serve("/download", yield* report, "application/octet-stream")
        const result = yield* Pipeline.scrape({
          url,
          formats: { markdown: true },
          sharedParams: { includeSelectors: ["table"] },
          maxAgeMs: 0
        })
        expect(result.markdown.data?.startsWith("| Station |")).toBe(true)
        expect(result.markdown.data).not.toContain("Quarterly Harbour Report")
      }))

    it.effect("a page range keeps only those pages (inclusive, 1-based)", () =>
      Effect.gen(function*() {
        const url = yield* serve("/range.pdf", yield* report, "application/pdf")
        const result = yield* Pipeline.scrape({
          url,
          formats: { markdown: true },
          sharedParams: { parsers: { pdf: { startPage: 2, endPage: 3 } } },
          maxAgeMs: 0
        })
        expect(result.markdown.data).toContain("# Channel works")
        expect(result.markdown.data).toContain("1. Survey the western approach.")
        expect(result.markdown.data).not.toContain("Tide measurements")
        const past = yield* Effect.flip(Pipeline.scrape({
          url,
          formats: { markdown: true },
          sharedParams: { parsers: { pdf: { startPage: 9 } } },
          maxAgeMs: 0
        }))
        expect(past._tag).toBe("InvalidRequest")
      }))

    it.effect("pdf[shouldParse]=false gives PDF_SKIPPED, unless only the bytes are requested", () =>
      Effect.gen(function*() {
        const pdf = yield* report
        const url = yield* serve("/skip.pdf", pdf, "application/pdf")
        const error = yield* Effect.flip(Pipeline.scrape({ url, formats: { markdown: true }, maxAgeMs: 0 }, { pdfShouldParse: false }))
        expect(error._tag === "ContentError" && error.errorCode).toBe("PDF_SKIPPED")
        const bytes = yield* Pipeline.scrape({ url, formats: { bytes: true }, maxAgeMs: 0 }, { pdfShouldParse: false })
        expect(bytes.bytes.data!.base64).toBe(Buffer.from(pdf).toString("base64"))
      }))

    it.effect("a scanned PDF gives PDF_IMAGES_ONLY, and with OCR its recognised text", () =>
      Effect.gen(function*() {
        const url = yield* serve("/scan.pdf", yield* scanned, "application/pdf")
        const error = yield* Effect.flip(Pipeline.scrape({ url, formats: { markdown: true }, maxAgeMs: 0 }))
        expect(error._tag === "ContentError" && error.errorCode).toBe("PDF_IMAGES_ONLY")
        const result = yield* Pipeline.scrape({
          url,
          formats: { markdown: true },
          sharedParams: { parsers: { pdf: { ocr: "auto" } } },
          maxAgeMs: 0
        })
        expect(result.markdown.data).toContain("The lighthouse keeper logged the weather at dawn and at dusk.")
      }))

    it.effect("office files and CSV by URL convert like pages", () =>
      Effect.gen(function*() {
        const docx = yield* serve("/ferry.docx", yield* Effect.promise(Office.docx), "application/vnd.openxmlformats-officedocument.wordprocessingml.document")
        const xlsx = yield* serve("/files/accounts", yield* Effect.promise(Office.xlsx), "application/octet-stream")
        const csv = yield* serve("/menu.csv", Office.csv1252(), "text/plain")
        const [a, b, c] = yield* Effect.all([docx, xlsx, csv].map((url) => Pipeline.scrape({ url, formats: { markdown: true }, maxAgeMs: 0 })))
        expect(a!.markdown.data).toContain("| Harbour to Island | 07:00 | 22:00 | €4.50 |")
        expect(b!.markdown.data).toContain("| 1-Mar-2024 | Harbour to Island | 412 | €1,854.00 | 91.6% |")
        expect(c!.markdown.data).toContain("| Café crème | 2,50 € | Très bon; fort |")
      }))

    it.effect("a corrupt PDF is a clear ContentError, not a crash", () =>
      Effect.gen(function*() {
        const url = yield* serve("/broken.pdf", new TextEncoder().encode("%PDF-1.7\n1 0 obj << /Type /Catalog >>\ngarbage"), "application/pdf")
        const error = yield* Effect.flip(Pipeline.scrape({ url, formats: { markdown: true }, maxAgeMs: 0 }))
        expect(error._tag).toBe("ContentError")
        expect(error._tag === "ContentError" && error.reason).toBe("Corrupt")
      }))
  })
})
