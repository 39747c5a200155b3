/**
 * An answer is sent only after its charge and its log row are durable (issue 16, item 12). On PostgreSQL, when they
 * cannot be written, the request does not answer its success but 500 `INTERNAL_ERROR`, charged nothing, and the
 * balance it reports is the balance the database keeps. On PGlite in a data directory they are durable in the journal
 * before the answer, so the success is sent, and the database gets the row and the charge once it can take them.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { Sql } from "@sift/store"
import { Effect, Redacted } from "effect"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest"
import * as TestService from "../support/TestService.js"

const databaseUrl = inject("databaseUrl")
const backends = [
  { name: "pglite", url: undefined, skip: false, journaled: true },
  { name: "postgres", url: databaseUrl ?? undefined, skip: databaseUrl === null || databaseUrl === undefined, journaled: false }
]

let origin: ReturnType<typeof createServer>
let pageUrl = ""
beforeAll(async () => {
  origin = createServer((_req, res) => res.writeHead(200, { "content-type": "text/html" }).end("<main><h1>Recorded</h1><p>A page.</p></main>"))
  await new Promise<void>((resolve) => origin.listen(0, "127.0.0.1", resolve))
  pageUrl = `http://127.0.0.1:${(origin.address() as AddressInfo).port}/`
})
afterAll(() => origin.close())

for (const backend of backends) {
  describe.skipIf(backend.skip)(`a request whose log row cannot be written (${backend.name})`, () => {
    it(backend.journaled
      ? "answers its success from the journal; the row and the charge reach the database once it takes them again, once"
      : "answers 500 INTERNAL_ERROR charged nothing, not its success; once the log is writable again it is charged as ever", async () => {
      // On PostgreSQL a schema of its own: the log table is moved away, and the database is shared by the suites.
      const schema = `unrecorded_${process.pid}_${Date.now()}`
      const admin = (statement: (sql: SqlClient.SqlClient) => Effect.Effect<unknown, unknown>) =>
        Effect.runPromise(Effect.provide(Effect.flatMap(SqlClient.SqlClient, statement), Sql.layerPg({ url: Redacted.make(backend.url!) })) as Effect.Effect<unknown>)
      let url = backend.url
      if (url !== undefined) {
        await admin((sql) => sql`CREATE SCHEMA ${sql(schema)}`)
        const scoped = new URL(url)
        scoped.searchParams.set("options", `-c search_path=${schema}`)
        url = scoped.toString()
      }
      const service = await TestService.start({ databaseUrl: url })
      const table = "request_logs_away"
      try {
        const { orgId, secret } = await service.key({ plan: "scale", credits: 100 })
        const scrape = async () => {
          const response = await fetch(`${service.baseUrl}/web/scrape/markdown?url=${encodeURIComponent(pageUrl)}`, { headers: { authorization: `Bearer ${secret}` } })
          return { status: response.status, body: (await response.json()) as Record<string, any> }
        }
        const charges = () =>
          service.run(Effect.flatMap(SqlClient.SqlClient, (sql) =>
            sql<{ request_id: string }>`SELECT request_id FROM credit_events WHERE org_id = ${orgId}`)).then((rows) => rows.map((row) => row.request_id))

        const first = await scrape()
        expect(first.status).toBe(200)
        expect(first.body.key_metadata).toEqual({ credits_consumed: 1, credits_remaining: 99 })

        await service.run(Effect.flatMap(SqlClient.SqlClient, (sql) => sql`ALTER TABLE request_logs RENAME TO ${sql(table)}`))
        let during: Awaited<ReturnType<typeof scrape>>
        try {
          during = await scrape()
          // The database writer keeps trying meanwhile.
          await new Promise((resolve) => setTimeout(resolve, 200))
        } finally {
          await service.run(Effect.flatMap(SqlClient.SqlClient, (sql) => sql`ALTER TABLE ${sql(table)} RENAME TO request_logs`))
        }
        const expected = [first.body.request_id]
        if (backend.journaled) {
          expect(during.status).toBe(200)
          expect(during.body.key_metadata).toEqual({ credits_consumed: 1, credits_remaining: 98 })
          expected.push(during.body.request_id)
        } else {
          expect(during.status).toBe(500)
          expect(during.body).toMatchObject({ error_code: "INTERNAL_ERROR", key_metadata: { credits_consumed: 0, credits_remaining: 99 } })
          expect(during.body.markdown).toBeUndefined()
          expect(await charges()).toEqual([first.body.request_id])
        }

        const again = await scrape()
        expect(again.status).toBe(200)
        expect(again.body.key_metadata).toEqual({ credits_consumed: 1, credits_remaining: 100 - expected.length - 1 })
        expected.push(again.body.request_id)
        // The list waits for the database writer: every answered request is there, charged once.
        const logged = await fetch(`${service.baseUrl}/logs?path=/web/scrape/markdown`, { headers: { authorization: `Bearer ${secret}` } })
          .then((r) => r.json() as Promise<{ data: Array<{ request_id: string; status_code: number }> }>)
        expect(logged.data.map((entry) => entry.request_id).sort()).toEqual([...expected].sort())
        expect((await charges()).sort()).toEqual([...expected].sort())
      } finally {
        await service.close()
        if (backend.url !== undefined) await admin((sql) => sql`DROP SCHEMA ${sql(schema)} CASCADE`)
      }
    }, 120_000)
  })
}
