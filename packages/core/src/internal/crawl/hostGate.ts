/**
 * Politeness per host: at most `perHost` fetches of one host at a time, starts spaced by its robots.txt
 * `Crawl-delay` (capped), a pause after the host answered 429 or 503 (its `Retry-After`, or a growing default), and,
 * for crawls that follow links, robots.txt `Disallow` honoured (read once per origin).
 */
import { Clock, Effect } from "effect"
import type { Fetcher } from "../../Fetcher.js"
import { politeness } from "../../UrlDiscovery.js"

/** How polite a crawl is. */
export interface HostGateOptions {
  /** Fetches of one host at once. */
  readonly perHost: number
  /** Honour robots.txt (`Disallow`, `Crawl-delay`): link-following crawls do; a list of URLs asked for by name does not. */
  readonly robots: boolean
  /** The longest `Crawl-delay` honoured (a site asking for a minute between pages would stall a crawl). */
  readonly maxCrawlDelayMs: number
}

/** Defaults: two fetches per host, robots honoured, at most 10 s between pages. */
export const defaults: HostGateOptions = { perHost: 2, robots: true, maxCrawlDelayMs: 10_000 }

interface Rules {
  readonly allows: (url: string) => boolean
  readonly crawlDelayMs: number
}

interface Host {
  readonly slots: Effect.Semaphore
  /** Clock time before which no fetch of this host starts. */
  nextAt: number
  rules: Effect.Effect<Rules, never, Fetcher> | undefined
}

const everything: Rules = { allows: () => true, crawlDelayMs: 0 }

/** The per-host gate of one crawl. */
export interface HostGate {
  /** Whether robots.txt lets the crawl fetch `url` (always true when robots are not honoured). */
  readonly allows: (url: string) => Effect.Effect<boolean, never, Fetcher>
  /** Runs `fetch` holding one of its host's slots, started no sooner than the host's spacing allows. */
  readonly withSlot: <A, E, R>(url: string, fetch: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R | Fetcher>
  /** Pauses the host of `url` for `ms` (it answered 429 or 503). */
  readonly pause: (url: string, ms: number) => Effect.Effect<void>
}

/** Makes a gate; its state lives as long as the crawl. */
export const make = (options: HostGateOptions = defaults): Effect.Effect<HostGate> =>
  Effect.sync(() => {
    const hosts = new Map<string, Host>()
    const hostOf = (url: string): Effect.Effect<Host> =>
      Effect.suspend(() => {
        const origin = new URL(url).origin
        const known = hosts.get(origin)
        if (known !== undefined) return Effect.succeed(known)
        return Effect.map(Effect.makeSemaphore(Math.max(1, options.perHost)), (slots) => {
          // Another fiber may have made it meanwhile: the first one stays.
          const again = hosts.get(origin)
          if (again !== undefined) return again
          const host: Host = { slots, nextAt: 0, rules: undefined }
          hosts.set(origin, host)
          return host
        })
      })
    const rulesOf = (url: string, host: Host): Effect.Effect<Rules, never, Fetcher> => {
      if (!options.robots) return Effect.succeed(everything)
      if (host.rules === undefined) {
        // One read of robots.txt per origin, shared by every fiber that asks (a failed read allows everything).
        host.rules = Effect.runSync(Effect.cached(politeness(url)))
      }
      return host.rules
    }
    return {
      allows: (url) =>
        Effect.flatMap(hostOf(url), (host) => Effect.map(rulesOf(url, host), (rules) => rules.allows(url))),
      withSlot: (url, fetch) =>
        Effect.flatMap(hostOf(url), (host) =>
          host.slots.withPermits(1)(Effect.gen(function*() {
            const rules = yield* rulesOf(url, host)
            const now = yield* Clock.currentTimeMillis
            const startAt = Math.max(now, host.nextAt)
            host.nextAt = startAt + Math.min(rules.crawlDelayMs, options.maxCrawlDelayMs)
            if (startAt > now) yield* Effect.sleep(startAt - now)
            return yield* fetch
          }))),
      pause: (url, ms) =>
        Effect.flatMap(hostOf(url), (host) =>
          Effect.map(Clock.currentTimeMillis, (now) => {
            host.nextAt = Math.max(host.nextAt, now + ms)
          }))
    }
  })
