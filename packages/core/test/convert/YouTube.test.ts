/**
 * YouTube videos and channels through the pipeline: the real loader and parsers, pointed at a local stand-in for
 * www.youtube.com through the Fetcher's host mapping.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import * as Cache from "../../src/Cache.js"
import * as Fetcher from "../../src/Fetcher.js"
import * as Pipeline from "../../src/Pipeline.js"
import { parseCaptions, paragraphs } from "../../src/internal/convert/youtube/captions.js"
import { youTubeTarget } from "../../src/internal/convert/youtube/url.js"
import * as FixtureSite from "../support/FixtureSite.js"
import * as YouTubeSite from "./support/youtubeSite.js"

const Site = FixtureSite.layer(YouTubeSite.routes)
const MappedFetcher = Layer.unwrapEffect(Effect.map(FixtureSite.FixtureSite, (site) =>
  Fetcher.layer({ allowPrivateTargets: true, hostRules: `MAP www.youtube.com 127.0.0.1:${site.port}` })))
const TestLayer = Layer.mergeAll(MappedFetcher, Cache.layerMemory()).pipe(Layer.provideMerge(Site))

describe("YouTube URLs", () => {
  it("recognises video and channel URLs, nothing else", () => {
    expect(youTubeTarget("https://www.youtube.com/watch?v=tideGauge01&t=10s")).toEqual({ kind: "video", id: "tideGauge01" })
    expect(youTubeTarget("https://youtu.be/tideGauge01?si=abc")).toEqual({ kind: "video", id: "tideGauge01" })
    expect(youTubeTarget("https://m.youtube.com/shorts/tideGauge01")).toEqual({ kind: "video", id: "tideGauge01" })
    expect(youTubeTarget("https://www.youtube.com/@harbourtv/videos")).toEqual({ kind: "channel", path: "/@harbourtv" })
    expect(youTubeTarget("https://www.youtube.com/channel/UCharbourTV0000000000000")).toEqual({ kind: "channel", path: "/channel/UCharbourTV0000000000000" })
    expect(youTubeTarget("https://www.youtube.com/results?search_query=tides")).toBeUndefined()
    expect(youTubeTarget("https://www.youtube.com/watch?v=short")).toBeUndefined()
    expect(youTubeTarget("https://notyoutube.com/watch?v=tideGauge01")).toBeUndefined()
  })

  it("groups cues into paragraphs of about 30 seconds", () => {
    const cues = parseCaptions(`<timedtext format="3"><body><p t="0" d="1000">one</p><p t="29000" d="900">two<s> more</s></p><p t="30500" d="800">three</p></body></timedtext>`)
    expect(paragraphs(cues)).toEqual([{ start: 0, text: "one two more" }, { start: 30.5, text: "three" }])
  })
})

describe("YouTube through the pipeline", () => {
  it.layer(TestLayer, { timeout: 30_000 })((it) => {
    it.effect("a video gives title, channel, date, description and a timestamped transcript from the human track", () =>
      Effect.gen(function*() {
        const result = yield* Pipeline.scrape({ url: "http://www.youtube.com/watch?v=tideGauge01", formats: { markdown: true }, maxAgeMs: 0 })
        expect(result.markdown.data).toBe(`# Reading the tide gauges

- Channel: [Harbour TV](http://www.youtube.com/@harbourtv)
- Published: 2024-03-05
- Duration: 1:35

## Description

How the harbour measures the tides.

Chapters:\\
0:00 Intro\\
0:40 The gauges

## Transcript

[0:00](http://www.youtube.com/watch?v=tideGauge01&t=0s) Welcome to the harbour. Every morning we read the tide gauges at four stations.

[0:31](http://www.youtube.com/watch?v=tideGauge01&t=31s) The north pier gauge is the oldest, installed in 1911.

[1:02](http://www.youtube.com/watch?v=tideGauge01&t=62s) Readings go to the port office by seven.
`)
        // Without links the transcript still opens each paragraph with its time.
        const plain = yield* Pipeline.scrape({ url: "http://www.youtube.com/watch?v=tideGauge01", formats: { markdown: true }, markdownParams: { includeLinks: false }, maxAgeMs: 0 })
        expect(plain.markdown.data).toContain("\n\n0:31 The north pier gauge is the oldest, installed in 1911.\n")
        expect(result.metadata.title).toBe("Reading the tide gauges")
        expect(result.metadata.publishedTime).toBe("2024-03-05")
        const site = yield* FixtureSite.FixtureSite
        expect(site.exchanges.filter((e) => e.path.startsWith("/api/timedtext")).length).toBe(2)
      }))

    it.effect("a classic XML track is read too; a video without captions says so", () =>
      Effect.gen(function*() {
        const xml = yield* Pipeline.scrape({ url: "http://youtu.be/lowWater002", formats: { markdown: true }, maxAgeMs: 0 })
        expect(xml.markdown.data).toContain(`[0:00](http://www.youtube.com/watch?v=lowWater002&t=0s) Low water at the "East Basin"\n\n` +
          `[0:33](http://www.youtube.com/watch?v=lowWater002&t=33s) comes twenty minutes later & lasts longer.`)
        const none = yield* Pipeline.scrape({ url: "http://www.youtube.com/watch?v=noCaption03", formats: { markdown: true }, maxAgeMs: 0 })
        expect(none.markdown.data).toContain("## Transcript\n\n*No captions are available for this video.*")
      }))

    it.effect("a channel URL lists its videos as links", () =>
      Effect.gen(function*() {
        const result = yield* Pipeline.scrape({ url: "http://www.youtube.com/@harbourtv", formats: { markdown: true }, maxAgeMs: 0 })
        expect(result.markdown.data).toBe(`# Harbour TV

Films from the harbour authority.\\
New videos every month.

## Videos

- [Reading the tide gauges](http://www.youtube.com/watch?v=tideGauge01) (1:35, 10,234 views, 8 months ago)
- [Why low water comes late](http://www.youtube.com/watch?v=lowWater002) (2.1K views, 1 year ago)
`)
      }))
  })
})
