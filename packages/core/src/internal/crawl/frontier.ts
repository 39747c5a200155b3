/**
 * The crawl frontier: URLs waiting to be fetched, breadth first, each page once (by the URL index's dedupe key, so
 * `http`/`https`, `www.`/apex, fragments and tracking parameters are one page), at most `maxPages` accepted in all.
 * What it refuses it counts by reason, each distinct URL once, so a crawl can say how many it skipped and why.
 */
import { dedupeKey, normalize } from "../../UrlNormal.js"
import type { Refusal, Scope } from "./scope.js"

/** A page to fetch. */
export interface Entry {
  /** Normalized URL. */
  readonly url: string
  /** Links followed from a start page (0). */
  readonly depth: number
}

/** What became of an offered URL. */
export type Offered = "queued" | "duplicate" | "full" | Refusal

// Distinct URLs remembered beyond the accepted ones (refused, or seen once full), so counts stay exact on large sites
// without the set growing with every link of a huge site: past this, refusals are no longer told apart from repeats.
const SEEN_SLACK = 200_000

/** A breadth-first, deduplicating, bounded queue of pages. */
export class Frontier {
  private readonly seen = new Set<string>()
  private readonly queue: Array<Entry> = []
  private head = 0
  private acceptedCount = 0
  private readonly refused: Record<Refusal | "full", number> = {
    "invalid": 0,
    "out-of-scope": 0,
    "not-matching": 0,
    "too-deep": 0,
    "asset": 0,
    "full": 0
  }

  constructor(private scopeNow: Scope, private readonly maxPages: number) {}

  /** The scope URLs are judged by now. */
  get scope(): Scope {
    return this.scopeNow
  }

  /** Moves the scope (after the start page redirected); URLs already queued stay. */
  rebase(finalUrl: string): void {
    this.scopeNow = this.scopeNow.rebase(finalUrl)
  }

  /** Offers a link (resolved against `base` when relative) found at `depth`. */
  offer(raw: string, depth: number, base?: string | URL): Offered {
    const url = normalize(raw, base)
    if (url === undefined) return "invalid"
    const key = dedupeKey(url)
    if (this.seen.has(key)) return "duplicate"
    const remember = this.seen.size < this.maxPages + SEEN_SLACK
    const refusal = this.scopeNow.refusal(url, depth)
    if (refusal !== undefined) {
      if (remember) {
        this.seen.add(key)
        this.refused[refusal]++
      }
      return refusal
    }
    if (this.acceptedCount >= this.maxPages) {
      if (remember) {
        this.seen.add(key)
        this.refused.full++
      }
      return "full"
    }
    this.seen.add(key)
    this.acceptedCount++
    this.queue.push({ url, depth })
    return "queued"
  }

  /** The next page to fetch, or `undefined` when none waits. */
  take(): Entry | undefined {
    if (this.head >= this.queue.length) return undefined
    const entry = this.queue[this.head]!
    // Drop taken entries in chunks: the array neither shifts per take nor keeps every entry of a long crawl.
    if (++this.head >= 1024 && this.head * 2 >= this.queue.length) {
      this.queue.splice(0, this.head)
      this.head = 0
    }
    return entry
  }

  /** Pages waiting. */
  get waiting(): number {
    return this.queue.length - this.head
  }

  /** Pages accepted so far (taken or waiting); never more than `maxPages`. */
  get accepted(): number {
    return this.acceptedCount
  }

  /** Distinct URLs refused, by reason (`full`: in scope but past `maxPages`). */
  get refusals(): Readonly<Record<Refusal | "full", number>> {
    return this.refused
  }
}
