/**
 * `GET /web/styleguide` (wave2 §3): a site's design system read from its rendered page by core's `Styleguide`
 * (colors, typography, spacing and shadow scales, buttons and a card, light/dark mode, font files), through the design
 * cache (`DesignCache`: `colorScheme` is part of the key, `maxAgeMs` defaults to 3 months). 1 credit, a cache hit
 * too (§21.1); nothing when the page cannot be read. The target members shared with `GET /web/fonts` live here.
 *
 * @since 0.1.0
 */
import { Errors, ScrapeRequest } from "@sift/core"
import type { Cache } from "@sift/core"
import { Effect, Either, Schema } from "effect"
import * as CommonQuery from "../internal/commonQuery.js"
import * as QueryParams from "../QueryParams.js"
import type { Handler, Plan } from "../RequestPipeline.js"
import * as DesignCache from "./DesignCache.js"

const HOLD_SLACK_MS = 60_000
const { optional } = QueryParams
const invalid = (field: string, detail: string) => new Errors.InvalidRequest({ reason: "Invalid", field, detail })

/** `maxAgeMs`: any number; negative values count as 0, values over a year as a year (the SDK's rule); `null` is the default. */
const maxAgeMs = QueryParams.reading(Schema.Number, (value, field) => {
  const text = QueryParams.readString(value, field).trim()
  if (text === "" || text === "null") return undefined
  const number = Number(text)
  if (!Number.isFinite(number)) throw invalid(field, `must be a number of milliseconds, got "${text.slice(0, 40)}"`)
  return Math.min(DesignCache.MAX_MAX_AGE_MS, Math.max(0, Math.floor(number)))
}).annotations({ description: "Oldest cached read accepted; default 7776000000 (3 months), 0 reads fresh; clamped to 0..31536000000" })

/** The members `GET /web/styleguide` and `GET /web/fonts` share. */
export const targetFields = {
  domain: optional(QueryParams.string.annotations({ description: "The site; its home page is read (exactly one of domain and directUrl)" })),
  directUrl: optional(QueryParams.string.annotations({ description: "The exact page to read (http or https)" })),
  maxAgeMs: optional(maxAgeMs),
  timeoutOpts: optional(QueryParams.timeoutOpts.annotations({
    description: "{ milliseconds (at most 300000; default 60000), behavior: fail | return-partial (needs at least 5000) }"
  })),
  tags: optional(QueryParams.tags)
}

/** The query of `GET /web/styleguide`. */
export const Query = Schema.Struct({
  ...targetFields,
  colorScheme: optional(QueryParams.oneOf("light", "dark").annotations({ description: "Emulated prefers-color-scheme; part of the cache key" })),
  zdr: optional(QueryParams.zdr)
}).annotations({ description: "Extract a site's design system: colors, typography, spacing, shadows, buttons, card, fonts (1 credit)" })

/** A bare host name (`example.com`) from `domain` given with or without a scheme or path. */
const normalizeDomain = (domain: string): string => {
  const host = domain.trim().replace(/^[a-z][a-z0-9+.-]*:\/\//i, "").split(/[/?#]/)[0]!.toLowerCase().replace(/\.$/, "")
  if (!/^(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z0-9-]{2,63}(?::\d{1,5})?$/.test(host)) {
    throw invalid("domain", "must be a domain name such as example.com")
  }
  return host
}

/** The page of a query: exactly one of `domain` (its home page over https) and `directUrl` (http or https). */
const targetOf = (query: { readonly domain?: string | undefined; readonly directUrl?: string | undefined }): { readonly url: string; readonly domain: string } => {
  const { directUrl, domain } = query
  if ((domain === undefined) === (directUrl === undefined)) throw invalid("domain", "give exactly one of domain or directUrl")
  if (domain !== undefined) {
    const host = normalizeDomain(domain)
    return { url: `https://${host}/`, domain: host }
  }
  let url: URL
  try {
    url = new URL(directUrl!.trim())
  } catch {
    throw invalid("directUrl", "must be an absolute http or https URL")
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw invalid("directUrl", "must be an absolute http or https URL")
  return { url: url.href, domain: url.hostname.replace(/^\[|\]$/g, "") }
}

/** What a decoded query asks for. */
export interface DesignInput {
  readonly request: DesignCache.DesignRequest
  readonly domain: string
}

/** Decodes a styleguide or fonts query into its plan (1 credit). */
export const planOf = <A extends Schema.Struct.Type<typeof targetFields> & { readonly colorScheme?: "light" | "dark" | undefined; readonly zdr?: "enabled" | "disabled" | undefined }>(
  decoded: Either.Either<A, Errors.InvalidRequest>
): Either.Either<Plan<DesignInput>, Errors.InvalidRequest> =>
  Either.gen(function*() {
    const query = yield* decoded
    const timeout = yield* CommonQuery.deadline(query.timeoutOpts)
    if (timeout?.behavior === "return-partial" && timeout.milliseconds < 5_000) {
      return yield* Either.left(invalid("timeoutOpts.milliseconds", "return-partial requires milliseconds of at least 5000"))
    }
    const target = yield* Either.try({ try: () => targetOf(query), catch: (error) => error as Errors.InvalidRequest })
    const timeoutMs = timeout?.milliseconds ?? ScrapeRequest.DEFAULT_TIMEOUT_MS
    const zdr = query.zdr === "enabled"
    return {
      input: {
        domain: target.domain,
        request: {
          url: target.url,
          colorScheme: query.colorScheme,
          maxAgeMs: query.maxAgeMs ?? DesignCache.DEFAULT_MAX_AGE_MS,
          zdr,
          timeoutMs,
          timeoutBehavior: timeout?.behavior ?? "fail"
        }
      },
      credits: 1,
      zdr,
      tags: query.tags ?? [],
      holdMs: timeoutMs + HOLD_SLACK_MS
    }
  })

const decode = QueryParams.decode(Query)

/** `GET /web/styleguide`: 1 credit. */
export const styleguide: Handler<DesignInput, Errors.InvalidRequest, never, Errors.ScrapeError, Cache.Cache> = {
  validate: (caller) => planOf(decode(caller.query)),
  run: (_caller, input) =>
    Effect.map(DesignCache.read(input.request), ({ cache, design }) => ({
      body: {
        status: "ok",
        code: 200,
        domain: input.domain,
        styleguide: design.styleguide,
        finalDOMState: design.finalDOMState,
        cache_metadata: cache
      },
      credits: 1
    }))
}
