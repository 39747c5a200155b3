/**
 * The errors a scrape can end with. Each carries the spec's `error_code` (interface.md, Errors) so the HTTP layer can
 * map it to a status in one table, and says whether retrying the same request may succeed.
 *
 * @since 0.1.0
 */
import { Schema } from "effect"

/**
 * The `error_code`s core's errors carry (interface.md, Errors): a request that cannot be read, a site that cannot be
 * scraped, a deadline, content that cannot be converted. Codes raised elsewhere are declared by the package raising
 * them (auth, monitors, webhooks, http); `@sift/http` maps their union to statuses in one table.
 */
export const ErrorCode = Schema.Literal(
  "INPUT_VALIDATION_ERROR",
  "TIMEOUT_EXCEEDS_MAXIMUM",
  "TIMEOUT_TOO_SHORT_FOR_WAIT",
  "WEBSITE_ACCESS_ERROR",
  "WEBSITE_NOT_FOUND",
  "WEBSITE_BLOCKED",
  "SEARCH_UNAVAILABLE",
  "PDF_SKIPPED",
  "PDF_IMAGES_ONLY",
  "UNSUPPORTED_CONTENT",
  "CONTENT_TOO_LARGE",
  "REQUEST_TIMEOUT",
  "INTERNAL_ERROR"
)
/** @category models */
export type ErrorCode = typeof ErrorCode.Type

/**
 * The request itself is wrong: a field out of range, a format option without its format, an unknown member.
 * `field` names the offending member as a dotted path (`sharedParams.includeSelectors[3]`).
 *
 * @category errors
 */
export class InvalidRequest extends Schema.TaggedError<InvalidRequest>()("InvalidRequest", {
  reason: Schema.Literal("Invalid", "TimeoutExceedsMaximum", "TimeoutTooShortForWait"),
  field: Schema.optional(Schema.String),
  detail: Schema.String
}) {
  get errorCode(): ErrorCode {
    switch (this.reason) {
      case "Invalid":
        return "INPUT_VALIDATION_ERROR"
      case "TimeoutExceedsMaximum":
        return "TIMEOUT_EXCEEDS_MAXIMUM"
      case "TimeoutTooShortForWait":
        return "TIMEOUT_TOO_SHORT_FOR_WAIT"
    }
  }
  get retryable(): boolean {
    return false
  }
  override get message(): string {
    return this.field === undefined ? this.detail : `${this.field}: ${this.detail}`
  }
}

/**
 * The target site could not be scraped. `reason` says why; `status` is the target's HTTP status when it answered.
 *
 * - `NotFound`: the host does not resolve (`WEBSITE_NOT_FOUND`).
 * - `HttpStatus`: the target answered with a 4xx or 5xx.
 * - `Unreachable`: connection refused, reset, TLS failure.
 * - `Timeout`: the target did not answer within the fetch's own budget (not the request deadline).
 * - `PrivateAddress`: the address guard refused a loopback, private, link-local or metadata address.
 * - `TooManyRedirects`, `InvalidRedirect`: the redirect chain was too long or unusable.
 * - `TooLarge`: the body passed the download cap (`CONTENT_TOO_LARGE`).
 * - `Blocked`: a bot wall, CAPTCHA or login wall was detected (`WEBSITE_BLOCKED`).
 * - `Proxy`: the configured proxy failed or none is configured for the requested country.
 * - `SearchUnavailable`: a company name had to be searched and no search provider answered (`SEARCH_UNAVAILABLE`).
 *
 * @category errors
 */
export class WebsiteError extends Schema.TaggedError<WebsiteError>()("WebsiteError", {
  reason: Schema.Literal(
    "NotFound",
    "HttpStatus",
    "Unreachable",
    "Timeout",
    "PrivateAddress",
    "TooManyRedirects",
    "InvalidRedirect",
    "TooLarge",
    "Blocked",
    "Proxy",
    "SearchUnavailable"
  ),
  url: Schema.String,
  status: Schema.optional(Schema.Number),
  /** What the target's `Retry-After` asked for (ms), when it answered 429 or 503 with one. */
  retryAfterMs: Schema.optional(Schema.Number),
  detail: Schema.optional(Schema.String)
}) {
  get errorCode(): ErrorCode {
    switch (this.reason) {
      case "NotFound":
        return "WEBSITE_NOT_FOUND"
      case "TooLarge":
        return "CONTENT_TOO_LARGE"
      case "Blocked":
        return "WEBSITE_BLOCKED"
      case "SearchUnavailable":
        return "SEARCH_UNAVAILABLE"
      default:
        return "WEBSITE_ACCESS_ERROR"
    }
  }
  get retryable(): boolean {
    return this.reason === "Unreachable" || this.reason === "Timeout" || this.reason === "SearchUnavailable" ||
      (this.reason === "HttpStatus" && (this.status === 429 || (this.status ?? 0) >= 500))
  }
  override get message(): string {
    const detail = this.detail === undefined ? "" : `: ${this.detail}`
    switch (this.reason) {
      case "NotFound":
        return `The domain of ${this.url} does not resolve${detail}`
      case "HttpStatus":
        return `${this.url} answered with HTTP status ${this.status}${detail}`
      case "Unreachable":
        return `Could not connect to ${this.url}${detail}`
      case "Timeout":
        return `${this.url} did not answer in time${detail}`
      case "PrivateAddress":
        return `Refused to fetch ${this.url}: it resolves to a private, loopback, link-local or metadata address${detail}`
      case "TooManyRedirects":
        return `Too many redirects from ${this.url}${detail}`
      case "InvalidRedirect":
        return `Unusable redirect from ${this.url}${detail}`
      case "TooLarge":
        return `The content of ${this.url} exceeds the 20 MB download cap${detail}`
      case "Blocked":
        return `${this.url} is blocked by a bot wall, CAPTCHA or login wall${detail}`
      case "Proxy":
        return `Proxy failure for ${this.url}${detail}`
      case "SearchUnavailable":
        return `No search provider could resolve "${this.url}" to a website${detail}`
    }
  }
}

/**
 * The request's deadline passed with behavior `fail`, or with `return-partial` before any requested output was ready.
 *
 * @category errors
 */
export class RequestTimeout extends Schema.TaggedError<RequestTimeout>()("RequestTimeout", {
  milliseconds: Schema.Number,
  detail: Schema.optional(Schema.String)
}) {
  get errorCode(): ErrorCode {
    return "REQUEST_TIMEOUT"
  }
  get retryable(): boolean {
    return true
  }
  override get message(): string {
    return `The request did not complete within ${this.milliseconds} ms${this.detail === undefined ? "" : `: ${this.detail}`}`
  }
}

/**
 * The content could not be turned into the requested outputs: a PDF the caller asked not to parse, a scanned PDF
 * without OCR, a type Sift cannot convert, or a required capability (a browser for screenshots) that is not available.
 * `TooLarge`: the file decodes into more than Sift converts (an archive's inflated parts, pages, pixels), so a
 * decompression bomb is refused before it is expanded (`CONTENT_TOO_LARGE`).
 *
 * @category errors
 */
export class ContentError extends Schema.TaggedError<ContentError>()("ContentError", {
  reason: Schema.Literal("PdfSkipped", "PdfImagesOnly", "Unsupported", "Corrupt", "CapabilityMissing", "TooLarge"),
  detail: Schema.String
}) {
  get errorCode(): ErrorCode {
    switch (this.reason) {
      case "PdfSkipped":
        return "PDF_SKIPPED"
      case "PdfImagesOnly":
        return "PDF_IMAGES_ONLY"
      case "Unsupported":
        return "UNSUPPORTED_CONTENT"
      case "Corrupt":
        return "INPUT_VALIDATION_ERROR"
      case "CapabilityMissing":
        return "INTERNAL_ERROR"
      case "TooLarge":
        return "CONTENT_TOO_LARGE"
    }
  }
  get retryable(): boolean {
    return false
  }
  override get message(): string {
    return this.detail
  }
}

/** Any error a scrape can fail with. @category errors */
export type ScrapeError = InvalidRequest | WebsiteError | RequestTimeout | ContentError
