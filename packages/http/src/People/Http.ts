/**
 * `POST /people/enrich` (wave2 §13): the person the clues describe, read from the company's own site (team, about and
 * leadership pages) and the personal sites named in `social_urls`, scored 0–100 by core `People.score`. Paid plans
 * only (403 `PAID_PLAN_REQUIRED`); free and disposable email addresses are 422 (`FREE_EMAIL_DETECTED`,
 * `DISPOSABLE_EMAIL_DETECTED`), both before any credit is held. Credits (§21.1, §21.6): 20 for a candidate;
 * `not_found` is a 200 and free.
 *
 * @since 0.1.0
 */
import { Errors, ScrapeRequest } from "@sift/core"
import * as People from "@sift/core/People"
import { Duration, Effect, Either, type ParseResult, Schema } from "effect"
import { emailDomain } from "../Brand/Http.js"
import type { ApiFailure } from "../ErrorMapping.js"
import * as CommonQuery from "../internal/commonQuery.js"
import type { Handler } from "../RequestPipeline.js"

const Text = Schema.String.pipe(Schema.maxLength(200))
const Domain = Schema.String.pipe(Schema.maxLength(253))

/** The body of `POST /people/enrich`: additive identity clues. */
export const PeopleEnrichBody = Schema.Struct({
  company: Schema.optional(Schema.Struct({ domain: Schema.optional(Domain), name: Schema.optional(Text) })),
  education: Schema.optional(Schema.Array(Schema.Struct({
    degree: Schema.optional(Text),
    field_of_study: Schema.optional(Text),
    graduation_year: Schema.optional(Schema.Number),
    institution: Schema.optional(Schema.Struct({ domain: Schema.optional(Domain), name: Schema.optional(Text) }))
  })).pipe(Schema.maxItems(20))),
  email: Schema.optional(Schema.String.pipe(Schema.maxLength(254))),
  location: Schema.optional(Schema.Struct({ city: Schema.optional(Text), country: Schema.optional(Text), region: Schema.optional(Text) })),
  name: Schema.optional(Schema.Struct({ first: Schema.optional(Text), last: Schema.optional(Text) })),
  social_urls: Schema.optional(Schema.Array(Schema.String.pipe(Schema.maxLength(2048), Schema.pattern(/^https?:\/\/\S+$/i, { message: () => "must be an http(s) URL" }))).pipe(Schema.maxItems(20))),
  tags: Schema.optional(ScrapeRequest.Tags),
  timeoutOpts: Schema.optional(ScrapeRequest.TimeoutOpts),
  zdr: Schema.optional(ScrapeRequest.Zdr)
}).annotations({ description: "The best person candidate for the clues, from the company's own pages and personal sites (20 credits; not_found free)" })

const decode = Schema.decodeUnknown(PeopleEnrichBody, { onExcessProperty: "error", errors: "first" })

/** Credits of a candidate. */
export const CREDITS = 20
const DEFAULT_TIMEOUT_MS = 60_000

const invalid = (field: string, detail: string) => new Errors.InvalidRequest({ reason: "Invalid", field, detail })

const domainOf = (value: string): string | undefined => {
  try {
    const host = new URL(/^https?:\/\//i.test(value.trim()) ? value.trim() : `http://${value.trim()}`).hostname.toLowerCase().replace(/^www\./, "")
    return /^[a-z0-9-]+(\.[a-z0-9-]+)+$/.test(host) ? host : undefined
  } catch {
    return undefined
  }
}

interface Input {
  readonly clues: People.Clues
  readonly companyDomain: string | undefined
  readonly timeoutMs: number
  readonly behavior: "fail" | "return-partial"
}

const nonEmpty = (text: string | undefined) => text !== undefined && text.trim() !== ""

/** `POST /people/enrich`: 20 credits for a candidate, 0 for `not_found`. */
export const enrich: Handler<Input, Errors.InvalidRequest | ApiFailure, never, Errors.RequestTimeout, People.PeopleSource> = {
  validate: (caller) =>
    Effect.flatMap(
      Effect.mapError(decode(caller.body), (error: ParseResult.ParseError) => ScrapeRequest.fromParseError(error)),
      (body) => {
        const hasClue = nonEmpty(body.email) || nonEmpty(body.name?.first) || nonEmpty(body.name?.last) || (body.social_urls?.length ?? 0) > 0
        if (!hasClue) return Effect.fail(invalid("name", "give at least one of name, email or social_urls"))
        let companyDomain: string | undefined
        if (nonEmpty(body.company?.domain)) {
          companyDomain = domainOf(body.company!.domain!)
          if (companyDomain === undefined) return Effect.fail(invalid("company.domain", "must be a domain such as example.com"))
        }
        if (nonEmpty(body.email)) {
          const domain = emailDomain(body.email!.trim(), "email")
          if (Either.isLeft(domain)) return Effect.fail(domain.left)
          companyDomain ??= domain.right
        }
        const timeout = CommonQuery.deadline(body.timeoutOpts)
        if (Either.isLeft(timeout)) return Effect.fail(timeout.left)
        const timeoutMs = timeout.right?.milliseconds ?? DEFAULT_TIMEOUT_MS
        return Effect.succeed({
          input: {
            clues: {
              company: body.company,
              email: body.email?.trim(),
              name: body.name,
              location: body.location,
              socialUrls: body.social_urls
            },
            companyDomain,
            timeoutMs,
            behavior: timeout.right?.behavior ?? "fail"
          },
          credits: CREDITS,
          zdr: body.zdr === "enabled",
          tags: body.tags ?? [],
          holdMs: timeoutMs + 60_000,
          paidPlanFor: "people enrichment is available on paid plans"
        })
      }
    ),
  run: (_caller, input) =>
    Effect.gen(function*() {
      const source = yield* People.PeopleSource
      const found = yield* source.enrich(input.clues, input.companyDomain).pipe(
        Effect.interruptible,
        Effect.timeoutFail({ duration: Duration.millis(input.timeoutMs), onTimeout: () => new Errors.RequestTimeout({ milliseconds: input.timeoutMs, detail: "the person's pages were not read in time" }) })
      )
      if (found === undefined) return { body: { match: { status: "not_found", score: null, person: null } }, credits: 0 }
      const c = found.candidate
      const organization = found.companyName ?? found.companyDomain
      const role = c.title !== undefined && organization !== undefined
        ? { organization: { name: organization, ...(found.companyDomain === undefined ? {} : { domain: found.companyDomain }) }, title: c.title, is_current: found.onCompanySite }
        : undefined
      const email = c.emails[0]
      const person = {
        current_role_status: role !== undefined && found.onCompanySite ? "present" : "unknown",
        education: [],
        experience: role === undefined ? [] : [role],
        skills: [],
        social_urls: found.socials,
        website_urls: found.websites,
        ...(c.image === undefined ? {} : { avatar_url: c.image }),
        ...(c.bio === undefined ? {} : { bio: c.bio }),
        checked_at: new Date().toISOString(),
        ...(role === undefined ? {} : { current_role: role }),
        ...(email === undefined ? {} : { email }),
        ...(c.locality === undefined ? {} : { location: { city: c.locality, display: c.locality } }),
        name: { full: c.full, ...(c.first === undefined ? {} : { first: c.first }), ...(c.last === undefined ? {} : { last: c.last }) }
      }
      return { body: { match: { status: "candidate", score: found.score, person } }, credits: CREDITS }
    })
}
