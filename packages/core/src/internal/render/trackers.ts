/**
 * What the browser never fetches: requests it makes on its own (the favicon, and every request of DevTools' type
 * `Other`, which pages do not make) and known trackers and ad servers. Trackers are the requests that a filter of
 * Ghostery's tracker database (`@ghostery/trackerdb`, updated weekly, matched by its own engine) files under
 * advertising, site analytics or adult advertising, when they leave the site of the page that made them.
 *
 * One DevTools session on the browser intercepts with URL patterns (one per host a filter names, and the type
 * `Other`), so requests to other hosts never stop on their way; only those to a tracker's host are paused, decided
 * by the engine, and failed or let go.
 */
import { readFileSync } from "node:fs"
import { createRequire } from "node:module"
import { dirname, join } from "node:path"
import type { Browser } from "playwright-core"
import { getDomain } from "tldts"

/** The categories refused: what serves ads or watches the visitor, never what a page needs to show its content. */
export const BLOCKED_CATEGORIES: ReadonlySet<string> = new Set(["advertising", "site_analytics", "pornvertising"])

const distOf = () => join(dirname(createRequire(import.meta.url).resolve("@ghostery/trackerdb")), "..")

let hosts: ReadonlyArray<string> | undefined

/** Hosts that a filter of a refused category names (`||host/...`): the requests worth pausing to decide. */
export const trackerHosts = (): ReadonlyArray<string> => {
  if (hosts !== undefined) return hosts
  const text = readFileSync(join(distOf(), "trackerdb.txt"), "utf8")
  const found = new Set<string>()
  let category: string | undefined
  for (const line of text.split("\n")) {
    if (line.startsWith("!")) {
      category = / trackerdb_category:(\S+) trackerdb_filter/.exec(line)?.[1]
      continue
    }
    if (category !== undefined && BLOCKED_CATEGORIES.has(category)) {
      const host = /^\|\|([a-z0-9.-]+\.[a-z0-9-]+)(?=[/^$*:]|$)/i.exec(line.trim())?.[1]
      if (host !== undefined) found.add(host.toLowerCase())
    }
    category = undefined
  }
  hosts = [...found].sort()
  return hosts
}

type Matcher = (url: string, type: string, sourceUrl: string) => ReadonlyArray<string>
let matcher: Promise<Matcher> | undefined

/** The tracker database's engine, loaded once: the categories of the filters a request matches. */
const loadMatcher = (): Promise<Matcher> =>
  matcher ??= import("@ghostery/trackerdb").then(async ({ default: load }) => {
    const db = await load(readFileSync(join(distOf(), "trackerdb.engine")))
    return (url, type, sourceUrl) =>
      db.matchUrl({ url, type: type as never, sourceUrl }, { getDomainMetadata: false })
        .map((found) => found.category?.key ?? "")
  })

/** The site of a host: its registrable domain, or the host itself (IP addresses, single labels). */
export const siteOf = (host: string): string => {
  const name = host.toLowerCase().replace(/^\[|\]$/g, "")
  return getDomain(name, { allowPrivateDomains: true }) ?? name
}

const siteOfUrl = (url: string): string | undefined => {
  try {
    return siteOf(new URL(url).hostname)
  } catch {
    return undefined
  }
}

// DevTools resource types as the engine names them.
const engineType: Record<string, string> = {
  Document: "sub_frame",
  Stylesheet: "stylesheet",
  Image: "image",
  Media: "media",
  Font: "font",
  Script: "script",
  XHR: "xhr",
  Fetch: "fetch",
  EventSource: "xhr",
  WebSocket: "websocket",
  Ping: "ping",
  CSPViolationReport: "csp_report"
}

/** Whether a request to `url` of DevTools type `type`, made by a page of `sourceUrl`, is a tracker to refuse. */
export const isTracker = async (url: string, type: string, sourceUrl: string | undefined): Promise<boolean> => {
  // The page's own site is never refused (a tracker's own website still renders); nor is a frame the page was asked for.
  if (sourceUrl === undefined || siteOfUrl(url) === siteOfUrl(sourceUrl)) return false
  const categories = (await loadMatcher())(url, engineType[type] ?? "other", sourceUrl)
  return categories.some((category) => BLOCKED_CATEGORIES.has(category))
}

/** What the browser's blocking did, for tests and benches. */
export interface BlockStats {
  /** Requests the browser made on its own (favicons), failed before they left. */
  readonly own: number
  readonly trackers: number
}

interface Paused {
  readonly requestId: string
  readonly resourceType: string
  readonly request: { readonly url: string; readonly headers: Record<string, string> }
}

/**
 * Starts blocking in every context of `browser`: always the browser's own requests, trackers when `trackers`.
 * Answers the counts so far; a browser that refuses the DevTools session (a remote one may) blocks nothing.
 */
export const attach = async (browser: Browser, options: { readonly trackers: boolean }): Promise<() => BlockStats> => {
  const stats = { own: 0, trackers: 0 }
  const session = await browser.newBrowserCDPSession()
  const patterns: Array<{ urlPattern: string; resourceType?: string }> = [{ urlPattern: "*", resourceType: "Other" }]
  if (options.trackers) {
    // Wildcards only: `*://host*` and `*.host*` reach more than the host, and the engine decides what is refused.
    for (const host of trackerHosts()) patterns.push({ urlPattern: `*://${host}*` }, { urlPattern: `*.${host}*` })
    void loadMatcher()
  }
  session.on("Fetch.requestPaused", (event: Paused) => {
    const { requestId, resourceType, request } = event
    const decided = resourceType === "Other"
      ? Promise.resolve("own" as const)
      : isTracker(request.url, resourceType, request.headers.Referer ?? request.headers.referer)
        .then((refused) => refused ? "trackers" as const : undefined, () => undefined)
    void decided.then((refused) => {
      if (refused !== undefined) stats[refused]++
      return refused === undefined
        ? session.send("Fetch.continueRequest", { requestId })
        : session.send("Fetch.failRequest", { requestId, errorReason: "BlockedByClient" })
    }).catch(() => undefined)
  })
  await session.send("Fetch.enable", { patterns: patterns as never })
  return () => ({ ...stats })
}
