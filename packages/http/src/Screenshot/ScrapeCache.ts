/**
 * The screenshot part of `POST /web/scrape` through the screenshot cache, the one the GET screenshot endpoints use
 * (same key: the URL and the options that change pixels; same `maxAgeMs`, `zdr`, forwarded-headers and actions rules).
 * A hit takes no browser: the other formats come from the same request without the screenshot (through the page
 * cache, as such a request would), and the response is a hit only when they hit too, with the age of the oldest
 * (interface.md, cache metadata). When those other formats need a browser anyway (a viewport, a theme, a selector to
 * wait for...), the cached screenshot would save nothing: the page is rendered once, as before, and its fresh capture
 * stored. A miss renders once, as before, and stores the complete capture.
 *
 * @since 0.1.0
 */
import { type Cache, type Errors, type Fetcher, Pipeline, type ScrapeRequest, type ScrapeResult, Screenshot } from "@sift/core"
import { Clock, Effect, Option } from "effect"

const none = { requested: false, data: null } as const

/** The request without its screenshot output: `none` when nothing else is asked for. */
const withoutScreenshot = (request: ScrapeRequest.ScrapeRequest): ScrapeRequest.ScrapeRequest | "none" => {
  const formats = { ...request.formats, screenshot: false }
  if (!Object.values(formats).some((wanted) => wanted === true)) return "none"
  return Object.assign(Object.create(Object.getPrototypeOf(request)), request, { formats, screenshotParams: undefined })
}

/** `Pipeline.runMemoized` for a scrape, with its screenshot output answered from and stored in the screenshot cache. */
export const run = (
  request: ScrapeRequest.ScrapeRequest
): Effect.Effect<Pipeline.Outcome, Errors.ScrapeError, Cache.Cache | Fetcher.Fetcher> =>
  Effect.gen(function*() {
    if (!request.wants("screenshot") || !Screenshot.cacheable(request)) return yield* Pipeline.runMemoized(request)
    const rest = withoutScreenshot(request)
    const worthIt = rest === "none" || Pipeline.browserNeeds(rest).length === 0
    const hit = worthIt ? yield* Screenshot.lookup(request) : Option.none()
    // Entries made before metadata was kept cannot answer a scrape; the render replaces them.
    if (Option.isSome(hit) && hit.value.screenshot.metadata !== undefined) {
      const shot = hit.value.screenshot
      const screenshot = { requested: true, data: Screenshot.toDataUrl(shot) } as const
      if (rest === "none") {
        return Pipeline.outcomeOf({
          url: shot.url,
          html: none,
          markdown: none,
          screenshot,
          images: none,
          bytes: none,
          parsed: none,
          metadata: shot.metadata!,
          cache_metadata: { status: "hit", age_ms: hit.value.ageMs }
        } satisfies ScrapeResult.ScrapeResult)
      }
      const outcome = yield* Pipeline.runMemoized(rest)
      const result = outcome.result
      const cache = result.cache_metadata.status === "hit"
        ? { status: "hit", age_ms: Math.max(result.cache_metadata.age_ms, hit.value.ageMs) } as const
        : result.cache_metadata
      // Another result than the one remembered: nothing derived from that one applies to it.
      return { ...Pipeline.outcomeOf({ ...result, screenshot, cache_metadata: cache }), document: outcome.document, render: outcome.render }
    }
    const outcome = yield* Pipeline.runMemoized(request)
    const result = outcome.result
    const shot = Screenshot.fromDataUrl(result.screenshot.data ?? "")
    if (shot !== undefined && result.isPartial !== true && outcome.render.finalDOMState !== "still-loading") {
      const size = yield* Effect.orElseSucceed(Screenshot.measure(shot.bytes), () => undefined)
      if (size !== undefined) {
        const capturedAt = yield* Clock.currentTimeMillis
        yield* Screenshot.store(request, { ...shot, ...size, url: result.url, capturedAt, metadata: result.metadata })
      }
    }
    return outcome
  })
