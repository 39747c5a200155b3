/**
 * `GET /logs` and `GET /logs/{request_id}` (decisions §6): an organization's own request log, newest first, with the
 * filters of the contract. No credits; its own rate-limit window. Pages are stable while traffic arrives: every list
 * answers `X-Service-Logs-Snapshot`, and a later page asked with `snapshot=<that value>` lists exactly the entries the
 * first page saw (the database snapshot it was read in, and its end time), so `page` never repeats or skips an entry.
 *
 * @since 0.1.0
 */
import { Errors } from "@sift/core"
import { Clock, Effect, Option } from "effect"
import { ApiFailure, dieOnInfrastructure } from "../ErrorMapping.js"
import * as QueryParams from "../QueryParams.js"
import type { Handler } from "../RequestPipeline.js"
import { type Filters, RequestLog, Snapshot } from "../RequestLog.js"

const DAY_MS = 86_400_000
const invalid = (field: string, detail: string) => new Errors.InvalidRequest({ reason: "Invalid", field, detail })

const date = (query: QueryParams.Query, field: string): Date | undefined => {
  const text = QueryParams.asString(query, field)
  if (text === undefined) return undefined
  const parsed = new Date(text)
  if (!/^\d{4}-\d{2}-\d{2}/.test(text) || Number.isNaN(parsed.getTime())) throw invalid(field, `must be an ISO 8601 date-time, got "${text}"`)
  return parsed
}

const bounded = (value: number | undefined, field: string, min: number, max: number): number | undefined => {
  if (value !== undefined && (value < min || value > max)) throw invalid(field, `must be between ${min} and ${max}`)
  return value
}

const text = (query: QueryParams.Query, field: string, max: number): string | undefined => {
  const value = QueryParams.asString(query, field)
  if (value !== undefined && (value.length < 1 || value.length > max)) throw invalid(field, `must be 1 to ${max} characters`)
  return value
}

/** Reads and checks the filters of `GET /logs`. */
export const filtersFromQuery = (orgId: string, query: QueryParams.Query, now: number): Filters => {
  const snapshotText = text(query, "snapshot", Snapshot.MAX_LENGTH)
  const snapshot = snapshotText === undefined ? undefined : Snapshot.parse(snapshotText)
  if (snapshot === undefined && snapshotText !== undefined) throw invalid("snapshot", "must be the X-Service-Logs-Snapshot of an earlier page")
  // With a snapshot the window ends where its first page's did (unless given), so later pages list the same entries.
  const to = date(query, "to") ?? (snapshot === undefined ? new Date(now) : new Date(snapshot.at))
  const from = date(query, "from") ?? new Date(to.getTime() - DAY_MS)
  if (from.getTime() > to.getTime()) throw invalid("from", "must not be after to")
  const pathFilter = text(query, "path", 200)
  if (pathFilter !== undefined && !pathFilter.startsWith("/")) throw invalid("path", "must start with /")
  const errorCode = QueryParams.asString(query, "error_code")
  if (errorCode !== undefined && !/^[A-Z][A-Z0-9_]{1,63}$/.test(errorCode)) throw invalid("error_code", "must match ^[A-Z][A-Z0-9_]{1,63}$")
  const tags = QueryParams.asList(query, "tags", { commaSeparated: true })
  if (tags !== undefined && (tags.length > 20 || tags.some((tag) => tag.length < 1 || tag.length > 50))) {
    throw invalid("tags", "at most 20 tags of 1 to 50 characters")
  }
  return {
    orgId,
    from,
    to,
    path: pathFilter === undefined ? undefined : pathFilter.startsWith("/v1/") || pathFilter === "/v1" ? pathFilter : `/v1${pathFilter}`,
    keyId: text(query, "key_id", 200),
    statusCode: bounded(QueryParams.asInteger(query, "status_code"), "status_code", 100, 599),
    errorCode,
    errorsOnly: QueryParams.asBoolean(query, "errors_only"),
    tags,
    search: text(query, "search", 200),
    page: bounded(QueryParams.asInteger(query, "page"), "page", 1, 1000) ?? 1,
    limit: bounded(QueryParams.asInteger(query, "limit"), "limit", 1, 100) ?? 25,
    snapshot
  }
}

/** `GET /logs`. */
export const list: Handler<Filters, Errors.InvalidRequest, never, never, RequestLog> = {
  validate: (caller) =>
    Effect.flatMap(Clock.currentTimeMillis, (now) =>
      Effect.try({
        try: () => filtersFromQuery(caller.auth.org.id, caller.query, now),
        catch: (error) => error instanceof Errors.InvalidRequest ? error : invalid("query", String(error))
      })).pipe(Effect.map((filters) => ({ input: filters, credits: 0, zdr: false, tags: [], holdMs: 0 }))),
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
