/**
 * Query members shared by the GET endpoints that are not scrapes (maps, NAICS): `timeoutOpts`, `zdr`, `tags` and
 * forwarded `headers`, validated with the same schemas as the scrape body.
 */
import { Errors, ScrapeRequest } from "@sift/core"
import { Either, Schema } from "effect"
import * as QueryParams from "../QueryParams.js"

const invalid = (field: string, detail: string) => new Errors.InvalidRequest({ reason: "Invalid", field, detail })

/** The deadline of a request (`timeoutOpts`, deep-object or JSON); at most 300,000 ms. */
export const timeoutOf = (query: QueryParams.Query): ScrapeRequest.TimeoutOpts | undefined => {
  const opts = QueryParams.asObject(query, "timeoutOpts")
  if (opts === undefined) return undefined
  const raw = opts.milliseconds
  const milliseconds = typeof raw === "string" && /^-?\d+$/.test(raw) ? Number(raw) : raw
  const decoded = Schema.decodeUnknownEither(ScrapeRequest.TimeoutOpts, { onExcessProperty: "error" })({ ...opts, milliseconds })
  if (Either.isLeft(decoded)) throw ScrapeRequest.fromParseError(decoded.left, "timeoutOpts")
  if (decoded.right.milliseconds > ScrapeRequest.MAX_TIMEOUT_MS) {
    throw new Errors.InvalidRequest({
      reason: "TimeoutExceedsMaximum",
      field: "timeoutOpts.milliseconds",
      detail: `must be at most ${ScrapeRequest.MAX_TIMEOUT_MS}`
    })
  }
  return decoded.right
}

/** `zdr=enabled` (default disabled). */
export const zdrOf = (query: QueryParams.Query): boolean => {
  const zdr = QueryParams.asString(query, "zdr")
  if (zdr !== undefined && zdr !== "enabled" && zdr !== "disabled") throw invalid("zdr", "must be enabled or disabled")
  return zdr === "enabled"
}

const isTags = Schema.is(ScrapeRequest.Tags)

/** Comma-separated `tags`: at most 20 of 1 to 50 characters. */
export const tagsOf = (query: QueryParams.Query): ReadonlyArray<string> => {
  const tags = QueryParams.asList(query, "tags", { commaSeparated: true }) ?? []
  if (!isTags(tags)) throw invalid("tags", "at most 20 tags of 1 to 50 characters")
  return tags
}

/** Forwarded `headers` (`headers[Name]=value` or JSON): values at most 8192 characters without CR or LF. */
export const headersOf = (query: QueryParams.Query): Readonly<Record<string, string>> | undefined => {
  const headers = QueryParams.asObject(query, "headers")
  if (headers === undefined) return undefined
  const decoded = Schema.decodeUnknownEither(ScrapeRequest.ForwardedHeaders)(headers)
  if (Either.isLeft(decoded)) throw ScrapeRequest.fromParseError(decoded.left, "headers")
  return decoded.right
}

/** Runs a query reader, turning anything it throws into an `InvalidRequest`. */
export const read = <A>(build: () => A): Either.Either<A, Errors.InvalidRequest> => {
  try {
    return Either.right(build())
  } catch (error) {
    return Either.left(error instanceof Errors.InvalidRequest ? error : invalid("query", String(error)))
  }
}
