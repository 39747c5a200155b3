import * as SqlClient from "@effect/sql/SqlClient"
import * as Auth from "@sift/auth"
import { Migrations, Sql } from "@sift/store"
import { Context, Effect, Exit, Fiber, Layer, Option, Redacted, Scope } from "effect"
import { randomUUID } from "node:crypto"
import { describe, expect, inject, it } from "vitest"
import { redact, redactJsonParts, redactJsonText, redactQuery } from "../../src/internal/redaction.js"
import * as RequestLog from "../../src/RequestLog.js"

const databaseUrl = inject("databaseUrl")
const backends = [
  { name: "pglite", layer: () => Sql.layerPglite({ dir: "memory://" }), skip: false },
  { name: "postgres", layer: () => Sql.layerPg({ url: Redacted.make(databaseUrl ?? "") }), skip: databaseUrl === undefined }
]

const entry = (orgId: string, input: RequestLog.Entry["input"] = { query: { url: "https://example.com/" } }): RequestLog.Entry => ({
  requestId: randomUUID(),
  orgId,
  keyId: "key_test",
  timestamp: new Date(),
  method: "GET",
  path: "/v1/web/scrape/markdown",
  statusCode: 200,
  errorCode: null,
  latencyMs: 3,
  creditsUsed: 1,
  tags: ["a", "b"],
  zdr: false,
  userAgent: "test",
  input,
  response: JSON.stringify({ markdown: "# Title\n\nText with \\ and \" and \u00e9", request_id: "x" })
})

/** Runs `body` with a request log on a fresh scope; `close` ends that scope (the log's final write). */
const withLog = <A>(
  layer: Layer.Layer<SqlClient.SqlClient | Sql.Database, unknown>,
  body: (log: RequestLog.RequestLog, close: Effect.Effect<void>, sql: SqlClient.SqlClient) => Effect.Effect<A, unknown>
) =>
  Effect.runPromise(Effect.scoped(Effect.gen(function*() {
    const database = yield* Layer.build(layer)
    yield* Effect.provide(Migrations.run({ store: Migrations.store, http: RequestLog.migrations }), database)
    const scope = yield* Scope.make()
    const built = yield* Layer.buildWithScope(RequestLog.RequestLog.Default, scope).pipe(Effect.provide(database))
    return yield* body(Context.get(built, RequestLog.RequestLog), Scope.close(scope, Exit.void), Context.get(database, SqlClient.SqlClient))
  })) as Effect.Effect<A, never>)

/** Runs `body` with a request log and the credit ledger (`Auth.layer`) on one database. */
const withLedger = <A>(
  layer: Layer.Layer<SqlClient.SqlClient | Sql.Database, unknown>,
  body: (log: RequestLog.RequestLog, ledger: Auth.CreditLedger.CreditLedger, accounts: Auth.Accounts.Accounts, sql: SqlClient.SqlClient) => Effect.Effect<A, unknown>
) =>
  Effect.runPromise(Effect.scoped(Effect.gen(function*() {
    const database = yield* Layer.build(layer)
    yield* Effect.provide(Migrations.run({ store: Migrations.store, auth: Auth.migrations, http: RequestLog.migrations }), database)
    const built = yield* Layer.build(Layer.merge(RequestLog.RequestLog.Default, Layer.fresh(Auth.layer)).pipe(Layer.provide(Layer.succeedContext(database))))
    return yield* body(
      Context.get(built, RequestLog.RequestLog),
      Context.get(built, Auth.CreditLedger.CreditLedger),
      Context.get(built, Auth.Accounts.Accounts),
      Context.get(database, SqlClient.SqlClient)
    )
  })) as Effect.Effect<A, never>)

/** A charged request's settlement whose logged response reports its balance as the pipeline's does. */
const charged = (
  ledger: Auth.CreditLedger.CreditLedger,
  reservation: Auth.CreditLedger.Reservation,
  credits: number,
  input?: RequestLog.Entry["input"]
): RequestLog.Settlement & { readonly requestId: string } => {
  const base = entry(reservation.orgId, input)
  return {
    requestId: base.requestId,
    charge: { ledger, charge: { reservation, credits, requestId: base.requestId } },
    entry: (remaining) => ({
      ...base,
      creditsUsed: credits,
      response: JSON.stringify({
        markdown: "# Page",
        request_id: base.requestId,
        key_metadata: { credits_consumed: credits, credits_remaining: typeof remaining === "object" ? remaining.placeholder : remaining }
      })
    })
  }
}

const countOf = (sql: SqlClient.SqlClient, orgId: string) =>
  Effect.map(sql<{ n: string }>`SELECT count(*) AS n FROM request_logs WHERE org_id = ${orgId}`, (rows) => Number(rows[0]!.n))

for (const backend of backends) {
  describe.skipIf(backend.skip)(`request log (${backend.name})`, () => {
    it("6,000 entries still queued at shutdown are all written, in bounded statements, and their callers answered", async () => {
      const orgId = `org_${randomUUID().slice(0, 8)}`
      const { answered, written } = await withLog(backend.layer(), (log, close, sql) =>
        Effect.gen(function*() {
          // Submitted at once: most of them still wait in the queue when the scope closes.
          const waiting = yield* Effect.fork(Effect.forEach(Array.from({ length: 6_000 }, () => entry(orgId)), log.record, { concurrency: "unbounded" }))
          yield* Effect.sleep("5 millis")
          yield* close
          const answered = (yield* Fiber.join(waiting)).length
          return { answered, written: yield* countOf(sql, orgId) }
        }))
      expect(answered).toBe(6_000)
      expect(written).toBe(6_000)
    }, 120_000)

    it("an entry is read back exactly as recorded: scalars, tags, input and response text", async () => {
      const orgId = `org_${randomUUID().slice(0, 8)}`
      const recorded = entry(orgId, { query: { url: "https://example.com/?q=\u00fcber" }, body: { nested: [1, { x: null }] } })
      const detail = await withLog(backend.layer(), (log) =>
        Effect.gen(function*() {
          yield* log.record(recorded)
          return yield* log.get(orgId, recorded.requestId)
        }))
      expect(Option.isSome(detail)).toBe(true)
      const value = Option.getOrThrow(detail)
      expect(value).toMatchObject({
        request_id: recorded.requestId,
        timestamp: recorded.timestamp.toISOString(),
        method: "GET",
        path: "/v1/web/scrape/markdown",
        status_code: 200,
        error_code: null,
        latency_ms: 3,
        credits_used: 1,
        key_id: "key_test",
        tags: ["a", "b"],
        zdr: false,
        user_agent: "test",
        input: { query: { url: "https://example.com/?q=\u00fcber" }, body: { nested: [1, { x: null }] } }
      })
      expect(value.response).toEqual(JSON.parse(recorded.response!))
    })

    it("responses are stored as sent, including escapes PostgreSQL cannot read into text (NUL, lone surrogates)", async () => {
      const orgId = `org_${randomUUID().slice(0, 8)}`
      const bodies = [
        { markdown: "plain \"quoted\" text, \\ backslash, \u00e9 and \ud83d\ude00" },
        { markdown: "a NUL \u0000 inside" },
        { markdown: "a lone \ud800 surrogate" },
        { markdown: "a literal backslash-u0000: \\u0000" }
      ]
      const entries = bodies.map((body) => ({ ...entry(orgId), response: JSON.stringify(body) }))
      const stored = await withLog(backend.layer(), (log, _close, sql) =>
        Effect.gen(function*() {
          yield* Effect.forEach(entries, log.record, { concurrency: "unbounded" })
          return yield* sql<{ request_id: string; response: string }>`SELECT request_id, response FROM request_logs WHERE org_id = ${orgId}`
        }))
      expect(stored).toHaveLength(entries.length)
      for (const e of entries) expect(stored.find((row) => row.request_id === e.requestId)?.response).toBe(e.response)
    })

    it("a group's responses go apart from its records: null ones, empty ones and text holding the separators raw are stored exactly", async () => {
      const orgId = `org_${randomUUID().slice(0, 8)}`
      const plain = ["{\"markdown\":\"one\"}", "", "{\"markdown\":\"two \\u001e \\u001f\"}", null, "{\"markdown\":\"three\"}"]
      const raw = ["{\"a\":1}", "not JSON: \u001e and \u001f raw", null]
      const groups = [plain, raw].map((responses) => responses.map((response) => ({ ...entry(orgId), response })))
      const stored = await withLog(backend.layer(), (log, _close, sql) =>
        Effect.gen(function*() {
          // Each list is submitted together; whatever group holds the raw-separator response goes as whole records.
          for (const group of groups) yield* Effect.forEach(group, log.record, { concurrency: "unbounded" })
          return yield* sql<{ request_id: string; response: string | null }>`SELECT request_id, response FROM request_logs WHERE org_id = ${orgId}`
        }))
      expect(stored).toHaveLength(plain.length + raw.length)
      for (const e of groups.flat()) expect(stored.find((row) => row.request_id === e.requestId)?.response).toBe(e.response)
    })

    it("a scrape-sized response is stored compressed (lz4 on PostgreSQL, pglz where lz4 is not built) and read back exactly", async () => {
      const orgId = `org_${randomUUID().slice(0, 8)}`
      const markdown = Array.from({ length: 60 }, (_, i) => `Line ${i}: text \u00e9 "quoted" \\ ${"word ".repeat(i % 7)}`).join("\n")
      const recorded = { ...entry(orgId), response: JSON.stringify({ markdown, request_id: "x", credits_remaining: 41 }) }
      expect(recorded.response.length).toBeGreaterThan(2_500)
      const [stored, detail] = await withLog(backend.layer(), (log, _close, sql) =>
        Effect.gen(function*() {
          yield* log.record(recorded)
          const rows = yield* sql<{ method: string | null; response: string }>`
            SELECT pg_column_compression(response) AS method, response FROM request_logs WHERE request_id = ${recorded.requestId}`
          return [rows[0], yield* log.get(orgId, recorded.requestId)] as const
        }))
      expect(stored?.method).toBe(backend.name === "postgres" ? "lz4" : "pglz")
      expect(stored?.response).toBe(recorded.response)
      expect(Option.getOrThrow(detail).response).toEqual(JSON.parse(recorded.response))
    })

    it("charged requests settled together each log their own balance after their charge, and are told it", async () => {
      const { settled, logged, left, remaining } = await withLedger(backend.layer(), (log, ledger, accounts, sql) =>
        Effect.gen(function*() {
          const org = yield* accounts.createOrg({ name: `log-${randomUUID().slice(0, 8)}`, plan: "enterprise" })
          yield* accounts.setOverrides(org.id, { credits: 100, requestsPerMinute: 1_000 })
          const reservations = yield* Effect.forEach([1, 2, 3, 4, 5], (credits) => ledger.reserve(org.id, credits, { ttlMs: 60_000 }))
          const settlements = reservations.map((reservation) => charged(ledger, reservation, reservation.credits))
          // Submitted at once: settled as one group (or a few), each with the balance after its own charge.
          const settled = yield* Effect.forEach(settlements, log.settle, { concurrency: "unbounded" })
          const logged = yield* Effect.forEach(settlements, (settlement) =>
            Effect.map(log.get(org.id, settlement.requestId), (detail) => Option.getOrThrow(detail).response as { key_metadata: { credits_remaining: unknown } }))
          const [held] = yield* sql<{ n: string | number }>`SELECT count(*) AS n FROM credit_reservations WHERE org_id = ${org.id}`
          return { settled, logged, left: Number(held?.n ?? 0), remaining: (yield* ledger.balance(org.id)).remaining }
        }))
      expect(remaining).toBe(85)
      expect(left).toBe(0)
      // Whatever the grouping, the balances are a run of charges one by one: 100 less the charges up to each.
      const charges = [1, 2, 3, 4, 5]
      const order = charges.map((_, i) => i).sort((a, b) => settled[b]! - settled[a]!)
      let running = 100
      for (const i of order) expect(settled[i]).toBe(running -= charges[i]!)
      expect(logged.map((response) => response.key_metadata.credits_remaining)).toEqual(settled)
    })

    it("a charged request whose log row is refused is charged nothing, and its reservation can be released", async () => {
      const { failed, good, events, remaining } = await withLedger(backend.layer(), (log, ledger, accounts, sql) =>
        Effect.gen(function*() {
          const org = yield* accounts.createOrg({ name: `log-${randomUUID().slice(0, 8)}`, plan: "enterprise" })
          yield* accounts.setOverrides(org.id, { credits: 10, requestsPerMinute: 1_000 })
          const refused = charged(ledger, yield* ledger.reserve(org.id, 4, { ttlMs: 60_000 }), 4, { query: { url: "a\u0000b" } })
          const fine = charged(ledger, yield* ledger.reserve(org.id, 1, { ttlMs: 60_000 }), 1)
          const [failed, good] = yield* Effect.forEach([refused, fine], (settlement) => Effect.either(log.settle(settlement)), { concurrency: "unbounded" })
          yield* ledger.release(refused.charge!.charge.reservation)
          const events = yield* sql<{ request_id: string }>`SELECT request_id FROM credit_events WHERE org_id = ${org.id}`
          return { failed: failed!._tag, good: good!, events: events.map((e) => e.request_id), remaining: (yield* ledger.balance(org.id)).remaining }
        }))
      expect(failed).toBe("Left")
      // The other request of the group is charged and logged alone.
      expect(good._tag === "Right" ? good.right : undefined).toBe(9)
      expect(events).toHaveLength(1)
      expect(remaining).toBe(9)
    })

    it("a row PostgreSQL refuses (a raw NUL) costs only itself; redaction replaces NULs and lone surrogates so it never happens", async () => {
      const orgId = `org_${randomUUID().slice(0, 8)}`
      const good = Array.from({ length: 10 }, () => entry(orgId))
      const bad = entry(orgId, { query: { url: "a\u0000b" } })
      const sanitized = entry(orgId, redact({ query: { "k\u0000": "a\u0000b\ud800" } }) as RequestLog.Entry["input"])
      const { count, kept, lost, refused } = await withLog(backend.layer(), (log, _close, sql) =>
        Effect.gen(function*() {
          const outcomes = yield* Effect.forEach([...good.slice(0, 5), bad, sanitized, ...good.slice(5)], (e) => Effect.either(log.record(e)), {
            concurrency: "unbounded"
          })
          return {
            refused: outcomes.flatMap((outcome, i) => outcome._tag === "Left" ? [i] : []),
            count: yield* countOf(sql, orgId),
            kept: yield* log.get(orgId, sanitized.requestId),
            lost: yield* log.get(orgId, bad.requestId)
          }
        }))
      expect(count).toBe(11)
      // Only the refused row's caller is told it was not written (its request would answer 500, not the success).
      expect(refused).toEqual([5])
      expect(Option.getOrThrow(kept).input).toEqual({ query: { "k\uFFFD": "a\uFFFDb\uFFFD" } })
      expect(Option.isNone(lost)).toBe(true)
    })
  })
}

describe("redaction of logged responses and queries", () => {
  const key = `sift_sk_${"a1B2".repeat(10)}`
  it("a response sent in two parts is logged exactly as the whole would be, remembered or not", () => {
    const serialized = JSON.stringify({ markdown: `a page quoting ${key} and more`, url: "https://example.com/" }).slice(1, -1)
    const rest = JSON.stringify({ cache_metadata: { status: "hit", age_ms: 5 }, request_id: "r", note: key })
    const whole = `{${serialized},${rest.slice(1)}`
    expect(redactJsonParts(serialized, rest)).toBe(redactJsonText(whole))
    expect(redactJsonParts(serialized, rest)).toBe(redactJsonText(whole))
    expect(redactJsonParts(serialized, rest)).not.toContain(key)
    const long = JSON.stringify({ markdown: `${key} ${"x".repeat(300_000)}` }).slice(1, -1)
    expect(redactJsonParts(long, rest)).toBe(redactJsonText(`{${long},${rest.slice(1)}`))
    expect(JSON.parse(redactJsonParts(long, rest)).markdown).toContain("more characters]")
  })

  it("a query's redaction is remembered by its text and equals redacting it afresh", () => {
    const search = `?url=https%3A%2F%2Fexample.com%2F&q=${key}&headers[x]=y`
    const params = () => new URLSearchParams(search)
    const first = redactQuery(search, params)
    expect(first).toEqual(redact(Object.fromEntries(params())))
    expect(JSON.stringify(first)).not.toContain(key)
    expect(redactQuery(search, () => { throw new Error("not parsed again") })).toBe(first)
  })
})
