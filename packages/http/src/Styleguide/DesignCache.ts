/**
 * Reads of a page's design (`Styleguide.read`) through the cache, shared by `GET /web/styleguide` and `GET /web/fonts`:
 * one render gives both answers, so either endpoint's read serves the other. Keyed by the page and the emulated color
 * scheme (the SDK: "part of the styleguide cache key"); `maxAgeMs` against the read's own time; ZDR neither reads
 * nor writes; a partial read (`return-partial` before the page finished) is returned but never stored.
 *
 * @since 0.1.0
 */
import { Cache, type Errors, Styleguide } from "@sift/core"
import { Clock, Effect, Option } from "effect"
import { createHash } from "node:crypto"

/** Default `maxAgeMs`: 3 months (the SDK's text). */
export const DEFAULT_MAX_AGE_MS = 7_776_000_000
/** Largest `maxAgeMs`: 1 year; larger values are clamped, negative ones become 0. */
export const MAX_MAX_AGE_MS = 31_536_000_000

/** What to read and how fresh it must be. */
export interface DesignRequest {
  readonly url: string
  readonly colorScheme: "light" | "dark" | undefined
  readonly maxAgeMs: number
  readonly zdr: boolean
  readonly timeoutMs: number
  readonly timeoutBehavior: "fail" | "return-partial"
}

/** A design and where it came from. */
export interface DesignOutcome {
  readonly design: Styleguide.PageDesign
  readonly cache: { readonly status: "hit" | "miss" | "zdr"; readonly age_ms: number }
}

/** The cache key of a page's design: its URL and the emulated color scheme. */
export const keyOf = (url: string, colorScheme: "light" | "dark" | undefined): string =>
  "design:v1:" + createHash("sha256").update(JSON.stringify([url, colorScheme ?? "none"])).digest("hex")

const encoder = new TextEncoder()
const decoder = new TextDecoder()

/** Reads a stored entry; anything else (an older layout, a damaged row) is a miss. */
const decodeEntry = (bytes: Uint8Array): Styleguide.PageDesign | undefined => {
  try {
    const entry = JSON.parse(decoder.decode(bytes)) as { v?: unknown; design?: Styleguide.PageDesign }
    const design = entry.design
    return entry.v === 1 && design !== undefined && typeof design.readAt === "number" && typeof design.url === "string" &&
        design.styleguide !== undefined && Array.isArray(design.fonts)
      ? design
      : undefined
  } catch {
    return undefined
  }
}

/** The design of a page: a fresh enough cached read, or a new one (stored when complete). */
export const read = (request: DesignRequest): Effect.Effect<DesignOutcome, Errors.ScrapeError, Cache.Cache> =>
  Effect.gen(function*() {
    const fresh = Styleguide.read({
      url: request.url,
      colorScheme: request.colorScheme,
      timeoutMs: request.timeoutMs,
      timeoutBehavior: request.timeoutBehavior
    })
    if (request.zdr) return { design: yield* fresh, cache: { status: "zdr", age_ms: 0 } } as const
    const cache = yield* Cache.Cache
    const key = keyOf(request.url, request.colorScheme)
    if (request.maxAgeMs > 0) {
      const hit = (yield* cache.get(key, request.maxAgeMs)).pipe(Option.flatMapNullable((entry) => decodeEntry(entry.value)))
      if (Option.isSome(hit)) {
        const age = Math.max(0, (yield* Clock.currentTimeMillis) - hit.value.readAt)
        // The read's own time decides, so a clock step or a lagging row never serves one older than asked.
        if (age <= request.maxAgeMs) return { design: hit.value, cache: { status: "hit", age_ms: age } } as const
      }
    }
    const design = yield* fresh
    if (design.finalDOMState === "loaded") yield* cache.set(key, encoder.encode(JSON.stringify({ v: 1, design })))
    return { design, cache: { status: "miss", age_ms: 0 } } as const
  })

/**
 * Reads a site's home page design into the cache unless a read younger than the default `maxAgeMs` is there: what a
 * styleguide prefetch (`POST /utility/prefetch`, `type: "styleguide"`) queues, so a later `GET /web/styleguide` or
 * `GET /web/fonts` of the domain is a hit.
 */
export const warm = (domain: string): Effect.Effect<DesignOutcome, Errors.ScrapeError, Cache.Cache> =>
  read({ url: `https://${domain.trim().toLowerCase().replace(/\.$/, "")}/`, colorScheme: undefined, maxAgeMs: DEFAULT_MAX_AGE_MS, zdr: false, timeoutMs: 60_000, timeoutBehavior: "fail" })
