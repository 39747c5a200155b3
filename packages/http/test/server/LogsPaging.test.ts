/**
 * `/v1/logs` pages while traffic arrives (issue 16, item 13): paging with `page`/`limit` over a list that grows at its
 * head used to repeat entries (offset paging over a moving list). With the snapshot of the first page
 * (`X-Service-Logs-Snapshot`, sent back as `snapshot`) no entry repeats and none that existed when paging began is
 * skipped. On embedded PGlite and on PostgreSQL.
 */
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest"
import * as TestService from "../support/TestService.js"

const databaseUrl = inject("databaseUrl")
const backends = [
  { name: "pglite", url: undefined, skip: false },
  { name: "postgres", url: databaseUrl ?? undefined, skip: databaseUrl === null || databaseUrl === undefined }
]

let origin: ReturnType<typeof createServer>
let pageUrl = ""
beforeAll(async () => {
  origin = createServer((_req, res) => res.writeHead(200, { "content-type": "text/html" }).end("<main><h1>Logged</h1><p>A page.</p></main>"))
  await new Promise<void>((resolve) => origin.listen(0, "127.0.0.1", resolve))
  pageUrl = `http://127.0.0.1:${(origin.address() as AddressInfo).port}/`
})
afterAll(() => origin.close())

for (const backend of backends) {
  describe.skipIf(backend.skip)(`GET /v1/logs paging (${backend.name})`, () => {
    it("pages through a log that grows meanwhile: no entry twice, none that existed when paging began left out", async () => {
      const service = await TestService.start({ databaseUrl: backend.url })
      try {
        const { secret } = await service.key({ plan: "scale", requestsPerMinute: 100_000 })
        const scrape = () =>
          fetch(`${service.baseUrl}/web/scrape/markdown?url=${encodeURIComponent(pageUrl)}`, { headers: { authorization: `Bearer ${secret}` } })
            .then(async (response) => {
              expect(response.status).toBe(200)
              return ((await response.json()) as { request_id: string }).request_id
            })
        const logs = (query: string) => fetch(`${service.baseUrl}/logs?${query}`, { headers: { authorization: `Bearer ${secret}` } })

        const existing = new Set<string>()
        for (let i = 0; i < 4; i++) for (const id of await Promise.all(Array.from({ length: 10 }, scrape))) existing.add(id)

        // Traffic keeps arriving (four requests in flight) while the pages are read.
        let traffic = true
        const arriving = Promise.all(Array.from({ length: 4 }, async () => {
          while (traffic) await scrape()
        }))
        const seen: Array<string> = []
        let snapshot: string | null = null
        try {
          for (let page = 1; page <= 100; page++) {
            const query = new URLSearchParams({ path: "/web/scrape/markdown", limit: "7", page: String(page) })
            if (snapshot !== null) query.set("snapshot", snapshot)
            const response = await logs(query.toString())
            expect(response.status).toBe(200)
            const body = (await response.json()) as { data: Array<{ request_id: string }>; has_more: boolean; page: number; limit: number }
            expect({ page: body.page, limit: body.limit }).toEqual({ page, limit: 7 })
            // Every page names the snapshot it was read in: the first page's own, then the one sent back.
            const named = response.headers.get("x-service-logs-snapshot")
            expect(named).toMatch(/^\d+:\d+:\d+:[\d,]*$/)
            if (snapshot !== null) expect(named).toBe(snapshot)
            snapshot = named
            seen.push(...body.data.map((entry) => entry.request_id))
            if (!body.has_more) break
            // Let the traffic insert rows between pages.
            await new Promise((resolve) => setTimeout(resolve, 30))
          }
        } finally {
          traffic = false
          await arriving
        }
        const repeated = seen.filter((id, i) => seen.indexOf(id) !== i)
        const missing = [...existing].filter((id) => !seen.includes(id))
        expect({ repeated, missing }).toEqual({ repeated: [], missing: [] })

        // Without the snapshot a page is read afresh: the newest entries come first again.
        const fresh = (await (await logs("path=/web/scrape/markdown&limit=100")).json()) as { data: Array<{ request_id: string }> }
        expect(fresh.data.length).toBeGreaterThan(seen.length)

        // A value that is no snapshot is refused.
        for (const bad of ["x", "1:5:3:", "1:3:9:7,5", "1:3:9:10"]) {
          const refused = await logs(`snapshot=${encodeURIComponent(bad)}`)
          expect(refused.status).toBe(400)
          expect(((await refused.json()) as { error_code: string; message: string })).toMatchObject({ error_code: "INPUT_VALIDATION_ERROR" })
        }
      } finally {
        await service.close()
      }
    }, 120_000)
  })
}
