/**
 * Which URLs a crawl may fetch: the start URL's site (www and apex alike, the same port), its subdomains when asked,
 * an RE2 pattern of URLs to include (the start URL is always included), a depth limit, and no page furniture (styles,
 * scripts, images, fonts, media), which is never a page of the site.
 */
import { Either } from "effect"
import { RE2JS } from "re2js"
import { InvalidRequest } from "../../Errors.js"
import { dedupeKey, normalize, siteHost } from "../../UrlNormal.js"

/** Why a URL is not crawled. */
export type Refusal = "invalid" | "out-of-scope" | "not-matching" | "too-deep" | "asset"

/** The longest pattern accepted (as for maps' `urlRegex`). */
export const PATTERN_MAX_LENGTH = 256

/** What a crawl's scope is made from. */
export interface ScopeOptions {
  /** The start URL (absolute http(s)). */
  readonly start: string
  readonly followSubdomains: boolean
  /** Links followed from the start page (depth 0); `undefined` for no limit. */
  readonly maxDepth: number | undefined
  /** RE2 pattern a URL must match (anywhere in it) to be crawled; the start URL is exempt. */
  readonly pattern: string | undefined
  /** The request field the pattern came from, for error messages. */
  readonly patternField?: string | undefined
}

/** A compiled scope. */
export interface Scope {
  /** The normalized start URL. */
  readonly start: string
  /** Why `url` (normalized) at `depth` is not crawled, or `undefined` when it is. */
  readonly refusal: (url: string, depth: number) => Refusal | undefined
  /** The same scope rooted at the start page's final URL, so a redirect of the start page (to www, to https) moves the site. */
  readonly rebase: (finalUrl: string) => Scope
}

// Page furniture: never a page of the site, never fetched by a crawl.
const assetPattern = /\.(?:css|js|mjs|map|png|jpe?g|gif|webp|avif|svg|ico|bmp|woff2?|ttf|otf|eot|mp[34]|m4a|webm|ogg|wav)$/i

const invalid = (field: string, detail: string) => Either.left(new InvalidRequest({ reason: "Invalid", field, detail }))

/** Compiles an RE2 pattern of URLs, or says why it is not one. */
export const compilePattern = (
  pattern: string,
  field: string
): Either.Either<(url: string) => boolean, InvalidRequest> => {
  if (pattern.length > PATTERN_MAX_LENGTH) {
    return invalid(field, `is ${pattern.length} characters long; at most ${PATTERN_MAX_LENGTH} are allowed`)
  }
  try {
    const re = RE2JS.compile(pattern)
    return Either.right((url: string) => re.matcher(url).find())
  } catch (error) {
    return invalid(field, `"${pattern}" is not a valid RE2 pattern: ${(error as Error).message}`)
  }
}

/** Builds a scope; fails when the start URL or the pattern is unusable. */
export const make = (options: ScopeOptions): Either.Either<Scope, InvalidRequest> => {
  const start = normalize(options.start)
  if (start === undefined) return invalid("url", `"${options.start}" is not an http(s) URL`)
  if (options.pattern === undefined || options.pattern === "") return Either.right(build(start, options, undefined))
  return Either.map(compilePattern(options.pattern, options.patternField ?? "regex"), (matches) => build(start, options, matches))
}

const build = (start: string, options: ScopeOptions, matches: ((url: string) => boolean) | undefined): Scope => {
  const root = new URL(start)
  const site = siteHost(root.hostname)
  // A site served on a port (a test server, an intranet app) is that port's site; on default ports http and https are one site.
  const port = root.port
  const startKey = dedupeKey(start)
  const inSite = (url: URL) => {
    if (url.port !== port) return false
    const host = siteHost(url.hostname)
    return host === site || (options.followSubdomains && host.endsWith(`.${site}`))
  }
  const scope: Scope = {
    start,
    refusal: (url, depth) => {
      let parsed: URL
      try {
        parsed = new URL(url)
      } catch {
        return "invalid"
      }
      if (parsed.protocol !== "http:" && parsed.protocol !== "https:") return "invalid"
      if (dedupeKey(url) === startKey) return undefined
      if (!inSite(parsed)) return "out-of-scope"
      if (assetPattern.test(parsed.pathname)) return "asset"
      if (options.maxDepth !== undefined && depth > options.maxDepth) return "too-deep"
      if (matches !== undefined && !matches(url)) return "not-matching"
      return undefined
    },
    rebase: (finalUrl) => {
      const moved = normalize(finalUrl)
      if (moved === undefined || dedupeKey(moved) === startKey) return scope
      const movedUrl = new URL(moved)
      // Only a move within the site (www, scheme, path) or to a subdomain carries the scope; a redirect off-site does not.
      const movedHost = siteHost(movedUrl.hostname)
      if (movedHost !== site && !movedHost.endsWith(`.${site}`) && !site.endsWith(`.${movedHost}`)) return scope
      return build(moved, options, matches)
    }
  }
  return scope
}
