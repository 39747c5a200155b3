/**
 * The request log: one row per authenticated request, visible to its organization through `GET /logs`. A request's
 * row is written before its answer is sent, in the same transaction as its charge (`settle`), by a group commit: the
 * rows and charges of every request that finished meanwhile share one transaction and one WAL flush, so a crash never
 * loses the row or the charge of an answer that was sent, and never keeps one without the other.
 *
 * @since 0.1.0
 */
import * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import type { Fragment } from "@effect/sql/Statement"
import type { CreditLedger } from "@sift/auth"
import { GroupCommit, Sql } from "@sift/store"
import { Effect, Option } from "effect"
import { randomUUID } from "node:crypto"
import * as Usage from "./Console/Usage.js"
import * as JournaledLog from "./internal/journaledLog.js"
import { stringify } from "./internal/json.js"

/** Requests settled per transaction at most: their rows are one statement with one JSON parameter. */
const MAX_BATCH = 1_000

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
  /**
   * The response was written by `JSON.stringify` (the request pipeline's): it holds no raw control character, so it is
   * not scanned for the separators a group's responses are sent apart with. Scanning a response made of parts first
   * copied it flat, the largest allocation of a cache hit to outlive a young collection (bench/http/profile.ts).
   */
  readonly responseIsJson?: boolean | undefined
}

/**
 * Stands for a balance PostgreSQL computes as it writes the row: the entry's response carries `placeholder` (a JSON
 * string value, random per process) where the number goes, and the row is written with the number in its place.
 */
export interface PendingBalance {
  readonly placeholder: string
}

const pending: PendingBalance = { placeholder: `sift:remaining:${randomUUID()}` }
// The placeholder as it appears in the response's JSON text (a string value needs no escaping).
const pendingJson = JSON.stringify(pending.placeholder)

/** A request to make durable: its charge (if it delivered paid work) and its log row, in one transaction. */
export interface Settlement {
  /** The charge, written by the ledger that reserved its credits. */
  readonly charge?: { readonly ledger: CreditLedger.CreditLedger; readonly charge: CreditLedger.Charge } | undefined
  /**
   * The log entry, given the organization's balance after the charge (undefined without a charge), or a placeholder
   * for it (the balance is then what `settle` completes with).
   */
  readonly entry: (remaining: number | PendingBalance | undefined) => Entry
}

/** A settlement in the group-commit queue (`RequestLog.settle`): its entry prepared for what its group gives it. */
interface Queued {
  readonly settlement: Settlement
  /** What the entry was made with (`null`: not prepared; the group makes it). */
  readonly preparedWith: PendingBalance | undefined | null
  readonly entry: Entry | undefined
  /** `entry`'s JSON record without its response. */
  readonly record: string | undefined
}

/**
 * What one listing saw, so later pages list the same entries: the end of its time window and the database snapshot it
 * was read in (PostgreSQL's `pg_snapshot`: an entry is listed if the transaction that wrote it had committed then).
 * Sent as `X-Service-Logs-Snapshot` and taken back as `snapshot`; opaque to clients.
 */
export interface Snapshot {
  /** The window's end (`to`) of the first page, in milliseconds. */
  readonly at: number
  /** `xmin:xmax:xip,...` */
  readonly xids: string
}

/** Reading and writing `X-Service-Logs-Snapshot` values. */
export const Snapshot = {
  /** Longest value accepted (a snapshot lists the transactions in progress, at most one per connection). */
  MAX_LENGTH: 8_192,
  format: (snapshot: Snapshot): string => `${snapshot.at}:${snapshot.xids}`,
  /** A value of `format`, checked as PostgreSQL would (xmin ≤ every in-progress xid < xmax, ascending), or undefined. */
  parse: (text: string): Snapshot | undefined => {
    const match = /^(\d{1,15}):(\d{1,19}):(\d{1,19}):((?:\d{1,19}(?:,\d{1,19})*)?)$/.exec(text)
    if (match === null) return undefined
    const [, at, xmin, xmax, xip] = match as unknown as [string, string, string, string, string]
    const low = BigInt(xmin)
    const high = BigInt(xmax)
    if (low === 0n || low > high || high > 0x7fffffffffffffffn) return undefined
    let previous = low - 1n
    for (const id of xip === "" ? [] : xip.split(",")) {
      const xid = BigInt(id)
      if (xid <= previous || xid >= high) return undefined
      previous = xid
    }
    return { at: Number(at), xids: `${xmin}:${xmax}:${xip}` }
  }
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
  /** What the first page saw (later pages); without it the listing takes a snapshot of its own. */
  readonly snapshot?: Snapshot | undefined
  /**
   * Only entries written after this earlier listing's snapshot (their transaction had not committed in it): what became
   * visible since, whatever their timestamps (a request is timestamped when it starts, and written when it ends).
   */
  readonly newerThan?: Snapshot | undefined
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
    ALTER TABLE request_logs DROP COLUMN search_text`.unprepared),
  // The transaction that wrote each row, so a listing can be repeated over exactly the rows an earlier one saw
  // (`Snapshot`). Rows from before this migration have none and are older than any snapshot.
  "0003_request_logs_writer": Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql`ALTER TABLE request_logs ADD COLUMN written_by xid8;
    ALTER TABLE request_logs ALTER COLUMN written_by SET DEFAULT pg_current_xact_id()`.unprepared),
  // The console's usage series: counts per organization, hour and path, kept by a statement trigger in the
  // transaction that writes the log rows (whichever path writes them), so the overview never scans the log.
  "0004_usage_hourly": Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe(Usage.migrationSql).unprepared),
  // Roles in an organization for the console (owner: keys and members; member: the rest). Existing users own theirs.
  // The users table is auth's (whose migrations run first); a database without it (the log alone) has no one to give
  // a role.
  "0005_user_roles": Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql`ALTER TABLE IF EXISTS users ADD COLUMN IF NOT EXISTS role text NOT NULL DEFAULT 'owner'`.unprepared),
  // A logged response (~2 KB for a scrape) is compressed by PostgreSQL as the row is written; lz4 costs a fraction of
  // the default pglz's CPU on that path. New rows only (no rewrite); a build without lz4 (PGlite) keeps pglz.
  "0006_response_lz4": Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql`DO $$ BEGIN
      ALTER TABLE request_logs ALTER COLUMN response SET COMPRESSION lz4;
    EXCEPTION WHEN feature_not_supported THEN NULL;
    END $$`.unprepared)
}

// The columns a batch fills, in the order of the JSON records it is sent as.
const COLUMNS = "request_id, org_id, key_id, created_at, method, path, status_code, error_code, latency_ms, credits_used, tags, zdr, user_agent, input, response"
// The same but the response, read from a record `r` (`insertCharged`).
const CHARGED_COLUMNS = COLUMNS.split(", ").filter((column) => column !== "response").map((column) => `r.${column}`).join(", ")

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
 * string.
 */
const recordJson = (entry: Entry): string =>
  withResponse(
    entry,
    entry.response === null
      ? "null"
      : entry.response.includes("\\u") && UNREADABLE_ESCAPE.test(entry.response)
      ? stringify(entry.response)
      : entry.response
  )

/** An entry's record with `response`, a JSON value's text, as its last field. */
const withResponse = (entry: Entry, response: string): string => `${stringify(asRecord(entry)).slice(0, -1)},"response":${response}}`

/**
 * A group's rows as a relation of `request_logs`' columns and `ordinality` (its place in the group), from the entries'
 * records without their responses and the responses as one text, separated by a character their JSON text never
 * holds raw. PostgreSQL's JSON parser then reads a few hundred bytes per row instead of the response too (about 2 KB
 * of escaped Markdown for a scrape): reading a group of 16 scrape rows (node-postgres, PostgreSQL 15 on the development
 * machine) took 0.42 ms as whole records and 0.19 ms split, and the settle statement of bench/http/profile.ts went 0.76
 * → 0.70 ms per group. A group with a response that holds such a character (so not JSON text) goes as whole records,
 * each response a string.
 */
const rowsOf = (sql: SqlClient.SqlClient, entries: ReadonlyArray<Entry>, records?: ReadonlyArray<string | undefined>): Fragment => {
  if (entries.some((entry) => entry.response !== null && entry.responseIsJson !== true && UNSPLITTABLE.test(entry.response))) {
    const records = entries.map((entry) => withResponse(entry, stringify(entry.response)))
    return sql`(SELECT * FROM json_populate_recordset(NULL::request_logs, ${new Sql.JoinedText(records, ",", "[", "]")}::json) WITH ORDINALITY)`
  }
  return sql`(SELECT ${sql.literal(CHARGED_COLUMNS)}, s.response, r.ordinality
    FROM json_populate_recordset(NULL::request_logs, ${new Sql.JoinedText(entries.map((entry, i) => records?.[i] ?? stringify(asRecord(entry))), ",", "[", "]")}::json) WITH ORDINALITY AS r
    JOIN string_to_table(${new Sql.JoinedText(entries.map((entry) => entry.response ?? NO_RESPONSE), RESPONSE_SEPARATOR)}, E'\\x1e', E'\\x1f')
      WITH ORDINALITY AS s(response, n) ON s.n = r.ordinality)`
}
// Separates the responses of a group; stands for a null one. JSON text escapes both (and NUL, which text cannot hold).
const RESPONSE_SEPARATOR = "\x1e"
const NO_RESPONSE = "\x1f"
const UNSPLITTABLE = /[\x00\x1e\x1f]/

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
    const database = yield* Sql.Database
    const backend = database.backend
    // A batch is one statement: no placeholder per value to compile on the request thread, a few strings to hand to
    // PGlite's thread or the server, and the rows built by PostgreSQL from them. The journal's batches go as the whole
    // records it journaled.
    const insert = (records: ReadonlyArray<string>) =>
      sql`INSERT INTO request_logs (${sql.literal(COLUMNS)})
        SELECT ${sql.literal(COLUMNS)} FROM json_populate_recordset(NULL::request_logs, ${new Sql.JoinedText(records, ",", "[", "]")}::json)
        ON CONFLICT (request_id) DO NOTHING`
    const insertEntries = (entries: ReadonlyArray<Entry>, durable: boolean, records?: ReadonlyArray<string | undefined>) =>
      sql`INSERT INTO request_logs (${sql.literal(COLUMNS)})
        SELECT ${sql.literal(COLUMNS)} FROM ${rowsOf(sql, entries, records)} AS r${
        durable && backend === "postgres" ? sql` CROSS JOIN (SELECT ${GroupCommit.synchronousCommit(sql)} AS durable) AS durable` : sql``}
        ON CONFLICT (request_id) DO NOTHING`
    // Rows without charges are one statement, a transaction of its own; on PostgreSQL it is made to wait for its WAL.
    const insertAlone = (entries: ReadonlyArray<Entry>, records: ReadonlyArray<string | undefined>) => insertEntries(entries, true, records)

    /**
     * The log rows of a group whose charges `CreditLedger.settleWith` writes in the same statement: `charged[k]` is the
     * index among the charges of entry `k` (null without one), whose response has its placeholder replaced by the
     * balance in `balances` (a relation `(i, remaining)`).
     */
    const insertCharged = (entries: ReadonlyArray<Entry>, records: ReadonlyArray<string | undefined>, charged: ReadonlyArray<number | null>, balances: Fragment) =>
      sql`INSERT INTO request_logs (${sql.literal(COLUMNS)})
        SELECT ${sql.literal(CHARGED_COLUMNS)},
          CASE WHEN b.remaining IS NULL THEN r.response ELSE replace(r.response, ${pendingJson}, b.remaining::text) END
        FROM ${rowsOf(sql, entries, records)} AS r
        LEFT JOIN unnest(${`{${charged.map((i) => i === null ? "NULL" : String(i)).join(",")}}`}::int[]) WITH ORDINALITY AS m(charge, n) ON m.n = r.ordinality
        LEFT JOIN ${balances} b ON b.i = m.charge
        ON CONFLICT (request_id) DO NOTHING`

    /**
     * Writes a group of settlements in one transaction: the charges through their ledger (which gives each one's
     * balance after it) and every log row with them (on PGlite, one statement). All of it is durable when this
     * completes, or none of it. On PostgreSQL with one ledger (the application's) it is one statement, one round trip.
     * Each settlement's result is the balance its entry was given.
     */
    const write = (queued: ReadonlyArray<Queued>): Effect.Effect<ReadonlyArray<number | undefined>, SqlError> => {
      const batch = queued.map((item) => item.settlement)
      const done = batch.map(() => undefined)
      // Each entry as this group gives it: the one prepared when it was queued (with its record) when it was given
      // the same, else made now (its record then made with the group's rows).
      const entriesFor = (remainingOf: (i: number) => number | PendingBalance | undefined) => {
        const entries: Array<Entry> = []
        const records: Array<string | undefined> = []
        queued.forEach((item, i) => {
          const remaining = remainingOf(i)
          const ready = item.entry !== undefined && item.preparedWith === remaining
          entries.push(ready ? item.entry! : item.settlement.entry(remaining))
          records.push(ready ? item.record : undefined)
        })
        return { entries, records }
      }
      const ledgers = new Map<CreditLedger.CreditLedger, Array<number>>()
      batch.forEach((settlement, i) => {
        if (settlement.charge === undefined) return
        const indices = ledgers.get(settlement.charge.ledger)
        if (indices === undefined) ledgers.set(settlement.charge.ledger, [i])
        else indices.push(i)
      })
      if (ledgers.size === 0) {
        return Effect.as(Effect.suspend(() => {
          const { entries, records } = entriesFor(() => undefined)
          return insertAlone(entries, records)
        }), done)
      }
      const only = ledgers.size === 1 ? [...ledgers][0]! : undefined
      const settleWith = only?.[0].settleWith
      if (only !== undefined && settleWith !== undefined) {
        const [, indices] = only
        const charged: Array<number | null> = batch.map(() => null)
        indices.forEach((index, j) => (charged[index] = j))
        return Effect.suspend(() => {
          const { entries, records } = entriesFor((i) => charged[i] === null ? undefined : pending)
          return Effect.map(
            settleWith(indices.map((i) => batch[i]!.charge!.charge), (balances) => insertCharged(entries, records, charged, balances)),
            (balances) => charged.map((j) => j === null ? undefined : balances[j])
          )
        })
      }
      const remaining: Array<number | undefined> = new Array(batch.length)
      const settle = ([ledger, indices]: [CreditLedger.CreditLedger, Array<number>], rows: () => Fragment) =>
        ledger.settle(indices.map((i) => batch[i]!.charge!.charge), (balances) => {
          indices.forEach((index, j) => (remaining[index] = balances[j]))
          return rows()
        })
      const [last, ...others] = [...ledgers].reverse()
      const all = settle(last!, () => {
        const { entries, records } = entriesFor((i) => remaining[i])
        return insertEntries(entries, false, records)
      })
      // One ledger in practice (the application's); others charge first, all in one transaction.
      return Effect.as(
        others.length === 0 ? all : sql.withTransaction(Effect.zipRight(Effect.forEach(others, (group) => settle(group, () => sql`SELECT 1`), { discard: true }), all)),
        remaining
      )
    }
    const commits = yield* GroupCommit.make<Queued, number | undefined, SqlError>({ maxBatch: MAX_BATCH, write })
    /**
     * A settlement queued for a group, with its entry and record made at once when its group will give the entry
     * what can be known now (no charge, or a charge whose balance the group's statement fills in): a group's
     * statement is then assembled from texts ready before its write began, while the previous group commits,
     * instead of after it (bench/http: about 30 µs an entry on the writer's path, each group waiting for the last).
     */
    const queue = (settlement: Settlement): Queued => {
      const preparedWith = settlement.charge === undefined ? undefined : settlement.charge.ledger.settleWith !== undefined ? pending : null
      if (preparedWith === null) return { settlement, preparedWith, entry: undefined, record: undefined }
      const entry = settlement.entry(preparedWith)
      return { settlement, preparedWith, entry, record: stringify(asRecord(entry)) }
    }
    // On PGlite in a data directory the journal makes them durable instead, and the database is written behind.
    const dataDir = Option.getOrUndefined(database.dataDir)
    const journaled = backend === "pglite" && dataDir !== undefined
      ? yield* JournaledLog.make({ sql, dir: dataDir, columns: COLUMNS, insert })
      : undefined

    /**
     * Makes a request's charge and log row durable together; completes once they are (committed with the rows of the
     * other requests settled meanwhile, or journaled), with the balance its entry was given when that was a
     * `PendingBalance`, or fails with nothing of it written.
     */
    const settle = (settlement: Settlement): Effect.Effect<number | undefined, SqlError> => {
      const part = settlement.charge?.ledger.journal
      if (journaled === undefined || (settlement.charge !== undefined && part === undefined)) return commits.submit(queue(settlement))
      // Its entry is given the balance itself (completing with undefined, as `void` does, keeps it an Exit).
      return journaled.settle(
        settlement.charge === undefined ? undefined : { part: part!, charge: settlement.charge.charge },
        (remaining) => recordJson(settlement.entry(remaining))
      ) as Effect.Effect<undefined>
    }
    /** Writes an entry (no charge); completes once it is durable. */
    const record = (entry: Entry): Effect.Effect<void, SqlError> => Effect.asVoid(settle({ entry: () => entry }))
    /** Waits until every entry settled so far is in the database (or has failed). */
    const flush = journaled === undefined ? commits.flush : Effect.zipRight(commits.flush, journaled.flush)

    /** Lists an organization's entries, newest first, as of `filters.snapshot` (or now; the snapshot is returned). */
    const list = (filters: Filters): Effect.Effect<{ items: Array<ListItem>; hasMore: boolean; snapshot: Snapshot }, SqlError> =>
      Effect.gen(function*() {
        // Rows journaled but not yet in the database (PGlite in a directory) are written first.
        if (journaled !== undefined) yield* journaled.flush
        const snapshot = filters.snapshot ??
          { at: filters.to.getTime(), xids: (yield* sql<{ xids: string }>`SELECT pg_current_snapshot()::text AS xids`)[0]!.xids }
        const conditions = [
          sql`(written_by IS NULL OR pg_visible_in_snapshot(written_by, ${snapshot.xids}::pg_snapshot))`,
          sql`org_id = ${filters.orgId}`,
          sql`created_at >= ${filters.from}`,
          sql`created_at <= ${filters.to}`
        ]
        if (filters.newerThan !== undefined) {
          conditions.push(sql`written_by IS NOT NULL AND NOT pg_visible_in_snapshot(written_by, ${filters.newerThan.xids}::pg_snapshot)`)
        }
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
        return { items: rows.slice(0, filters.limit).map(listItem), hasMore: rows.length > filters.limit, snapshot }
      })

    /** One entry of the organization, if it exists. */
    const get = (orgId: string, requestId: string): Effect.Effect<Option.Option<Detail>, SqlError> =>
      Effect.gen(function*() {
        if (journaled !== undefined) yield* journaled.flush
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

    return { settle, record, list, get, flush } as const
  })
}) {}
