/**
 * What the browser never fetches: requests it makes on its own (the favicon, and every request of DevTools' type
 * `Other`, which pages do not make) and known trackers and ad servers: requests to a host on the tracker list (Sift's
 * own, `trackerHosts.ts`, or the operator's `SIFT_BROWSER_BLOCKLIST_FILE`) or under one, when they leave the site of
 * the page that made them.
 *
 * One DevTools session on the browser intercepts with URL patterns (one pair per listed host, and the type `Other`),
 * so requests to other hosts never stop on their way; only those to a listed host are paused, checked and failed.
 * A list too long for patterns (an operator's file) pauses every request instead.
 */
import { readFileSync } from "node:fs"
import type { Browser } from "playwright-core"
import { getDomain } from "tldts"
import { builtInTrackerHosts } from "./trackerHosts.js"

/** Lists longer than this are matched on every request rather than as DevTools patterns. */
const PATTERN_LIMIT = 2_000

/**
 * The hosts of a list file: a hosts file (`0.0.0.0 ads.example`), one name a line, or adblock-style `||name^` lines;
 * `#` and `!` start comments. Names are lower-cased; anything that is not a host name is skipped.
 */
export const parseList = (text: string): Array<string> => {
  const found = new Set<string>()
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.replace(/[#!].*$/, "").trim()
    if (line === "") continue
    const fields = line.split(/\s+/)
    const name = (fields.length > 1 ? fields[1]! : fields[0]!).replace(/^\|\|/, "").replace(/\^.*$/, "").toLowerCase()
    if (/^[a-z0-9-]+(\.[a-z0-9-]+)+$/.test(name) && name !== "localhost" && !/^[0-9.]+$/.test(name)) found.add(name)
  }
  return [...found]
}

/** The tracker hosts: Sift's own list, or the operator's file (`SIFT_BROWSER_BLOCKLIST_FILE`) in its place. */
export const trackerHosts = (listFile?: string): ReadonlyArray<string> =>
  listFile === undefined ? builtInTrackerHosts : parseList(readFileSync(listFile, "utf8"))

/** Whether `host` is a listed name or under one. */
const listedIn = (listed: ReadonlySet<string>, host: string): boolean => {
  let name = host.toLowerCase()
  while (true) {
    if (listed.has(name)) return true
    const dot = name.indexOf(".")
    if (dot === -1) return false
    name = name.slice(dot + 1)
  }
}

/** The site of a host: its registrable domain, or the host itself (IP addresses, single labels). */
export const siteOf = (host: string): string => {
  const name = host.toLowerCase().replace(/^\[|\]$/g, "")
  return getDomain(name, { allowPrivateDomains: true }) ?? name
}

const hostOf = (url: string): string | undefined => {
  try {
    return new URL(url).hostname
  } catch {
    return undefined
  }
}

/** Whether a request to `url`, made by a page of `sourceUrl`, is a tracker to refuse (never one of the page's own site). */
export const isTracker = (listed: ReadonlySet<string>, url: string, sourceUrl: string | undefined): boolean => {
  const host = hostOf(url)
  const source = sourceUrl === undefined ? undefined : hostOf(sourceUrl)
  if (host === undefined || source === undefined || siteOf(host) === siteOf(source)) return false
  return listedIn(listed, host)
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
export const attach = async (
  browser: Browser,
  options: { readonly trackers: boolean; readonly listFile?: string | undefined }
): Promise<() => BlockStats> => {
  const stats = { own: 0, trackers: 0 }
  const session = await browser.newBrowserCDPSession()
  const hosts = options.trackers ? trackerHosts(options.listFile) : []
  const listed = new Set(hosts)
  const patterns: Array<{ urlPattern: string; resourceType?: string }> = [{ urlPattern: "*", resourceType: "Other" }]
  if (hosts.length > PATTERN_LIMIT) patterns.push({ urlPattern: "*" })
  else for (const host of hosts) patterns.push({ urlPattern: `*://${host}/*` }, { urlPattern: `*.${host}/*` })
  session.on("Fetch.requestPaused", (event: Paused) => {
    const { requestId, resourceType, request } = event
    const refused = resourceType === "Other"
      ? "own" as const
      : isTracker(listed, request.url, request.headers.Referer ?? request.headers.referer) ? "trackers" as const : undefined
    if (refused !== undefined) stats[refused]++
    void (refused === undefined
      ? session.send("Fetch.continueRequest", { requestId })
      : session.send("Fetch.failRequest", { requestId, errorReason: "BlockedByClient" })).catch(() => undefined)
  })
  await session.send("Fetch.enable", { patterns: patterns as never })
  return () => ({ ...stats })
}
