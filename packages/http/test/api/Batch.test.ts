/**
 * Batches over HTTP through the official SDK (`client.batch.*`, wave2 §1, §21), on PGlite and PostgreSQL: submit,
 * list, retrieve, results paged by cursor, NDJSON parts downloaded without a key, cancel, delete, idempotency, bad
 * input, plan caps, credits reserved in the batch's own transaction and refunded at settlement, a signed completion
 * webhook listed in the deliveries, and results that expire. A real fixture site and receiver on `node:http`, the
 * real worker.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as Auth from "@sift/auth"
import ContextDev from "context.dev"
import { Effect } from "effect"
import { createHmac } from "node:crypto"
import { createServer, type IncomingMessage, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { gunzipSync } from "node:zlib"
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest"
import { eventually } from "../support/eventually.js"
import * as TestService from "../support/TestService.js"

const listen = async (server: Server) => {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`
}

const page = (title: string) =>
  `<!doctype html><html lang="en"><head><title>${title}</title></head><body><main><h1>${title}</h1><p>About ${title}, in a few words.</p></main></body></html>`

// An anti-bot interstitial: WEBSITE_BLOCKED.
const botWall = `<!doctype html><html><head><title>Just a moment...</title></head><body>
<div id="challenge-running">Checking if the site connection is secure</div>
<div class="cf-browser-verification">Enable JavaScript and cookies to continue</div>
<script src="/cdn-cgi/challenge-platform/h/b/orchestrate/jsch/v1"></script></body></html>`

const linking = (title: string, links: ReadonlyArray<string>) =>
  page(title).replace("</main>", links.map((l) => `<p><a href="${l}">${l}</a></p>`).join("") + "</main>")

// The site: /p/* pages, /missing/* 404s, /slow/* pages after 1.5 s, /site/ a small linked site.
let site: { url: string; close: () => Promise<void> }
interface Received {
  readonly headers: IncomingMessage["headers"]
  readonly body: string
}
let receiver: { url: string; received: Array<Received>; close: () => Promise<void> }

beforeAll(async () => {
  const server = createServer((req, res) => {
    const path = (req.url ?? "/").split("?")[0]!
    if (path.startsWith("/missing/")) return void res.writeHead(404, { "content-type": "text/html" }).end("<html><body><h1>Not found</h1></body></html>")
    if (path === "/site/") return void res.writeHead(200, { "content-type": "text/html" }).end(linking("Home", ["/site/a", "/site/b", "/site/b#top", "/elsewhere"]))
    if (path === "/site/a") return void res.writeHead(200, { "content-type": "text/html" }).end(linking("A", ["/site/a/deep"]))
    if (path.startsWith("/site/")) return void res.writeHead(200, { "content-type": "text/html" }).end(linking(`Page ${path}`, ["/site/"]))
    if (path === "/blocked") return void res.writeHead(200, { "content-type": "text/html" }).end(botWall)
    if (path.startsWith("/slow/")) {
      setTimeout(() => res.writeHead(200, { "content-type": "text/html" }).end(page(`Slow ${path}`)), 1_500)
      return
    }
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(page(`Page ${path}`))
  })
  site = { url: await listen(server), close: () => new Promise((r) => server.close(() => r())) }
  const received: Array<Received> = []
  const hooks = createServer((req, res) => {
    let body = ""
    req.on("data", (chunk) => (body += chunk))
    req.on("end", () => {
      received.push({ headers: req.headers, body: req.url === "/fail" ? `fail ${body}` : body })
      // /fail is a receiver that is down.
      res.writeHead(req.url === "/fail" ? 503 : 200).end()
    })
  })
  receiver = { url: `${await listen(hooks)}/hook`, received, close: () => new Promise((r) => hooks.close(() => r())) }
})
afterAll(async () => {
  await site?.close()
  await receiver?.close()
})

const verify = (header: string, body: string, secret: string) => {
  const parts = Object.fromEntries(header.split(",").map((p) => p.split("=") as [string, string]))
  return createHmac("sha256", secret).update(`${parts.t}.${body}`).digest("hex") === parts.v1
}

type Batch = Awaited<ReturnType<ContextDev["batch"]["retrieve"]>>
type Submitted = Awaited<ReturnType<ContextDev["batch"]["submit"]>> & { key_metadata: { credits_consumed: number; credits_remaining: number } }

const backends = [
  { name: "pglite", url: undefined as string | undefined },
  { name: "postgres", url: inject("databaseUrl") ?? undefined }
]

for (const backend of backends) {
  describe.skipIf(backend.name === "postgres" && backend.url === undefined)(`batches over HTTP (${backend.name})`, () => {
    let service: TestService.TestService
    beforeAll(async () => {
      service = await TestService.start({ databaseUrl: backend.url, env: { SIFT_BATCH_SWEEP_MS: "1000" } })
    }, 60_000)
    afterAll(async () => {
      await service?.close()
    })
    const clientOf = (secret: string) => new ContextDev({ apiKey: secret, baseURL: service.baseUrl, maxRetries: 0, timeout: 60_000 })
    const balance = (orgId: string) => service.run(Effect.flatMap(Auth.CreditLedger.CreditLedger, (l) => l.balance(orgId))).then((b) => b.remaining)
    /** The error of a call the SDK rejects: its status and body. */
    const refusal = async (call: Promise<unknown>) => {
      const error = await call.then(() => undefined, (e: { status?: number; error?: Record<string, unknown> }) => e)
      expect(error, "the call should have failed").toBeDefined()
      return { status: error!.status, code: error!.error?.["error_code"], message: String(error!.error?.["message"] ?? "") }
    }
    const settled = (client: ContextDev, id: string) =>
      eventually(async () => {
        const batch = await client.batch.retrieve(id)
        return batch.status === "completed" || batch.status === "cancelled" || batch.status === "failed" ? batch : undefined
      }, 60_000)
    const allResults = async (client: ContextDev, id: string, limit: number) => {
      const records: Array<Record<string, unknown>> = []
      let cursor: string | undefined
      for (;;) {
        const got = await client.batch.getResults(id, { limit, ...(cursor === undefined ? {} : { cursor }) })
        records.push(...(got.data ?? []) as unknown as Array<Record<string, unknown>>)
        if (got.has_more !== true) return records
        cursor = got.next_cursor!
      }
    }

    it("submits, lists, retrieves, pages results, serves NDJSON parts equal to them, and charges the pages that succeeded", async () => {
      const key = await service.key({ credits: 100 })
      const client = clientOf(key.secret)
      const urls = [
        ...Array.from({ length: 5 }, (_, i) => ({ url: `${site.url}/p/${i}`, itemId: `item-${i}`, meta: { n: i } })),
        { url: `${site.url}/p/0`, itemId: "item-0", meta: { n: 0 } },
        { url: `${site.url}/missing/a` },
        { url: `${site.url}/missing/b` },
        { url: "not a url" }
      ]
      const submitted = await client.batch.submit({ input: { mode: "scrape", data: { format: "markdown", urls } }, tags: ["nightly"] }) as Submitted
      expect(submitted.status).toBe("queued")
      expect(submitted.id).toMatch(/^batch_[0-9A-Za-z]{16}$/)
      expect(submitted.input).toEqual({ duplicates: 1, invalid: 1, reserved: 7, reserved_is_ceiling: false, submitted: 9 })
      expect(submitted.invalid_urls).toHaveLength(1)
      expect(submitted.credits.reserved).toBe(7)
      expect(submitted.key_metadata.credits_consumed).toBe(7)
      expect(submitted.key_metadata.credits_remaining).toBe(93)
      expect(await balance(key.orgId)).toBe(93)

      // Results of a batch that is not final: 409.
      const early = await client.batch.retrieve(submitted.id)
      if (early.status === "queued" || early.status === "running") {
        expect(await refusal(client.batch.getResults(submitted.id))).toMatchObject({ status: 409, code: "BATCH_NOT_COMPLETED" })
      }

      const batch = await settled(client, submitted.id)
      expect(batch.status).toBe("completed")
      expect(batch.progress).toEqual({ failed: 2, pending: 0, succeeded: 5 })
      expect(batch.credits).toEqual({ net: 5, ocr_charged: 0, refunded: 2, reserved: 7 })
      expect(batch.page_errors).toEqual([{ code: expect.any(String), count: 2 }])
      expect(batch.tags).toEqual(["nightly"])
      // Credits = the pages that succeeded, after settlement.
      expect(await balance(key.orgId)).toBe(95)

      // JSON results by cursor, in submission order, stable across page sizes.
      const byTwo = await allResults(client, submitted.id, 2)
      const byAll = await allResults(client, submitted.id, 100)
      expect(byTwo).toEqual(byAll)
      expect(byTwo.map((r) => r["url"])).toEqual([0, 1, 2, 3, 4].map((i) => `${site.url}/p/${i}`).concat([`${site.url}/missing/a`, `${site.url}/missing/b`]))
      expect(byTwo[0]).toMatchObject({ status: "ok", itemId: "item-0", meta: { n: 0 } })
      expect(String(byTwo[0]!["markdown"])).toContain("Page /p/0")
      expect(byTwo[5]).toMatchObject({ status: "error", error_code: batch.page_errors[0]!.code })

      // NDJSON parts, fetched without a key, hold exactly the JSON records; items and bytes are exact.
      expect(batch.results).not.toBeNull()
      const fromFiles: Array<unknown> = []
      for (const file of batch.results!.files) {
        expect(file.url.startsWith(`${new URL(service.baseUrl).origin}/v1/files/file_`)).toBe(true)
        const response = await fetch(file.url)
        expect(response.status).toBe(200)
        expect(response.headers.get("content-type")).toBe("application/gzip")
        const bytes = Buffer.from(await response.arrayBuffer())
        expect(bytes.length).toBe(file.bytes)
        const lines = gunzipSync(bytes).toString("utf8").split("\n").filter((line) => line !== "")
        expect(lines.length).toBe(file.items)
        fromFiles.push(...lines.map((line) => JSON.parse(line)))
      }
      expect(fromFiles).toEqual(byAll)

      // The list: newest first, filtered by status and tags, found by id.
      const listed = await client.batch.list({ tags: "nightly" })
      expect(listed.data?.map((b) => b.id)).toEqual([submitted.id])
      expect((await client.batch.list({ status: "running" })).data).toEqual([])
      expect((await client.batch.list({ q: submitted.id, search_type: "exact" })).data?.[0]?.id).toBe(submitted.id)
      expect((listed.data?.[0] as unknown as Record<string, unknown>)["invalid_urls"]).toBeUndefined()

      // Another organization sees none of it.
      const other = clientOf((await service.key({ credits: 10 })).secret)
      expect(await refusal(other.batch.retrieve(submitted.id))).toMatchObject({ status: 404, code: "NOT_FOUND" })
      expect(await refusal(other.batch.getResults(submitted.id))).toMatchObject({ status: 404, code: "NOT_FOUND" })
      expect(await refusal(other.batch.delete(submitted.id))).toMatchObject({ status: 404, code: "NOT_FOUND" })
      expect((await other.batch.list()).data).toEqual([])

      // Cancel of a final batch: 409. Delete: gone, its files too.
      expect(await refusal(client.batch.cancel(submitted.id))).toMatchObject({ status: 409, code: "BATCH_NOT_CANCELLABLE" })
      expect(await client.batch.delete(submitted.id)).toMatchObject({ id: submitted.id, deleted: true })
      expect(await refusal(client.batch.retrieve(submitted.id))).toMatchObject({ status: 404, code: "NOT_FOUND" })
      expect((await fetch(batch.results!.files[0]!.url)).status).toBe(404)
    }, 120_000)

    it("idempotency: the same key and body answer the same batch, another body 409", async () => {
      const key = await service.key({ credits: 100 })
      const client = clientOf(key.secret)
      const body = { input: { mode: "scrape" as const, data: { format: "markdown" as const, urls: [{ url: `${site.url}/p/idem` }] } } }
      const first = await client.batch.submit({ ...body, "Idempotency-Key": "key-1" }) as Submitted
      const again = await client.batch.submit({ ...body, "Idempotency-Key": "key-1" }) as Submitted
      expect(again.id).toBe(first.id)
      // The replay charged nothing.
      expect(again.key_metadata.credits_consumed).toBe(0)
      const conflict = await refusal(client.batch.submit({
        input: { mode: "scrape", data: { format: "markdown", urls: [{ url: `${site.url}/p/other` }] } },
        "Idempotency-Key": "key-1"
      }))
      expect(conflict).toMatchObject({ status: 409, code: "IDEMPOTENCY_KEY_CONFLICT" })
      expect(await balance(key.orgId)).toBe(99)
      expect((await client.batch.list()).data).toHaveLength(1)
      await settled(client, first.id)
    }, 60_000)

    it("refuses bad input, unaffordable batches (nothing stored) and batches past the plan's cap", async () => {
      const key = await service.key({ plan: "free", credits: 3 })
      const client = clientOf(key.secret)
      const tooMany = await refusal(client.batch.submit({
        input: { mode: "scrape", data: { format: "markdown", urls: Array.from({ length: 25_001 }, (_, i) => ({ url: `${site.url}/p/${i}` })) } }
      }))
      expect(tooMany).toMatchObject({ status: 400, code: "INPUT_VALIDATION_ERROR" })
      expect(tooMany.message).toContain("25,000")
      const both = await refusal(client.batch.submit({
        input: { mode: "scrape", data: { format: "markdown", urls: [{ url: `${site.url}/p/1` }] } },
        webhook: { url: receiver.url },
        webhookUrl: receiver.url
      }))
      expect(both).toMatchObject({ status: 400, code: "INPUT_VALIDATION_ERROR" })
      expect(both.message).toContain("webhookUrl")

      // Four pages with three credits: 403, nothing stored, nothing charged.
      const poor = await refusal(client.batch.submit({
        input: { mode: "scrape", data: { format: "markdown", urls: Array.from({ length: 4 }, (_, i) => ({ url: `${site.url}/p/poor${i}` })) } }
      }))
      expect(poor).toMatchObject({ status: 403, code: "USAGE_EXCEEDED" })
      expect(await balance(key.orgId)).toBe(3)
      expect((await client.batch.list()).data).toEqual([])
      const stored = await service.run(Effect.flatMap(SqlClient.SqlClient, (sql) =>
        sql<{ n: number | string }>`SELECT count(*) AS n FROM batches WHERE org_id = ${key.orgId}`))
      expect(Number(stored[0]!.n)).toBe(0)

      // The free plan has one active batch at a time.
      const slow = await client.batch.submit({
        input: { mode: "scrape", data: { format: "markdown", urls: [{ url: `${site.url}/slow/cap1` }, { url: `${site.url}/slow/cap2` }] } }
      })
      const capped = await refusal(client.batch.submit({ input: { mode: "scrape", data: { format: "markdown", urls: [{ url: `${site.url}/p/cap` }] } } }))
      expect(capped).toMatchObject({ status: 403, code: "BATCH_LIMIT_EXCEEDED" })
      expect(await refusal(client.batch.delete(slow.id))).toMatchObject({ status: 409, code: "BATCH_NOT_COMPLETED" })
      await settled(client, slow.id)
      expect(await balance(key.orgId)).toBe(1)

      // Reading needs batches:read, submitting batches:write.
      const reader = clientOf((await service.key({ permissions: ["batches:read"] })).secret)
      expect(await refusal(reader.batch.submit({ input: { mode: "scrape", data: { format: "markdown", urls: [{ url: `${site.url}/p/1` }] } } })))
        .toMatchObject({ status: 403, code: "INSUFFICIENT_PERMISSIONS" })
      expect((await reader.batch.list()).data).toEqual([])
    }, 60_000)

    it("cancels a running batch: cancelling, then cancelled with the pages never read refunded", async () => {
      const key = await service.key({ credits: 100 })
      const client = clientOf(key.secret)
      const made = await client.batch.submit({
        input: { mode: "scrape", data: { format: "markdown", urls: Array.from({ length: 40 }, (_, i) => ({ url: `${site.url}/slow/c${i}` })) } }
      })
      const cancelled = await client.batch.cancel(made.id)
      expect(cancelled.status).toBe("cancelling")
      expect(cancelled.credits.reserved).toBe(40)
      const batch = await settled(client, made.id)
      expect(batch.status).toBe("cancelled")
      expect(batch.credits.refunded).toBeGreaterThan(0)
      expect(batch.credits.refunded).toBe(40 - batch.progress.succeeded)
      expect(batch.progress.pending).toBe(40 - batch.progress.succeeded - batch.progress.failed)
      expect(await balance(key.orgId)).toBe(100 - batch.progress.succeeded)
      expect(await refusal(client.batch.cancel(made.id))).toMatchObject({ status: 409, code: "BATCH_NOT_CANCELLABLE" })
    }, 90_000)

    it("sends a signed batch.completed webhook, listed in /webhooks/deliveries with the batch as source", async () => {
      const key = await service.key({ credits: 100 })
      const client = clientOf(key.secret)
      const made = await client.batch.submit({
        input: { mode: "scrape", data: { format: "html", urls: [{ url: `${site.url}/p/hook1` }, { url: `${site.url}/p/hook2` }] } },
        webhook: { url: receiver.url, retry: {} }
      })
      expect(made.webhook_secret).toMatch(/^whsec_/)
      const batch = await settled(client, made.id)
      const event = await eventually(async () =>
        receiver.received.find((r) => !r.body.startsWith("fail ") && JSON.parse(r.body).data?.batch?.id === made.id), 30_000)
      expect(event.headers["x-service-event"]).toBe("batch.completed")
      expect(verify(String(event.headers["x-service-signature"]), event.body, made.webhook_secret!)).toBe(true)
      const payload = JSON.parse(event.body)
      expect(payload).toMatchObject({ type: "batch.completed", data: { batch: { id: made.id, status: "completed", progress: { succeeded: 2 } } } })
      expect(payload.data.batch.results.files[0].url.startsWith("http")).toBe(true)

      const after = await client.batch.retrieve(made.id) as Batch & { webhook_delivery_id?: string }
      expect(after.webhook_delivery_id).toMatch(/^whd_/)
      const deliveries = await client.webhooks.deliveries.list({ type: "batch", batch_id: made.id })
      expect(deliveries.data).toHaveLength(1)
      expect(deliveries.data[0]).toMatchObject({ id: after.webhook_delivery_id, source: { type: "batch", batch_id: made.id } })
      const retrieved = await eventually(async () => {
        const found = await client.webhooks.deliveries.retrieve(after.webhook_delivery_id!)
        return found.status === "delivered" ? found : undefined
      })
      expect(retrieved.source).toEqual({ type: "batch", batch_id: made.id })
      expect(retrieved).toMatchObject({ event: "batch.completed", retry: {}, last_error: null, next_attempt_at: null, last_attempt: { http_status: 200 } })
      expect(retrieved.delivered_at).toEqual(expect.any(String))
      // Another organization does not see it.
      const other = clientOf((await service.key()).secret)
      expect((await other.webhooks.deliveries.list({ type: "batch" })).data).toEqual([])
      expect(batch.status).toBe("completed")
    }, 60_000)

    it("crawls a site from a start URL: the reservation is a ceiling, what was not read is refunded; page errors grouped by code", async () => {
      const key = await service.key({ credits: 100 })
      const client = clientOf(key.secret)
      const made = await client.batch.submit({
        input: { mode: "crawl", data: { format: "markdown", source: { type: "start_url", url: `${site.url}/site/`, controls: { maxDepth: 1, maxUrls: 10 } } } }
      }) as Submitted
      expect(made.input).toEqual({ duplicates: 0, invalid: null, reserved: 10, reserved_is_ceiling: true, submitted: null })
      expect(made.crawl).toMatchObject({ follow_subdomains: false, max_depth: 1, max_pages: 10, source: { type: "start_url", url: `${site.url}/site/` } })
      const batch = await settled(client, made.id)
      const records = await allResults(client, made.id, 100)
      // The start, then /site/a and /site/b at depth 1 (not /site/a/deep at depth 2, nor /elsewhere outside /site/... which is in scope: same site).
      const urls = records.map((r) => r["url"])
      expect(urls.slice(0, 3)).toEqual([`${site.url}/site/`, `${site.url}/site/a`, `${site.url}/site/b`])
      expect(urls).not.toContain(`${site.url}/site/a/deep`)
      expect(batch.progress.pending).toBe(0)
      expect(batch.credits.refunded).toBe(10 - batch.progress.succeeded)
      expect(await balance(key.orgId)).toBe(100 - batch.progress.succeeded)

      // Errors of two kinds: grouped by code, the most frequent first.
      const failing = await client.batch.submit({
        input: { mode: "scrape", data: { format: "markdown", urls: [{ url: `${site.url}/missing/1` }, { url: `${site.url}/missing/2` }, { url: `${site.url}/blocked` }, { url: `${site.url}/p/fine` }] } }
      })
      const failed = await settled(client, failing.id)
      expect(failed.progress).toEqual({ failed: 3, pending: 0, succeeded: 1 })
      expect(failed.page_errors).toEqual([{ code: "WEBSITE_ACCESS_ERROR", count: 2 }, { code: "WEBSITE_BLOCKED", count: 1 }])
      const codes = (await allResults(client, failing.id, 10)).flatMap((r) => r["status"] === "error" ? [r["error_code"]] : [])
      expect(codes.filter((c) => c === failed.page_errors[0]!.code)).toHaveLength(2)
    }, 60_000)

    it("a legacy webhookUrl gets one attempt and one quick retry; the submission's log row records the credits reserved", async () => {
      const key = await service.key({ credits: 100 })
      const client = clientOf(key.secret)
      const made = await client.batch.submit({
        input: { mode: "scrape", data: { format: "markdown", urls: [{ url: `${site.url}/p/legacy` }] } },
        webhookUrl: receiver.url.replace("/hook", "/fail")
      }) as Submitted
      expect(made.webhook_secret).toBeUndefined()
      await settled(client, made.id)
      const deliveryId = await eventually(async () => (await client.batch.retrieve(made.id) as Batch & { webhook_delivery_id?: string }).webhook_delivery_id)
      const delivery = await eventually(async () => {
        const found = await client.webhooks.deliveries.retrieve(deliveryId) as unknown as { status: string }
        return found.status === "failed" ? found : undefined
      }, 20_000)
      expect(delivery.status).toBe("failed")
      expect(delivery).toMatchObject({ event: "batch.completed", delivered_at: null, next_attempt_at: null, last_error: { code: "rejected" } })
      expect((await client.webhooks.deliveries.listAttempts(deliveryId)).data).toHaveLength(2)
      const legacy = receiver.received.filter((r) => r.body.startsWith("fail ") && r.body.includes(made.id))
      expect(legacy).toHaveLength(2)
      // No secret was issued, so nothing is signed (an HMAC under an empty key would prove nothing).
      expect(legacy.map((r) => r.headers["x-service-signature"])).toEqual([undefined, undefined])
      expect(legacy[0]!.headers["x-service-event"]).toBe("batch.completed")

      const logged = await fetch(`${service.baseUrl}/logs/${made.request_id}`, { headers: { authorization: `Bearer ${key.secret}` } })
      expect(await logged.json()).toMatchObject({ data: { request_id: made.request_id, status_code: 200, credits_used: 1 } })
    }, 60_000)

    it("deletes results 7 days after settlement: results null, /results 404 saying they expired, files gone", async () => {
      const key = await service.key({ credits: 100 })
      const client = clientOf(key.secret)
      const made = await client.batch.submit({ input: { mode: "scrape", data: { format: "markdown", urls: [{ url: `${site.url}/p/old` }] } } })
      const batch = await settled(client, made.id)
      const fileUrl = batch.results!.files[0]!.url
      expect((await fetch(fileUrl)).status).toBe(200)
      // Seven days pass.
      await service.run(Effect.flatMap(SqlClient.SqlClient, (sql) =>
        sql`UPDATE batches SET results_expire_at = now() - interval '1 second' WHERE id = ${made.id}`))
      await eventually(async () => (await client.batch.retrieve(made.id)).results === null ? true : undefined, 15_000)
      const expired = await refusal(client.batch.getResults(made.id))
      expect(expired).toMatchObject({ status: 404, code: "NOT_FOUND" })
      expect(expired.message).toContain("expired")
      expect((await fetch(fileUrl)).status).toBe(404)
      // The batch itself stays until deleted.
      expect((await client.batch.retrieve(made.id)).progress.succeeded).toBe(1)
    }, 60_000)
  })
}

describe("batch file URLs with SIFT_PUBLIC_URL", () => {
  let service: TestService.TestService
  beforeAll(async () => {
    service = await TestService.start({ env: { SIFT_PUBLIC_URL: "https://sift.example.com/", SIFT_BATCH_SWEEP_MS: "1000" } })
  }, 60_000)
  afterAll(async () => {
    await service?.close()
  })

  it("are made with the public origin, in the batch and in its completion event", async () => {
    const key = await service.key({ credits: 10 })
    const client = new ContextDev({ apiKey: key.secret, baseURL: service.baseUrl, maxRetries: 0, timeout: 60_000 })
    const made = await client.batch.submit({
      input: { mode: "scrape", data: { format: "markdown", urls: [{ url: `${site.url}/p/public` }] } },
      webhook: { url: receiver.url, retry: {} }
    })
    const batch = await eventually(async () => {
      const got = await client.batch.retrieve(made.id)
      return got.status === "completed" ? got : undefined
    }, 60_000)
    expect(batch.results!.files[0]!.url).toMatch(/^https:\/\/sift\.example\.com\/v1\/files\/file_[0-9A-Za-z]{32}$/)
    const event = await eventually(async () =>
      receiver.received.find((r) => !r.body.startsWith("fail ") && JSON.parse(r.body).data?.batch?.id === made.id), 30_000)
    expect(JSON.parse(event.body).data.batch.results.files[0].url).toBe(batch.results!.files[0]!.url)
    // The path is the same file on this server.
    const path = new URL(batch.results!.files[0]!.url).pathname
    expect((await fetch(`${new URL(service.baseUrl).origin}${path}`)).status).toBe(200)
  }, 60_000)
})
