/**
 * `POST /v1/parse` through the official SDK (`client.parse.handle`), one upload per document type: the Markdown carries
 * the document's structure (tables, headings, fenced code), `type` is the detected one, credits are 1 plus one per page
 * OCR recovered, and refusals (scanned PDF without OCR, encrypted PDF, unknown bytes) cost nothing.
 */
import * as Auth from "@sift/auth"
import ContextDev from "context.dev"
import { Effect } from "effect"
import { execFileSync } from "node:child_process"
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as Office from "../../../core/test/convert/support/officeFixtures.js"
import * as Pdf from "../../../core/test/convert/support/pdfFixtures.js"
import * as TestService from "../support/TestService.js"

const documents = (name: string) => readFileSync(new URL(`../../../core/test/fixtures/documents/${name}`, import.meta.url))

type Parsed = { success: boolean; markdown: string; type: string; key_metadata: { credits_consumed: number } }

describe("POST /parse through the official SDK", () => {
  let service: TestService.TestService
  let client: ContextDev
  let orgId: string
  let secret: string
  beforeAll(async () => {
    service = await TestService.start()
    const key = await service.key({ credits: 1_000 })
    secret = key.secret
    orgId = key.orgId
    client = new ContextDev({ apiKey: secret, baseURL: service.baseUrl, maxRetries: 0, timeout: 120_000 })
  })
  afterAll(async () => {
    await service?.close()
  })

  const balance = () => service.run(Effect.flatMap(Auth.CreditLedger.CreditLedger, (l) => l.balance(orgId)))
  const upload = async (bytes: Uint8Array, params: Record<string, unknown>) =>
    await client.parse.handle(new File([new Uint8Array(bytes)], "upload"), params as never) as unknown as Parsed
  const refusal = async (bytes: Uint8Array, query: string) => {
    const response = await fetch(`${service.baseUrl}/parse?${query}`, {
      method: "POST",
      body: new Uint8Array(bytes),
      headers: { authorization: `Bearer ${secret}`, "content-type": "application/octet-stream" }
    })
    return { status: response.status, body: await response.json() as { error_code: string; message: string } }
  }

  it("a PDF report keeps its heading and its table; a page range reads only those pages", async () => {
    const report = await Pdf.report()
    const whole = await upload(report, { extension: "pdf", tags: ["sdk"] })
    expect(whole.type).toBe("pdf")
    expect(whole.markdown).toContain("# Quarterly Harbour Report")
    expect(whole.markdown).toContain("| Station | High water | Low water | Range (m) |")
    expect(whole.markdown).toContain("| Lighthouse Point | 06:05 | 12:18 | 5.2 |")
    expect(whole.key_metadata.credits_consumed).toBe(1)

    const second = await upload(report, { extension: "pdf", pdf: { start: 2, end: 2 } })
    expect(second.markdown).toBe(readFileSync(new URL("../../../core/test/fixtures/documents/report-pdf-page-2.md", import.meta.url), "utf8"))
    expect(second.markdown).not.toContain("Quarterly Harbour Report")
  })

  it("Word, Excel, PowerPoint and a windows-1252 CSV come out as their golden Markdown", async () => {
    const cases: ReadonlyArray<[Uint8Array, string, string, string]> = [
      [await Office.docx(), "docx", "docx", "ferry-docx.md"],
      [await Office.xlsx(), "xlsx", "xlsx", "accounts-xlsx.md"],
      [await Office.pptx(), "pptx", "pptx", "plans-pptx.md"],
      [Office.csv1252(), "csv", "csv", "menu-csv-1252.md"]
    ]
    for (const [bytes, extension, type, golden] of cases) {
      const parsed = await upload(bytes, { extension, ...(type === "docx" ? { includeImages: true } : {}) })
      expect(parsed.type, extension).toBe(type)
      expect(parsed.markdown, extension).toBe(documents(golden).toString("utf8"))
      expect(parsed.key_metadata.credits_consumed).toBe(1)
    }
  })

  it("types are detected from the bytes when no extension is given", async () => {
    expect((await upload(await Office.xlsx(), {})).type).toBe("xlsx")
    expect((await upload(await Pdf.report(), {})).type).toBe("pdf")
    const python = await upload(new TextEncoder().encode("def tide(height):\n    return height * 2\n"), { extension: "py" })
    expect(python.type).toBe("python")
    expect(python.markdown).toBe("```python\ndef tide(height):\n    return height * 2\n```\n")
    const json = await upload(new TextEncoder().encode('{"station":"North Pier","range":4.8}'), { extension: "json" })
    expect(json.type).toBe("json")
    expect(json.markdown).toBe('```json\n{"station":"North Pier","range":4.8}\n```\n')
  })

  it("a scanned PDF: refused without OCR (free), read with OCR for 1 + 1 credit and x-parse-ocr-used", async () => {
    const scanned = documents("scanned.pdf")
    const before = await balance()
    const refused = await refusal(scanned, "extension=pdf")
    expect(refused.status).toBe(400)
    expect(refused.body.error_code).toBe("PDF_IMAGES_ONLY")
    expect(await balance()).toEqual(before)

    const response = await client.parse.handle(new File([scanned], "scan.pdf"), { extension: "pdf", ocr: true }).withResponse()
    const body = response.data as unknown as Parsed
    expect(response.response.headers.get("x-parse-ocr-used")).toBe("true")
    expect(body.markdown).toMatch(/lighthouse keeper logged the weather at dawn/i)
    expect(body.key_metadata.credits_consumed).toBe(2)
    expect((await balance()).remaining).toBe(before.remaining - 2)
  })

  it("an image is read by OCR; an encrypted PDF and unknown bytes are refused and cost nothing", async () => {
    // A real raster of rendered text: poppler draws a one-line PDF page as a PNG, as a scanner would.
    const dir = mkdtempSync(join(tmpdir(), "parse-png-"))
    writeFileSync(join(dir, "page.pdf"), await Pdf.simple(["Harbour opens at seven every morning."]))
    execFileSync("pdftoppm", ["-r", "150", "-gray", "-png", "-singlefile", join(dir, "page.pdf"), join(dir, "page")])
    const png = readFileSync(join(dir, "page.png"))
    rmSync(dir, { recursive: true, force: true })
    const image = await upload(png, { extension: "png" })
    expect(image.type).toBe("png")
    expect(image.markdown).toMatch(/Harbour opens at seven/i)

    const before = await balance()
    const encrypted = await refusal(documents("encrypted.pdf"), "extension=pdf")
    expect(encrypted.status).toBe(400)
    expect(encrypted.body.message).toContain("encrypted")
    const unknown = await refusal(new Uint8Array([0, 159, 146, 150, 7, 1, 2, 3, 0, 0, 0, 4]), "")
    expect(unknown.status).toBe(415)
    expect(unknown.body.error_code).toBe("UNSUPPORTED_CONTENT")
    expect(await balance()).toEqual(before)
  })
})
