/**
 * Checks the query of a map (GET /web/urls, GET /web/scrape/sitemap) against the contract's ranges and compiles
 * `urlRegex` with RE2 (linear-time matching, so a caller's pattern cannot stall the server).
 */
import { Either } from "effect"
import { RE2JS } from "re2js"
import { InvalidRequest } from "../../Errors.js"
import { domainOf } from "../../UrlNormal.js"

/** The contract's ranges. */
export const limits = {
  maxLinks: { min: 1, max: 100_000, default: 10_000 },
  urlRegexLength: 256,
  search: { min: 2, max: 200 },
  timeoutMs: { min: 1, max: 300_000, default: 60_000 },
  domainMinLength: 3
} as const

/** What the checked request needs downstream. */
export interface Checked {
  /** The bare host: the site's scope and its key in the index. */
  readonly domain: string
  /** The host with the port the request named (`localhost:3000`), or the bare host: where the site is fetched from. */
  readonly site: string
  readonly maxLinks: number
  readonly accepts: (url: string) => boolean
  readonly search: string | undefined
  readonly sitemapUrl: string | undefined
  readonly timeoutMs: number
}

interface Input {
  readonly domain: string
  readonly maxLinks?: number | undefined
  readonly urlRegex?: string | undefined
  readonly search?: string | undefined
  readonly sitemapUrl?: string | undefined
  readonly timeoutMs?: number | undefined
}

const invalid = (field: string, detail: string) => Either.left(new InvalidRequest({ reason: "Invalid", field, detail }))

const compile = (pattern: string): Either.Either<(url: string) => boolean, InvalidRequest> => {
  if (pattern.length > limits.urlRegexLength) {
    return invalid("urlRegex", `is ${pattern.length} characters long; at most ${limits.urlRegexLength} are allowed`)
  }
  try {
    const re = RE2JS.compile(pattern)
    return Either.right((url: string) => re.matcher(url).find())
  } catch (error) {
    return invalid("urlRegex", `"${pattern}" is not a valid RE2 pattern: ${(error as Error).message}`)
  }
}

/** Validates a map request; the first problem found is the error, naming its field. */
export const check = (input: Input): Either.Either<Checked, InvalidRequest> => {
  if (input.domain.trim().length < limits.domainMinLength) {
    return invalid("domain", `must be at least ${limits.domainMinLength} characters long`)
  }
  const domain = domainOf(input.domain)
  if (domain === undefined) return invalid("domain", `"${input.domain}" is not a domain name`)
  const port = portOf(input.domain)
  const maxLinks = input.maxLinks ?? limits.maxLinks.default
  if (!Number.isInteger(maxLinks) || maxLinks < limits.maxLinks.min || maxLinks > limits.maxLinks.max) {
    return invalid("maxLinks", `must be an integer from ${limits.maxLinks.min} to ${limits.maxLinks.max}, not ${maxLinks}`)
  }
  const search = input.search?.trim()
  if (input.search !== undefined && (search!.length < limits.search.min || search!.length > limits.search.max)) {
    return invalid("search", `must be ${limits.search.min} to ${limits.search.max} characters long`)
  }
  const timeoutMs = input.timeoutMs ?? limits.timeoutMs.default
  if (!Number.isInteger(timeoutMs) || timeoutMs < limits.timeoutMs.min || timeoutMs > limits.timeoutMs.max) {
    return invalid("timeoutOpts.milliseconds", `must be an integer from ${limits.timeoutMs.min} to ${limits.timeoutMs.max}`)
  }
  if (input.sitemapUrl !== undefined) {
    let parsed: URL | undefined
    try {
      parsed = new URL(input.sitemapUrl)
    } catch {
      parsed = undefined
    }
    if (parsed === undefined || (parsed.protocol !== "http:" && parsed.protocol !== "https:")) {
      return invalid("sitemapUrl", `"${input.sitemapUrl}" is not an http(s) URL`)
    }
  }
  const accepts = input.urlRegex === undefined ? Either.right(() => true) : compile(input.urlRegex)
  if (Either.isLeft(accepts)) return Either.left(accepts.left)
  const site = port === undefined ? domain : `${domain}:${port}`
  return Either.right({ domain, site, maxLinks, accepts: accepts.right, search, sitemapUrl: input.sitemapUrl, timeoutMs })
}

// The port a domain names (`example.com:8080`, `http://localhost:3000/`), read as `domainOf` reads the host; none for
// the scheme's default port or when none is given.
const portOf = (input: string): string | undefined => {
  const text = input.trim()
  try {
    const port = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(text) ? text : `http://${text}`).port
    return port === "" ? undefined : port
  } catch {
    return undefined
  }
}
