/**
 * The request log: one row per authenticated request, visible to its organization through `GET /logs`. Writes are
 * buffered and inserted in batches by one background fiber (many requests, one statement), and the buffer is written
 * on shutdown, so none is lost; reads wait for the buffer to drain first, so a caller always sees its own requests.
 *
 * @since 0.1.0
 */
import * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import { Sql, WriteBehind } from "@sift/store"
import { Effect, Option } from "effect"
import { stringify } from "./internal/json.js"

/** How long the writer waits after the first buffered entry, to write many in one statement. */
const LINGER = "25 millis"

/** Entries written per statement loop (in chunks of `CHUNK` rows). */
const MAX_BATCH = 2_000
/** Entries buffered at most; beyond this `record` waits for the writer (the database is far behind). */
const MAX_BUFFERED = 50_000

/** One log entry as written. */
export interface Entry {
  readonly requestId: string
  readonly orgId: string
  readonly keyId: string
  readonly timestamp: Date
  readonly method: string
  readonly path: string
  readonly statusCode: number
  readonly errorCode: string | null
  readonly latencyMs: number
  readonly creditsUsed: number
  readonly tags: ReadonlyArray<string>
  readonly zdr: boolean
  readonly userAgent: string | null
  /** Query and body, already redacted; null with ZDR. */
  readonly input: { readonly query: unknown; readonly body?: unknown } | null
  /** The response body as JSON text, already redacted; null with ZDR. */
  readonly response: string | null
}

/** Filters of `GET /logs` (decisions §6). */
export interface Filters {
  readonly orgId: string
  readonly from: Date
  readonly to: Date
  readonly path?: string | undefined
  readonly keyId?: string | undefined
  readonly statusCode?: number | undefined
  readonly errorCode?: string | undefined
  readonly errorsOnly?: boolean | undefined
  readonly tags?: ReadonlyArray<string> | undefined
  readonly search?: string | undefined
  readonly page: number
  readonly limit: number
}

/** A log entry as listed. */
export interface ListItem {
  readonly request_id: string
  readonly timestamp: string
  readonly method: string
  readonly path: string
  readonly status_code: number
  readonly error_code: string | null
  readonly latency_ms: number
  readonly credits_used: number
  readonly key_id: string
  readonly tags: ReadonlyArray<string>
  readonly zdr: boolean
}

/** A log entry in full (`GET /logs/{request_id}`). */
export interface Detail extends ListItem {
  readonly user_agent: string | null
  readonly input: { readonly query: unknown; readonly body?: unknown } | null
  readonly response: unknown
}

/** The http package's migrations. */
export const migrations = {
  "0001_request_logs": Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql`CREATE TABLE request_logs (
      request_id uuid PRIMARY KEY,
      org_id text NOT NULL,
      key_id text NOT NULL,
      created_at timestamptz NOT NULL,
      method text NOT NULL,
      path text NOT NULL,
      status_code integer NOT NULL,
      error_code text,
      latency_ms integer NOT NULL,
      credits_used integer NOT NULL,
      tags jsonb NOT NULL,
      zdr boolean NOT NULL,
      user_agent text,
      input jsonb,
      response jsonb,
      search_text text NOT NULL
    );
    CREATE INDEX request_logs_org_time ON request_logs (org_id, created_at DESC)`.unprepared),
  // The response is stored as the JSON text that was sent (no jsonb parse of every body on the write path), and
  // `search` reads the input itself rather than a lower-cased copy of it.
  "0002_response_text": Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql`ALTER TABLE request_logs ALTER COLUMN response TYPE text USING response::text;
    ALTER TABLE request_logs DROP COLUMN search_text`.unprepared)
}

// The columns a batch fills, in the order of the JSON records it is sent as.
const COLUMNS = "request_id, org_id, key_id, created_at, method, path, status_code, error_code, latency_ms, credits_used, tags, zdr, user_agent, input, response"

/** One entry as a JSON record of `request_logs`, without its response (`tags` and `input` as JSON values). */
const asRecord = (entry: Entry) => ({
  request_id: entry.requestId,
  org_id: entry.orgId,
  key_id: entry.keyId,
  created_at: entry.timestamp.toISOString(),
  method: entry.method,
  path: entry.path,
  status_code: entry.statusCode,
  error_code: entry.errorCode,
  latency_ms: entry.latencyMs,
  credits_used: entry.creditsUsed,
  tags: entry.tags,
  zdr: entry.zdr,
  user_agent: entry.userAgent,
  input: entry.input
})

// Escapes PostgreSQL refuses when it reads a JSON value into text: NUL and (possibly unpaired) surrogates.
const UNREADABLE_ESCAPE = /\\u0000|\\ud[89a-f]/i

/**
 * An entry as its JSON record (the text a batch is made of). The response is JSON text already, so it is placed as a
 * JSON value as is (PostgreSQL stores a `json` value's exact text in a text column) instead of being escaped into a
 * string again, which cost more than the rest of the log's work; text with escapes PostgreSQL cannot read goes as a
 * string. Entries are buffered as this text: no object graph waits in memory for the writer.
 */
const recordJson = (entry: Entry): string => {
  const head = stringify(asRecord(entry))
  const response = entry.response === null
    ? "null"
    : entry.response.includes("\\u") && UNREADABLE_ESCAPE.test(entry.response)
    ? stringify(entry.response)
    : entry.response
  return `${head.slice(0, -1)},"response":${response}}`
}

/** Rows per statement: a batch is one JSON text, so its size, not a parameter limit, bounds it. */
const CHUNK = 1_000

const chunks = <A>(items: ReadonlyArray<A>, size: number): Array<ReadonlyArray<A>> => {
  const out: Array<ReadonlyArray<A>> = []
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size))
  return out
}

const iso = (value: unknown): string => (value instanceof Date ? value : new Date(String(value))).toISOString()
const json = (value: unknown): unknown => typeof value === "string" ? JSON.parse(value) : value

const listItem = (r: Record<string, unknown>): ListItem => ({
  request_id: String(r.request_id),
  timestamp: iso(r.created_at),
  method: String(r.method),
  path: String(r.path),
  status_code: Number(r.status_code),
  error_code: r.error_code === null ? null : String(r.error_code),
  latency_ms: Number(r.latency_ms),
  credits_used: Number(r.credits_used),
  key_id: String(r.key_id),
  tags: json(r.tags) as ReadonlyArray<string>,
  zdr: Boolean(r.zdr)
})

/** The request log service. */
export class RequestLog extends Effect.Service<RequestLog>()("@sift/http/RequestLog", {
  scoped: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    // A batch is one statement with one JSON parameter: no placeholder per value to compile on the request thread, one
    // string to hand to PGlite's thread or the server, and the rows built by PostgreSQL from the records.
    const insertChunk = (records: ReadonlyArray<string>) =>
      sql`INSERT INTO request_logs (${sql.literal(COLUMNS)})
        SELECT ${sql.literal(COLUMNS)} FROM json_populate_recordset(NULL::request_logs, ${new Sql.JoinedText(records, ",", "[", "]")}::json)
        ON CONFLICT (request_id) DO NOTHING`
    // A batch that keeps failing is written row by row, so one bad row costs only itself.
    const insertEach = (records: ReadonlyArray<string>) =>
      Effect.forEach(records, (record) =>
        insertChunk([record]).pipe(
          Effect.catchAll((error) => Effect.logError(`request log: entry ${record.slice(0, 60)}… could not be written`, error))
        ), { discard: true })
    const insert = (records: ReadonlyArray<string>): Effect.Effect<void> =>
      Effect.forEach(chunks(records, CHUNK), (chunk) =>
        insertChunk(chunk).pipe(
          Effect.retry({ times: 3 }),
          Effect.catchAll((error) => Effect.zipRight(Effect.logWarning("request log: a batch failed, writing its rows one by one", error), insertEach(chunk)))
        ), { discard: true })
    // One insert per request would cost a statement (and on PostgreSQL a round trip) each, so entries are buffered and
    // written in batches, none lost at shutdown (`WriteBehind`).
    const buffer = yield* WriteBehind.make<string>({ linger: LINGER, maxBatch: MAX_BATCH, write: insert })

    /**
     * Buffers an entry; it is written within milliseconds. When the database falls far behind, callers wait for room
     * (memory stays bounded and no entry is dropped).
     */
    const record = (entry: Entry): Effect.Effect<void> =>
      buffer.size() < MAX_BUFFERED
        ? Effect.sync(() => buffer.offer(recordJson(entry)))
        : Effect.zipRight(buffer.below(MAX_BUFFERED), Effect.suspend(() => record(entry)))
    /** Waits until every entry recorded so far is written. */
    const flush = buffer.flush

    /** Lists an organization's entries, newest first. */
    const list = (filters: Filters): Effect.Effect<{ items: Array<ListItem>; hasMore: boolean }, SqlError> =>
      Effect.gen(function*() {
        yield* flush
        const conditions = [
          sql`org_id = ${filters.orgId}`,
          sql`created_at >= ${filters.from}`,
          sql`created_at <= ${filters.to}`
        ]
        if (filters.path !== undefined) conditions.push(sql`path = ${filters.path}`)
        if (filters.keyId !== undefined) conditions.push(sql`key_id = ${filters.keyId}`)
        if (filters.statusCode !== undefined) conditions.push(sql`status_code = ${filters.statusCode}`)
        if (filters.errorCode !== undefined) conditions.push(sql`error_code = ${filters.errorCode}`)
        if (filters.errorsOnly === true) conditions.push(sql`status_code >= 400`)
        if (filters.tags !== undefined && filters.tags.length > 0) {
          conditions.push(sql`tags ?| string_to_array(${filters.tags.join("\u001f")}, chr(31))`)
        }
        // `search` matches the query and the body (never the response), case-insensitively.
        if (filters.search !== undefined) {
          conditions.push(sql`input IS NOT NULL AND position(${filters.search.toLowerCase()} in lower(input::text)) > 0`)
        }
        const rows = yield* sql<Record<string, unknown>>`
          SELECT request_id, created_at, method, path, status_code, error_code, latency_ms, credits_used, key_id, tags, zdr
          FROM request_logs WHERE ${sql.and(conditions)}
          ORDER BY created_at DESC, request_id DESC
          LIMIT ${filters.limit + 1} OFFSET ${(filters.page - 1) * filters.limit}`
        return { items: rows.slice(0, filters.limit).map(listItem), hasMore: rows.length > filters.limit }
      })

    /** One entry of the organization, if it exists. */
    const get = (orgId: string, requestId: string): Effect.Effect<Option.Option<Detail>, SqlError> =>
      Effect.gen(function*() {
        yield* flush
        if (!/^[0-9a-f-]{36}$/i.test(requestId)) return Option.none()
        const rows = yield* sql<Record<string, unknown>>`
          SELECT * FROM request_logs WHERE org_id = ${orgId} AND request_id = ${requestId}`
        const r = rows[0]
        if (r === undefined) return Option.none()
        return Option.some({
          ...listItem(r),
          user_agent: r.user_agent === null ? null : String(r.user_agent),
          input: r.input === null ? null : json(r.input) as Detail["input"],
          response: r.response === null ? null : json(r.response)
        })
      })

    return { record, list, get, flush } as const
  })
}) {}
