/**
 * Query members shared by the GET endpoints that are not scrapes (maps, NAICS): `timeoutOpts`, `zdr`, `tags` and
 * forwarded `headers`, checked by the same schemas as the scrape body.
 */
import { Errors, ScrapeRequest } from "@sift/core"
import { Either } from "effect"
import * as QueryParams from "../QueryParams.js"

/** Forwarded `headers` (`headers[Name]=value` or JSON): values at most 8192 characters without CR or LF. */
export const headers = QueryParams.reading(ScrapeRequest.ForwardedHeaders, QueryParams.readObject)

/** The deadline of a request: `timeoutOpts` at most 300,000 ms (`TIMEOUT_EXCEEDS_MAXIMUM` beyond). */
export const deadline = (timeout: ScrapeRequest.TimeoutOpts | undefined): Either.Either<ScrapeRequest.TimeoutOpts | undefined, Errors.InvalidRequest> =>
  timeout !== undefined && timeout.milliseconds > ScrapeRequest.MAX_TIMEOUT_MS
    ? Either.left(new Errors.InvalidRequest({
      reason: "TimeoutExceedsMaximum",
      field: "timeoutOpts.milliseconds",
      detail: `must be at most ${ScrapeRequest.MAX_TIMEOUT_MS}`
    }))
    : Either.right(timeout)
