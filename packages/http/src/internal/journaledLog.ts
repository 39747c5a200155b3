/**
 * The request log on embedded PGlite in a data directory: a request's charge and log row are one line of the redo
 * journal (`Journal`), appended before its answer is sent, and written to the database behind, in batches (charges
 * and rows of a batch in one statement). A start after a crash applies what the journal holds and the database does
 * not yet: a line's row and charge together, once (a row already there means its charge is too, since both were
 * written by the same statement). Waiting for PGlite's thread on every answer instead cost bench/http most of its
 * throughput on a busy machine (see `store/Journal.ts`).
 */
import type * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import type { Fragment } from "@effect/sql/Statement"
import type { CreditLedger } from "@sift/auth"
import { Journal, Sql, WriteBehind } from "@sift/store"
import { Effect, type Scope } from "effect"
import { stringify } from "./json.js"

type JournalPart = NonNullable<CreditLedger.CreditLedger["journal"]>

/** A settlement once journaled: what the database has still to get. */
interface Pending {
  readonly part: JournalPart | undefined
  readonly charge: CreditLedger.Charge | undefined
  readonly record: string
  /** Its number in the journal. */
  readonly seq: number
  /** When writing it alone first failed. */
  failedSince?: number
}

/** Lines applied per statement when a start replays the journal. */
const REPLAY_CHUNK = 2_000
/** Settlements written to the database per statement. */
const MAX_BATCH = 1_000
/** Settlements waiting for the database at most; beyond this an answer waits for room (memory stays bounded). */
const MAX_BUFFERED = 50_000
/** How long an entry the database keeps refusing is tried again before its row is given up (its charge is kept). */
const GIVE_UP_MS = 10 * 60_000

/** Replays what an earlier process journaled and opens a journal of this one, with its writer, for the scope. */
export const make = (options: {
  readonly sql: SqlClient.SqlClient
  readonly dir: string
  readonly columns: string
  readonly insert: (records: ReadonlyArray<string>) => Fragment
}) =>
  Effect.gen(function*() {
    const { columns, dir, insert, sql } = options
    const left = Journal.leftover(dir)
    if (left.records.length > 0) {
      let applied = 0
      for (let i = 0; i < left.records.length; i += REPLAY_CHUNK) {
        const lines = left.records.slice(i, i + REPLAY_CHUNK)
        // The row goes back as the exact text journaled (`{"c":<charge>,"l":<row>}`; a charge holds ids and a number).
        const rows = lines.map((line) => line.slice(line.indexOf(',"l":') + 5, -1))
        const charges = lines.flatMap((line) => {
          const charge = (JSON.parse(line.slice(5, line.indexOf(',"l":'))) as { o: string; r: string; n: number } | null)
          return charge === null ? [] : [{ org_id: charge.o, request_id: charge.r, credits: charge.n }]
        })
        const [result] = yield* sql<{ n: string | number }>`
          WITH r AS (
            INSERT INTO request_logs (${sql.literal(columns)})
            SELECT ${sql.literal(columns)} FROM json_populate_recordset(NULL::request_logs, ${new Sql.JoinedText(rows, ",", "[", "]")}::json)
            ON CONFLICT (request_id) DO NOTHING RETURNING request_id::text AS request_id
          ),
          c AS (
            SELECT t.* FROM json_to_recordset(${JSON.stringify(charges)}::json) AS t(org_id text, request_id text, credits bigint)
            WHERE t.request_id IN (SELECT request_id FROM r)
          ),
          charged AS (
            UPDATE organizations o SET credits_remaining = o.credits_remaining - s.credits
            FROM (SELECT org_id, SUM(credits)::bigint AS credits FROM c GROUP BY org_id) s WHERE o.id = s.org_id
          ),
          events AS (INSERT INTO credit_events (org_id, request_id, credits) SELECT org_id, request_id, credits FROM c WHERE credits > 0)
          SELECT count(*) AS n FROM r`
        applied += Number(result?.n ?? 0)
      }
      left.remove()
      yield* Effect.logWarning(`request log: ${applied} of ${left.records.length} journaled requests were not in the database yet (the last process stopped abruptly); applied with their charges`)
    }

    const journal = Journal.open(dir)
    // Runs after the writer's own finalizer has written everything (finalizers run last-added first).
    yield* Effect.addFinalizer(() => Effect.sync(() => journal.close()))

    const statementFor = (batch: ReadonlyArray<Pending>): Effect.Effect<unknown, SqlError> => {
      const records = batch.map((pending) => pending.record)
      const charged = batch.filter((pending) => pending.charge !== undefined)
      if (charged.length === 0) return sql`${insert(records)}`
      // One ledger in practice (the application's): its charges and the rows in one statement.
      return charged[0]!.part!.store(charged.map((pending) => pending.charge!), insert(records))
    }
    // Which journal records are in the database: the journal may drop a segment only below the first one that is not.
    const done: Array<boolean> = []
    let head = 0
    let base = 0
    const applied = (pending: Pending) => {
      done[pending.seq - base] = true
      while (head < done.length && done[head] === true) head++
      if (head > 4_096) {
        done.splice(0, head)
        base += head
        head = 0
      }
      journal.appliedThrough(base + head)
    }

    /** Writes a batch; entries the database refuses (alone) are kept for the next write, for `GIVE_UP_MS` at most. */
    const write = (batch: ReadonlyArray<Pending>): Effect.Effect<ReadonlyArray<Pending>> =>
      Effect.matchEffect(statementFor(batch), {
        onSuccess: () => Effect.sync(() => (batch.forEach(applied), [])),
        onFailure: (error) =>
          batch.length === 1 ? refused(batch[0]!, error) : Effect.zipRight(
            Effect.logWarning("request log: a batch failed, writing its entries one by one", error),
            Effect.map(Effect.forEach(batch, (pending) => write([pending])), (kept) => kept.flat())
          )
      })
    const refused = (pending: Pending, error: SqlError): Effect.Effect<ReadonlyArray<Pending>> => {
      const now = Date.now()
      pending.failedSince ??= now
      if (now - pending.failedSince < GIVE_UP_MS) {
        return Effect.as(Effect.logWarning(`request log: entry ${pending.record.slice(0, 60)}… not written yet, kept for the next try`, error), [pending])
      }
      // The answer was sent and charged: the charge is written even if the row never can be.
      return Effect.zipRight(
        Effect.logError(`request log: entry ${pending.record.slice(0, 60)}… given up after ${GIVE_UP_MS / 60_000} minutes`, error),
        pending.part === undefined || pending.charge === undefined
          ? Effect.sync(() => (applied(pending), []))
          : Effect.matchEffect(pending.part.store([pending.charge], sql`SELECT 1`), {
            onSuccess: () => Effect.sync(() => (applied(pending), [])),
            onFailure: () => Effect.succeed([pending])
          })
      )
    }
    const buffer = yield* WriteBehind.make<Pending>({
      linger: "25 millis",
      maxBatch: MAX_BATCH,
      write
    })

    /**
     * Journals a settlement (its charge counted in memory at once) and queues it for the database; completes once the
     * journal holds it. A journal that cannot be written fails it, with its charge taken back.
     */
    const settle = (charge: { readonly part: JournalPart; readonly charge: CreditLedger.Charge } | undefined, entry: (remaining: number | undefined) => string): Effect.Effect<void> => {
      const remaining = charge === undefined ? undefined : charge.part.stage(charge.charge)
      const record = entry(remaining)
      const line = charge === undefined
        ? `{"c":null,"l":${record}}`
        : `{"c":${stringify({ o: charge.charge.reservation.orgId, r: charge.charge.requestId, n: chargeOf(charge.charge) })},"l":${record}}`
      let seq: number
      try {
        seq = journal.append([line])
      } catch (error) {
        if (charge !== undefined) charge.part.unstage(charge.charge)
        return Effect.die(error)
      }
      buffer.offer({ part: charge?.part, charge: charge?.charge, record, seq })
      return buffer.size() < MAX_BUFFERED ? Effect.void : buffer.below(MAX_BUFFERED)
    }
    return { settle, flush: buffer.flush } as const
  }) satisfies Effect.Effect<unknown, SqlError, Scope.Scope>

const chargeOf = (charge: CreditLedger.Charge) => Math.max(0, Math.min(Math.floor(charge.credits), charge.reservation.credits))
