/**
 * The batch endpoints (wave2 §1), each through the one request pipeline: `POST /batch/submit`, `GET /batch/list`,
 * `GET /batch/{id}`, `GET /batch/{id}/results`, `POST /batch/{id}/cancel`, `DELETE /batch/{id}`. `batches:write` for
 * submit, cancel and delete, `batches:read` for the rest (Permissions); the caller's organization only (another's
 * ids are 404). Credits (wave2 §21.1): a submission reserves one per page in the batch's own transaction (the
 * handler's charge, reported as `credits_consumed`); reads, cancel and delete cost 0; the refund comes at settlement.
 *
 * @since 0.1.0
 */
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import type * as SqlClient from "@effect/sql/SqlClient"
import { type BatchCredits, Batches, BatchSpec } from "@sift/batch"
import { Errors, type Fetcher, ScrapeRequest } from "@sift/core"
import type { BlobStore, JobQueue } from "@sift/store"
import { Effect, Option, type ParseResult, Schema } from "effect"
import { type CodedError, dieOnInfrastructure } from "../ErrorMapping.js"
import * as QueryParams from "../QueryParams.js"
import type { Caller, Handler } from "../RequestPipeline.js"
import { configuredOrigin } from "./Services.js"

/** What the batch routes need of the application. */
export type Requirements =
  | SqlClient.SqlClient
  | JobQueue.JobQueue
  | BlobStore.BlobStore
  | BatchCredits.BatchCredits
  | Fetcher.Fetcher
  | HttpServerRequest.HttpServerRequest

const free = { credits: 0, zdr: false, tags: [] as ReadonlyArray<string>, holdMs: 0 }

const ownerOf = (caller: Caller): Batches.Owner => ({ orgId: caller.auth.org.id, keyId: caller.auth.keyId, plan: caller.auth.org.plan })

/** The origin this request came to: `http(s)://host`. */
const requestOrigin = Effect.map(HttpServerRequest.HttpServerRequest, (request) =>
  `${request.headers["x-forwarded-proto"] === "https" ? "https" : "http"}://${request.headers.host ?? "127.0.0.1:3002"}`)

/** File URLs: `SIFT_PUBLIC_URL` when set, else the origin the batch was submitted to, else this request's. */
const fileUrls = Effect.gen(function*() {
  const configured = Option.getOrUndefined(yield* Effect.orElseSucceed(configuredOrigin, () => Option.none<string>()))
  const here = yield* requestOrigin
  return (id: string, submitted: string | null) => `${configured ?? submitted ?? here}/v1/files/${id}`
})

const decodeSubmit = Schema.decodeUnknown(BatchSpec.SubmitBody, { errors: "first", onExcessProperty: "error" })

/** `Idempotency-Key` values accepted: 1 to 255 characters. */
const MAX_IDEMPOTENCY_KEY = 255

/** `POST /batch/submit` (header `Idempotency-Key`): 200 with the batch `queued`, its reservation charged. */
export const submit = {
  validate: (caller: Caller) =>
    Effect.gen(function*() {
      const request = yield* HttpServerRequest.HttpServerRequest
      const key = request.headers["idempotency-key"]
      if (key !== undefined && (key.length < 1 || key.length > MAX_IDEMPOTENCY_KEY)) {
        return yield* new Errors.InvalidRequest({ reason: "Invalid", field: "Idempotency-Key", detail: `must be 1 to ${MAX_IDEMPOTENCY_KEY} characters` })
      }
      const body = yield* Effect.mapError(decodeSubmit(caller.body ?? {}), (error: ParseResult.ParseError) => ScrapeRequest.fromParseError(error))
      return { ...free, input: { body, idempotencyKey: key as string | undefined }, tags: body.tags ?? [] }
    }),
  run: (caller: Caller, input: { readonly body: BatchSpec.SubmitBody; readonly idempotencyKey: string | undefined }) =>
    Effect.gen(function*() {
      const configured = Option.getOrUndefined(yield* Effect.orElseSucceed(configuredOrigin, () => Option.none<string>()))
      const made = yield* dieOnInfrastructure(Batches.submit(ownerOf(caller), input.body, {
        requestId: caller.requestId,
        idempotencyKey: input.idempotencyKey,
        fileOrigin: configured ?? (yield* requestOrigin)
      }))
      const { replayed, remaining, ...body } = made
      return {
        body,
        credits: 0,
        // A replay charged nothing now; a new batch's reservation was debited with it.
        ...(replayed || remaining === undefined ? {} : { charged: { credits: body.credits.reserved, remaining } })
      }
    })
}

const limit = QueryParams.integer.pipe(QueryParams.check((limit: number) => limit >= 1 && limit <= 100, "must be between 1 and 100"))
  .annotations({ description: "1 to 100, default 25" })
const cursor = QueryParams.string.pipe(QueryParams.check((cursor: string) => cursor.length >= 1 && cursor.length <= 500, "is not a cursor this API returned"))
  .annotations({ description: "next_cursor of the previous page" })

/** The six states of a batch. */
export const STATUSES = ["queued", "running", "cancelling", "completed", "cancelled", "failed"] as const

/** The query of `GET /batch/list`. */
export const ListQuery = Schema.Struct({
  cursor: QueryParams.optional(cursor),
  limit: QueryParams.optional(limit),
  q: QueryParams.optional(QueryParams.text(200).annotations({ description: "Matched against the batch id, the crawl source and tags" })),
  search_type: QueryParams.optional(QueryParams.oneOf("exact", "prefix").annotations({ description: "prefix (default) or exact" })),
  status: QueryParams.optional(QueryParams.oneOf(...STATUSES)),
  tags: QueryParams.optional(QueryParams.tags.annotations({ description: "Comma-separated; batches having any of them" }))
})
const decodeList = QueryParams.decode(ListQuery)

/** `GET /batch/list`: the organization's batches, newest first. */
export const list = {
  validate: (caller: Caller) =>
    Effect.map(decodeList(caller.query), (read) => ({
      ...free,
      input: { cursor: read.cursor, limit: read.limit ?? 25, q: read.q, searchType: read.search_type, status: read.status, tags: read.tags }
    })),
  run: (caller: Caller, filters: Batches.ListFilters) =>
    Effect.gen(function*() {
      const page = yield* dieOnInfrastructure(Batches.list(ownerOf(caller), filters, yield* fileUrls))
      return { body: { ...page }, credits: 0 }
    })
}

const noInput = (_caller: Caller) => Effect.succeed({ ...free, input: undefined })

/** `GET /batch/{id}`. */
export const get = (id: string) => ({
  validate: noInput,
  run: (caller: Caller) =>
    Effect.gen(function*() {
      const view = yield* dieOnInfrastructure(Batches.get(ownerOf(caller), id, yield* fileUrls))
      return { body: view, credits: 0 }
    })
})

/** The query of `GET /batch/{id}/results`. */
export const ResultsQuery = Schema.Struct({ cursor: QueryParams.optional(cursor), limit: QueryParams.optional(limit) })
const decodeResults = QueryParams.decode(ResultsQuery)

/** `GET /batch/{id}/results`: a page of a final batch's records. */
export const results = (id: string) => ({
  validate: (caller: Caller) => Effect.map(decodeResults(caller.query), (read) => ({ ...free, input: { cursor: read.cursor, limit: read.limit ?? 25 } })),
  run: (caller: Caller, page: { readonly cursor: string | undefined; readonly limit: number }) => Effect.map(dieOnInfrastructure(Batches.results(ownerOf(caller), id, page)), (body) => ({ body: { ...body }, credits: 0 }))
})

/** `POST /batch/{id}/cancel` (no body). */
export const cancel = (id: string) => ({
  validate: noInput,
  run: (caller: Caller) => Effect.map(dieOnInfrastructure(Batches.cancel(ownerOf(caller), id)), (body) => ({ body, credits: 0 }))
})

/** `DELETE /batch/{id}`. */
export const remove = (id: string) => ({
  validate: noInput,
  run: (caller: Caller) => Effect.map(dieOnInfrastructure(Batches.remove(ownerOf(caller), id)), (body) => ({ body, credits: 0 }))
})

const BATCH = /^\/v1\/batch\/([^/]+)(\/results|\/cancel)?$/

/** The handler of a batch route, or undefined when the path is not one (`/batch/list` before `/batch/{id}`). */
export const routeOf = (
  method: string,
  path: string
): Handler<any, CodedError, HttpServerRequest.HttpServerRequest, CodedError, Requirements> | undefined => {
  if (path === "/v1/batch/submit") return method === "POST" ? submit : undefined
  if (path === "/v1/batch/list") return method === "GET" ? list : undefined
  const m = BATCH.exec(path)
  if (m === null) return undefined
  const id = decodeURIComponent(m[1]!)
  if (m[2] === undefined) return method === "GET" ? get(id) : method === "DELETE" ? remove(id) : undefined
  if (m[2] === "/results") return method === "GET" ? results(id) : undefined
  return method === "POST" ? cancel(id) : undefined
}
