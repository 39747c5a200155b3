/**
 * What a scrape asks for: the body of `POST /web/scrape` (decisions §2), validated at the edge with every limit of the
 * contract. `decode` turns untrusted input into a `ScrapeRequest` or an `InvalidRequest` naming the offending field.
 *
 * @since 0.1.0
 */
import { Effect, Either, ParseResult, Schema } from "effect"
import * as Actions from "./Actions.js"
import * as ContentFilter from "./ContentFilter.js"
import { InvalidRequest } from "./Errors.js"
import { validateBrowserSelector } from "./internal/page/browserSelector.js"
import * as ParseRules from "./ParseRules.js"

/** Upper bound of every timeout in the contract (milliseconds). */
export const MAX_TIMEOUT_MS = 300_000
/** Default total deadline of a scrape (milliseconds). */
export const DEFAULT_TIMEOUT_MS = 60_000
/** Default and maximum cache age (milliseconds). */
export const DEFAULT_MAX_AGE_MS = 86_400_000
export const MAX_MAX_AGE_MS = 2_592_000_000
/** Fixed waits must leave at least this much of the deadline for loading and output (issue: timeout ≥ wait + 10 s). */
export const WAIT_HEADROOM_MS = 10_000

/** An absolute http(s) URL. */
export const HttpUrl = Schema.String.pipe(
  Schema.filter((s) => {
    if (!/^https?:\/\//i.test(s)) return "must begin with http:// or https://"
    try {
      new URL(s)
      return true
    } catch {
      return "is not a valid URL"
    }
  }, { identifier: "HttpUrl" })
)

/** A list of CSS selectors: at most 50, each 1 to 2048 characters. */
export const SelectorList = Schema.Array(Schema.String.pipe(Schema.minLength(1), Schema.maxLength(2048))).pipe(
  Schema.maxItems(50)
)

/** Request tags: at most 20, each 1 to 50 characters. */
export const Tags = Schema.Array(Schema.String.pipe(Schema.minLength(1), Schema.maxLength(50))).pipe(
  Schema.maxItems(20)
)

/** Headers forwarded to the target: values at most 8192 characters, no CR or LF. */
export const ForwardedHeaders = Schema.Record({
  key: Schema.String.pipe(Schema.pattern(/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/, { message: () => "is not a valid header name" })),
  value: Schema.String.pipe(
    Schema.maxLength(8192),
    Schema.filter((v) => !/[\r\n]/.test(v) || "must not contain CR or LF")
  )
})

/** The timeout options object: `milliseconds` required (≤ 300000 is checked separately for its own error code). */
export const TimeoutOpts = Schema.Struct({
  milliseconds: Schema.Int.pipe(Schema.greaterThanOrEqualTo(1)),
  behavior: Schema.optional(Schema.Literal("fail", "return-partial"))
})
export type TimeoutOpts = typeof TimeoutOpts.Type

/** Zero data retention switch. */
export const Zdr = Schema.Literal("enabled", "disabled")

/** Cache age in milliseconds, 0 to 30 days. */
export const MaxAgeMs = Schema.Int.pipe(Schema.between(0, MAX_MAX_AGE_MS))

const Millis = (max: number) => Schema.Int.pipe(Schema.between(0, max))

/** Browser actions of the POST body (decisions §4, discriminator `type`), run in order after load. */
export const Action = Schema.Union(
  Schema.Struct({ type: Schema.Literal("wait"), milliseconds: Millis(30_000) }),
  Schema.Struct({ type: Schema.Literal("perform"), action: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(1000)) }),
  Schema.Struct({
    type: Schema.Literal("scroll"),
    amount: Schema.optional(Schema.Union(Schema.Int.pipe(Schema.between(1, 1_000_000)), Schema.Literal("viewport", "max"))),
    direction: Schema.optional(Schema.Literal("up", "down", "left", "right")),
    maxScrolls: Schema.optional(Schema.Int.pipe(Schema.between(1, 100))),
    selector: Schema.optional(Schema.String.pipe(Schema.minLength(1), Schema.maxLength(2048)))
  }),
  Schema.Struct({ type: Schema.Literal("waitFor"), selector: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(2048)) })
)
export type Action = typeof Action.Type

/** Browser and content settings shared by every format. */
export const SharedParams = Schema.Struct({
  actions: Schema.optional(Schema.Array(Action).pipe(Schema.maxItems(5))),
  country: Schema.optional(Schema.String.pipe(Schema.pattern(/^[A-Za-z]{2}$/, { message: () => "must be a two-letter country code" }))),
  dismissCookies: Schema.optional(Schema.Boolean),
  dismissPopups: Schema.optional(Schema.Boolean),
  includeSelectors: Schema.optional(SelectorList),
  excludeSelectors: Schema.optional(SelectorList),
  headers: Schema.optional(ForwardedHeaders),
  includeFrames: Schema.optional(Schema.Boolean),
  mainContentOnly: Schema.optional(Schema.Boolean),
  parsers: Schema.optional(Schema.Struct({
    pdf: Schema.optional(Schema.Struct({
      startPage: Schema.optional(Schema.Int.pipe(Schema.greaterThanOrEqualTo(1))),
      endPage: Schema.optional(Schema.Int.pipe(Schema.greaterThanOrEqualTo(1))),
      ocr: Schema.optional(Schema.Literal("off", "auto"))
    }))
  })),
  settleAnimations: Schema.optional(Schema.Boolean),
  theme: Schema.optional(Schema.Literal("light", "dark")),
  viewport: Schema.optional(Schema.Struct({
    width: Schema.optional(Schema.Int.pipe(Schema.between(100, 7680))),
    height: Schema.optional(Schema.Int.pipe(Schema.between(100, 10_000)))
  })),
  waitFor: Schema.optional(Schema.Union(Millis(30_000), Schema.String.pipe(Schema.minLength(1), Schema.maxLength(2048))))
})
export type SharedParams = typeof SharedParams.Type

/** Options of the Markdown output. */
export const MarkdownParams = Schema.Struct({
  includeLinks: Schema.optional(Schema.Boolean),
  includeImages: Schema.optional(Schema.Boolean),
  inlineImages: Schema.optional(Schema.Literal("placeholder", "preserve"))
})
export type MarkdownParams = typeof MarkdownParams.Type

/** Options of the screenshot output. */
export const ScreenshotParams = Schema.Struct({
  format: Schema.optional(Schema.Literal("png", "jpeg", "webp")),
  area: Schema.optional(Schema.Union(
    Schema.Literal("viewport", "fullPage"),
    Schema.Struct({ selector: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(2048)) }),
    Schema.Struct({
      x: Schema.Int.pipe(Schema.greaterThanOrEqualTo(0)),
      y: Schema.Int.pipe(Schema.greaterThanOrEqualTo(0)),
      width: Schema.Int.pipe(Schema.greaterThanOrEqualTo(1)),
      height: Schema.Int.pipe(Schema.greaterThanOrEqualTo(1))
    })
  ))
})
export type ScreenshotParams = typeof ScreenshotParams.Type

/** Options of the images output. */
export const ImageParams = Schema.Struct({
  dedupe: Schema.optional(Schema.Literal("none", "visual")),
  enrich: Schema.optional(Schema.Array(Schema.Literal("dimensions", "classification", "file")).pipe(Schema.maxItems(3)))
})
export type ImageParams = typeof ImageParams.Type

/** Which outputs to produce; omitted formats are false. */
export const Formats = Schema.Struct({
  html: Schema.optional(Schema.Boolean),
  markdown: Schema.optional(Schema.Boolean),
  screenshot: Schema.optional(Schema.Boolean),
  images: Schema.optional(Schema.Boolean),
  bytes: Schema.optional(Schema.Boolean),
  parse: Schema.optional(Schema.Boolean)
})
export type Formats = typeof Formats.Type

/** The names of the six outputs. */
export type FormatName = keyof Formats
export const formatNames: ReadonlyArray<FormatName> = ["html", "markdown", "screenshot", "images", "bytes", "parse"]

/** A scrape request: the body of `POST /web/scrape`. */
export class ScrapeRequest extends Schema.Class<ScrapeRequest>("ScrapeRequest")({
  url: HttpUrl,
  formats: Formats,
  sharedParams: Schema.optional(SharedParams),
  markdownParams: Schema.optional(MarkdownParams),
  screenshotParams: Schema.optional(ScreenshotParams),
  imageParams: Schema.optional(ImageParams),
  parseParams: Schema.optional(ParseRules.ParseParams),
  maxAgeMs: Schema.optional(MaxAgeMs),
  timeoutOpts: Schema.optional(TimeoutOpts),
  zdr: Schema.optional(Zdr),
  tags: Schema.optional(Tags)
}) {
  /** The total deadline of this request in milliseconds. */
  get timeoutMs(): number {
    return this.timeoutOpts?.milliseconds ?? DEFAULT_TIMEOUT_MS
  }
  /** What to do when the deadline passes. */
  get timeoutBehavior(): "fail" | "return-partial" {
    return this.timeoutOpts?.behavior ?? "fail"
  }
  /** Whether the named output was asked for. */
  wants(format: FormatName): boolean {
    return this.formats[format] === true
  }
}

/** The plain-object form a caller writes (what `decode` accepts). */
export type ScrapeRequestInput = typeof ScrapeRequest.Encoded

const decodeSchema = Schema.decodeUnknown(ScrapeRequest, { onExcessProperty: "error", errors: "first" })

/** Renders a Schema path as `a.b[2].c`. */
export const formatPath = (path: ReadonlyArray<PropertyKey>): string =>
  path.reduce<string>((acc, key) => typeof key === "number" ? `${acc}[${key}]` : acc === "" ? String(key) : `${acc}.${String(key)}`, "")

/** Turns a Schema parse error into an `InvalidRequest` naming the first offending field. */
export const fromParseError = (error: ParseResult.ParseError, prefix = ""): InvalidRequest => {
  const [issue] = ParseResult.ArrayFormatter.formatErrorSync(error)
  const field = formatPath([...(prefix === "" ? [] : [prefix]), ...(issue?.path ?? [])])
  const detail = issue === undefined
    ? "invalid value"
    : issue._tag === "Unexpected"
    ? "is not a known member"
    : issue._tag === "Missing"
    ? "is required"
    : issue.message
  return new InvalidRequest({ reason: "Invalid", field: field === "" ? undefined : field, detail })
}

const invalid = (field: string, detail: string) => new InvalidRequest({ reason: "Invalid", field, detail })

/** Checks that need several fields at once, after the shape is known to be right. */
const crossCheck = (request: ScrapeRequest): Effect.Effect<ScrapeRequest, InvalidRequest> => {
  const { formats } = request
  if (!formatNames.some((name) => formats[name] === true)) {
    return Effect.fail(invalid("formats", "enable at least one of html, markdown, screenshot, images, bytes, parse"))
  }
  const optionFor: ReadonlyArray<readonly [keyof ScrapeRequest, FormatName]> = [
    ["markdownParams", "markdown"],
    ["screenshotParams", "screenshot"],
    ["imageParams", "images"],
    ["parseParams", "parse"]
  ]
  for (const [option, format] of optionFor) {
    if (request[option] !== undefined && formats[format] !== true) {
      return Effect.fail(invalid(option, `requires formats.${format} to be true`))
    }
  }
  if (formats.parse === true && request.parseParams === undefined) {
    return Effect.fail(invalid("parseParams", "is required when formats.parse is true"))
  }
  const shared = request.sharedParams
  for (const name of ["includeSelectors", "excludeSelectors"] as const) {
    const error = ContentFilter.validateSelectors(shared?.[name] ?? [], `sharedParams.${name}`)
    if (error !== undefined) return Effect.fail(error)
  }
  const browserSelector = browserSelectorProblem(request)
  if (browserSelector !== undefined) return Effect.fail(browserSelector)
  for (const [name, rule] of Object.entries(request.parseParams?.rules ?? {})) {
    const problem = ParseRules.validateSelector(typeof rule === "string" ? rule : rule.selector)
    if (problem !== undefined) return Effect.fail(invalid(`parseParams.rules.${name}`, problem))
  }
  const pdf = shared?.parsers?.pdf
  if (pdf?.startPage !== undefined && pdf.endPage !== undefined && pdf.endPage < pdf.startPage) {
    return Effect.fail(invalid("sharedParams.parsers.pdf.endPage", "must not be before startPage"))
  }
  const timeout = request.timeoutOpts?.milliseconds
  if (timeout !== undefined && timeout > MAX_TIMEOUT_MS) {
    return Effect.fail(new InvalidRequest({
      reason: "TimeoutExceedsMaximum",
      field: "timeoutOpts.milliseconds",
      detail: `${timeout} exceeds the maximum of ${MAX_TIMEOUT_MS} ms`
    }))
  }
  const fixedWait = fixedWaitMs(request)
  if (fixedWait > 0 && request.timeoutMs < fixedWait + WAIT_HEADROOM_MS) {
    return Effect.fail(new InvalidRequest({
      reason: "TimeoutTooShortForWait",
      field: "timeoutOpts.milliseconds",
      detail: `a timeout of ${request.timeoutMs} ms cannot hold ${fixedWait} ms of fixed waits; ` +
        `it must be at least the waits + ${WAIT_HEADROOM_MS} ms (${fixedWait + WAIT_HEADROOM_MS} ms)`
    }))
  }
  return Effect.succeed(request)
}

/**
 * The first selector the browser would be given (`waitFor`, an action's selector or CSS target, the screenshot area's)
 * that it cannot use, as the request's error naming its field. Checked here so that a bad selector is a 400, not a
 * browser error taken for a site that could not be loaded.
 */
const browserSelectorProblem = (request: ScrapeRequest): InvalidRequest | undefined => {
  const check = (field: string, selector: string) => {
    const problem = validateBrowserSelector(selector)
    return problem === undefined ? undefined : invalid(field, `invalid CSS selector: ${problem}`)
  }
  const shared = request.sharedParams
  if (typeof shared?.waitFor === "string") {
    const problem = check("sharedParams.waitFor", shared.waitFor)
    if (problem !== undefined) return problem
  }
  for (const [index, action] of (shared?.actions ?? []).entries()) {
    const field = `sharedParams.actions[${index}]`
    const problem = action.type === "waitFor" || (action.type === "scroll" && action.selector !== undefined)
      ? check(`${field}.selector`, action.selector!)
      : action.type === "perform"
      ? Either.match(Actions.parse(action.action), {
        // The grammar's own mistakes stay the action's outcome (`failed`, with the reason); only its CSS is checked here.
        onLeft: () => undefined,
        onRight: (instruction) =>
          "target" in instruction && instruction.target.by === "css" ? check(`${field}.action`, instruction.target.selector) : undefined
      })
      : undefined
    if (problem !== undefined) return problem
  }
  const area = request.screenshotParams?.area
  return typeof area === "object" && "selector" in area ? check("screenshotParams.area.selector", area.selector) : undefined
}

/** The fixed waits a request asks for: `waitFor` in milliseconds plus every `wait` action. */
export const fixedWaitMs = (request: ScrapeRequest): number => {
  const waitFor = request.sharedParams?.waitFor
  const actions = request.sharedParams?.actions ?? []
  return (typeof waitFor === "number" ? waitFor : 0) +
    actions.reduce((sum, action) => sum + (action.type === "wait" ? action.milliseconds : 0), 0)
}

/** Validates untrusted input (a parsed JSON body or a plain object) into a `ScrapeRequest`. */
export const decode = (input: unknown): Effect.Effect<ScrapeRequest, InvalidRequest> =>
  decodeSchema(input).pipe(
    Effect.mapError((error) => fromParseError(error)),
    Effect.flatMap(crossCheck)
  )
