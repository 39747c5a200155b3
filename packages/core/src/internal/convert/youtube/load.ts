/**
 * Loading a YouTube video or channel takes more than one fetch (the watch page, then its caption track), all through
 * core's `Fetcher` (so proxies, the address guard and host mapping apply). The result is a loaded page whose body is
 * the structured document as HTML, so the rest of the pipeline (cache, filters, formats) treats it as any page.
 */
import { Clock, Effect, Option } from "effect"
import { toHtml } from "hast-util-to-html"
import { WebsiteError, type InvalidRequest } from "../../../Errors.js"
import { Fetcher } from "../../../Fetcher.js"
import type { LoadedPage } from "../../pipeline/page.js"
import { type CaptionTrack, parseCaptions, pickTrack } from "./captions.js"
import { channelDocument, videoDocument, videoFacts } from "./documents.js"
import { embeddedJson } from "./initialData.js"
import { youTubeTarget } from "./url.js"

/** What the YouTube loader needs from the request. */
export interface YouTubeRequest {
  readonly url: string
  readonly headers?: Readonly<Record<string, string>> | undefined
  readonly country?: string | undefined
}

// English pages, and past the EU consent interstitial, which otherwise replaces the watch page.
const pageHeaders = { "accept-language": "en-US,en;q=0.9", cookie: "CONSENT=YES+cb; SOCS=CAI" }

const decoder = new TextDecoder()

/** Whether the pipeline should load this URL through the YouTube loader. */
export const isYouTubeUrl = (url: string): boolean => youTubeTarget(url) !== undefined

const tracksOf = (player: unknown): Array<CaptionTrack> => {
  const tracks = (player as { captions?: { playerCaptionsTracklistRenderer?: { captionTracks?: unknown } } })
    ?.captions?.playerCaptionsTracklistRenderer?.captionTracks
  return Array.isArray(tracks)
    ? tracks.filter((t): t is CaptionTrack => typeof t?.baseUrl === "string" && typeof t?.languageCode === "string")
    : []
}

/** The caption track's URL asking for json3; any scheme or host the page gave is kept. */
const captionUrl = (track: CaptionTrack, origin: string): string => {
  const url = new URL(track.baseUrl, origin)
  url.searchParams.set("fmt", "json3")
  return url.href
}

/** Loads a YouTube URL as a structured document page. */
export const loadYouTube = (
  request: YouTubeRequest
): Effect.Effect<LoadedPage, WebsiteError | InvalidRequest, Fetcher> =>
  Effect.gen(function*() {
    const target = youTubeTarget(request.url)!
    const fetcher = yield* Fetcher
    const origin = `${new URL(request.url).protocol}//www.youtube.com`
    const get = (url: string) =>
      fetcher.fetch({ url, headers: { ...pageHeaders, ...request.headers }, country: request.country })
    const pageUrl = target.kind === "video" ? `${origin}/watch?v=${target.id}&hl=en` : `${origin}${target.path}/videos?hl=en`
    const page = yield* get(pageUrl)
    const html = decoder.decode(page.body)
    let tree
    if (target.kind === "video") {
      const player = embeddedJson(html, "ytInitialPlayerResponse")
      if ((player as { videoDetails?: unknown } | undefined)?.videoDetails === undefined) {
        const status = (player as { playabilityStatus?: { reason?: string } } | undefined)?.playabilityStatus
        return yield* new WebsiteError({ reason: "HttpStatus", url: request.url, status: 404, detail: status?.reason ?? "the watch page has no video details" })
      }
      const track = pickTrack(tracksOf(player))
      const captions = track === undefined ? Option.none() : yield* Effect.option(get(captionUrl(track, origin)))
      const cues = Option.map(captions, (response) => parseCaptions(decoder.decode(response.body)))
      tree = videoDocument(videoFacts(player, target.id, origin), Option.getOrUndefined(cues))
    } else {
      const data = embeddedJson(html, "ytInitialData")
      if (data === undefined) {
        return yield* new WebsiteError({ reason: "HttpStatus", url: request.url, status: 404, detail: "the channel page has no data" })
      }
      tree = channelDocument(data, origin)
    }
    const fetchedAt = yield* Clock.currentTimeMillis
    return {
      requestedUrl: request.url,
      url: target.kind === "video" ? `${origin}/watch?v=${target.id}` : `${origin}${target.path}`,
      status: 200,
      headers: { "content-type": "text/html; charset=utf-8" },
      contentType: "text/html",
      body: new TextEncoder().encode("<!doctype html>" + toHtml(tree)),
      fetchedAt
    }
  })
