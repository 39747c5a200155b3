/**
 * Batches of an organization (wave2 §1): submit, retrieve, list, results, cancel, delete. Every operation is scoped
 * to the caller's organization: another organization's batch is `NOT_FOUND`.
 *
 * A submission is one transaction: the organization's active batches are counted under its lock (the plan's cap),
 * its credits reserved, the batch and every page it knows of stored, its `Idempotency-Key` recorded and its first job
 * queued; so a batch exists with its money taken and its work queued, or not at all.
 *
 * @since 0.1.0
 */
import * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import { Errors, type Fetcher } from "@sift/core"
import * as BlobStore from "@sift/store/BlobStore"
import * as Ids from "@sift/store/Ids"
import { JobQueue, type JobQueueError } from "@sift/store/JobQueue"
import { Secrets } from "@sift/webhooks"
import { Clock, Effect, Option, Redacted } from "effect"
import { createHash } from "node:crypto"
import { BatchCredits } from "./BatchCredits.js"
import { BatchRefused } from "./BatchErrors.js"
import type * as BatchSpec from "./BatchSpec.js"
import * as Intake from "./internal/intake.js"
import * as Records from "./internal/records.js"
import * as Views from "./internal/views.js"

/** The pg-boss queue that drives batches: one job keeps a batch moving until it settles. */
export const QUEUE = "batch-drive"

/** How long an `Idempotency-Key` is remembered. */
export const IDEMPOTENCY_MS = 24 * 3600 * 1000

/** Active batches (`queued`, `running`, `cancelling`) per organization, by plan (wave2 §21.5; enterprise as scale). */
export const activeLimits: Readonly<Record<string, number>> = { free: 1, hobby: 2, starter: 5, pro: 10, scale: 25, enterprise: 25 }

/** The caller, as batch operations need it. */
export interface Owner {
  readonly orgId: string
  readonly keyId: string | undefined
  readonly plan: string
}

/** A list page: `{ data, has_more, next_cursor }`. */
export interface Page<A> {
  readonly data: ReadonlyArray<A>
  readonly has_more: boolean
  readonly next_cursor: string | null
}

/** How file URLs are written (the service's public origin, else the submitting request's, and `/v1/files/`). */
export type FileUrl = Views.FileUrl

const notFound = (id: string) => new BatchRefused({ reason: "NotFound", detail: `No batch ${id}` })

const nowDate = Effect.map(Clock.currentTimeMillis, (ms) => new Date(ms))

/** The JSON a submission is compared by for its `Idempotency-Key` (members in a fixed order). */
const bodyHash = (body: BatchSpec.SubmitBody): string => {
  const canonical = (value: unknown): unknown =>
    Array.isArray(value)
      ? value.map(canonical)
      : value !== null && typeof value === "object"
      ? Object.fromEntries(Object.keys(value).sort().map((k) => [k, canonical((value as Record<string, unknown>)[k])]))
      : value
  return createHash("sha256").update(JSON.stringify(canonical(body))).digest("hex")
}

/** Reads a batch row of the organization. */
export const row = (orgId: string, id: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.flatMap(
      sql<Views.BatchRow>`SELECT * FROM batches WHERE id = ${id} AND org_id = ${orgId}`,
      (rows) => rows[0] === undefined ? Effect.fail(notFound(id)) : Effect.succeed(rows[0])
    ))

const filesOf = (batchId: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<Views.FileRow>`SELECT id, part, items, bytes FROM batch_files WHERE batch_id = ${batchId} ORDER BY part`)

type SubmitFailure = BatchRefused | Errors.InvalidRequest | Errors.WebsiteError | Errors.RequestTimeout | SqlError | JobQueueError

/**
 * Submits a batch (`POST /batch/submit`). With an `Idempotency-Key` seen in the last 24 hours, the same body answers
 * the original batch and another body `IDEMPOTENCY_KEY_CONFLICT`.
 */
export const submit = (
  owner: Owner,
  body: BatchSpec.SubmitBody,
  options: {
    readonly idempotencyKey?: string | undefined
    readonly requestId: string
    /** The origin the request came to (`http://host:port`), kept for the batch's file URLs. */
    readonly fileOrigin?: string | undefined
  }
): Effect.Effect<
  ReturnType<typeof Views.submitted> & {
    /** Whether the `Idempotency-Key` answered an earlier batch (nothing was charged now). */
    readonly replayed: boolean
    /** The balance after the reservation (undefined for a replay). */
    readonly remaining: number | undefined
  },
  SubmitFailure,
  SqlClient.SqlClient | JobQueue | BatchCredits | Fetcher.Fetcher
> =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const hash = bodyHash(body)
    const replay = yield* replayOf(owner, options.idempotencyKey, hash)
    if (replay !== undefined) return { ...Views.submitted(replay, undefined), replayed: true, remaining: undefined }
    // Reading a sitemap or checking the start URL happens before the transaction: no lock is held over the network.
    const plan = yield* Intake.plan(body.input)
    const credits = yield* BatchCredits
    const jobs = yield* JobQueue
    const now = yield* nowDate
    const id = Ids.id("batch_")
    const transaction = credits.transaction ?? sql.withTransaction
    const made = yield* transaction(Effect.gen(function*() {
      // Submissions of one organization take turns, so the active count and the plan's cap agree across replicas.
      yield* sql`SELECT pg_advisory_xact_lock(hashtext(${`batches:${owner.orgId}`}))`
      if (options.idempotencyKey !== undefined) {
        // A concurrent twin may have committed while this one planned.
        const again = yield* replayOf(owner, options.idempotencyKey, hash)
        if (again !== undefined) return { row: again, secret: undefined, replayed: true, remaining: undefined }
      }
      const limit = activeLimits[owner.plan] ?? activeLimits.free!
      const [counted] = yield* sql<{ count: string | number }>`
        SELECT count(*) AS count FROM batches WHERE org_id = ${owner.orgId} AND status IN ('queued', 'running', 'cancelling')`
      const active = Number(counted?.count ?? 0)
      if (active >= limit) {
        return yield* new BatchRefused({
          reason: "LimitExceeded",
          detail: `The ${owner.plan} plan allows ${limit} active batch${limit === 1 ? "" : "es"} at once and ${active} ${active === 1 ? "is" : "are"} active; wait for one to finish or cancel it`
        })
      }
      const source = body.input.mode === "scrape" ? { type: "urls" } : body.input.data.source
      const webhook = body.webhook !== undefined
        ? { url: body.webhook.url, ...(body.webhook.retry === undefined ? {} : { retry: body.webhook.retry }) }
        : body.webhookUrl !== undefined
        ? { url: body.webhookUrl, legacy: true }
        : null
      const tags = (body.tags ?? []) as Array<string>
      const [inserted] = yield* sql<Views.BatchRow>`INSERT INTO batches ${sql.insert({
        id,
        org_id: owner.orgId,
        key_id: owner.keyId ?? null,
        status: "queued",
        mode: body.input.mode,
        format: body.input.data.format,
        source: JSON.stringify(source),
        options: JSON.stringify({ ...body.input.data.options, follow: plan.follow }),
        crawl: plan.crawl === null ? null : JSON.stringify(plan.crawl),
        intake: JSON.stringify(plan.intake),
        invalid_urls: JSON.stringify(plan.invalidUrls),
        tags,
        search_text: [id, body.input.mode === "crawl" ? JSON.stringify(source) : "", ...tags].join(" ").toLowerCase(),
        webhook: webhook === null ? null : JSON.stringify(webhook),
        credits_reserved: plan.intake.reserved,
        pages: plan.pages.length,
        created_at: now,
        file_origin: options.fileOrigin ?? null
      })} RETURNING *`
      // Pages as one JSON parameter per 5,000 (a parameter per value would pass PostgreSQL's 65,535 and cost PGlite a
      // parse per parameter).
      for (let at = 0; at < plan.pages.length; at += 5_000) {
        const chunk = plan.pages.slice(at, at + 5_000).map((page, i) => ({
          seq: at + i + 1,
          url: page.url,
          url_key: page.urlKey,
          item_id: page.itemId,
          meta: page.meta,
          depth: page.depth
        }))
        yield* sql`
          INSERT INTO batch_pages (batch_id, seq, url, url_key, item_id, meta, depth, state)
          SELECT ${id}, p.seq, p.url, p.url_key, p.item_id, p.meta, p.depth, 'pending'
          FROM jsonb_to_recordset(${JSON.stringify(chunk)}::jsonb) AS p(seq integer, url text, url_key text, item_id text, meta jsonb, depth integer)`
      }
      // The reservation last: a ledger that locks the organization's balance holds it for the rest of the transaction only.
      const { remaining } = yield* credits.reserve({ orgId: owner.orgId, keyId: owner.keyId, batchId: id, requestId: options.requestId, credits: plan.intake.reserved })
      if (options.idempotencyKey !== undefined) {
        yield* sql`INSERT INTO batch_idempotency ${sql.insert({ org_id: owner.orgId, key: options.idempotencyKey, body_hash: hash, batch_id: id, created_at: now })}
          ON CONFLICT (org_id, key) DO UPDATE SET body_hash = EXCLUDED.body_hash, batch_id = EXCLUDED.batch_id, created_at = EXCLUDED.created_at`
      }
      const secret = webhook !== null && !("legacy" in webhook) ? yield* Secrets.secretFor(id, webhook.url) : undefined
      yield* jobs.send(QUEUE, { batchId: id }, DRIVE_JOB_OPTIONS)
      return { row: inserted!, secret, replayed: false, remaining: remaining as number | undefined }
    }))
    return {
      ...Views.submitted(made.row, made.secret === undefined ? undefined : Redacted.value(made.secret)),
      replayed: made.replayed,
      remaining: made.remaining
    }
  })

/** Job options of a drive: pg-boss retries a drive whose worker died; the batch's lease decides who works it. */
export const DRIVE_JOB_OPTIONS = { retryLimit: 1_000, retryDelay: 5, expireInSeconds: 60 * 60 } as const

const replayOf = (owner: Owner, key: string | undefined, hash: string) =>
  Effect.gen(function*() {
    if (key === undefined) return undefined
    const sql = yield* SqlClient.SqlClient
    const now = yield* Clock.currentTimeMillis
    const [seen] = yield* sql<{ body_hash: string; batch_id: string; created_at: Date }>`
      SELECT body_hash, batch_id, created_at FROM batch_idempotency WHERE org_id = ${owner.orgId} AND key = ${key}`
    if (seen === undefined || now - new Date(seen.created_at).getTime() > IDEMPOTENCY_MS) return undefined
    if (seen.body_hash !== hash) {
      return yield* new BatchRefused({
        reason: "IdempotencyConflict",
        detail: `Idempotency-Key ${JSON.stringify(key)} was used for a different submission (batch ${seen.batch_id}) in the last 24 hours`
      })
    }
    const [batch] = yield* sql<Views.BatchRow>`SELECT * FROM batches WHERE id = ${seen.batch_id} AND org_id = ${owner.orgId}`
    // The original was deleted since: the key is free again.
    return batch
  })

/** The retrieve object of a batch (`GET /batch/{id}`). */
export const get = (owner: Owner, id: string, fileUrl: FileUrl) =>
  Effect.gen(function*() {
    const batch = yield* row(owner.orgId, id)
    return Views.retrieve(batch, yield* filesOf(id), fileUrl)
  })

/** The ids of the organization's batches (or of `batchId` alone when it is one of them): the owners of their webhook deliveries. */
export const idsOf = (orgId: string, batchId?: string | undefined) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    Effect.map(
      sql<{ id: string }>`SELECT id FROM batches WHERE org_id = ${orgId} ${batchId === undefined ? sql`` : sql`AND id = ${batchId}`}`,
      (rows) => rows.map((row) => row.id)
    ))

/** Filters of `GET /batch/list`. */
export interface ListFilters {
  readonly cursor?: string | undefined
  readonly limit: number
  readonly q?: string | undefined
  readonly searchType?: "exact" | "prefix" | undefined
  readonly status?: Views.Status | undefined
  readonly tags?: ReadonlyArray<string> | undefined
}

const cursorOf = (cursor: string | undefined) => {
  if (cursor === undefined) return Effect.succeed(undefined)
  try {
    const [at, id] = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")) as [string, string]
    if (typeof at === "string" && typeof id === "string" && !Number.isNaN(Date.parse(at))) return Effect.succeed({ at: new Date(at), id })
  } catch {
    // fall through
  }
  return Effect.fail(new Errors.InvalidRequest({ reason: "Invalid", field: "cursor", detail: "is not a cursor this API returned" }))
}

const cursorAfter = (row: Views.BatchRow) => Buffer.from(JSON.stringify([new Date(row.created_at).toISOString(), row.id])).toString("base64url")

/** Batches of the organization, newest first (`GET /batch/list`). */
export const list = (owner: Owner, filters: ListFilters, fileUrl: FileUrl) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const after = yield* cursorOf(filters.cursor)
    const q = filters.q?.toLowerCase()
    const conditions = [
      sql`org_id = ${owner.orgId}`,
      ...(after === undefined ? [] : [sql`(created_at, id) < (${after.at}, ${after.id})`]),
      ...(filters.status === undefined ? [] : [sql`status = ${filters.status}`]),
      ...(filters.tags === undefined || filters.tags.length === 0 ? [] : [sql.or(filters.tags.map((tag) => sql`${tag} = ANY(tags)`))]),
      ...(q === undefined ? [] : filters.searchType === "exact"
        ? [sql`(id = ${filters.q!} OR ${q} = ANY(string_to_array(search_text, ' ')))`]
        : [sql`(search_text LIKE ${`${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`} OR search_text LIKE ${`% ${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`})`])
    ]
    const rows = yield* sql<Views.BatchRow>`SELECT * FROM batches WHERE ${sql.and(conditions)} ORDER BY created_at DESC, id DESC LIMIT ${filters.limit + 1}`
    const shown = rows.slice(0, filters.limit)
    const files = shown.length === 0
      ? []
      : yield* sql<Views.FileRow & { batch_id: string }>`SELECT id, batch_id, part, items, bytes FROM batch_files WHERE batch_id IN ${sql.in(shown.map((r) => r.id))} ORDER BY part`
    const more = rows.length > filters.limit
    return {
      data: shown.map((r) => Views.summary(r, files.filter((f) => f.batch_id === r.id), fileUrl)),
      has_more: more,
      next_cursor: more ? cursorAfter(shown[shown.length - 1]!) : null
    }
  })

/** Records a page of results closes under (the API's ~8 MB). */
export const RESULTS_PAGE_BYTES = 8 * 1024 * 1024

/** A page of a settled batch's records (`GET /batch/{id}/results`), in submission (then discovery) order. */
export const results = (owner: Owner, id: string, page: { readonly cursor?: string | undefined; readonly limit: number }) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const batch = yield* row(owner.orgId, id)
    if (!Views.isFinal(batch.status)) {
      return yield* new BatchRefused({ reason: "NotCompleted", detail: `Batch ${id} is ${batch.status}; its results are available once it is completed, cancelled or failed` })
    }
    if (batch.results_deleted) {
      return yield* new BatchRefused({ reason: "NotFound", detail: `The results of batch ${id} expired on ${new Date(batch.results_expire_at!).toISOString()}` })
    }
    const after = page.cursor === undefined ? 0 : /^[0-9a-z]{1,10}$/.test(page.cursor) ? Number.parseInt(page.cursor, 36) : -1
    if (!Number.isSafeInteger(after) || after < 0) {
      return yield* new Errors.InvalidRequest({ reason: "Invalid", field: "cursor", detail: "is not a cursor this API returned" })
    }
    const read = yield* sql<{ seq: number; record: string }>`${Records.pageAfter(sql, id, after, page.limit + 1)}`
    const rows = read.map((row) => ({ ...row, size: Buffer.byteLength(row.record) }))
    const data: Array<unknown> = []
    let bytes = 0
    let last = after
    for (const r of rows.slice(0, page.limit)) {
      // A page closes early to stay under ~8 MB, but always holds at least one record.
      if (data.length > 0 && bytes + Number(r.size) > RESULTS_PAGE_BYTES) break
      data.push(JSON.parse(r.record))
      bytes += Number(r.size)
      last = r.seq
    }
    const more = rows.length > data.length
    return { data, has_more: more, next_cursor: more ? last.toString(36) : null }
  })

/** Stops a batch from starting new pages (`POST /batch/{id}/cancel`); in-flight pages finish, the rest is refunded. */
export const cancel = (owner: Owner, id: string) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const [updated] = yield* sql<Views.BatchRow>`
      UPDATE batches SET status = 'cancelling' WHERE id = ${id} AND org_id = ${owner.orgId} AND status IN ('queued', 'running', 'cancelling')
      RETURNING *`
    if (updated !== undefined) {
      // The drive notices at its next step; a queued batch whose drive has not started is settled by it at once.
      yield* Effect.flatMap(JobQueue, (jobs) => jobs.send(QUEUE, { batchId: id }, DRIVE_JOB_OPTIONS))
      return Views.cancelling(updated)
    }
    const batch = yield* row(owner.orgId, id)
    return yield* new BatchRefused({ reason: "NotCancellable", detail: `Batch ${id} is already ${batch.status}` })
  })

/** Deletes a settled batch, its records and files (`DELETE /batch/{id}`); an active batch must settle first. */
export const remove = (owner: Owner, id: string) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    return yield* sql.withTransaction(Effect.gen(function*() {
      const [batch] = yield* sql<Views.BatchRow>`SELECT * FROM batches WHERE id = ${id} AND org_id = ${owner.orgId} FOR UPDATE`
      if (batch === undefined) return yield* notFound(id)
      if (!Views.isFinal(batch.status)) {
        return yield* new BatchRefused({ reason: "NotCompleted", detail: `Batch ${id} is ${batch.status}; cancel it and wait for it to settle before deleting it` })
      }
      const blobs = yield* BlobStore.BlobStore
      const files = yield* sql<{ id: string; bytes: number }>`DELETE FROM batch_files WHERE batch_id = ${id} RETURNING id, bytes`
      for (const file of files) for (const key of fileChunkKeys(file.id, file.bytes)) yield* blobs.delete(key)
      yield* sql`DELETE FROM batch_pages WHERE batch_id = ${id}`
      yield* sql`DELETE FROM batch_idempotency WHERE batch_id = ${id}`
      yield* sql`DELETE FROM batches WHERE id = ${id}`
      return { id, deleted: true as const }
    }))
  })

/**
 * Deletes the results of batches settled more than 7 days ago (wave2 §21.3): their files and records go, the batch
 * stays with `results` null, and `GET /batch/{id}/results` answers that they expired. One batch per transaction.
 * Returns how many batches' results were deleted.
 */
export const expire = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const blobs = yield* BlobStore.BlobStore
  const now = yield* nowDate
  const due = yield* sql<{ id: string }>`
    SELECT id FROM batches WHERE results_expire_at IS NOT NULL AND results_expire_at <= ${now} AND NOT results_deleted
    ORDER BY results_expire_at LIMIT 100`
  for (const batch of due) {
    yield* sql.withTransaction(Effect.gen(function*() {
      const files = yield* sql<{ id: string; bytes: number }>`DELETE FROM batch_files WHERE batch_id = ${batch.id} RETURNING id, bytes`
      for (const file of files) for (const key of fileChunkKeys(file.id, file.bytes)) yield* blobs.delete(key)
      yield* sql`DELETE FROM batch_pages WHERE batch_id = ${batch.id}`
      yield* sql`UPDATE batches SET results_deleted = true WHERE id = ${batch.id}`
    }))
  }
  return due.length
})

/** Where a batch file's bytes live in the BlobStore: `batch-file/<id>/<n>`, in chunks of `FILE_CHUNK_BYTES`. */
export const FILE_KEY_PREFIX = "batch-file/"

/** The size of a stored chunk of a batch file. */
export const FILE_CHUNK_BYTES = 256 * 1024

/** The BlobStore keys of a file of `bytes` bytes, in order. */
export const fileChunkKeys = (id: string, bytes: number): Array<string> =>
  Array.from({ length: Math.max(1, Math.ceil(bytes / FILE_CHUNK_BYTES)) }, (_, n) => `${FILE_KEY_PREFIX}${id}/${n}`)

/** A batch file by its capability id: its gzipped NDJSON bytes while it has not expired, else `undefined`. */
export const readFile = (id: string) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const blobs = yield* BlobStore.BlobStore
    const [file] = yield* sql<{ bytes: number; expires_at: Date }>`SELECT bytes, expires_at FROM batch_files WHERE id = ${id}`
    if (file === undefined || new Date(file.expires_at).getTime() <= (yield* Clock.currentTimeMillis)) return undefined
    const chunks: Array<Uint8Array> = []
    for (const key of fileChunkKeys(id, file.bytes)) {
      const blob = yield* blobs.get(key)
      if (Option.isNone(blob)) return undefined
      chunks.push(blob.value.bytes)
    }
    return Buffer.concat(chunks)
  })
