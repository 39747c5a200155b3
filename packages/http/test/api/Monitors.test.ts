/**
 * Monitors over HTTP through the official SDK (decisions §7, §8), on PGlite and PostgreSQL: validation and defaults,
 * permissions, plan limits, pagination, the baseline → change → no-change cycle with both webhook events signed and
 * verified, a flapping page that gives failed runs (never changes), sitemap targets, the status machine, credits and
 * the delivery endpoints. Real pages and real receivers on local `node:http` servers; the real scheduler and workers.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as Auth from "@sift/auth"
import ContextDev from "context.dev"
import { Effect } from "effect"
import { createHmac } from "node:crypto"
import { createServer, type IncomingMessage, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest"
import { eventually } from "../support/eventually.js"
import * as TestService from "../support/TestService.js"

// ---- A site whose pages the test changes, and a webhook receiver ----

interface Site {
  readonly url: string
  readonly pages: Map<string, { status: number; body: string; type?: string }>
  readonly hits: Map<string, number>
  readonly close: () => Promise<void>
}

const listen = async (server: Server) => {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`
}

const startSite = async (): Promise<Site> => {
  const pages = new Map<string, { status: number; body: string; type?: string }>()
  const hits = new Map<string, number>()
  const server = createServer((req, res) => {
    const path = (req.url ?? "/").split("?")[0]!
    hits.set(path, (hits.get(path) ?? 0) + 1)
    const page = pages.get(path)
    if (page === undefined) {
      res.writeHead(404, { "content-type": "text/html" }).end("<html><body><h1>Not found</h1></body></html>")
      return
    }
    res.writeHead(page.status, { "content-type": page.type ?? "text/html; charset=utf-8" }).end(page.body)
  })
  const url = await listen(server)
  return { url, pages, hits, close: () => new Promise((r) => server.close(() => r())) }
}

interface Received {
  readonly headers: IncomingMessage["headers"]
  readonly body: string
}

interface Receiver {
  readonly url: string
  readonly received: Array<Received>
  /** Statuses to answer, in order; 200 once used up. */
  readonly script: Array<number>
  readonly close: () => Promise<void>
}

const startReceiver = async (): Promise<Receiver> => {
  const received: Array<Received> = []
  const script: Array<number> = []
  const server = createServer((req, res) => {
    let body = ""
    req.on("data", (chunk) => (body += chunk))
    req.on("end", () => {
      received.push({ headers: req.headers, body })
      res.writeHead(script.shift() ?? 200).end()
    })
  })
  const url = await listen(server)
  return { url: `${url}/hook`, received, script, close: () => new Promise((r) => server.close(() => r())) }
}

const article = (title: string, paragraphs: ReadonlyArray<string>) =>
  `<!doctype html><html><head><title>${title}</title></head><body><nav><a href="/">Home</a></nav><main><article><h1>${title}</h1>` +
  paragraphs.map((p) => `<p>${p}</p>`).join("") + `</article></main><footer>Footer text</footer></body></html>`

const botWall = `<!doctype html><html><head><title>Just a moment...</title></head><body>
<div id="challenge-running">Checking if the site connection is secure</div>
<div class="cf-browser-verification">Enable JavaScript and cookies to continue</div>
<script src="/cdn-cgi/challenge-platform/h/b/orchestrate/jsch/v1"></script></body></html>`

const sitemap = (urls: ReadonlyArray<string>) =>
  `<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">` +
  urls.map((u) => `<url><loc>${u}</loc></url>`).join("") + `</urlset>`


const verify = (header: string, body: string, secret: string) => {
  const parts = Object.fromEntries(header.split(",").map((p) => p.split("=") as [string, string]))
  return createHmac("sha256", secret).update(`${parts.t}.${body}`).digest("hex") === parts.v1
}

const backends = [
  { name: "pglite", url: undefined as string | undefined },
  { name: "postgres", url: inject("databaseUrl") ?? undefined }
]

let site: Site
beforeAll(async () => {
  site = await startSite()
})
afterAll(async () => {
  await site?.close()
})

for (const backend of backends) {
  describe.skipIf(backend.name === "postgres" && backend.url === undefined)(`monitors over HTTP (${backend.name})`, () => {
    let service: TestService.TestService
    beforeAll(async () => {
      service = await TestService.start({ databaseUrl: backend.url })
    }, 60_000)
    afterAll(async () => {
      await service?.close()
    })
    const call = (secret: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
      fetch(`${service.baseUrl}${path}`, {
        method,
        headers: { authorization: `Bearer ${secret}`, ...(body === undefined ? {} : { "content-type": "application/json" }), ...headers },
        ...(body === undefined ? {} : { body: JSON.stringify(body) })
      }).then(async (res) => ({ status: res.status, body: await res.json() as Record<string, any> }))
    const balance = (orgId: string) => service.run(Effect.flatMap(Auth.CreditLedger.CreditLedger, (l) => l.balance(orgId))).then((b) => b.remaining)
    const waitRun = (client: ContextDev, monitorId: string, runId: string) =>
      eventually(async () => {
        const runs = await client.monitors.listRuns(monitorId, { limit: 100 })
        const run = runs.data.find((r) => r.id === runId)
        return run !== undefined && run.status !== "queued" && run.status !== "running" ? run : undefined
      })

    it("validates bodies with the field named, applies the defaults, and refuses reserved schedules", async () => {
      const { secret } = await service.key()
      const page = `${site.url}/valid-${backend.name}`
      site.pages.set(`/valid-${backend.name}`, { status: 200, body: article("Valid", ["Some text here."]) })
      const cases: Array<[unknown, string, string]> = [
        [{ target: { type: "page", url: page } }, "name", "is required"],
        [{ name: "x", target: { type: "page", url: "ftp://example.com" } }, "target.url", "http"],
        [{ name: "x", target: { type: "feed", url: page } }, "target", ""],
        [{ name: "x", target: { type: "page", url: page }, schedule: { type: "cron", expression: "* * * * *" } }, "schedule.type", "reserved"],
        [{ name: "x", target: { type: "page", url: page }, schedule: { type: "exact_time", at: "09:00" } }, "schedule.type", "reserved"],
        [{ name: "x", target: { type: "page", url: page }, schedule: { type: "interval", frequency: 5, unit: "minutes" } }, "schedule.frequency", "10 minutes"],
        [{ name: "x", target: { type: "page", url: page }, schedule: { type: "interval", frequency: 366, unit: "days" } }, "schedule.frequency", "1 year"],
        [{ name: "x", target: { type: "page", url: page }, change_detection: { type: "semantic" } }, "target.instructions", "instructions"],
        [{ name: "x", target: { type: "sitemap", url: page }, change_detection: { type: "semantic" } }, "change_detection.type", "exact"],
        [{ name: "x", target: { type: "extract", url: page, instructions: "prices" }, change_detection: { type: "exact" } }, "change_detection.type", "semantic"],
        [{ name: "x", target: { type: "sitemap", url: page, max_urls: 10_001 } }, "target.max_urls", ""],
        [{ name: "x", target: { type: "extract", url: page, instructions: "prices", schema: { type: "object", properties: { price: { type: "numbr" } } } } }, "target.schema.properties.price.type", "allowed values"],
        [{ name: "x", target: { type: "sitemap", url: page, include: ["(unclosed"] } }, "target.include[0]", "RE2"],
        [{ name: "x", target: { type: "page", url: page, include_selectors: ["div[["] } }, "target.include_selectors", ""],
        [{ name: "x", target: { type: "page", url: page }, tags: Array.from({ length: 21 }, (_, i) => `t${i}`) }, "tags", ""],
        [{ name: "x", target: { type: "page", url: page }, webhook: { url: "https://example.com/h", retry: { delays_seconds: [86_400, 86_400, 86_400, 1] } } }, "webhook.retry.delays_seconds", "72 hours"],
        [{ name: "x", target: { type: "page", url: page }, change_detection: { type: "semantic", confidence_threshold: 2 } }, "change_detection", ""],
        [{ name: "x", target: { type: "page", url: page }, unknown: 1 }, "unknown", ""]
      ]
      for (const [body, field, words] of cases) {
        const res = await call(secret, "POST", "/monitors", body)
        expect(res.status, JSON.stringify(body)).toBe(400)
        expect(res.body.error_code).toBe("INPUT_VALIDATION_ERROR")
        expect(res.body.message, JSON.stringify(body)).toContain(field)
        if (words !== "") expect(res.body.message).toContain(words)
        expect(res.body.key_metadata.credits_consumed).toBe(0)
      }
      const listed = await call(secret, "GET", "/monitors")
      expect(listed.body.data).toEqual([])

      const client = new ContextDev({ apiKey: secret, baseURL: service.baseUrl, maxRetries: 0 })
      const created = await client.monitors.create({
        name: "Defaults",
        target: { type: "page", url: page, instructions: "Tell me when prices change" },
        tags: ["a", "b", "a"],
        webhook: { url: "https://example.com/hook" }
      })
      expect(created.id).toMatch(/^mon_[A-Za-z0-9]{16}$/)
      expect(created.mode).toBe("web")
      expect(created.change_detection).toEqual({ type: "semantic" })
      expect(created.schedule).toEqual({ type: "interval", frequency: 1, unit: "days" })
      expect(created.status).toBe("active")
      expect(created.tags).toEqual(["a", "b"])
      expect(created.initial_run_id).toMatch(/^run_[A-Za-z0-9]{16}$/)
      expect(created.webhook?.events).toEqual(["change.detected"])
      expect(created.webhook?.secret).toMatch(/^whsec_[A-Za-z0-9]{32}$/)
      const next = new Date(created.next_run_at!).getTime()
      expect(next).toBeGreaterThan(Date.now() - 5_000)
      expect(next).toBeLessThanOrEqual(Date.now() + 86_400_000)
      const exact = await client.monitors.create({ name: "Exact", target: { type: "sitemap", url: `${site.url}/sitemap.xml` } })
      expect(exact.change_detection).toEqual({ type: "exact" })

      // The same URL keeps its secret; a new URL gets a new one; null removes the webhook.
      const same = await client.monitors.update(created.id, { webhook: { url: "https://example.com/hook" } })
      expect(same.webhook?.secret).toBe(created.webhook?.secret)
      expect(same.webhook?.events).toEqual(["change.detected"])
      const moved = await client.monitors.update(created.id, { webhook: { url: "https://example.com/other", events: ["run.completed"] } })
      expect(moved.webhook?.secret).not.toBe(created.webhook?.secret)
      const kept = await client.monitors.update(created.id, { webhook: { url: "https://example.com/other" } })
      expect(kept.webhook?.events).toEqual(["run.completed"])
      const rotated = await call(secret, "POST", `/monitors/${created.id}/webhook/rotate-secret`)
      expect(rotated.status).toBe(200)
      expect(rotated.body.webhook.secret).toMatch(/^whsec_/)
      expect(rotated.body.webhook.secret).not.toBe(kept.webhook?.secret)
      const removed = await client.monitors.update(created.id, { webhook: null })
      expect(removed.webhook).toBeNull()
      const noHook = await call(secret, "POST", `/monitors/${created.id}/webhook/rotate-secret`)
      expect(noHook.status).toBe(409)
      expect(noHook.body.error_code).toBe("MONITOR_NO_WEBHOOK")
      expect(noHook.body.request_id).toBeTypeOf("string")

      const deleted = await client.monitors.delete(exact.id)
      expect(deleted).toMatchObject({ id: exact.id, deleted: true })
      const gone = await call(secret, "GET", `/monitors/${exact.id}`)
      expect(gone.status).toBe(404)
      expect(gone.body.error_code).toBe("NOT_FOUND")
    })

    it("permissions: monitors:read reads without secrets and cannot write; other organizations' monitors are 404", async () => {
      const owner = await service.key()
      const page = `${site.url}/perm-${backend.name}`
      site.pages.set(`/perm-${backend.name}`, { status: 200, body: article("Perm", ["Text."]) })
      const ownerClient = new ContextDev({ apiKey: owner.secret, baseURL: service.baseUrl, maxRetries: 0 })
      const created = await ownerClient.monitors.create({ name: "Perm", target: { type: "page", url: page }, webhook: { url: "https://example.com/p" } })
      const reader = await service.run(Effect.flatMap(Auth.ApiKeys.ApiKeys, (keys) =>
        keys.create({ orgId: owner.orgId, name: "reader", permissions: ["monitors:read"] })))
      const read = await call(reader.secret, "GET", `/monitors/${created.id}`)
      expect(read.status).toBe(200)
      expect(read.body.webhook.url).toBe("https://example.com/p")
      expect(read.body.webhook.secret).toBeUndefined()
      const write = await call(reader.secret, "PATCH", `/monitors/${created.id}`, { name: "renamed" })
      expect(write.status).toBe(403)
      expect(write.body).toMatchObject({ error_code: "INSUFFICIENT_PERMISSIONS", required_permission: "monitors:write" })
      const scraper = await service.run(Effect.flatMap(Auth.ApiKeys.ApiKeys, (keys) =>
        keys.create({ orgId: owner.orgId, name: "scraper", permissions: ["data:execute"] })))
      const denied = await call(scraper.secret, "GET", "/monitors")
      expect(denied.status).toBe(403)
      expect(denied.body.required_permission).toBe("monitors:read")
      const stranger = await service.key()
      for (const [method, path] of [["GET", `/monitors/${created.id}`], ["PATCH", `/monitors/${created.id}`], ["DELETE", `/monitors/${created.id}`], ["POST", `/monitors/${created.id}/run`], ["GET", `/monitors/${created.id}/runs`]] as const) {
        const res = await call(stranger.secret, method, path, method === "PATCH" ? { name: "x" } : undefined)
        expect(res.status, `${method} ${path}`).toBe(404)
        expect(res.body.error_code).toBe("NOT_FOUND")
      }
    })

    it("plan limits: the free plan's fourth monitor is refused with MONITOR_LIMIT_EXCEEDED; limits and pagination", async () => {
      const { secret } = await service.key({ plan: "free" })
      const client = new ContextDev({ apiKey: secret, baseURL: service.baseUrl, maxRetries: 0 })
      const page = `${site.url}/limit-${backend.name}`
      site.pages.set(`/limit-${backend.name}`, { status: 200, body: article("Limit", ["Text."]) })
      const ids: Array<string> = []
      for (let i = 0; i < 3; i++) ids.push((await client.monitors.create({ name: `m${i}`, target: { type: "page", url: page }, tags: [i % 2 === 0 ? "even" : "odd"] })).id)
      const fourth = await call(secret, "POST", "/monitors", { name: "m3", target: { type: "page", url: page } })
      expect(fourth.status).toBe(403)
      expect(fourth.body.error_code).toBe("MONITOR_LIMIT_EXCEEDED")
      expect(await client.monitors.getLimits()).toMatchObject({ monitors_used: 3, monitors_limit: 3, plan: "free" })
      const first = await client.monitors.list({ limit: 2 })
      expect(first.data.map((m) => m.id)).toEqual([ids[2], ids[1]])
      expect(first.has_more).toBe(true)
      const second = await client.monitors.list({ limit: 2, cursor: first.next_cursor! })
      expect(second.data.map((m) => m.id)).toEqual([ids[0]])
      expect(second.has_more).toBe(false)
      expect(second.next_cursor).toBeNull()
      expect((await client.monitors.list({ tag: "even" })).data.map((m) => m.id).sort()).toEqual([ids[0], ids[2]].sort())
      expect((await client.monitors.list({ q: "m1", search_type: "exact" })).data.map((m) => m.id)).toEqual([ids[1]])
      expect((await client.monitors.list({ q: "M", search_type: "prefix" })).data).toHaveLength(3)
      const bad = await call(secret, "GET", "/monitors?limit=101")
      expect(bad.status).toBe(400)
      expect(bad.body.message).toContain("limit")
      const badCursor = await call(secret, "GET", "/monitors?cursor=nonsense")
      expect(badCursor.status).toBe(400)
      expect(badCursor.body.message).toContain("cursor")
      await client.monitors.delete(ids[0]!)
      expect((await client.monitors.getLimits()).monitors_used).toBe(2)
    })

    it("baseline, then a change, then no change: diffs, both events signed with their own ids, credits per completed run", async () => {
      const { orgId, secret } = await service.key({ credits: 100 })
      const client = new ContextDev({ apiKey: secret, baseURL: service.baseUrl, maxRetries: 0 })
      const receiver = await startReceiver()
      try {
        const path = `/cycle-${backend.name}`
        site.pages.set(path, { status: 200, body: article("Pricing", ["The basic plan costs $10 per month.", "Support is included."]) })
        const created = await client.monitors.create({
          name: "Cycle",
          target: { type: "page", url: `${site.url}${path}` },
          webhook: { url: receiver.url, events: ["change.detected", "run.completed"] },
          tags: ["pricing"]
        })
        const secretKey = created.webhook!.secret!
        const baseline = await waitRun(client, created.id, created.initial_run_id!)
        expect(baseline).toMatchObject({ status: "completed", run_type: "baseline", baseline_created: true, change_detected: false, credits_charged: 1 })
        const withBaseline = await client.monitors.retrieve(created.id)
        expect((withBaseline.baseline as { text: string }).text).toContain("The basic plan costs $10 per month.")
        expect((withBaseline.baseline as { text: string }).text).not.toContain("Footer text")
        expect(await balance(orgId)).toBe(99)
        // The baseline run sends run.completed only (no change).
        await eventually(async () => receiver.received.length >= 1 ? true : undefined)
        const first = JSON.parse(receiver.received[0]!.body)
        expect(first.type).toBe("run.completed")
        expect(first.data.run.id).toBe(baseline.id)
        expect(first.data.change).toBeNull()
        expect(verify(String(receiver.received[0]!.headers["x-service-signature"]), receiver.received[0]!.body, secretKey)).toBe(true)

        site.pages.set(path, { status: 200, body: article("Pricing", ["The basic plan costs $12 per month.", "Support is included."]) })
        const queued = await client.monitors.run(created.id)
        expect(queued).toMatchObject({ monitor_id: created.id, queued: true })
        const changed = await waitRun(client, created.id, queued.run_id)
        expect(changed).toMatchObject({ status: "completed", run_type: "scheduled", change_detected: true, credits_charged: 1, trigger: "manual" })
        expect(changed.webhook_delivery_ids).toHaveLength(2)
        const change = await client.monitors.retrieveChange(changed.change_id!)
        expect(change).toMatchObject({ monitor_id: created.id, run_id: changed.id, mode: "web", target_type: "page", change_detection_type: "exact", tags: ["pricing"] })
        expect(change.diff).toContain("-The basic plan costs $10 per month.")
        expect(change.diff).toContain("+The basic plan costs $12 per month.")
        expect(change.before_text_excerpt).toContain("$10")
        expect(change.after_text_excerpt).toContain("$12")
        await eventually(async () => receiver.received.length >= 3 ? true : undefined)
        const events = receiver.received.slice(1, 3).map((r) => ({ id: r.headers["x-service-id"], type: r.headers["x-service-event"], body: JSON.parse(r.body), raw: r.body, sig: String(r.headers["x-service-signature"]) }))
        expect(events.map((e) => e.type).sort()).toEqual(["change.detected", "run.completed"])
        expect(events[0]!.id).not.toBe(events[1]!.id)
        for (const event of events) {
          expect(event.body.id).toBe(event.id)
          expect(event.body.data.monitor).toEqual({ id: created.id, name: "Cycle", tags: ["pricing"] })
          expect(event.body.data.change.id).toBe(change.id)
          expect(event.body.data.change.diff).toContain("+The basic plan costs $12 per month.")
          expect(verify(event.sig, event.raw, secretKey)).toBe(true)
        }
        const changes = await client.monitors.listChanges(created.id)
        expect(changes.data.map((c) => c.id)).toEqual([change.id])
        expect((changes.data[0] as unknown as Record<string, unknown>).diff).toBeUndefined()
        const account = await client.monitors.listAccountChanges({ monitor_id: created.id })
        expect(account.data.map((c) => c.id)).toEqual([change.id])

        const again = await client.monitors.run(created.id)
        const same = await waitRun(client, created.id, again.run_id)
        expect(same).toMatchObject({ status: "completed", change_detected: false, change_id: null, credits_charged: 1 })
        await eventually(async () => receiver.received.length >= 4 ? true : undefined)
        await new Promise((r) => setTimeout(r, 500))
        expect(receiver.received).toHaveLength(4)
        expect(JSON.parse(receiver.received[3]!.body).type).toBe("run.completed")
        expect(await balance(orgId)).toBe(97)
        const usage = await client.monitors.getCreditUsage()
        expect(usage.data).toEqual([{ monitor_id: created.id, name: "Cycle", credits: 3, runs: 3 }])
        expect(usage.total_credits).toBe(3)

        // Delivery endpoints: list by run, get, attempts; a delivered one needs force to be sent again.
        const listed = await call(secret, "POST", "/webhooks/deliveries", { type: "monitor", run_id: changed.id })
        expect(listed.status).toBe(200)
        expect(listed.body.data.map((d: { id: string }) => d.id).sort()).toEqual([...changed.webhook_delivery_ids!].sort())
        const deliveryId = changed.webhook_delivery_ids![0]!
        const one = await eventually(async () => {
          const res = await call(secret, "GET", `/webhooks/deliveries/${deliveryId}`)
          return res.body.status === "delivered" ? res : undefined
        })
        expect(one.body).toMatchObject({ id: deliveryId, monitor_id: created.id, run_id: changed.id, status: "delivered" })
        // The SDK's delivery members (context.dev Delivery).
        expect(one.body).toMatchObject({
          event: one.body.event_type,
          delivered_at: expect.any(String),
          next_attempt_at: null,
          last_error: null,
          source: { type: "monitor", monitor_id: created.id, run_id: changed.id },
          last_attempt: { attempt: 1, http_status: 200, trigger: "initial" }
        })
        expect(Date.parse(one.body.retry_expires_at) - Date.parse(one.body.created_at)).toBe(7 * 24 * 3600 * 1000)
        expect(listed.body.data[0]).toMatchObject({ event: expect.stringMatching(/^(change\.detected|run\.completed)$/), retry_expires_at: expect.any(String) })
        const attempts = await call(secret, "GET", `/webhooks/deliveries/${deliveryId}/attempts`)
        expect(attempts.body.data).toHaveLength(1)
        expect(attempts.body.data[0]).toMatchObject({ attempt: 1, http_status: 200, trigger: "initial" })
        const refused = await call(secret, "POST", `/webhooks/deliveries/${deliveryId}/retry`, {})
        expect(refused.status).toBe(409)
        expect(refused.body.error_code).toBe("DELIVERY_ALREADY_DELIVERED")
        const forced = await call(secret, "POST", `/webhooks/deliveries/${deliveryId}/retry`, { force: true }, { "idempotency-key": "k1" })
        expect(forced.status).toBe(200)
        const replay = await call(secret, "POST", `/webhooks/deliveries/${deliveryId}/retry`, { force: true }, { "idempotency-key": "k1" })
        expect(replay.body).toMatchObject({ attempt: forced.body.attempt, replayed: true })
        await eventually(async () => receiver.received.length >= 5 ? true : undefined)
        // A replay sends the same event id as the original delivery.
        expect(receiver.received[4]!.headers["x-service-id"]).toBe(one.body.event_id)
        const stranger = await service.key()
        const hidden = await call(stranger.secret, "GET", `/webhooks/deliveries/${deliveryId}`)
        expect(hidden.status).toBe(404)
      } finally {
        await receiver.close()
      }
    }, 90_000)

    it("a flapping page (bot wall every other run) gives failed runs, never changes, charges nothing for them; 5 failures pause", async () => {
      const { orgId, secret } = await service.key({ credits: 100 })
      const client = new ContextDev({ apiKey: secret, baseURL: service.baseUrl, maxRetries: 0 })
      const path = `/flap-${backend.name}`
      const good = article("Stable", ["Opening hours are nine to five."])
      site.pages.set(path, { status: 200, body: good })
      const created = await client.monitors.create({ name: "Flap", target: { type: "page", url: `${site.url}${path}` } })
      await waitRun(client, created.id, created.initial_run_id!)
      const outcomes: Array<string> = []
      for (let i = 0; i < 4; i++) {
        site.pages.set(path, i % 2 === 0 ? { status: 503, body: botWall } : { status: 200, body: good })
        const queued = await client.monitors.run(created.id)
        const run = await waitRun(client, created.id, queued.run_id)
        outcomes.push(run.status)
        const monitor = await client.monitors.retrieve(created.id)
        if (i % 2 === 0) {
          expect(run.error?.code).toMatch(/^WEBSITE_(BLOCKED|ACCESS_ERROR)$/)
          expect(run.credits_charged).toBe(0)
          expect(monitor.status).toBe("failed")
          expect(monitor.last_error?.code).toBe(run.error?.code)
        } else {
          expect(run.change_detected).toBe(false)
          expect(monitor.status).toBe("active")
          expect(monitor.last_error).toBeNull()
        }
      }
      expect(outcomes).toEqual(["failed", "completed", "failed", "completed"])
      expect((await client.monitors.listChanges(created.id)).data).toEqual([])
      expect(await balance(orgId)).toBe(100 - 3)

      // Five failures in a row pause the monitor; a paused monitor refuses manual runs until resumed by PATCH.
      site.pages.set(path, { status: 200, body: botWall })
      for (let i = 0; i < 5; i++) {
        const queued = await client.monitors.run(created.id)
        await waitRun(client, created.id, queued.run_id)
      }
      const paused = await client.monitors.retrieve(created.id)
      expect(paused.status).toBe("paused")
      expect(paused.next_run_at).toBeNull()
      const refused = await call(secret, "POST", `/monitors/${created.id}/run`)
      expect(refused.status).toBe(409)
      expect(refused.body.error_code).toBe("MONITOR_PAUSED")
      site.pages.set(path, { status: 200, body: good })
      const resumed = await client.monitors.update(created.id, { status: "active" })
      expect(resumed.status).toBe("active")
      const queued = await client.monitors.run(created.id)
      expect((await waitRun(client, created.id, queued.run_id)).status).toBe("completed")
      expect((await client.monitors.retrieve(created.id)).status).toBe("active")
    }, 120_000)

    it("runs without credits are skipped, cost nothing, and three in a row pause the monitor", async () => {
      const { orgId, secret } = await service.key({ credits: 1 })
      const client = new ContextDev({ apiKey: secret, baseURL: service.baseUrl, maxRetries: 0 })
      const path = `/credits-${backend.name}`
      site.pages.set(path, { status: 200, body: article("Credits", ["Some words."]) })
      const created = await client.monitors.create({ name: "Credits", target: { type: "page", url: `${site.url}${path}` } })
      expect((await waitRun(client, created.id, created.initial_run_id!)).status).toBe("completed")
      expect(await balance(orgId)).toBe(0)
      for (let i = 0; i < 3; i++) {
        const queued = await client.monitors.run(created.id)
        const run = await waitRun(client, created.id, queued.run_id)
        expect(run).toMatchObject({ status: "skipped", skip_reason: "insufficient_credits", credits_charged: 0 })
      }
      expect((await client.monitors.retrieve(created.id)).status).toBe("paused")
      expect(await balance(orgId)).toBe(0)
    }, 60_000)

    it("sitemap targets report added and removed URLs with exact counts, within include/exclude", async () => {
      const { secret } = await service.key()
      const client = new ContextDev({ apiKey: secret, baseURL: service.baseUrl, maxRetries: 0 })
      const path = `/sitemap-${backend.name}.xml`
      const urls = (names: ReadonlyArray<string>) => names.map((n) => `${site.url}/${n}`)
      site.pages.set(path, { status: 200, type: "application/xml", body: sitemap(urls(["blog/a", "blog/b", "blog/c", "shop/x", "blog/private/z"])) })
      const created = await client.monitors.create({
        name: "Sitemap",
        target: { type: "sitemap", url: `${site.url}${path}`, include: ["/blog/"], exclude: ["/private/"] }
      })
      await waitRun(client, created.id, created.initial_run_id!)
      const baseline = (await client.monitors.retrieve(created.id)).baseline as { url_count: number; urls: Array<string> }
      expect(baseline.urls).toEqual(urls(["blog/a", "blog/b", "blog/c"]))
      expect(baseline.url_count).toBe(3)
      site.pages.set(path, { status: 200, type: "application/xml", body: sitemap(urls(["blog/a", "blog/d", "blog/e", "shop/y"])) })
      const queued = await client.monitors.run(created.id)
      const run = await waitRun(client, created.id, queued.run_id)
      expect(run.change_detected).toBe(true)
      const change = await client.monitors.retrieveChange(run.change_id!)
      expect(change).toMatchObject({ target_type: "sitemap", added_url_count: 2, removed_url_count: 2 })
      expect(change.added_urls).toEqual(urls(["blog/d", "blog/e"]))
      expect(change.removed_urls).toEqual(urls(["blog/b", "blog/c"]))
    }, 60_000)

    it("semantic page monitors record only the changes their instructions care about", async () => {
      const { secret } = await service.key()
      const client = new ContextDev({ apiKey: secret, baseURL: service.baseUrl, maxRetries: 0 })
      const path = `/semantic-${backend.name}`
      const body = (price: string, news: string) => article("Plans", [`The team plan costs ${price} per seat.`, `Latest news: ${news}.`])
      site.pages.set(path, { status: 200, body: body("$20", "we moved offices") })
      const created = await client.monitors.create({
        name: "Plans",
        target: { type: "page", url: `${site.url}${path}`, instructions: "Tell me when prices change" },
        change_detection: { type: "semantic", confidence_threshold: 0.6 }
      })
      await waitRun(client, created.id, created.initial_run_id!)
      site.pages.set(path, { status: 200, body: body("$20", "we hired a designer") })
      const unrelated = await waitRun(client, created.id, (await client.monitors.run(created.id)).run_id)
      expect(unrelated).toMatchObject({ status: "completed", change_detected: false, credits_charged: 1 })
      site.pages.set(path, { status: 200, body: body("$25", "we hired a designer") })
      const priced = await waitRun(client, created.id, (await client.monitors.run(created.id)).run_id)
      expect(priced.change_detected).toBe(true)
      const change = await client.monitors.retrieveChange(priced.change_id!)
      expect(change).toMatchObject({ change_detection_type: "semantic", importance: "high", title: "Price changed from $20 to $25", matched_urls: [`${site.url}${path}`] })
      expect(change.diff).toContain("+The team plan costs $25 per seat.")
      expect(change.evidence![0]).toMatchObject({ before: "The team plan costs $20 per seat.", after: "The team plan costs $25 per seat." })
    }, 60_000)

    it("extract targets read linked pages, compare the data field by field, and cost 10 credits a run", async () => {
      const { orgId, secret } = await service.key({ credits: 100 })
      const client = new ContextDev({ apiKey: secret, baseURL: service.baseUrl, maxRetries: 0 })
      const root = `/shop-${backend.name}`
      const product = (price: string) =>
        `<!doctype html><html><head><title>Kettle</title></head><body><main><h1>Copper kettle</h1><p>Hand-made in Lisbon.</p>` +
        `<p><a href="${root}/details">Details</a></p></main></body></html>`
      const details = (price: string) =>
        `<!doctype html><html><head><title>Details</title></head><body><main><h1>Details</h1><table><tr><th>Price</th><td>${price}</td></tr>` +
        `<tr><th>Availability</th><td>In stock</td></tr></table><p>Ships in two days.</p></main></body></html>`
      site.pages.set(root, { status: 200, body: product("$10") })
      site.pages.set(`${root}/details`, { status: 200, body: details("$10") })
      const created = await client.monitors.create({
        name: "Kettle price",
        target: { type: "extract", url: `${site.url}${root}`, instructions: "Tell me when the price changes", schema: { type: "object", properties: { price: { type: "number" }, availability: { type: "boolean" } } }, max_pages: 3, max_depth: 1 }
      })
      expect(created.change_detection).toEqual({ type: "semantic" })
      const baseline = await waitRun(client, created.id, created.initial_run_id!)
      expect(baseline).toMatchObject({ status: "completed", credits_charged: 10 })
      const withBaseline = (await client.monitors.retrieve(created.id)).baseline as { data: Record<string, unknown>; urls_analyzed: Array<string> }
      expect(withBaseline.data).toEqual({ price: 10, availability: true })
      expect(withBaseline.urls_analyzed).toEqual([`${site.url}${root}`, `${site.url}${root}/details`])
      site.pages.set(`${root}/details`, { status: 200, body: details("$12") })
      const queued = await client.monitors.run(created.id)
      const run = await waitRun(client, created.id, queued.run_id)
      expect(run).toMatchObject({ status: "completed", change_detected: true, credits_charged: 10, change_detection_type: "semantic", target_type: "extract" })
      const change = await client.monitors.retrieveChange(run.change_id!)
      expect(change).toMatchObject({ target_type: "extract", importance: "high", title: "price changed from 10 to 12" })
      expect(change.evidence).toEqual([{ before: "price: 10", after: "price: 12", url: `${site.url}${root}` }])
      expect(change.confidence).toBeGreaterThanOrEqual(0.5)
      expect(await balance(orgId)).toBe(80)
    }, 60_000)

    it("the scheduler runs a due monitor once and moves next_run_at to its next slot", async () => {
      const { secret } = await service.key()
      const client = new ContextDev({ apiKey: secret, baseURL: service.baseUrl, maxRetries: 0 })
      const path = `/due-${backend.name}`
      site.pages.set(path, { status: 200, body: article("Due", ["Scheduled text."]) })
      const created = await client.monitors.create({ name: "Due", target: { type: "page", url: `${site.url}${path}` }, schedule: { type: "interval", frequency: 10, unit: "minutes" } })
      await waitRun(client, created.id, created.initial_run_id!)
      const dueAt = new Date(Date.now() - 1_000)
      await service.run(Effect.flatMap(SqlClient.SqlClient, (sql) => sql`UPDATE monitors SET next_run_at = ${dueAt} WHERE id = ${created.id}`))
      const scheduled = await eventually(async () => {
        const runs = await client.monitors.listRuns(created.id)
        const run = runs.data.find((r) => r.id !== created.initial_run_id && r.status === "completed")
        return run
      })
      expect(scheduled).toMatchObject({ run_type: "scheduled", status: "completed" })
      expect((scheduled as unknown as Record<string, unknown>).trigger).toBeUndefined()
      const after = await client.monitors.retrieve(created.id)
      const next = new Date(after.next_run_at!).getTime()
      expect(next).toBeGreaterThan(Date.now())
      expect(next).toBeLessThanOrEqual(dueAt.getTime() + 10 * 60_000 + 1_000)
      await new Promise((r) => setTimeout(r, 2_500))
      expect((await client.monitors.listRuns(created.id)).data).toHaveLength(2)
    }, 60_000)

    it("a run whose worker died (running past its lease) is run again by its job's retry, and the next run does not wait for it", async () => {
      const { secret } = await service.key()
      const client = new ContextDev({ apiKey: secret, baseURL: service.baseUrl, maxRetries: 0 })
      const path = `/died-${backend.name}`
      site.pages.set(path, { status: 200, body: article("Died", ["Text read again."]) })
      const created = await client.monitors.create({ name: "Died", target: { type: "page", url: `${site.url}${path}` }, schedule: { type: "interval", frequency: 365, unit: "days" } })
      await waitRun(client, created.id, created.initial_run_id!)
      const sql = (f: (sql: SqlClient.SqlClient) => Effect.Effect<unknown, unknown>) => service.run(Effect.flatMap(SqlClient.SqlClient, f) as Effect.Effect<unknown>)
      // A run its worker took 16 minutes ago and never finished (the process was killed), then pg-boss's retry of its
      // expired job, which hands the same run id to a worker again.
      const leftAt = new Date(Date.now() - 16 * 60_000)
      await sql((sql) => sql`UPDATE monitor_runs SET status = 'running', started_at = ${leftAt}, completed_at = NULL WHERE id = ${created.initial_run_id!}`)
      const hitsBefore = site.hits.get(path) ?? 0
      await sql((sql) => sql`INSERT INTO ${sql(service.jobsSchema)}.job (name, data) VALUES ('monitor-run', ${JSON.stringify({ runId: created.initial_run_id })}::jsonb)`)
      const rerun = await eventually(async () => {
        const run = (await client.monitors.listRuns(created.id)).data.find((r) => r.id === created.initial_run_id)
        return run?.status === "completed" ? run : undefined
      })
      expect(new Date(rerun.started_at!).getTime()).toBeGreaterThan(leftAt.getTime() + 15 * 60_000)
      expect(site.hits.get(path)).toBe(hitsBefore + 1)
      // A run left running with no retry coming: a manual run is not held back ("superseded") by it.
      await sql((sql) => sql`UPDATE monitor_runs SET status = 'running', started_at = ${leftAt}, completed_at = NULL WHERE id = ${created.initial_run_id!}`)
      const manual = await call(secret, "POST", `/monitors/${created.id}/run`)
      expect(manual.status).toBe(200)
      const next = await waitRun(client, created.id, manual.body.run_id as string)
      expect(next).toMatchObject({ status: "completed" })
      // Within its lease a running run is left alone: the retry of a job whose worker is still at it does nothing.
      const busyId = manual.body.run_id as string
      const recent = new Date(Date.now() - 60_000)
      await sql((sql) => sql`UPDATE monitor_runs SET status = 'running', started_at = ${recent}, completed_at = NULL WHERE id = ${busyId}`)
      await sql((sql) => sql`INSERT INTO ${sql(service.jobsSchema)}.job (name, data) VALUES ('monitor-run', ${JSON.stringify({ runId: busyId })}::jsonb)`)
      await new Promise((r) => setTimeout(r, 3_000))
      const still = (await client.monitors.listRuns(created.id)).data.find((r) => r.id === busyId)
      expect(still?.status).toBe("running")
      expect(new Date(still!.started_at!).getTime()).toBe(recent.getTime())
    }, 90_000)
  })
}

describe("monitors across a restart (PGlite data directory)", () => {
  it("a delivery waiting for its retry when the server stops is sent by the next server, once, with the same event id", async () => {
    const { mkdtempSync, rmSync } = await import("node:fs")
    const { tmpdir } = await import("node:os")
    const { join } = await import("node:path")
    const dataDir = mkdtempSync(join(tmpdir(), "sift-monitors-restart-"))
    const receiver = await startReceiver()
    receiver.script.push(500)
    let service = await TestService.start({ dataDir })
    try {
      const { secret } = await service.key()
      const client = new ContextDev({ apiKey: secret, baseURL: service.baseUrl, maxRetries: 0 })
      site.pages.set("/restart", { status: 200, body: article("Restart", ["Text that stays."]) })
      const created = await client.monitors.create({
        name: "Restart",
        target: { type: "page", url: `${site.url}/restart` },
        webhook: { url: receiver.url, events: ["run.completed"], retry: { delays_seconds: [3] } }
      })
      // The baseline run completes and its first delivery attempt is refused (500); the retry waits 3 s.
      await eventually(async () => receiver.received.length >= 1 ? true : undefined)
      await service.close()
      const firstId = receiver.received[0]!.headers["x-service-id"]
      service = await TestService.start({ dataDir })
      await eventually(async () => receiver.received.length >= 2 ? true : undefined, 40_000)
      await new Promise((r) => setTimeout(r, 1_500))
      expect(receiver.received).toHaveLength(2)
      expect(receiver.received[1]!.headers["x-service-id"]).toBe(firstId)
      expect(receiver.received[1]!.body).toBe(receiver.received[0]!.body)
      const runs = await new ContextDev({ apiKey: secret, baseURL: service.baseUrl, maxRetries: 0 }).monitors.listRuns(created.id)
      expect(runs.data).toHaveLength(1)
      expect(runs.data[0]).toMatchObject({ id: created.initial_run_id, status: "completed" })
      const delivery = await fetch(`${service.baseUrl}/webhooks/deliveries/${runs.data[0]!.webhook_delivery_ids![0]}`, { headers: { authorization: `Bearer ${secret}` } })
      expect(await delivery.json()).toMatchObject({ status: "delivered", attempts: 2 })
    } finally {
      await service.close()
      await receiver.close()
      rmSync(dataDir, { recursive: true, force: true })
    }
  }, 90_000)
})
