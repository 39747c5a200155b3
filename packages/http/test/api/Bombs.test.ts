/**
 * Decompression bombs through the real service (issue 16, item 7): a 320 KB .docx whose XML inflates to 320 MB, sent
 * to `POST /v1/parse` and served by a page that `GET /v1/web/scrape/markdown` reads, is refused with 413
 * `CONTENT_TOO_LARGE`, costs no credit, leaves the process's memory where it was and the service answering.
 * The core tests (packages/core/test/convert/Bombs.test.ts) cover every other kind of bomb, in child processes.
 */
import * as Auth from "@sift/auth"
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest"
import * as Bombs from "../../../core/test/convert/support/bombs.js"
import * as Office from "../../../core/test/convert/support/officeFixtures.js"
import * as FixtureSite from "../../../core/test/support/FixtureSite.js"
import * as TestService from "../support/TestService.js"

const MiB = 1024 * 1024
const docxType = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"

const backends = [
  { name: "pglite", url: undefined as string | undefined },
  { name: "postgres", url: inject("databaseUrl") ?? undefined }
]

for (const backend of backends) {
  describe.skipIf(backend.name === "postgres" && backend.url === undefined)(`decompression bombs through the service (${backend.name})`, () => {
    let service: TestService.TestService
    let site: FixtureSite.Site
    let bomb: Buffer
    let secret: string
    let orgId: string
    beforeAll(async () => {
      // Sizes hidden: the zip headers claim 1 KB, so only inflating the part shows what it is.
      bomb = await Bombs.officeBomb("docx", 320 * MiB, "tiny")
      site = await FixtureSite.start({
        "/bomb.docx": FixtureSite.html(bomb, { contentType: docxType }),
        "/ferry.docx": FixtureSite.html(await Office.docx(), { contentType: docxType })
      })
      service = await TestService.start({ databaseUrl: backend.url, listener: true })
      const key = await service.key({ credits: 100 })
      secret = key.secret
      orgId = key.orgId
    })
    afterAll(async () => {
      await service?.close()
      await site?.close()
    })

    const remaining = async () => (await service.run(Effect.flatMap(Auth.CreditLedger.CreditLedger, (l) => l.balance(orgId)))).remaining
    const answer = async (response: Response) => ({ status: response.status, body: await response.json() as Record<string, any> })
    const parse = async (bytes: Uint8Array) =>
      answer(await fetch(`${service.baseUrl}/parse?extension=docx`, {
        method: "POST",
        body: new Uint8Array(bytes),
        headers: { authorization: `Bearer ${secret}`, "content-type": "application/octet-stream" }
      }))
    const scrape = async (path: string) =>
      answer(await fetch(`${service.baseUrl}/web/scrape/markdown?url=${encodeURIComponent(`${site.url}${path}`)}`, {
        headers: { authorization: `Bearer ${secret}` }
      }))

    it("POST /parse and a scrape of a page serving the bomb answer 413 CONTENT_TOO_LARGE, uncharged; the service keeps serving", async () => {
      expect(bomb.byteLength).toBeLessThan(400 * 1024)
      const before = await remaining()
      // Resident size sampled through both calls (the refusal inflates as a stream, so the event loop keeps turning).
      const rss = process.memoryUsage().rss
      let peak = rss
      const sampler = setInterval(() => {
        peak = Math.max(peak, process.memoryUsage().rss)
      }, 5)

      const parsed = await parse(bomb)
      expect(parsed.status).toBe(413)
      expect(parsed.body).toMatchObject({ error_code: "CONTENT_TOO_LARGE", key_metadata: { credits_consumed: 0, credits_remaining: before } })
      expect(parsed.body.message).toMatch(/docx file's XML inflates to more than 16 MiB/)

      const scraped = await scrape("/bomb.docx")
      expect(scraped.status).toBe(413)
      expect(scraped.body).toMatchObject({ error_code: "CONTENT_TOO_LARGE", key_metadata: { credits_consumed: 0, credits_remaining: before } })
      clearInterval(sampler)
      expect(await remaining()).toBe(before)
      // The whole process (service, database and all) stayed near its size before the bombs.
      expect(peak - rss, `grew by ${Math.round((peak - rss) / MiB)} MiB`).toBeLessThan(300 * MiB)

      // Still serving, and still converting Word documents.
      const ferry = await scrape("/ferry.docx")
      expect(ferry.status).toBe(200)
      expect(ferry.body.markdown).toContain("# Ferry timetable")
      expect(ferry.body.key_metadata.credits_consumed).toBe(1)
      const upload = await parse(await Office.docx())
      expect(upload.status).toBe(200)
      expect(upload.body.markdown).toContain("# Ferry timetable")
      expect(await remaining()).toBe(before - 2)
    }, 120_000)
  })
}
