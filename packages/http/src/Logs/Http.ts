/**
 * `GET /logs` and `GET /logs/{request_id}` (decisions §6): an organization's own request log, newest first, with the
 * filters of the contract. No credits; its own rate-limit window. Pages are stable while traffic arrives: every list
 * answers `X-Service-Logs-Snapshot`, and a later page asked with `snapshot=<that value>` lists exactly the entries the
 * first page saw (the database snapshot it was read in, and its end time), so `page` never repeats or skips an entry.
 *
 * @since 0.1.0
 */
import { Errors } from "@sift/core"
import { Clock, Effect, Either, Option, Schema } from "effect"
import { ApiFailure, dieOnInfrastructure } from "../ErrorMapping.js"
import * as QueryParams from "../QueryParams.js"
import type { Handler } from "../RequestPipeline.js"
import { type Filters, RequestLog, Snapshot } from "../RequestLog.js"

const DAY_MS = 86_400_000
const invalid = (field: string, detail: string) => new Errors.InvalidRequest({ reason: "Invalid", field, detail })
const { optional } = QueryParams

const between = (min: number, max: number) => QueryParams.integer.pipe(QueryParams.check((n: number) => n >= min && n <= max, `must be between ${min} and ${max}`))

/** The query of `GET /logs`: its filters, page and snapshot. */
export const Query = Schema.Struct({
  snapshot: optional(QueryParams.text(Snapshot.MAX_LENGTH).pipe(
    QueryParams.check((text: string) => Snapshot.parse(text) !== undefined, "must be the X-Service-Logs-Snapshot of an earlier page")
  ).annotations({ description: "X-Service-Logs-Snapshot of the first page: later pages list exactly the entries it saw" })),
  to: optional(QueryParams.dateTime.annotations({ description: "ISO 8601; default now (with snapshot: the first page's end)" })),
  from: optional(QueryParams.dateTime.annotations({ description: "ISO 8601; default 24 hours before to" })),
  path: optional(QueryParams.text(200).pipe(QueryParams.check((path: string) => path.startsWith("/"), "must start with /")).annotations({
    description: "The request path, with or without /v1"
  })),
  error_code: optional(QueryParams.string.pipe(QueryParams.check((code: string) => /^[A-Z][A-Z0-9_]{1,63}$/.test(code), "must match ^[A-Z][A-Z0-9_]{1,63}$"))),
  tags: optional(QueryParams.tags.annotations({ description: "Comma-separated; entries with any of them" })),
  key_id: optional(QueryParams.text(200)),
  status_code: optional(between(100, 599)),
  errors_only: optional(QueryParams.boolean),
  search: optional(QueryParams.text(200)),
  page: optional(between(1, 1000).annotations({ description: "1 to 1000, default 1" })),
  limit: optional(between(1, 100).annotations({ description: "1 to 100, default 25" }))
}).annotations({ description: "List the organization's request logs, newest first (0 credits)" })

const decode = QueryParams.decode(Query)

/** Reads and checks the filters of `GET /logs`. */
export const filtersFromQuery = (orgId: string, query: QueryParams.Query, now: number): Either.Either<Filters, Errors.InvalidRequest> =>
  Either.gen(function*() {
    const read = yield* decode(query)
    const snapshot = read.snapshot === undefined ? undefined : Snapshot.parse(read.snapshot)
    // With a snapshot the window ends where its first page's did (unless given), so later pages list the same entries.
    const to = read.to ?? (snapshot === undefined ? new Date(now) : new Date(snapshot.at))
    const from = read.from ?? new Date(to.getTime() - DAY_MS)
    if (from.getTime() > to.getTime()) return yield* Either.left(invalid("from", "must not be after to"))
    const pathFilter = read.path
    return {
      orgId,
      from,
      to,
      path: pathFilter === undefined ? undefined : pathFilter.startsWith("/v1/") || pathFilter === "/v1" ? pathFilter : `/v1${pathFilter}`,
      keyId: read.key_id,
      statusCode: read.status_code,
      errorCode: read.error_code,
      errorsOnly: read.errors_only,
      tags: read.tags,
      search: read.search,
      page: read.page ?? 1,
      limit: read.limit ?? 25,
      snapshot
    }
  })

/** `GET /logs`. */
export const list: Handler<Filters, Errors.InvalidRequest, never, never, RequestLog> = {
  validate: (caller) =>
    Effect.flatMap(Clock.currentTimeMillis, (now) => filtersFromQuery(caller.auth.org.id, caller.query, now)).pipe(
      Effect.map((filters) => ({ input: filters, credits: 0, zdr: false, tags: [], holdMs: 0 }))
    ),
  run: (_caller, filters) =>
    Effect.flatMap(RequestLog, (log) => dieOnInfrastructure(log.list(filters))).pipe(
      Effect.map(({ hasMore, items, snapshot }) => ({
        body: { data: items, page: filters.page, limit: filters.limit, has_more: hasMore },
        credits: 0,
        headers: { "x-service-logs-snapshot": Snapshot.format(snapshot) }
      }))
    )
}

/** `GET /logs/{request_id}`: another organization's id is a 404, as if it did not exist. */
export const get = (requestId: string): Handler<string, never, never, ApiFailure, RequestLog> => ({
  validate: () => Effect.succeed({ input: requestId, credits: 0, zdr: false, tags: [], holdMs: 0 }),
  run: (caller, id) =>
    Effect.flatMap(RequestLog, (log) => dieOnInfrastructure(log.get(caller.auth.org.id, id))).pipe(
      Effect.flatMap(Option.match({
        onNone: () => Effect.fail(new ApiFailure({ code: "NOT_FOUND", detail: `No request log ${id}` })),
        onSome: (entry) => Effect.succeed({ body: { data: entry }, credits: 0 })
      }))
    )
})
