/**
 * Runs batches: a drive job per batch reads its pending pages through the crawler core (the same scope, politeness
 * and page step as `POST /web/crawl` and embedders' `Crawler.crawl`), writes each page's record once, follows links
 * for a crawl, and settles the batch when nothing is left.
 *
 * Exactly once, whatever dies when: a page's record, the batch's counters and the links it adds are written in one
 * transaction that only a `pending` page can pass, so a page read twice (its worker killed before the write) is
 * recorded once. One process works a batch at a time, holding a lease on its row that it renews; a drive that finds
 * the lease taken leaves, and a sweeper queues a drive for every active batch whose lease lapsed (its worker died).
 * Settlement (files, refund, status, the completion event) is one transaction that only an unsettled batch passes.
 *
 * @since 0.1.0
 */
import * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import { Cache, Crawler, type Fetcher, ScrapeRequest, UrlNormal } from "@sift/core"
import { BlobStore } from "@sift/store/BlobStore"
import * as CacheStore from "@sift/store/CacheStore"
import * as Ids from "@sift/store/Ids"
import { JobQueue, type JobQueueError } from "@sift/store/JobQueue"
import { type IndexedPage, PageIndex, pageOf } from "@sift/store/PageIndex"
import { Deliveries } from "@sift/webhooks"
import { Chunk, Clock, Deferred, Duration, Effect, Option, Queue, type Scope } from "effect"
import { randomBytes } from "node:crypto"
import { createGzip } from "node:zlib"
import { BatchCredits } from "./BatchCredits.js"
import { DRIVE_JOB_OPTIONS, expire, FILE_CHUNK_BYTES, fileChunkKeys, QUEUE } from "./Batches.js"
import * as BatchSpec from "./BatchSpec.js"
import * as Records from "./internal/records.js"
import * as Views from "./internal/views.js"

/** How a process runs batches. */
export interface RunnerOptions {
  /** Pages of one batch read at once (default 8). */
  readonly concurrency?: number | undefined
  /** Batches one process drives at once (default 2). */
  readonly batches?: number | undefined
  /** Pages of one host read at once (default 4). */
  readonly perHost?: number | undefined
  /** A drive's lease on its batch (default 30 s; renewed every third of it). */
  readonly leaseMs?: number | undefined
  /** How often lapsed batches are looked for (default 15 s). */
  readonly sweepMs?: number | undefined
  /** The URL of a result file in completion events (default the submitting request's origin and `/v1/files/{id}`). */
  readonly fileUrl?: Views.FileUrl | undefined
  /** Records per NDJSON part at most (default `PART_RECORDS`; smaller in tests). */
  readonly partRecords?: number | undefined
}

/** Records per NDJSON part at most, and its uncompressed bytes at most (wave2 §21.3). */
export const PART_RECORDS = 5_000
export const PART_BYTES = 64 * 1024 * 1024
/** How long results are kept after settlement. */
export const RESULTS_TTL_MS = 7 * 24 * 3600 * 1000

/** Page writes of one batch put in one statement at most (those that finished while the last group was written). */
const WRITE_GROUP = 64

/** What a page's read leaves to write: its record, its state for the counters, and its cache entry. */
interface PageWrite {
  readonly seq: number
  readonly state: "ok" | "error" | "skipped"
  readonly record: unknown
  readonly ocr: number
  readonly code: string | null
  readonly entry: { readonly key: string; readonly value: Uint8Array } | undefined
  /** The page's row of Sift's own page index, written in the record's statement. */
  readonly indexed: IndexedPage | undefined
}

type Requirements = SqlClient.SqlClient | JobQueue | BatchCredits | BlobStore | Fetcher.Fetcher | Cache.Cache

interface PendingPage {
  readonly seq: number
  readonly url: string
  readonly item_id: string | null
  readonly meta: unknown
  readonly depth: number
}

interface StoredOptions extends BatchSpec.PageOptions {
  readonly follow: {
    readonly start: string
    readonly followSubdomains: boolean
    readonly maxDepth: number | null
    readonly regex: string | undefined
    readonly maxPages: number
  } | null
}

const fileId = (): string => "file_" + Array.from(randomBytes(32), (b) => "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"[b % 62]).join("")

/** Takes (or renews) the lease of an active batch; `undefined` when it is final, gone, or another process holds it. */
const takeLease = (batchId: string, owner: string, leaseMs: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.map(
      sql<Views.BatchRow>`
        UPDATE batches SET lease_owner = ${owner}, lease_until = now() + ${`${leaseMs} milliseconds`}::interval,
          status = CASE WHEN status = 'queued' THEN 'running' ELSE status END,
          started_at = CASE WHEN status = 'queued' THEN now() ELSE started_at END
        WHERE id = ${batchId} AND status IN ('queued', 'running', 'cancelling')
          AND (lease_owner IS NULL OR lease_until < now() OR lease_owner = ${owner})
        RETURNING *`,
      (rows) => rows[0]
    ))

/**
 * Drives one batch until it settles or this process loses its lease. Safe to run any number of times, anywhere.
 */
export const drive = (batchId: string, options: RunnerOptions = {}): Effect.Effect<void, SqlError | JobQueueError, Requirements> =>
  Effect.scoped(Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const leaseMs = options.leaseMs ?? 30_000
    const owner = Ids.id("drv_")
    const batch = yield* takeLease(batchId, owner, leaseMs)
    if (batch === undefined) return
    // Renew the lease while working; losing it (another process took a lapsed lease) stops this drive from starting
    // pages (those in flight finish: their writes pass only while the page is pending, so none is recorded twice).
    let lost = false
    yield* Effect.forkScoped(Effect.forever(Effect.gen(function*() {
      yield* Effect.sleep(Duration.millis(Math.max(100, Math.floor(leaseMs / 3))))
      const renewed = yield* takeLease(batchId, owner, leaseMs).pipe(Effect.orElseSucceed(() => undefined))
      if (renewed === undefined) lost = true
    })))
    let cancelling = batch.status === "cancelling"
    yield* Effect.forkScoped(Effect.forever(Effect.gen(function*() {
      yield* Effect.sleep(Duration.millis(500))
      const [now] = yield* sql<{ status: string }>`SELECT status FROM batches WHERE id = ${batchId}`.pipe(Effect.orElseSucceed(() => []))
      if (now?.status === "cancelling") cancelling = true
    })))

    const stored = batch.options as StoredOptions
    const page = BatchSpec.pageRequest(batch.format, stored)
    const pdfShouldParse = stored.pdf?.shouldParse
    const follow = stored.follow
    const scope = follow === null ? undefined : yield* Effect.orDie(Crawler.scope({
      start: follow.start,
      followSubdomains: follow.followSubdomains,
      maxDepth: follow.maxDepth ?? undefined,
      pattern: follow.regex,
      patternField: "input.data.source.controls.regex"
    }))
    const gate = yield* Crawler.gate({ perHost: options.perHost ?? 4, robots: follow !== null, maxCrawlDelayMs: 10_000 })
    // A crawl's frontier is its stored pages: the keys seen, the next seq, and how many it may still add.
    const known = new Set<string>()
    let nextSeq = 1
    let pages = batch.pages
    if (follow !== null) {
      const keys = yield* sql<{ url_key: string; seq: number }>`SELECT url_key, seq FROM batch_pages WHERE batch_id = ${batchId}`
      for (const k of keys) {
        known.add(k.url_key)
        nextSeq = Math.max(nextSeq, k.seq + 1)
      }
    }

    // With the store's cache, a page's cache entry is written in its record's statement (one round trip, not two), and
    // does not fill the process's memory front with pages nobody has asked for yet.
    const cache = yield* Cache.Cache
    const cacheRows = Option.getOrUndefined(yield* Effect.serviceOption(CacheStore.Rows))
    // Sift's own page index (when the service provides it) keeps each page's Markdown for the batch's organization, in
    // the statement that writes the page's record and cache entry.
    const index = Option.getOrUndefined(yield* Effect.serviceOption(PageIndex))

    // Pages that add no links (every batch but a start_url crawl) are written in groups, the way the store's GroupCommit
    // writes log rows: the pages that finished while one group was written go in the next, one statement and one commit
    // for them all. Each record still passes only while its page is pending, and counts only if it did.
    const writes = yield* Queue.unbounded<readonly [PageWrite, Deferred.Deferred<void, SqlError>]>()
    const writeGroup = (group: ReadonlyArray<PageWrite>, indexing: boolean) => {
      const cached = cacheRows === undefined ? undefined : CacheStore.upsert(sql, cacheRows, group.flatMap((w) => w.entry === undefined ? [] : [w.entry]))
      const indexed = indexing ? index?.insert(group.flatMap((w) => w.indexed === undefined ? [] : [w.indexed])) : undefined
      const rows = JSON.stringify(group.map((w) => ({ seq: w.seq, state: w.state, record: w.record, ocr: w.ocr, code: w.code })))
      return sql`
        WITH ${cached === undefined ? sql`` : sql`cached AS (${cached}), `}${indexed === undefined ? sql`` : sql`indexed AS (${indexed}), `}r AS (
          SELECT * FROM jsonb_to_recordset(${rows}::jsonb) AS r(seq integer, state text, record jsonb, ocr integer, code text)
        ), written AS (
          UPDATE batch_pages p SET state = r.state, record = r.record, ocr_pages = r.ocr FROM r
          WHERE p.batch_id = ${batchId} AND p.seq = r.seq AND p.state = 'pending' RETURNING r.state, r.code
        ), codes AS (
          SELECT code, count(*)::int AS n FROM written WHERE code IS NOT NULL GROUP BY code
        )
        UPDATE batches SET
          succeeded = succeeded + (SELECT count(*) FROM written WHERE state = 'ok'),
          failed = failed + (SELECT count(*) FROM written WHERE state = 'error'),
          skipped = skipped + (SELECT count(*) FROM written WHERE state = 'skipped'),
          page_errors = page_errors || coalesce((SELECT jsonb_object_agg(c.code, coalesce((page_errors ->> c.code)::int, 0) + c.n) FROM codes c), '{}'::jsonb)
        WHERE id = ${batchId} AND EXISTS (SELECT 1 FROM written)`
    }
    yield* Effect.forkScoped(Effect.forever(Effect.gen(function*() {
      const first = yield* Queue.take(writes)
      const group = [first, ...Chunk.toReadonlyArray(yield* Queue.takeUpTo(writes, WRITE_GROUP - 1))]
      const pagesOf = group.map(([write]) => write)
      let exit = yield* Effect.exit(Effect.asVoid(writeGroup(pagesOf, true)))
      // The index never fails a page: a group refused with its index rows is written again without them.
      if (exit._tag === "Failure" && pagesOf.some((w) => w.indexed !== undefined)) {
        yield* Effect.logWarning("batch: page index rows refused, pages written without them", exit.cause)
        exit = yield* Effect.exit(Effect.asVoid(writeGroup(pagesOf, false)))
      }
      for (const [, done] of group) yield* Deferred.done(done, exit)
    })))

    const record = (pending: PendingPage) =>
      Effect.gen(function*() {
        const identity: Records.PageIdentity = { url: pending.url, itemId: pending.item_id, meta: pending.meta }
        const request = yield* Effect.either(ScrapeRequest.decode({ ...page, url: pending.url }))
        let entry: { key: string; value: Uint8Array } | undefined
        const deferring = cacheRows === undefined ? cache : Cache.Cache.of({
          get: cache.get,
          // The page's first entry waits for the record; any other goes through the cache as ever.
          set: (key, value) => entry === undefined ? Effect.sync(() => void (entry = { key, value })) : cache.set(key, value)
        })
        const outcome: Crawler.PageOutcome = request._tag === "Left"
          ? { _tag: "Failed", error: request.left }
          : yield* Effect.provideService(Crawler.visit(gate, pending.url, request.right, { pdfShouldParse, links: follow !== null }), Cache.Cache, deferring)
        const made = Records.of(identity, batch.format, outcome)
        const state = made === undefined ? "skipped" : made.status === "ok" ? "ok" : "error"
        const ocr = outcome._tag === "Scraped" ? outcome.ocrPages : 0
        // Links this page adds to a crawl: in scope, new, within depth and the batch's ceiling.
        const links: Array<{ url: string; urlKey: string; seq: number }> = []
        if (scope !== undefined && follow !== null && outcome._tag === "Scraped" && (follow.maxDepth === null || pending.depth < follow.maxDepth)) {
          for (const link of outcome.links) {
            if (pages + links.length >= follow.maxPages) break
            const url = UrlNormal.normalize(link)
            if (url === undefined || scope.refusal(url, pending.depth + 1) !== undefined) continue
            const urlKey = UrlNormal.dedupeKey(url)
            if (known.has(urlKey)) continue
            known.add(urlKey)
            links.push({ url, urlKey, seq: nextSeq++ })
          }
        }
        // Counted now, before any other page's links are chosen, so pages read at once never pass the ceiling together.
        pages += links.length
        const code = made?.status === "error" ? String(made["error_code"]) : null
        // The page's index row: not a page read with forwarded headers, which the page cache refuses too.
        const indexed = index !== undefined && state === "ok" && outcome._tag === "Scraped" && request._tag === "Right" && Cache.usesCache(request.right)
          ? pageOf(batch.org_id, outcome.result, Date.now())
          : undefined
        if (follow === null) {
          // Queued for the next group; its commit is awaited at the chunk's end, so the page's slot goes to the next
          // page while the group is written (waiting here held a slot idle for a write, and the drive stalled).
          const done = yield* Deferred.make<void, SqlError>()
          yield* Queue.offer(writes, [{ seq: pending.seq, state, record: made ?? null, ocr, code, entry, indexed }, done])
          return done
        } else {
          // One statement (one round trip, atomic): the record only if the page is still pending, then its links and
          // the batch's counters only if the record was written; the page's cache entry and index row in any case.
          const cached = cacheRows === undefined ? undefined : CacheStore.upsert(sql, cacheRows, entry === undefined ? [] : [entry])
          const writeCrawled = (indexing: boolean) => {
            const indexRow = indexing && indexed !== undefined ? index?.insert([indexed]) : undefined
            return sql<{ added: number | string }>`
            WITH ${cached === undefined ? sql`` : sql`cached AS (${cached}), `}${indexRow === undefined ? sql`` : sql`indexed AS (${indexRow}), `}written AS (
              UPDATE batch_pages SET state = ${state}, record = ${made === undefined ? null : JSON.stringify(made)}::jsonb, ocr_pages = ${ocr}
              WHERE batch_id = ${batchId} AND seq = ${pending.seq} AND state = 'pending' RETURNING 1
            ), added AS (
              INSERT INTO batch_pages (batch_id, seq, url, url_key, item_id, meta, depth, state)
              SELECT ${batchId}, l.seq, l.url, l.url_key, NULL, NULL, ${pending.depth + 1}, 'pending'
              FROM jsonb_to_recordset(${JSON.stringify(links.map((l) => ({ seq: l.seq, url: l.url, url_key: l.urlKey })))}::jsonb)
                AS l(seq integer, url text, url_key text)
              WHERE EXISTS (SELECT 1 FROM written)
              ON CONFLICT DO NOTHING RETURNING 1
            )
            UPDATE batches SET
              succeeded = succeeded + ${state === "ok" ? 1 : 0},
              failed = failed + ${state === "error" ? 1 : 0},
              skipped = skipped + ${state === "skipped" ? 1 : 0},
              pages = pages + (SELECT count(*) FROM added),
              page_errors = CASE WHEN ${code}::text IS NULL THEN page_errors
                ELSE jsonb_set(page_errors, ARRAY[${code ?? ""}::text], to_jsonb(coalesce((page_errors ->> ${code ?? ""})::int, 0) + 1)) END
            WHERE id = ${batchId} AND EXISTS (SELECT 1 FROM written)
            RETURNING (SELECT count(*) FROM added) AS added`
          }
          // The index never fails a page: a statement refused with the index row is made again without it.
          const [counted] = indexed === undefined
            ? yield* writeCrawled(false)
            : yield* Effect.catchAll(writeCrawled(true), (error) =>
              Effect.zipRight(Effect.logWarning("batch: page index row refused, page written without it", error), writeCrawled(false)))
          pages -= links.length - Number(counted?.added ?? 0)
          return undefined
        }
      })

    let after = 0
    while (!cancelling && !lost) {
      const chunk = yield* sql<PendingPage>`
        SELECT seq, url, item_id, meta, depth FROM batch_pages
        WHERE batch_id = ${batchId} AND state = 'pending' AND seq > ${after} ORDER BY seq LIMIT 200`
      if (chunk.length === 0) break
      after = chunk[chunk.length - 1]!.seq
      const written = yield* Effect.forEach(chunk, (pending) =>
        // Decided as each page starts, not when the chunk is read: a cancel or a lost lease stops the rest of it.
        Effect.suspend(() => cancelling || lost ? Effect.succeed(undefined) : record(pending)), {
        concurrency: options.concurrency ?? 8
      })
      // Every record of the chunk is committed (or the drive fails, and its retry reads the pages still pending).
      yield* Effect.forEach(written, (done) => done === undefined ? Effect.void : Deferred.await(done), { discard: true })
    }
    if (lost) return
    yield* settle(batchId, cancelling ? "cancelled" : "completed", options)
  }))

/** Settles a batch once: its NDJSON parts, its refund and OCR charge, its final status and its completion event (`failed` when no page succeeded and one failed). */
export const settle = (
  batchId: string,
  asked: "completed" | "cancelled" | "failed",
  options: Pick<RunnerOptions, "fileUrl" | "partRecords"> = {}
) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const blobs = yield* BlobStore
    const credits = yield* BatchCredits
    const transaction = credits.transaction ?? sql.withTransaction
    yield* transaction(Effect.gen(function*() {
      const [batch] = yield* sql<Views.BatchRow>`SELECT * FROM batches WHERE id = ${batchId} FOR UPDATE`
      if (batch === undefined || Views.isFinal(batch.status)) return
      // A run in which every page read failed is the batch's failure (batch.failed), not a completion.
      const status = asked === "completed" && batch.succeeded === 0 && batch.failed > 0 ? "failed" : asked
      const parts = yield* writeParts(batchId, blobs, options.partRecords ?? PART_RECORDS)
      const [ocr] = yield* sql<{ pages: string | number }>`
        SELECT coalesce(sum(ocr_pages), 0) AS pages FROM batch_pages WHERE batch_id = ${batchId} AND state = 'ok'`
      const ocrPages = Number(ocr?.pages ?? 0)
      const refund = Math.max(0, batch.credits_reserved - batch.succeeded)
      yield* credits.settle({ orgId: batch.org_id, batchId, refund, ocr: ocrPages })
      const now = new Date(yield* Clock.currentTimeMillis)
      const top = Views.pageErrors(batch)[0]
      const failure = status === "failed"
        ? { code: top?.code ?? "INTERNAL_ERROR", message: `every page read failed (${batch.failed}); the most common error is ${top?.code ?? "unknown"}` }
        : null
      const [settled] = yield* sql<Views.BatchRow>`
        UPDATE batches SET status = ${status}, failure = ${failure === null ? null : JSON.stringify(failure)}::jsonb, completed_at = ${now}, credits_refunded = ${refund}, ocr_charged = ${ocrPages},
          results_expire_at = ${new Date(now.getTime() + RESULTS_TTL_MS)}, lease_owner = NULL, lease_until = NULL
        WHERE id = ${batchId} RETURNING *`
      const webhook = batch.webhook as { url: string; retry?: { delays_seconds?: ReadonlyArray<number> }; legacy?: boolean } | null
      if (webhook !== null) {
        const event = {
          id: Deliveries.eventId(),
          type: `batch.${status}`,
          created_at: now.toISOString(),
          data: { batch: Views.retrieve(settled!, parts, options.fileUrl ?? ((id, origin) => `${origin ?? ""}/v1/files/${id}`)) }
        }
        const retry = webhook.legacy === true || webhook.retry === undefined
          ? undefined
          : webhook.retry.delays_seconds === undefined ? {} : webhook.retry.delays_seconds.map((s) => s * 1000)
        const deliveryId = yield* Deliveries.enqueue({ ownerId: batchId, runId: null, url: webhook.url, retry, event })
        yield* sql`UPDATE batches SET webhook_delivery_id = ${deliveryId} WHERE id = ${batchId}`
      }
    }))
  })

/**
 * Writes the NDJSON parts of a batch's records (in seq order), returning their rows. Records are read a few hundred
 * at a time and compressed as they come, so a part of 5,000 large records never sits in memory uncompressed.
 */
const writeParts = (batchId: string, blobs: BlobStore["Type"], partRecords: number) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const expires = new Date((yield* Clock.currentTimeMillis) + RESULTS_TTL_MS)
    const parts: Array<Views.FileRow> = []
    let gzip: PartWriter | undefined
    const flush = Effect.suspend((): Effect.Effect<void, SqlError> => {
      if (gzip === undefined) return Effect.void
      const finished = gzip
      gzip = undefined
      return Effect.flatMap(Effect.promise(() => finished.end()), (gz) => {
        const part: Views.FileRow = { id: fileId(), part: parts.length + 1, items: finished.items, bytes: gz.length }
        parts.push(part)
        return Effect.zipRight(
          // In chunks: one large value in one statement costs PGlite hundreds of MB of memory for a moment.
          Effect.forEach(fileChunkKeys(part.id, gz.length), (key, i) =>
            blobs.put(key, gz.subarray(i * FILE_CHUNK_BYTES, (i + 1) * FILE_CHUNK_BYTES), { contentType: "application/gzip" }), { discard: true }),
          Effect.asVoid(sql`INSERT INTO batch_files ${sql.insert({ ...part, batch_id: batchId, expires_at: expires })}`)
        )
      })
    })
    let after = 0
    while (true) {
      const rows = yield* sql<{ seq: number; record: string }>`${Records.pageAfter(sql, batchId, after, 200)}`
      if (rows.length === 0) break
      after = rows[rows.length - 1]!.seq
      for (const row of rows) {
        const line = row.record + "\n"
        const size = Buffer.byteLength(line)
        if (gzip !== undefined && (gzip.items >= partRecords || gzip.bytes + size > PART_BYTES)) yield* flush
        gzip ??= new PartWriter()
        gzip.write(line, size)
      }
      const writer = gzip
      if (writer !== undefined) yield* Effect.promise(() => writer.drained())
    }
    yield* flush
    return parts
  })

/** One gzip part being written: lines in, compressed chunks collected. */
class PartWriter {
  items = 0
  bytes = 0
  private readonly chunks: Array<Buffer> = []
  private readonly stream = createGzip()
  constructor() {
    this.stream.on("data", (chunk: Buffer) => this.chunks.push(chunk))
  }
  write(line: string, size: number): void {
    this.items++
    this.bytes += size
    this.stream.write(line)
  }
  /** Resolves once the compressor has taken what was written (so lines never pile up uncompressed). */
  drained(): Promise<void> {
    return this.stream.writableNeedDrain ? new Promise((resolve) => this.stream.once("drain", () => resolve())) : Promise.resolve()
  }
  end(): Promise<Buffer> {
    return new Promise((resolve, reject) => {
      this.stream.once("error", reject)
      this.stream.once("end", () => resolve(Buffer.concat(this.chunks)))
      this.stream.end()
    })
  }
}

/** Queues a drive for every active batch no live process holds (its worker died, or none started it). */
export const sweep = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const jobs = yield* JobQueue
  const lapsed = yield* sql<{ id: string }>`
    SELECT id FROM batches WHERE status IN ('queued', 'running', 'cancelling') AND (lease_until IS NULL OR lease_until < now())`
  for (const batch of lapsed) yield* jobs.send(QUEUE, { batchId: batch.id }, { ...DRIVE_JOB_OPTIONS, singletonKey: batch.id })
  return lapsed.length
})

/** Works the drive queue and sweeps for lapsed batches, for the scope's lifetime. */
export const worker = (options: RunnerOptions = {}): Effect.Effect<void, JobQueueError, Requirements | Scope.Scope> =>
  Effect.gen(function*() {
    const jobs = yield* JobQueue
    yield* jobs.work(QUEUE, (job) => drive(String((job.data as { batchId: string }).batchId), options), {
      concurrency: options.batches ?? 2,
      pollingIntervalSeconds: 0.5
    })
    const sweepMs = options.sweepMs ?? 15_000
    // Lapsed drives are re-queued, and results past their 7 days deleted.
    const sweeper: Effect.Effect<void, never, SqlClient.SqlClient | JobQueue | BlobStore> = Effect.forever(
      Effect.zipRight(Effect.zipRight(Effect.ignoreLogged(sweep), Effect.ignoreLogged(expire)), Effect.sleep(Duration.millis(sweepMs)))
    )
    yield* Effect.forkScoped(sweeper)
  })
