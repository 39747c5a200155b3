/**
 * What a caller may ask of a monitor (decisions §7): the create and update bodies, validated at the edge with
 * `effect/Schema` plus the cross-field rules (allowed target/detection pairs, schedule bounds, reserved schedule types,
 * pattern syntax), and the defaults the contract fixes. Errors are core's `InvalidRequest` naming the field, e.g.
 * `target.max_urls` or `schedule.frequency`.
 *
 * @since 0.1.0
 */
import { Errors } from "@sift/core"
import * as ContentFilter from "@sift/core/ContentFilter"
import { fromParseError } from "@sift/core/ScrapeRequest"
import { Effect, Either, ParseResult, Schema } from "effect"
import { sitemapPatternError } from "./ChangeDetection.js"
import { schemaError } from "./internal/monitors/extractSchema.js"

const invalid = (field: string, detail: string) => new Errors.InvalidRequest({ reason: "Invalid", field, detail })

const HttpUrl = Schema.String.pipe(
  Schema.maxLength(2048),
  Schema.filter((text) => {
    try {
      const url = new URL(text)
      return url.protocol === "http:" || url.protocol === "https:" || "must be an http or https URL"
    } catch {
      return "must be an absolute URL"
    }
  })
)
const Instructions = Schema.String.pipe(Schema.minLength(1), Schema.maxLength(2000))
const Selectors = Schema.Array(Schema.String.pipe(Schema.minLength(1), Schema.maxLength(2048))).pipe(Schema.maxItems(50))
const EXTRACT_PAGES_LIMIT = 25
const Patterns = Schema.Array(Schema.String.pipe(Schema.minLength(1), Schema.maxLength(256))).pipe(Schema.maxItems(50))

/** A page target. */
export const PageTarget = Schema.Struct({
  type: Schema.Literal("page"),
  url: HttpUrl,
  instructions: Schema.optional(Instructions),
  normalize_whitespace: Schema.optional(Schema.Boolean),
  include_selectors: Schema.optional(Selectors),
  exclude_selectors: Schema.optional(Selectors)
})

/** A sitemap target: `include`/`exclude` are RE2 patterns matched anywhere in the URL (a path such as `/blog/` works). */
export const SitemapTarget = Schema.Struct({
  type: Schema.Literal("sitemap"),
  url: HttpUrl,
  include: Schema.optional(Patterns),
  exclude: Schema.optional(Patterns),
  max_urls: Schema.optional(Schema.Int.pipe(Schema.between(1, 10_000)))
})

/** An extract target: the pages within `max_depth` links of `url` (at most `max_pages`), read for structured data. */
export const ExtractTarget = Schema.Struct({
  type: Schema.Literal("extract"),
  url: HttpUrl,
  instructions: Instructions,
  schema: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.Unknown })),
  max_pages: Schema.optional(Schema.Int.pipe(Schema.between(1, EXTRACT_PAGES_LIMIT))),
  max_depth: Schema.optional(Schema.Int.pipe(Schema.between(0, 3))),
  follow_subdomains: Schema.optional(Schema.Boolean)
})

/** Pages an extract target reads by default, and at most. */
export const EXTRACT_DEFAULTS = { maxPages: 5, maxDepth: 1, maxPagesLimit: EXTRACT_PAGES_LIMIT } as const

/** Any target. */
export const Target = Schema.Union(PageTarget, SitemapTarget, ExtractTarget)
export type Target = typeof Target.Type

/** How changes are detected. */
export const ChangeDetection = Schema.Union(
  Schema.Struct({ type: Schema.Literal("exact") }),
  Schema.Struct({ type: Schema.Literal("semantic"), confidence_threshold: Schema.optional(Schema.Number.pipe(Schema.between(0, 1))) })
)
export type ChangeDetection = typeof ChangeDetection.Type

/** The default `confidence_threshold` of semantic detection. */
export const DEFAULT_CONFIDENCE_THRESHOLD = 0.5

/** The schedule (only `interval`; `cron` and `exact_time` are reserved). */
export const Schedule = Schema.Struct({
  type: Schema.Literal("interval"),
  frequency: Schema.Int.pipe(Schema.positive()),
  unit: Schema.Literal("minutes", "hours", "days")
})
export type Schedule = typeof Schedule.Type

/** The default schedule: once a day. */
export const DEFAULT_SCHEDULE: Schedule = { type: "interval", frequency: 1, unit: "days" }

const UNIT_MS = { minutes: 60_000, hours: 3_600_000, days: 86_400_000 } as const
/** Shortest and longest interval. */
export const MIN_INTERVAL_MS = 10 * 60_000
export const MAX_INTERVAL_MS = 365 * 86_400_000

/** A schedule's interval in milliseconds. */
export const intervalMs = (schedule: Schedule): number => schedule.frequency * UNIT_MS[schedule.unit]

const EventName = Schema.Literal("change.detected", "run.completed")
const MAX_RETRY_TOTAL_SECONDS = 72 * 3600

/** The webhook of a request (`secret` is never set by clients). */
export const WebhookInput = Schema.Struct({
  url: HttpUrl,
  events: Schema.optional(Schema.Array(EventName).pipe(Schema.minItems(1), Schema.maxItems(2))),
  retry: Schema.optional(Schema.Struct({
    delays_seconds: Schema.optional(Schema.Array(Schema.Int.pipe(Schema.between(1, MAX_RETRY_TOTAL_SECONDS))).pipe(Schema.maxItems(20)))
  }))
})
export type WebhookInput = typeof WebhookInput.Type

const Tags = Schema.Array(Schema.String.pipe(Schema.minLength(1), Schema.maxLength(50))).pipe(Schema.maxItems(20))
const Name = Schema.String.pipe(Schema.minLength(1), Schema.maxLength(200))

const strict = { onExcessProperty: "error", errors: "first" } as const

/** The body of `POST /monitors`. */
export const CreateBody = Schema.Struct({
  name: Name,
  mode: Schema.optional(Schema.Literal("web")),
  target: Target,
  change_detection: Schema.optional(ChangeDetection),
  schedule: Schema.optional(Schedule),
  webhook: Schema.optional(Schema.NullOr(WebhookInput)),
  tags: Schema.optional(Tags)
})

/** The body of `PATCH /monitors/{id}`. */
export const UpdateBody = Schema.Struct({
  name: Schema.optional(Name),
  target: Schema.optional(Target),
  change_detection: Schema.optional(ChangeDetection),
  schedule: Schema.optional(Schedule),
  webhook: Schema.optional(Schema.NullOr(WebhookInput)),
  status: Schema.optional(Schema.Literal("active", "paused")),
  tags: Schema.optional(Tags)
})

/** A validated create request, defaults applied. */
export interface NewMonitor {
  readonly name: string
  readonly target: Target
  readonly changeDetection: ChangeDetection
  readonly schedule: Schedule
  readonly webhook: WebhookInput | null
  readonly tags: ReadonlyArray<string>
}

/** A validated update: only what the caller sent. */
export interface MonitorUpdate {
  readonly name?: string | undefined
  readonly target?: Target | undefined
  readonly changeDetection?: ChangeDetection | undefined
  readonly schedule?: Schedule | undefined
  /** `null` removes the webhook; undefined keeps it. */
  readonly webhook?: WebhookInput | null | undefined
  readonly status?: "active" | "paused" | undefined
  readonly tags?: ReadonlyArray<string> | undefined
}

const reservedSchedule = (body: unknown): Errors.InvalidRequest | undefined => {
  const schedule = (body as { schedule?: { type?: unknown } } | null)?.schedule
  const type = schedule?.type
  return type === "cron" || type === "exact_time"
    ? invalid("schedule.type", `"${type}" schedules are reserved and not supported yet; use {"type":"interval","frequency":N,"unit":"minutes"|"hours"|"days"}`)
    : undefined
}

const checkTarget = (target: Target): Errors.InvalidRequest | undefined => {
  if (target.type === "page") {
    for (const name of ["include_selectors", "exclude_selectors"] as const) {
      const error = ContentFilter.validateSelectors(target[name] ?? [], `target.${name}`)
      if (error !== undefined) return error
    }
  }
  if (target.type === "sitemap") {
    for (const name of ["include", "exclude"] as const) {
      for (const [i, pattern] of (target[name] ?? []).entries()) {
        const why = sitemapPatternError(pattern)
        if (why !== undefined) return invalid(`target.${name}[${i}]`, why)
      }
    }
  }
  if (target.type === "extract" && target.schema !== undefined) {
    // The whole schema, compiled by ajv: a mistake anywhere in it is refused here, named by its place.
    const why = schemaError(target.schema)
    if (why !== undefined) return invalid(`target.schema${why.path}`, why.detail)
  }
  return undefined
}

const checkPair = (target: Target, detection: ChangeDetection): Errors.InvalidRequest | undefined => {
  if (detection.type === "exact" && target.type === "extract") {
    return invalid("change_detection.type", "extract targets are watched with semantic detection only")
  }
  if (detection.type === "semantic" && target.type === "sitemap") {
    return invalid("change_detection.type", "sitemap targets are watched with exact detection only")
  }
  if (detection.type === "semantic" && target.type === "page" && target.instructions === undefined) {
    return invalid("target.instructions", "semantic detection of a page needs instructions saying which changes matter")
  }
  return undefined
}

const checkSchedule = (schedule: Schedule): Errors.InvalidRequest | undefined => {
  const ms = intervalMs(schedule)
  return ms < MIN_INTERVAL_MS || ms > MAX_INTERVAL_MS
    ? invalid("schedule.frequency", `the interval (frequency × unit) must be between 10 minutes and 1 year, got ${schedule.frequency} ${schedule.unit}`)
    : undefined
}

const checkWebhook = (webhook: WebhookInput | null | undefined): Errors.InvalidRequest | undefined => {
  const delays = webhook?.retry?.delays_seconds
  if (delays !== undefined && delays.reduce((a, b) => a + b, 0) > MAX_RETRY_TOTAL_SECONDS) {
    return invalid("webhook.retry.delays_seconds", "the retry waits may total at most 72 hours")
  }
  return undefined
}

/** The default detection of a target (decisions §7): semantic for extract targets and pages with instructions. */
export const defaultDetection = (target: Target): ChangeDetection =>
  target.type === "extract" || (target.type === "page" && target.instructions !== undefined)
    ? { type: "semantic" }
    : { type: "exact" }

/** Tags with duplicates removed, first spelling kept. */
export const dedupeTags = (tags: ReadonlyArray<string>): ReadonlyArray<string> => [...new Set(tags)]

/** A webhook with its events de-duplicated. */
const cleanWebhook = (webhook: WebhookInput | null | undefined) =>
  webhook === undefined || webhook === null ? webhook : { ...webhook, ...(webhook.events === undefined ? {} : { events: [...new Set(webhook.events)] }) }

const decodeWith = <A, I>(schema: Schema.Schema<A, I>, body: unknown): Either.Either<A, Errors.InvalidRequest> =>
  Schema.decodeUnknownEither(schema, strict)(body).pipe(Either.mapLeft((error: ParseResult.ParseError) => fromParseError(error)))

const firstError = (...errors: ReadonlyArray<Errors.InvalidRequest | undefined>) => errors.find((e) => e !== undefined)

/** Validates a `POST /monitors` body and applies the defaults. */
export const decodeCreate = (body: unknown): Effect.Effect<NewMonitor, Errors.InvalidRequest> =>
  Effect.suspend(() => {
    const reserved = reservedSchedule(body)
    if (reserved !== undefined) return Effect.fail(reserved)
    const decoded = decodeWith(CreateBody, body)
    if (Either.isLeft(decoded)) return Effect.fail(decoded.left)
    const input = decoded.right
    const changeDetection = input.change_detection ?? defaultDetection(input.target)
    const schedule = input.schedule ?? DEFAULT_SCHEDULE
    const error = firstError(checkTarget(input.target), checkPair(input.target, changeDetection), checkSchedule(schedule), checkWebhook(input.webhook))
    if (error !== undefined) return Effect.fail(error)
    return Effect.succeed({
      name: input.name,
      target: input.target,
      changeDetection,
      schedule,
      webhook: cleanWebhook(input.webhook) ?? null,
      tags: dedupeTags(input.tags ?? [])
    })
  })

/**
 * Validates a `PATCH /monitors/{id}` body against the monitor's current target and detection (a new target without a
 * detection keeps the current one when allowed, else takes the new target's default).
 */
export const decodeUpdate = (
  body: unknown,
  current: { readonly target: Target; readonly changeDetection: ChangeDetection }
): Effect.Effect<MonitorUpdate, Errors.InvalidRequest> =>
  Effect.suspend(() => {
    const reserved = reservedSchedule(body)
    if (reserved !== undefined) return Effect.fail(reserved)
    const decoded = decodeWith(UpdateBody, body)
    if (Either.isLeft(decoded)) return Effect.fail(decoded.left)
    const input = decoded.right
    const target = input.target ?? current.target
    let changeDetection = input.change_detection
    if (changeDetection === undefined && input.target !== undefined && checkPair(target, current.changeDetection) !== undefined) {
      changeDetection = defaultDetection(target)
    }
    const error = firstError(
      input.target === undefined ? undefined : checkTarget(input.target),
      checkPair(target, changeDetection ?? current.changeDetection),
      input.schedule === undefined ? undefined : checkSchedule(input.schedule),
      checkWebhook(input.webhook)
    )
    if (error !== undefined) return Effect.fail(error)
    return Effect.succeed({
      name: input.name,
      target: input.target,
      changeDetection,
      schedule: input.schedule,
      webhook: cleanWebhook(input.webhook),
      status: input.status,
      tags: input.tags === undefined ? undefined : dedupeTags(input.tags)
    })
  })
