/**
 * The monitor endpoints (decisions §7) and the webhook delivery endpoints (decisions §8), each through the one request
 * pipeline: free of credits (runs are charged when they complete), `monitors:read` for reads and `monitors:write` for
 * changes (Permissions), the caller's organization only (another's ids are 404).
 *
 * @since 0.1.0
 */
import type * as SqlClient from "@effect/sql/SqlClient"
import { Permissions } from "@sift/auth"
import { Errors } from "@sift/core"
import { Batches } from "@sift/batch"
import { Monitors, MonitorSpec } from "@sift/monitors"
import type { JobQueue } from "@sift/store"
import { Deliveries } from "@sift/webhooks"
import { Clock, Effect, Either, Schema } from "effect"
import { ApiFailure, type CodedError, dieOnInfrastructure, type Infrastructure } from "../ErrorMapping.js"
import * as QueryParams from "../QueryParams.js"
import type { Caller, Handler } from "../RequestPipeline.js"

const invalid = (field: string, detail: string) => new Errors.InvalidRequest({ reason: "Invalid", field, detail })

const ownerOf = (caller: Caller): Monitors.Owner => ({
  orgId: caller.auth.org.id,
  plan: caller.auth.org.plan,
  monitorsLimit: caller.auth.org.monitorsLimit,
  canWrite: Permissions.has(caller.auth, "monitors:write")
})

/**
 * A free route whose validation reads the request and whose work answers a JSON body. The monitor and delivery
 * services' infrastructure failures (SQL, the job queue) become defects here, at their edge: 500, never a code.
 */
const route = <A, E1 extends CodedError, E2 extends CodedError | Infrastructure, R2>(
  validate: (caller: Caller) => Effect.Effect<A, E1>,
  run: (owner: Monitors.Owner, input: A) => Effect.Effect<object, E2, R2>
): Handler<A, E1, never, Exclude<E2, Infrastructure>, R2> => ({
  validate: (caller) => Effect.map(validate(caller), (input) => ({ input, credits: 0, zdr: false, tags: [], holdMs: 0 })),
  run: (caller, input) =>
    Effect.map(dieOnInfrastructure(run(ownerOf(caller), input)), (body) => ({ body: body as Record<string, unknown>, credits: 0 }))
})

const { optional } = QueryParams

/** Members of the monitor lists. */
const cursor = QueryParams.string.pipe(QueryParams.check((cursor: string) => cursor.length >= 1 && cursor.length <= 500, "is not a cursor this API returned"))
  .annotations({ description: "next_cursor of the previous page" })
const limit = QueryParams.integer.pipe(QueryParams.check((limit: number) => limit >= 1 && limit <= 100, "must be between 1 and 100"))
  .annotations({ description: "1 to 100, default 25" })
const tag = QueryParams.string.pipe(QueryParams.check((tag: string) => tag.length >= 1 && tag.length <= 50, "must be 1 to 50 characters"))
  .annotations({ description: "One tag" })
const since = QueryParams.dateTime.annotations({ description: "ISO 8601" })
const until = QueryParams.dateTime.annotations({ description: "ISO 8601" })

const RUN_STATUSES = ["queued", "running", "completed", "failed", "skipped"] as const
const TARGET_TYPES = ["page", "sitemap", "extract"] as const
const DETECTION_TYPES = ["exact", "semantic"] as const
const SEARCH_FIELDS: ReadonlyArray<string> = ["name", "url", "instructions", "tags"]

/** `POST /monitors`. */
export const create = route(
  (caller) => MonitorSpec.decodeCreate(caller.body),
  (owner, spec) => Monitors.create(owner, spec)
)

/** The query of `GET /monitors`. */
export const ListQuery = Schema.Struct({
  q: optional(QueryParams.text(200).annotations({ description: "Search text (1 to 200 characters)" })),
  search_by: optional(QueryParams.list({ commaSeparated: true }).pipe(
    QueryParams.check((fields: ReadonlyArray<string>) => fields.every((field) => SEARCH_FIELDS.includes(field)), `must list only ${SEARCH_FIELDS.join(", ")}`)
  ).annotations({ description: "Comma-separated: name, url, instructions, tags" })),
  tags: optional(QueryParams.tags.annotations({ description: "Comma-separated; any of" })),
  search_type: optional(QueryParams.oneOf("exact", "prefix").annotations({ description: "prefix (default) or exact" })),
  status: optional(QueryParams.oneOf("active", "paused", "failed")),
  target_type: optional(QueryParams.oneOf(...TARGET_TYPES)),
  change_detection_type: optional(QueryParams.oneOf(...DETECTION_TYPES)),
  tag: optional(tag),
  cursor: optional(cursor),
  limit: optional(limit)
})

const decodeList = QueryParams.decode(ListQuery)

/** `GET /monitors`. */
export const list = route(
  (caller) =>
    Effect.map(decodeList(caller.query), (read): Monitors.MonitorFilters => ({
      q: read.q,
      searchBy: read.search_by as Monitors.MonitorFilters["searchBy"],
      searchType: read.search_type,
      status: read.status,
      targetType: read.target_type,
      changeDetectionType: read.change_detection_type,
      tag: read.tag,
      tags: read.tags,
      cursor: read.cursor,
      limit: read.limit ?? 25
    })),
  (owner, filters) => Monitors.list(owner, filters)
)

const noInput = (_caller: Caller) => Effect.succeed(undefined)

/** `GET /monitors/{id}`. */
export const get = (id: string) => route(noInput, (owner) => Monitors.get(owner, id))

/** `PATCH /monitors/{id}` (the body is validated against the monitor's current settings). */
export const update = (id: string) => route((caller) => Effect.succeed(caller.body), (owner, body) => Monitors.update(owner, id, body))

/** `DELETE /monitors/{id}`. */
export const remove = (id: string) => route(noInput, (owner) => Monitors.remove(owner, id))

/** `POST /monitors/{id}/run`. */
export const runNow = (id: string) => route(noInput, (owner) => Monitors.runNow(owner, id))

/** `GET /monitors/limits`. */
export const limits = route(noInput, (owner) => Monitors.limits(owner))

const DAY_MS = 86_400_000

/** The query of `GET /monitors/credit-usage`. */
export const CreditUsageQuery = Schema.Struct({ until: optional(until), since: optional(since) })
const decodeCreditUsage = QueryParams.decode(CreditUsageQuery)

/** `GET /monitors/credit-usage` (`since`, `until`; default the last 30 days). */
export const creditUsage = route(
  (caller) =>
    Effect.flatMap(Clock.currentTimeMillis, (now) =>
      Effect.flatMap(decodeCreditUsage(caller.query), (read) => {
        const until = read.until ?? new Date(now)
        const since = read.since ?? new Date(until.getTime() - 30 * DAY_MS)
        return since.getTime() > until.getTime() ? Effect.fail(invalid("since", "must not be after until")) : Effect.succeed({ since, until })
      })),
  (owner, window) => Monitors.creditUsage(owner, window)
)

/** The query of `GET /monitors/runs` and `GET /monitors/{id}/runs`. */
export const RunsQuery = Schema.Struct({ status: optional(QueryParams.oneOf(...RUN_STATUSES)), cursor: optional(cursor), limit: optional(limit) })
const decodeRuns = QueryParams.decode(RunsQuery)

/** `GET /monitors/runs` and `GET /monitors/{id}/runs`. */
export const runs = (monitorId?: string) =>
  route(
    (caller) => Effect.map(decodeRuns(caller.query), (read) => ({ monitorId, status: read.status, cursor: read.cursor, limit: read.limit ?? 25 })),
    (owner, filters) => Monitors.runs(owner, filters)
  )

/** `GET /monitors/{id}/runs/{run_id}`. */
export const run = (monitorId: string, runId: string) => route(noInput, (owner) => Monitors.run(owner, monitorId, runId))

/** The query of `GET /monitors/{id}/changes`. */
export const MonitorChangesQuery = Schema.Struct({ since: optional(since), until: optional(until), tag: optional(tag), cursor: optional(cursor), limit: optional(limit) })

/** The query of `GET /monitors/changes`: also by monitor, target type and detection type. */
export const ChangesQuery = Schema.Struct({
  since: optional(since),
  until: optional(until),
  monitor_id: optional(QueryParams.string.annotations({ description: "One monitor" })),
  tag: optional(tag),
  target_type: optional(QueryParams.oneOf(...TARGET_TYPES)),
  change_detection_type: optional(QueryParams.oneOf(...DETECTION_TYPES)),
  cursor: optional(cursor),
  limit: optional(limit)
})

const decodeChanges = QueryParams.decode(ChangesQuery)
const decodeMonitorChanges = QueryParams.decode(MonitorChangesQuery)

/** `GET /monitors/changes` and `GET /monitors/{id}/changes`. */
export const changes = (monitorId?: string) =>
  route(
    (caller) =>
      Effect.flatMap(
        monitorId === undefined ? decodeChanges(caller.query) : Either.map(decodeMonitorChanges(caller.query), (read) => ({ ...read, monitor_id: monitorId })),
        (read): Effect.Effect<Monitors.ChangeFilters, Errors.InvalidRequest> =>
          read.since !== undefined && read.until !== undefined && read.since.getTime() > read.until.getTime()
            ? Effect.fail(invalid("since", "must not be after until"))
            : Effect.succeed({
              monitorId: read.monitor_id,
              since: read.since,
              until: read.until,
              tag: read.tag,
              targetType: "target_type" in read ? read.target_type : undefined,
              changeDetectionType: "change_detection_type" in read ? read.change_detection_type : undefined,
              cursor: read.cursor,
              limit: read.limit ?? 25
            })
      ),
    (owner, filters) => Monitors.changes(owner, filters)
  )

/** `GET /monitors/changes/{change_id}`. */
export const change = (changeId: string) => route(noInput, (owner) => Monitors.change(owner, changeId))

/** `POST /monitors/{id}/webhook/rotate-secret`. */
export const rotateSecret = (id: string) => route(noInput, (owner) => Monitors.rotateSecret(owner, id))

// ---- Webhook deliveries (decisions §8) ----

const deliveryNotFound = (id: string) => new ApiFailure({ code: "NOT_FOUND", detail: `No webhook delivery ${id}` })

/** A batch's delivery as the API shows it: its source is the batch (decisions §8, wave2 §21.4). */
const batchDelivery = ({ monitor_id, run_id: _run, ...delivery }: Deliveries.DeliveryView) => ({
  ...delivery,
  type: "batch" as const,
  source: { type: "batch" as const, batch_id: monitor_id }
})

/** A delivery of the caller's organization (a monitor's or a batch's), or 404. */
const ownDelivery = (owner: Monitors.Owner, id: string) =>
  Effect.flatMap(Deliveries.view(id), (delivery) =>
    delivery === undefined
      ? Effect.fail(deliveryNotFound(id))
      : Effect.flatMap(Monitors.monitorIdsOf(owner.orgId, delivery.monitor_id), (ids) =>
        ids.length > 0
          ? Effect.succeed<object>(delivery)
          : Effect.flatMap(Batches.idsOf(owner.orgId, delivery.monitor_id), (batches) =>
            batches.length === 0 ? Effect.fail(deliveryNotFound(id)) : Effect.succeed<object>(batchDelivery(delivery)))))

/** `GET /webhooks/deliveries/{id}`. */
export const delivery = (id: string) => route(noInput, (owner) => ownDelivery(owner, id))

/** `GET /webhooks/deliveries/{id}/attempts`. */
export const attempts = (id: string) =>
  route(noInput, (owner) =>
    Effect.flatMap(ownDelivery(owner, id), () => Effect.map(Deliveries.attempts(id), (data) => ({ data }))))

const DELIVERY_STATUSES: ReadonlyArray<string> = ["pending", "delivering", "retrying", "delivered", "failed", "cancelled"]

/** A body member: `valid` says what it accepts, `detail` what is wrong otherwise. */
const bodyMember = <A>(valid: (value: unknown) => value is A, detail: string) => Schema.Unknown.pipe(Schema.filter(valid, { message: () => detail }))
const isText = (value: unknown): value is string => typeof value === "string" && value.length >= 1 && value.length <= 200
const text = bodyMember(isText, "must be a string of 1 to 200 characters")

/** The body of `POST /webhooks/deliveries`: which deliveries to list. */
export const DeliveriesBody = Schema.Struct({
  type: Schema.optional(bodyMember((type): type is "monitor" | "batch" => type === "monitor" || type === "batch", "must be monitor or batch")),
  status: Schema.optional(text.pipe(Schema.filter((status) => DELIVERY_STATUSES.includes(status), { message: () => `must be one of ${DELIVERY_STATUSES.join(", ")}` }))),
  created_after: Schema.optional(text.pipe(Schema.filter((date) => !Number.isNaN(new Date(date).getTime()), { message: () => "must be an ISO 8601 date-time" }))),
  limit: Schema.optional(bodyMember((limit): limit is number => typeof limit === "number" && Number.isInteger(limit) && limit >= 1 && limit <= 100, "must be an integer from 1 to 100")),
  monitor_id: Schema.optional(text),
  run_id: Schema.optional(text),
  cursor: Schema.optional(text),
  batch_id: Schema.optional(Schema.Unknown)
}).annotations({ jsonSchema: { type: "object", required: ["type"], properties: { type: { enum: ["monitor", "batch"] }, monitor_id: { type: "string" }, run_id: { type: "string" }, batch_id: { type: "string" }, status: { enum: DELIVERY_STATUSES }, created_after: { type: "string", format: "date-time" }, cursor: { type: "string" }, limit: { type: "integer", minimum: 1, maximum: 100 } } } })

/** The body of `POST /webhooks/deliveries/{id}/retry`. */
export const RetryBody = Schema.Struct({ force: Schema.optional(bodyMember((force): force is boolean => typeof force === "boolean", "must be a boolean")) })
  .annotations({ jsonSchema: { type: "object", properties: { force: { type: "boolean" } } } })

/** Decodes a JSON body (absent: `{}`) with its Schema; members it does not name are refused. */
const decodeBody = <A, I>(schema: Schema.Schema<A, I>) => {
  const decodeEither = Schema.decodeUnknownEither(schema, { errors: "first", onExcessProperty: "error" })
  return (body: unknown): Either.Either<A, Errors.InvalidRequest> => {
    const object = body ?? {}
    if (typeof object !== "object" || Array.isArray(object)) return Either.left(invalid("body", "must be a JSON object"))
    return Either.mapLeft(decodeEither(object), (error) => {
      const refused = QueryParams.fromParseError(error)
      return refused.detail === "is not a known member" ? invalid(refused.field!, "is not a member of this request") : refused
    })
  }
}

const decodeDeliveries = decodeBody(DeliveriesBody)
const decodeRetry = decodeBody(RetryBody)

/** `POST /webhooks/deliveries`: the list, filtered by the body. */
export const deliveries = route(
  (caller) =>
    Effect.flatMap(decodeDeliveries(caller.body), (body) =>
      body.type === undefined
        ? Effect.fail(invalid("type", "must be monitor or batch"))
        : Effect.succeed({
          type: body.type,
          monitorId: body.monitor_id,
          runId: body.run_id,
          batchId: typeof body.batch_id === "string" ? body.batch_id : undefined,
          status: body.status as "pending" | "delivering" | "retrying" | "delivered" | "failed" | "cancelled" | undefined,
          createdAfter: body.created_after === undefined ? undefined : new Date(body.created_after),
          cursor: body.cursor,
          limit: body.limit
        })),
  (owner, filter) =>
    Effect.gen(function*() {
      if (filter.type === "batch") {
        const batchIds = yield* Batches.idsOf(owner.orgId, filter.batchId)
        const page = yield* Deliveries.list({ ...filter, ownerIds: batchIds })
        return { data: page.deliveries.map(batchDelivery), has_more: page.next_cursor !== null, next_cursor: page.next_cursor }
      }
      const monitorIds = yield* Monitors.monitorIdsOf(owner.orgId, filter.monitorId)
      const page = yield* Deliveries.list({ ...filter, ownerIds: monitorIds })
      return { data: page.deliveries, has_more: page.next_cursor !== null, next_cursor: page.next_cursor }
    })
)

/** `POST /webhooks/deliveries/{id}/retry` (`{ force? }`, `Idempotency-Key`). */
export const retry = (id: string, idempotencyKey: string | undefined) =>
  route(
    (caller) =>
      Effect.flatMap(decodeRetry(caller.body), (body) =>
        idempotencyKey !== undefined && (idempotencyKey.length < 1 || idempotencyKey.length > 255)
          ? Effect.fail(invalid("Idempotency-Key", "must be 1 to 255 characters"))
          : Effect.succeed({ force: body.force })),
    (owner, input) =>
      Effect.gen(function*() {
        yield* ownDelivery(owner, id)
        const queued = yield* Deliveries.retryByHand(id, { force: input.force, idempotencyKey })
        return { id, queued: true, attempt: queued.attempt, replayed: queued.replayed }
      })
  )

const MONITOR = /^\/v1\/monitors\/([^/]+)(\/.*)?$/
const DELIVERY = /^\/v1\/webhooks\/deliveries\/([^/]+)(\/.*)?$/

/** The handler of a monitor or delivery route, or undefined when the path is not one. */
export const routeOf = (
  method: string,
  path: string,
  headers: Readonly<Record<string, string | undefined>>
): Handler<any, CodedError, never, CodedError, SqlClient.SqlClient | JobQueue.JobQueue> | undefined => {
  if (path === "/v1/monitors") return method === "POST" ? create : method === "GET" ? list : undefined
  if (path === "/v1/webhooks/deliveries") return method === "POST" ? deliveries : undefined
  const d = DELIVERY.exec(path)
  if (d !== null) {
    const id = decodeURIComponent(d[1]!)
    if (d[2] === undefined && method === "GET") return delivery(id)
    if (d[2] === "/attempts" && method === "GET") return attempts(id)
    if (d[2] === "/retry" && method === "POST") return retry(id, headers["idempotency-key"])
    return undefined
  }
  const m = MONITOR.exec(path)
  if (m === null) return undefined
  const first = decodeURIComponent(m[1]!)
  const rest = m[2]
  if (rest === undefined) {
    if (method === "GET") {
      if (first === "limits") return limits
      if (first === "credit-usage") return creditUsage
      if (first === "runs") return runs()
      if (first === "changes") return changes()
      return get(first)
    }
    if (method === "PATCH") return update(first)
    if (method === "DELETE") return remove(first)
    return undefined
  }
  if (first === "changes" && method === "GET" && /^\/[^/]+$/.test(rest)) return change(decodeURIComponent(rest.slice(1)))
  if (rest === "/run" && method === "POST") return runNow(first)
  if (rest === "/runs" && method === "GET") return runs(first)
  if (rest.startsWith("/runs/") && method === "GET" && /^\/runs\/[^/]+$/.test(rest)) return run(first, decodeURIComponent(rest.slice(6)))
  if (rest === "/changes" && method === "GET") return changes(first)
  if (rest === "/webhook/rotate-secret" && method === "POST") return rotateSecret(first)
  return undefined
}
