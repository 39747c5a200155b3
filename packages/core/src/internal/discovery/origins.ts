/**
 * Host variants of a site: the apex and its `www.` twin, each over https and http, probed at once through their
 * `/robots.txt`. Every variant that answers (even 404) is live at the origin it ended at after redirects, so
 * `www` → apex and http → https redirects fold into one origin, while a site serving both hosts keeps both.
 * The robots.txt found on each live origin gives its `Sitemap:` lines and its crawl rules.
 */
import { Deferred, Duration, Effect } from "effect"
import robotsModule from "robots-parser"
import type { InvalidRequest, WebsiteError } from "../../Errors.js"
import { Fetcher } from "../../Fetcher.js"
import { normalize } from "../../UrlNormal.js"

/** The parsed robots.txt of one origin (an empty one when it had none). */
export interface Robots {
  /** Whether a crawler may fetch `url` (the origin's own rules; other origins' URLs are allowed). */
  readonly allows: (url: string) => boolean
  /** Absolute URLs of its `Sitemap:` lines. */
  readonly sitemaps: ReadonlyArray<string>
  /** Its `Crawl-delay` for Sift (seconds), when it sets one. */
  readonly crawlDelay?: number | undefined
}

/** One origin that answered. */
export interface LiveOrigin {
  /** `https://example.com` (no trailing slash). */
  readonly origin: string
  readonly robots: Robots
  /** How many variants ended here: the most is the site's preferred spelling. */
  readonly votes: number
}

/** What probing found: live origins (preferred first), or the error of the most likely variant when none answered. */
export interface Probe {
  readonly live: ReadonlyArray<LiveOrigin>
  readonly failure: WebsiteError | undefined
}

type Attempt =
  | { readonly _tag: "Live"; readonly origin: string; readonly robots: Robots }
  | { readonly _tag: "Dead"; readonly error: WebsiteError | InvalidRequest }

/** How long the other host variants may take once one has answered. */
export const VARIANT_GRACE = Duration.seconds(2)

const ROBOTS_AGENT = "Sift"
const MAX_ROBOTS_BYTES = 512 * 1024

// robots-parser is CommonJS whose types claim an ESM default export; at run time the default import is the function.
const robotsParser = robotsModule as unknown as typeof robotsModule.default

const noRobots: Robots = { allows: () => true, sitemaps: [] }

const parseRobots = (url: string, text: string): Robots => {
  const parsed = robotsParser(url, text)
  return {
    allows: (target) => parsed.isAllowed(target, ROBOTS_AGENT) !== false,
    // `Sitemap:` lines must be absolute, but relative ones occur; they mean what they would in a browser.
    sitemaps: parsed.getSitemaps().map((sitemap) => normalize(sitemap, url) ?? sitemap),
    crawlDelay: parsed.getCrawlDelay(ROBOTS_AGENT)
  }
}

/** The robots.txt rules of the origin of `url` (none when it has no robots.txt or it cannot be read). */
export const rulesOf = (url: string, headers?: Readonly<Record<string, string>>): Effect.Effect<Robots, never, Fetcher> =>
  Effect.flatMap(Fetcher, (fetcher) =>
    fetcher.fetch({ url: `${new URL(url).origin}/robots.txt`, headers, maxBytes: MAX_ROBOTS_BYTES })).pipe(
      Effect.map((response) =>
        isText(response.contentType) ? parseRobots(response.url, new TextDecoder().decode(response.body)) : noRobots
      ),
      Effect.orElseSucceed(() => noRobots)
    )

/** The variants to try for a domain: https before http, the host as given before its twin. */
export const variants = (domain: string): Array<string> => {
  const twin = domain.startsWith("www.") ? domain.slice(4) : `www.${domain}`
  return [`https://${domain}`, `https://${twin}`, `http://${domain}`, `http://${twin}`]
}

const isText = (contentType: string | undefined): boolean =>
  contentType === undefined || contentType === "text/plain"

/** Probes the variants of `domain` concurrently. */
export const probe = (
  domain: string,
  headers: Readonly<Record<string, string>> | undefined
): Effect.Effect<Probe, never, Fetcher> =>
  Effect.gen(function*() {
    const fetcher = yield* Fetcher
    const attempt = (origin: string): Effect.Effect<Attempt> =>
      fetcher.fetch({ url: `${origin}/robots.txt`, headers, maxBytes: MAX_ROBOTS_BYTES }).pipe(
        Effect.map((response): Attempt => {
          const final = new URL(response.url).origin
          // A robots.txt answered with an HTML page (soft 404) has no rules.
          const robots = isText(response.contentType)
            ? parseRobots(response.url, new TextDecoder().decode(response.body))
            : noRobots
          return { _tag: "Live", origin: final, robots }
        }),
        Effect.catchAll((error): Effect.Effect<Attempt> =>
          Effect.succeed(
            // The host answered: with a status, or with a robots.txt too large to read (its rules are then unknown).
            error._tag === "WebsiteError" && (error.reason === "HttpStatus" || error.reason === "TooLarge")
              ? { _tag: "Live", origin: new URL(error.url).origin, robots: noRobots }
              : { _tag: "Dead", error }
          )
        )
      )
    // A variant that hangs (a firewalled port 443) must not hold the map up: once one variant is live, the others get
    // a short grace and are then given up on.
    const found = variants(domain)
    const attempts: Array<Attempt | undefined> = found.map(() => undefined)
    const firstLive = yield* Deferred.make<void>()
    const all = Effect.forEach(found, (origin, i) =>
      Effect.tap(attempt(origin), (result) => {
        attempts[i] = result
        return result._tag === "Live" ? Deferred.succeed(firstLive, undefined) : Effect.void
      }), { concurrency: "unbounded", discard: true })
    yield* Effect.raceFirst(all, Effect.andThen(Deferred.await(firstLive), Effect.sleep(VARIANT_GRACE)))
    const byOrigin = new Map<string, { robots: Robots; votes: number; order: number }>()
    attempts.forEach((attempt, order) => {
      if (attempt?._tag !== "Live") return
      const known = byOrigin.get(attempt.origin)
      if (known === undefined) byOrigin.set(attempt.origin, { robots: attempt.robots, votes: 1, order })
      else {
        known.votes++
        if (known.robots === noRobots) known.robots = attempt.robots
      }
    })
    const live = [...byOrigin.entries()]
      .sort(([, a], [, b]) => b.votes - a.votes || a.order - b.order)
      .map(([origin, { robots, votes }]) => ({ origin, robots, votes }))
    const firstError = attempts.find((a) => a?._tag === "Dead")
    const failure = firstError?._tag === "Dead" && firstError.error._tag === "WebsiteError" ? firstError.error : undefined
    return { live, failure }
  })
