/**
 * Document URLs on the scrape endpoints: `GET /web/scrape/html` reports the detected `type`, and a scanned PDF read with
 * OCR costs one credit more per recovered page on every endpoint (refused, and free, without OCR).
 */
import * as Auth from "@sift/auth"
import { Effect } from "effect"
import { readFileSync } from "node:fs"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as Office from "../../../core/test/convert/support/officeFixtures.js"
import * as Pdf from "../../../core/test/convert/support/pdfFixtures.js"
import * as FixtureSite from "../../../core/test/support/FixtureSite.js"
import * as TestService from "../support/TestService.js"

const scanned = readFileSync(new URL("../../../core/test/fixtures/documents/scanned.pdf", import.meta.url))

describe("document URLs on the scrape endpoints", () => {
  let service: TestService.TestService
  let site: FixtureSite.Site
  let secret: string
  let orgId: string
  beforeAll(async () => {
    site = await FixtureSite.start({
      "/report.pdf": FixtureSite.html(await Pdf.report(), { contentType: "application/pdf" }),
      "/ferry.docx": FixtureSite.html(await Office.docx(), { contentType: "application/vnd.openxmlformats-officedocument.wordprocessingml.document" }),
      "/scan.pdf": FixtureSite.html(scanned, { contentType: "application/pdf" }),
      "/page": FixtureSite.html("<h1>Plain page</h1><p>Words.</p>")
    })
    service = await TestService.start()
    const key = await service.key({ credits: 100 })
    secret = key.secret
    orgId = key.orgId
  })
  afterAll(async () => {
    await service?.close()
    await site?.close()
  })

  const get = async (path: string) => {
    const response = await fetch(`${service.baseUrl}${path}`, { headers: { authorization: `Bearer ${secret}` } })
    return { status: response.status, body: await response.json() as Record<string, any> }
  }
  const post = async (body: unknown) => {
    const response = await fetch(`${service.baseUrl}/web/scrape`, {
      method: "POST",
      body: JSON.stringify(body),
      headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" }
    })
    return { status: response.status, body: await response.json() as Record<string, any> }
  }
  const remaining = async () => (await service.run(Effect.flatMap(Auth.CreditLedger.CreditLedger, (l) => l.balance(orgId)))).remaining

  it("GET /web/scrape/html gives the detected document type: pdf, docx, html", async () => {
    const pdf = await get(`/web/scrape/html?url=${encodeURIComponent(`${site.url}/report.pdf`)}`)
    expect(pdf.status).toBe(200)
    expect(pdf.body.type).toBe("pdf")
    expect(pdf.body.html).toContain("<h1>Quarterly Harbour Report</h1>")
    expect(pdf.body.html).toContain("<td>Lighthouse Point</td>")
    const docx = await get(`/web/scrape/html?url=${encodeURIComponent(`${site.url}/ferry.docx`)}`)
    expect(docx.body.type).toBe("docx")
    expect(docx.body.html).toContain("<h1>Ferry timetable</h1>")
    const page = await get(`/web/scrape/html?url=${encodeURIComponent(`${site.url}/page`)}`)
    expect(page.body.type).toBe("html")
    // A cache hit keeps the type.
    const again = await get(`/web/scrape/html?url=${encodeURIComponent(`${site.url}/report.pdf`)}`)
    expect(again.body.cache_metadata.status).toBe("hit")
    expect(again.body.type).toBe("pdf")
  })

  it("a scanned PDF: refused without OCR for nothing; with OCR 1 + 1 credit on the Markdown endpoint and POST /web/scrape", async () => {
    const url = encodeURIComponent(`${site.url}/scan.pdf`)
    const before = await remaining()
    const refused = await get(`/web/scrape/markdown?url=${url}`)
    expect(refused.status).toBe(400)
    expect(refused.body.error_code).toBe("PDF_IMAGES_ONLY")
    expect(await remaining()).toBe(before)

    const read = await get(`/web/scrape/markdown?url=${url}&pdf[ocr]=true`)
    expect(read.status).toBe(200)
    expect(read.body.markdown).toMatch(/lighthouse keeper logged the weather/i)
    expect(read.body.key_metadata.credits_consumed).toBe(2)

    const posted = await post({ url: `${site.url}/scan.pdf`, formats: { markdown: true }, sharedParams: { parsers: { pdf: { ocr: "auto" } } }, maxAgeMs: 0 })
    expect(posted.status).toBe(200)
    expect(posted.body.markdown.data).toMatch(/visibility was good/i)
    expect(posted.body.key_metadata.credits_consumed).toBe(2)
    expect(await remaining()).toBe(before - 4)

    // A text PDF with OCR allowed recovers nothing by OCR and costs the base credit.
    const text = await post({ url: `${site.url}/report.pdf`, formats: { markdown: true }, sharedParams: { parsers: { pdf: { ocr: "auto" } } } })
    expect(text.body.key_metadata.credits_consumed).toBe(1)
  })
})
