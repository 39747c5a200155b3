/**
 * Batches end to end on real databases (PGlite, and PostgreSQL when available): a fixture site served by node:http,
 * pg-boss jobs, the BlobStore, webhook deliveries, and a credit ledger in the same database (a table of balances, so
 * reservation and settlement really join the batch's transactions).
 */
import { describe, expect, it } from "@effect/vitest"
import * as SqlClient from "@effect/sql/SqlClient"
import { Cache, Fetcher, Pipeline, ScrapeRequest } from "@sift/core"
import * as BlobStore from "@sift/store/BlobStore"
import * as CacheStore from "@sift/store/CacheStore"
import * as JobQueue from "@sift/store/JobQueue"
import * as Migrations from "@sift/store/Migrations"
import { Deliveries, migrations as webhookMigrations } from "@sift/webhooks"
import { ConfigProvider, Effect, Fiber, Layer } from "effect"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { randomBytes } from "node:crypto"
import { gunzipSync } from "node:zlib"
import { afterAll, beforeAll } from "vitest"
import { backends, jobsSchema, title, unique } from "../../store/test/support/backends.js"
import { BatchCredits } from "../src/BatchCredits.js"
import { BatchRefused } from "../src/BatchErrors.js"
import * as BatchRunner from "../src/BatchRunner.js"
import * as Batches from "../src/Batches.js"
import type * as BatchSpec from "../src/BatchSpec.js"
import { migrations } from "../src/Migrations.js"

// The fixture site: pages with links, a slow page, a 404, robots.txt; every request counted by path.
const hits = new Map<string, number>()
let server: Server
let origin: string
const page = (title: string, links: ReadonlyArray<string> = []) =>
  `<!doctype html><html lang="en"><head><title>${title}</title></head><body><main><h1>${title}</h1><p>About ${title}.</p>` +
  links.map((l) => `<p><a href="${l}">${l}</a></p>`).join("") + `</main></body></html>`
beforeAll(async () => {
  server = createServer((req, res) => {
    const path = (req.url ?? "/").split("?")[0]!
    hits.set(path, (hits.get(path) ?? 0) + 1)
    if (path === "/robots.txt") return void res.writeHead(200, { "content-type": "text/plain" }).end("User-agent: *\nDisallow: /private\n")
    if (path.startsWith("/big/")) {
      // Text that hardly compresses, so the batch's file spans several stored chunks.
      return void res.writeHead(200, { "content-type": "text/html" }).end(page(`Big ${path}`, []).replace("</main>", `<p>${randomBytes(300_000).toString("base64")}</p></main>`))
    }
    if (path === "/missing") return void res.writeHead(404, { "content-type": "text/html" }).end("<h1>no</h1>")
    if (path.startsWith("/slow/")) {
      setTimeout(() => res.writeHead(200, { "content-type": "text/html" }).end(page(`Slow ${path}`)), 400)
      return
    }
    if (path === "/site/") return void res.writeHead(200, { "content-type": "text/html" }).end(page("Home", ["/site/a", "/site/b", "/site/b#x", "/private/p", "/site/style.css"]))
    if (path === "/site/a") return void res.writeHead(200, { "content-type": "text/html" }).end(page("A", ["/site/a/1", "/site/a/2", "/site/a/3"]))
    if (path.startsWith("/site/")) return void res.writeHead(200, { "content-type": "text/html" }).end(page(`Page ${path}`, ["/site/"]))
    return void res.writeHead(200, { "content-type": "text/html" }).end(page(`Page ${path}`))
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))

/** A ledger in the test's database: one balance per organization, moved inside the caller's transaction. */
const ledger = Layer.effect(BatchCredits, Effect.map(SqlClient.SqlClient, (sql) => ({
  reserve: (input) =>
    Effect.gen(function*() {
      const rows = yield* sql<{ balance: number }>`
        UPDATE test_balances SET balance = balance - ${input.credits} WHERE org_id = ${input.orgId} AND balance >= ${input.credits} RETURNING balance`
      if (rows[0] === undefined) return yield* new BatchRefused({ reason: "Unaffordable", detail: `${input.credits} credits are needed` })
      return { remaining: rows[0].balance }
    }),
  settle: (input) => Effect.asVoid(sql`UPDATE test_balances SET balance = balance + ${input.refund} - ${input.ocr} WHERE org_id = ${input.orgId}`)
})))

const fetcher = Layer.unwrapEffect(Effect.sync(() =>
  Fetcher.layerConfig.pipe(
    Layer.provide(Layer.setConfigProvider(ConfigProvider.fromMap(new Map([["SIFT_ALLOW_PRIVATE_TARGETS", "true"]])))),
    Layer.orDie
  )))

const environment = (backend: (typeof backends)[number], cache: "memory" | "store" = "memory") => {
  const storage = Layer.tap(backend.layer(), (ctx) =>
    Effect.provide(
      Effect.zipRight(
        Migrations.run({ store: Migrations.store, webhooks: webhookMigrations, batch: migrations }),
        Effect.flatMap(SqlClient.SqlClient, (sql) => sql`CREATE TABLE IF NOT EXISTS test_balances (org_id text PRIMARY KEY, balance integer NOT NULL)`)
      ),
      ctx
    ))
  const jobs = JobQueue.layer({ queues: [Batches.QUEUE, Deliveries.QUEUE], supervise: false, schema: jobsSchema() })
  // The service's cache: rows in the same database with a memory front.
  return cache === "store"
    ? Layer.mergeAll(ledger, BlobStore.layerSql, jobs, CacheStore.layer()).pipe(Layer.provideMerge(storage), Layer.provideMerge(fetcher))
    : Layer.mergeAll(ledger, BlobStore.layerSql, jobs).pipe(
      Layer.provideMerge(storage),
      Layer.provideMerge(Layer.merge(fetcher, Cache.layerMemory()))
    )
}

const fund = (orgId: string, balance: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => sql`INSERT INTO test_balances (org_id, balance) VALUES (${orgId}, ${balance})`)
const balance = (orgId: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.map(sql<{ balance: number }>`SELECT balance FROM test_balances WHERE org_id = ${orgId}`, (rows) => rows[0]!.balance))

const scrapeBody = (urls: ReadonlyArray<{ url: string; itemId?: string; meta?: Record<string, unknown> }>): BatchSpec.SubmitBody => ({
  input: { mode: "scrape", data: { format: "markdown", urls } }
})

/** The error code of a failure (infrastructure errors have none: their tag shows instead). */
const code = (error: { readonly _tag: string }): string => "errorCode" in error ? String(error.errorCode) : error._tag

/** Polls a batch until it is final (the worker runs in the background). */
const settled = (owner: Batches.Owner, id: string) =>
  Effect.gen(function*() {
    for (let i = 0; i < 600; i++) {
      const view = yield* Batches.get(owner, id, (f) => `http://files/${f}`)
      if (view.status === "completed" || view.status === "cancelled" || view.status === "failed") return view
      yield* Effect.sleep(100)
    }
    throw new Error(`batch ${id} did not settle`)
  })

const allResults = (owner: Batches.Owner, id: string, limit: number) =>
  Effect.gen(function*() {
    const out: Array<Record<string, unknown>> = []
    let cursor: string | undefined
    for (;;) {
      const page = yield* Batches.results(owner, id, { cursor, limit })
      out.push(...(page.data as Array<Record<string, unknown>>))
      if (!page.has_more) return out
      cursor = page.next_cursor ?? undefined
    }
  })

const readFile = (id: string) =>
  Effect.map(Batches.readFile(id), (bytes) =>
    gunzipSync(bytes!).toString("utf8").split("\n").filter((l) => l !== "").map((l) => JSON.parse(l)))

for (const backend of backends) {
  describe.skipIf(backend.skip !== undefined)(`batches on ${title(backend)}`, () => {
    it.scopedLive("a scrape batch: intake, one record per page in order, JSON pages equal the NDJSON files, exact credits", () =>
      Effect.gen(function*() {
        const owner: Batches.Owner = { orgId: `org_${unique()}`, keyId: undefined, plan: "pro" }
        yield* fund(owner.orgId, 100)
        yield* BatchRunner.worker({ sweepMs: 500 })
        const body = scrapeBody([
          { url: `${origin}/p/1`, itemId: "one", meta: { n: 1 } },
          { url: `${origin}/p/2` },
          { url: `${origin}/p/2#again` },
          { url: `${origin}/p/2`, itemId: "other-id" },
          { url: "ftp://files.example/x" },
          { url: `${origin}/missing`, itemId: "gone" },
          { url: `${origin}/private/by-name` }
        ])
        const made = yield* Batches.submit(owner, body, { requestId: "req_1", idempotencyKey: "k1" })
        expect(made.status).toBe("queued")
        expect(made.input).toEqual({ duplicates: 1, invalid: 1, reserved: 5, reserved_is_ceiling: false, submitted: 7 })
        expect(made.invalid_urls).toEqual([{ url: "ftp://files.example/x", reason: "only http and https URLs can be scraped" }])
        expect(made.credits.reserved).toBe(5)
        expect(yield* balance(owner.orgId)).toBe(95)
        // The same key and body: the original batch, nothing reserved again; another body: a conflict.
        const again = yield* Batches.submit(owner, body, { requestId: "req_2", idempotencyKey: "k1" })
        expect(again.id).toBe(made.id)
        expect(again.replayed).toBe(true)
        const conflict = yield* Effect.flip(Batches.submit(owner, scrapeBody([{ url: `${origin}/p/9` }]), { requestId: "req_3", idempotencyKey: "k1" }))
        expect(code(conflict)).toBe("IDEMPOTENCY_KEY_CONFLICT")
        expect(yield* balance(owner.orgId)).toBe(95)

        const view = yield* settled(owner, made.id)
        expect(view.status).toBe("completed")
        expect(view.progress).toEqual({ failed: 1, pending: 0, succeeded: 4 })
        expect(view.page_errors).toEqual([{ code: "WEBSITE_ACCESS_ERROR", count: 1 }])
        expect(view.credits).toEqual({ net: 4, ocr_charged: 0, refunded: 1, reserved: 5 })
        expect(yield* balance(owner.orgId)).toBe(96)

        const records = yield* allResults(owner, made.id, 2)
        expect(records.map((r) => [r["url"], r["itemId"], r["status"]])).toEqual([
          [`${origin}/p/1`, "one", "ok"],
          [`${origin}/p/2`, undefined, "ok"],
          [`${origin}/p/2`, "other-id", "ok"],
          [`${origin}/missing`, "gone", "error"],
          [`${origin}/private/by-name`, undefined, "ok"]
        ])
        expect(records[0]).toMatchObject({ meta: { n: 1 }, http_status: 200, final_url: `${origin}/p/1`, metadata: { title: "Page /p/1", sourceUrl: `${origin}/p/1` } })
        expect(records[0]!["markdown"]).toContain("# Page /p/1")
        expect(records[3]).toMatchObject({ error_code: "WEBSITE_ACCESS_ERROR", message: expect.stringContaining("404") })
        const files = view.results!.files
        expect(files.length).toBe(1)
        expect(files[0]!.items).toBe(5)
        const fromFiles = yield* readFile(files[0]!.url.replace("http://files/", ""))
        expect(fromFiles).toEqual(records)
      }).pipe(Effect.provide(environment(backend))), 120_000)

    it.scopedLive("a crawl: follows links in scope up to maxUrls, robots.txt honoured, the unread ceiling refunded", () =>
      Effect.gen(function*() {
        const owner: Batches.Owner = { orgId: `org_${unique()}`, keyId: undefined, plan: "pro" }
        yield* fund(owner.orgId, 100)
        yield* BatchRunner.worker({ sweepMs: 500 })
        const made = yield* Batches.submit(owner, {
          input: { mode: "crawl", data: { format: "html", source: { type: "start_url", url: `${origin}/site/`, controls: { maxUrls: 5, maxDepth: 2 } } } }
        }, { requestId: "req_c" })
        expect(made.input).toEqual({ duplicates: 0, invalid: null, reserved: 5, reserved_is_ceiling: true, submitted: null })
        expect(made.crawl).toEqual({ follow_subdomains: false, max_depth: 2, max_pages: 5, source: { type: "start_url", url: `${origin}/site/` }, url_pattern: null })
        const view = yield* settled(owner, made.id)
        const records = yield* allResults(owner, made.id, 100)
        const urls = records.map((r) => r["url"])
        expect(new Set(urls).size).toBe(urls.length)
        expect(urls[0]).toBe(`${origin}/site/`)
        expect(urls).toContain(`${origin}/site/a`)
        expect(urls).not.toContain(`${origin}/site/style.css`)
        expect(hits.get("/private/p")).toBeUndefined()
        expect(records.every((r) => typeof r["html"] === "string" && r["markdown"] === undefined)).toBe(true)
        expect(view.progress.pending).toBe(0)
        expect(view.credits.refunded).toBe(5 - view.progress.succeeded)
        expect(yield* balance(owner.orgId)).toBe(100 - view.progress.succeeded)
      }).pipe(Effect.provide(environment(backend))), 120_000)

    it.scopedLive("a batch whose every page failed settles failed, everything refunded", () =>
      Effect.gen(function*() {
        const owner: Batches.Owner = { orgId: `org_${unique()}`, keyId: undefined, plan: "pro" }
        yield* fund(owner.orgId, 10)
        yield* BatchRunner.worker({ sweepMs: 500 })
        const made = yield* Batches.submit(owner, scrapeBody([
          { url: `${origin}/missing`, itemId: "a" },
          { url: `${origin}/missing`, itemId: "b" }
        ]), { requestId: "req_f" })
        expect(yield* balance(owner.orgId)).toBe(8)
        const view = yield* settled(owner, made.id)
        expect(view.status).toBe("failed")
        expect(view.failure).toEqual({ code: "WEBSITE_ACCESS_ERROR", message: "every page read failed (2); the most common error is WEBSITE_ACCESS_ERROR" })
        expect(view.progress).toEqual({ failed: 2, pending: 0, succeeded: 0 })
        expect(view.page_errors).toEqual([{ code: "WEBSITE_ACCESS_ERROR", count: 2 }])
        expect(view.credits).toEqual({ net: 0, ocr_charged: 0, refunded: 2, reserved: 2 })
        expect(yield* balance(owner.orgId)).toBe(10)
        const records = yield* allResults(owner, made.id, 10)
        expect(records.map((r) => [r["itemId"], r["status"]])).toEqual([["a", "error"], ["b", "error"]])
      }).pipe(Effect.provide(environment(backend))), 120_000)

    it.scopedLive("caps, money and lifecycle: plan cap, unaffordable, cancel refunds the unread, results and delete wait for settlement", () =>
      Effect.gen(function*() {
        const owner: Batches.Owner = { orgId: `org_${unique()}`, keyId: undefined, plan: "free" }
        yield* fund(owner.orgId, 30)
        const poor = yield* Effect.flip(Batches.submit(owner, scrapeBody(Array.from({ length: 31 }, (_, i) => ({ url: `${origin}/p/${i}` }))), { requestId: "r0" }))
        expect(code(poor)).toBe("USAGE_EXCEEDED")
        expect(yield* balance(owner.orgId)).toBe(30)
        const slow = yield* Batches.submit(owner, scrapeBody(Array.from({ length: 20 }, (_, i) => ({ url: `${origin}/slow/${i}` }))), { requestId: "r1" })
        const capped = yield* Effect.flip(Batches.submit(owner, scrapeBody([{ url: `${origin}/p/x` }]), { requestId: "r2" }))
        expect(code(capped)).toBe("BATCH_LIMIT_EXCEEDED")
        expect(code(yield* Effect.flip(Batches.results(owner, slow.id, { limit: 10 })))).toBe("BATCH_NOT_COMPLETED")
        expect(code(yield* Effect.flip(Batches.remove(owner, slow.id)))).toBe("BATCH_NOT_COMPLETED")
        const other: Batches.Owner = { ...owner, orgId: `org_${unique()}` }
        expect(code(yield* Effect.flip(Batches.get(other, slow.id, String)))).toBe("NOT_FOUND")
        yield* BatchRunner.worker({ concurrency: 2, sweepMs: 500 })
        yield* Effect.sleep(900)
        const cancelling = yield* Batches.cancel(owner, slow.id)
        expect(cancelling.status).toBe("cancelling")
        const view = yield* settled(owner, slow.id)
        expect(view.status).toBe("cancelled")
        expect(view.progress.succeeded).toBeGreaterThan(0)
        expect(view.progress.pending).toBeGreaterThan(0)
        expect(view.credits.refunded).toBe(20 - view.progress.succeeded)
        expect(yield* balance(owner.orgId)).toBe(30 - view.progress.succeeded)
        expect(code(yield* Effect.flip(Batches.cancel(owner, slow.id)))).toBe("BATCH_NOT_CANCELLABLE")
        expect(code(yield* Effect.flip(Batches.list(owner, { limit: 10, cursor: "not-ours" }, String)))).toBe("INPUT_VALIDATION_ERROR")
        expect(code(yield* Effect.flip(Batches.results(owner, slow.id, { limit: 10, cursor: "zz!" })))).toBe("INPUT_VALIDATION_ERROR")
        const listed = yield* Batches.list(owner, { limit: 10 }, String)
        expect(listed.data.map((b) => b.id)).toEqual([slow.id])
        expect(yield* Batches.remove(owner, slow.id)).toEqual({ id: slow.id, deleted: true })
        expect(code(yield* Effect.flip(Batches.get(owner, slow.id, String)))).toBe("NOT_FOUND")
      }).pipe(Effect.provide(environment(backend))), 120_000)

    it.scopedLive("NDJSON parts: records split across parts in order, each part stored in chunks and read back whole", () =>
      Effect.gen(function*() {
        const owner: Batches.Owner = { orgId: `org_${unique()}`, keyId: undefined, plan: "pro" }
        yield* fund(owner.orgId, 100)
        const made = yield* Batches.submit(owner, scrapeBody(Array.from({ length: 5 }, (_, i) => ({ url: `${origin}/big/${i}` }))), { requestId: "rp" })
        yield* BatchRunner.drive(made.id, { partRecords: 2 })
        const view = yield* Batches.get(owner, made.id, (id) => id)
        expect(view.results!.files.map((f) => f.items)).toEqual([2, 2, 1])
        expect(view.results!.files[0]!.bytes).toBeGreaterThan(Batches.FILE_CHUNK_BYTES)
        const fromFiles: Array<unknown> = []
        for (const file of view.results!.files) fromFiles.push(...yield* readFile(file.url))
        expect(fromFiles).toEqual(yield* allResults(owner, made.id, 100))
        expect(fromFiles.map((r: any) => r.url)).toEqual(Array.from({ length: 5 }, (_, i) => `${origin}/big/${i}`))
        yield* Batches.remove(owner, made.id)
        expect(yield* Batches.readFile(view.results!.files[0]!.url)).toBeUndefined()
      }).pipe(Effect.provide(environment(backend))), 120_000)

    it.scopedLive("a drive killed mid-batch: another takes over after the lease lapses, one record per page, exact credits", () =>
      Effect.gen(function*() {
        const owner: Batches.Owner = { orgId: `org_${unique()}`, keyId: undefined, plan: "pro" }
        yield* fund(owner.orgId, 100)
        const made = yield* Batches.submit(owner, scrapeBody(Array.from({ length: 12 }, (_, i) => ({ url: `${origin}/slow/k${i}` }))), { requestId: "rk" })
        const first = yield* Effect.fork(BatchRunner.drive(made.id, { leaseMs: 600, concurrency: 3 }))
        yield* Effect.sleep(1_000)
        yield* Fiber.interrupt(first)
        // The lease is still held: a drive now leaves at once; after it lapses, a drive finishes the batch.
        yield* BatchRunner.drive(made.id, { leaseMs: 600 })
        expect((yield* Batches.get(owner, made.id, String)).status).toBe("running")
        yield* Effect.sleep(700)
        yield* BatchRunner.drive(made.id, { leaseMs: 600, concurrency: 6 })
        const view = yield* Batches.get(owner, made.id, String)
        expect(view.status).toBe("completed")
        const records = yield* allResults(owner, made.id, 100)
        expect(records.map((r) => r["url"])).toEqual(Array.from({ length: 12 }, (_, i) => `${origin}/slow/k${i}`))
        expect(view.credits).toMatchObject({ reserved: 12, refunded: 0 })
        expect(yield* balance(owner.orgId)).toBe(88)
      }).pipe(Effect.provide(environment(backend))), 120_000)

    it.scopedLive("a settlement that dies before it commits leaves nothing behind: the next drive settles once (one set of parts, one refund)", () =>
      Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        const owner: Batches.Owner = { orgId: `org_${unique()}`, keyId: undefined, plan: "pro" }
        yield* fund(owner.orgId, 100)
        const urls = [`${origin}/p/settle-1`, `${origin}/missing`, `${origin}/p/settle-2`]
        const made = yield* Batches.submit(owner, scrapeBody(urls.map((url) => ({ url }))), { requestId: "rs" })
        const blobsBefore = Number((yield* sql<{ n: string | number }>`SELECT count(*) AS n FROM blobs WHERE key LIKE 'batch-file/%'`)[0]!.n)
        // The process dies in the middle of settling: the parts are written and the refund made in its transaction,
        // then it ends before the commit (as kill -9 would).
        const credits = yield* BatchCredits
        let dying = true
        const dies = BatchCredits.of({
          ...credits,
          settle: (input) => Effect.zipRight(credits.settle(input), dying ? Effect.sync(() => void (dying = false)).pipe(Effect.zipRight(Effect.die("killed mid-settlement"))) : Effect.void)
        })
        const crashed = yield* Effect.exit(Effect.provideService(BatchRunner.drive(made.id, { leaseMs: 600 }), BatchCredits, dies))
        expect(crashed._tag).toBe("Failure")
        expect(dying).toBe(false)
        // Nothing of the settlement stayed: still running, no parts, no refund, every record kept.
        const after = yield* Batches.get(owner, made.id, String)
        expect(after.status).toBe("running")
        expect(after.results).toBeNull()
        expect(after.progress).toEqual({ succeeded: 2, failed: 1, pending: 0 })
        expect(yield* balance(owner.orgId)).toBe(97)
        expect(Number((yield* sql<{ n: string | number }>`SELECT count(*) AS n FROM batch_files WHERE batch_id = ${made.id}`)[0]!.n)).toBe(0)
        expect(Number((yield* sql<{ n: string | number }>`SELECT count(*) AS n FROM blobs WHERE key LIKE 'batch-file/%'`)[0]!.n)).toBe(blobsBefore)
        // Once the dead drive's lease lapses, the next drive settles it, once; a further drive changes nothing.
        yield* Effect.sleep(700)
        yield* BatchRunner.drive(made.id, { leaseMs: 600 })
        yield* BatchRunner.drive(made.id, { leaseMs: 600 })
        const view = yield* Batches.get(owner, made.id, (f) => `http://files/${f}`)
        expect(view.status).toBe("completed")
        expect(view.credits).toEqual({ net: 2, ocr_charged: 0, refunded: 1, reserved: 3 })
        expect(yield* balance(owner.orgId)).toBe(98)
        expect(view.results!.files.map((f) => f.items)).toEqual([3])
        expect(Number((yield* sql<{ n: string | number }>`SELECT count(*) AS n FROM blobs WHERE key LIKE 'batch-file/%'`)[0]!.n)).toBe(blobsBefore + 1)
        const records = yield* allResults(owner, made.id, 100)
        expect(records.map((r) => r["url"])).toEqual(urls)
        expect(yield* readFile(view.results!.files[0]!.url.replace("http://files/", ""))).toEqual(records)
      }).pipe(Effect.provide(environment(backend))), 120_000)

    it.scopedLive("with the store's cache, each page's cache entry is written with its record (a row, not the memory front), one record per page", () =>
      Effect.gen(function*() {
        const owner: Batches.Owner = { orgId: `org_${unique()}`, keyId: undefined, plan: "pro" }
        yield* fund(owner.orgId, 100)
        const u = unique()
        const urls = Array.from({ length: 5 }, (_, i) => `${origin}/cached/${u}/${i}`)
        const made = yield* Batches.submit(owner, scrapeBody(urls.map((url) => ({ url }))), { requestId: "rc" })
        yield* BatchRunner.drive(made.id, { concurrency: 3 })
        const view = yield* Batches.get(owner, made.id, String)
        expect(view.status).toBe("completed")
        expect(view.progress).toMatchObject({ succeeded: 5, failed: 0 })
        const records = yield* allResults(owner, made.id, 100)
        expect(records.map((r) => r["url"])).toEqual(urls)
        expect(records.every((r) => String(r["markdown"] ?? JSON.stringify(r)).includes("About Page /cached/"))).toBe(true)
        const sql = yield* SqlClient.SqlClient
        const keys = yield* Effect.forEach(urls, (url) => Effect.map(ScrapeRequest.decode({ url, formats: { markdown: true } }), Pipeline.cacheKey))
        const rows = yield* sql<{ key: string; size: number }>`
          SELECT key, octet_length(bytes) AS size FROM cache_entries WHERE key IN ${sql.in(keys)} AND expires_at > now() + interval '29 days'`
        expect(rows.map((r) => r.key).sort()).toEqual([...keys].sort())
        expect(rows.every((r) => Number(r.size) > 100)).toBe(true)
        // A later scrape reads the page from the cache, not the site.
        const before = hits.get(`/cached/${u}/0`)
        const again = yield* Pipeline.scrape({ url: urls[0], formats: { markdown: true } })
        expect(again.cache_metadata.status).toBe("hit")
        expect(hits.get(`/cached/${u}/0`)).toBe(before)
        // The batch's pages never went into the process's memory front: with their rows gone, the cache has none.
        yield* sql`DELETE FROM cache_entries WHERE key IN ${sql.in(keys.slice(1))}`
        const cache = yield* Cache.Cache
        for (const key of keys.slice(1)) expect((yield* cache.get(key, 86_400_000))._tag).toBe("None")
      }).pipe(Effect.provide(environment(backend, "store"))), 120_000)
  })
}
