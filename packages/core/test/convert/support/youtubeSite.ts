/**
 * A stand-in for www.youtube.com serving pages in YouTube's real shapes (captured structure, shortened): a watch page
 * with `ytInitialPlayerResponse` (videoDetails, microformat, captionTracks), the timedtext endpoint answering json3 or
 * the classic XML, and a channel's videos tab with `ytInitialData` (channelMetadataRenderer, richItemRenderer →
 * videoRenderer, and the newer lockupViewModel). Caption URLs use http:// because the test server speaks plain HTTP.
 */
import type * as FixtureSite from "../../support/FixtureSite.js"

const player = (id: string, title: string, tracks: ReadonlyArray<Record<string, unknown>>) => ({
  responseContext: { serviceTrackingParams: [{ service: "GFEEDBACK", params: [{ key: "logged_in", value: "0" }] }] },
  playabilityStatus: { status: "OK", playableInEmbed: true },
  streamingData: { expiresInSeconds: "21540", formats: [] },
  captions: {
    playerCaptionsTracklistRenderer: {
      captionTracks: tracks,
      audioTracks: [{ captionTrackIndices: [0, 1] }],
      translationLanguages: [{ languageCode: "de", languageName: { simpleText: "German" } }],
      defaultAudioTrackIndex: 0
    }
  },
  videoDetails: {
    videoId: id,
    title,
    lengthSeconds: "95",
    keywords: ["harbour", "tides"],
    channelId: "UCharbourTV0000000000000",
    isOwnerViewing: false,
    shortDescription: "How the harbour measures the tides.\n\nChapters:\n0:00 Intro\n0:40 The gauges",
    isCrawlable: true,
    thumbnail: { thumbnails: [{ url: `https://i.ytimg.com/vi/${id}/hqdefault.jpg`, width: 480, height: 360 }] },
    allowRatings: true,
    viewCount: "10234",
    author: "Harbour TV",
    isPrivate: false,
    isLiveContent: false
  },
  microformat: {
    playerMicroformatRenderer: {
      thumbnail: { thumbnails: [{ url: `https://i.ytimg.com/vi/${id}/maxresdefault.jpg`, width: 1280, height: 720 }] },
      title: { simpleText: title },
      description: { simpleText: "How the harbour measures the tides." },
      lengthSeconds: "95",
      ownerProfileUrl: "http://www.youtube.com/@harbourtv",
      externalChannelId: "UCharbourTV0000000000000",
      isFamilySafe: true,
      category: "Education",
      publishDate: "2024-03-05T09:00:12-08:00",
      uploadDate: "2024-03-05T09:00:12-08:00",
      ownerChannelName: "Harbour TV"
    }
  }
})

const track = (id: string, lang: string, kind?: "asr") => ({
  baseUrl: `http://www.youtube.com/api/timedtext?v=${id}&ei=Zk3nZd2XBYyV&caps=asr&opi=112496729&xoaf=5&hl=en&ip=0.0.0.0&ipbits=0&expire=1709700000&sparams=ip,ipbits,expire,v,ei,caps,opi,xoaf&signature=0A1B2C&key=yt8&lang=${lang}${kind === undefined ? "" : "&kind=asr"}`,
  name: { simpleText: kind === undefined ? "English" : "English (auto-generated)" },
  vssId: kind === undefined ? `.${lang}` : `a.${lang}`,
  languageCode: lang,
  ...(kind === undefined ? {} : { kind }),
  isTranslatable: true,
  trackName: ""
})

/** The human English captions of the first video, as cues (seconds, text). */
export const cues: ReadonlyArray<[number, string]> = [
  [0.4, "Welcome to the harbour."],
  [4.2, "Every morning we read the tide gauges"],
  [9.8, "at four stations."],
  [31.5, "The north pier gauge is the oldest,"],
  [36.0, "installed in 1911."],
  [62.3, "Readings go to the port office by seven."]
]

const json3 = {
  wireMagic: "pb3",
  pens: [{}],
  wsWinStyles: [{}],
  wpWinPositions: [{}],
  events: [
    { tStartMs: 0, dDurationMs: 95000, id: 1, wpWinPosId: 0, wsWinStyleId: 0 },
    ...cues.map(([start, text], i) => ({
      tStartMs: Math.round(start * 1000),
      dDurationMs: 3500,
      wWinId: 1,
      segs: i === 1 ? [{ utf8: "Every morning " }, { utf8: "we read", tOffsetMs: 600 }, { utf8: " the tide gauges", tOffsetMs: 900 }] : [{ utf8: text }]
    })),
    { tStartMs: 70000, dDurationMs: 2000, wWinId: 1, aAppend: 1, segs: [{ utf8: "\n" }] }
  ]
}

const classicXml = `<?xml version="1.0" encoding="utf-8" ?><transcript><text start="0.5" dur="3.1">Low water at the &amp;quot;East Basin&amp;quot;</text><text start="33.2" dur="2.4">comes twenty minutes later &amp;amp; lasts longer.</text></transcript>`

const watchPage = (data: unknown) => `<!DOCTYPE html><html style="font-size: 10px;font-family: Roboto, Arial, sans-serif;" lang="en"><head><meta http-equiv="origin-trial" content="x"><title>${(data as { videoDetails: { title: string } }).videoDetails.title} - YouTube</title></head><body dir="ltr"><div id="player"></div><script nonce="n0nce">var ytInitialPlayerResponse = ${JSON.stringify(data)};var meta = document.createElement('meta'); meta.name = 'referrer'; meta.content = 'origin-when-cross-origin'; document.getElementsByTagName('head')[0].appendChild(meta);</script><script nonce="n0nce">var ytInitialData = {"contents":{}};</script></body></html>`

const channelData = {
  responseContext: { serviceTrackingParams: [] },
  contents: {
    twoColumnBrowseResultsRenderer: {
      tabs: [
        { tabRenderer: { title: "Home", selected: false } },
        {
          tabRenderer: {
            title: "Videos",
            selected: true,
            content: {
              richGridRenderer: {
                contents: [
                  {
                    richItemRenderer: {
                      content: {
                        videoRenderer: {
                          videoId: "tideGauge01",
                          title: { runs: [{ text: "Reading the tide gauges" }], accessibility: { accessibilityData: { label: "Reading the tide gauges 1 minute" } } },
                          publishedTimeText: { simpleText: "8 months ago" },
                          lengthText: { accessibility: { accessibilityData: { label: "1 minute, 35 seconds" } }, simpleText: "1:35" },
                          viewCountText: { simpleText: "10,234 views" }
                        }
                      }
                    }
                  },
                  {
                    richItemRenderer: {
                      content: {
                        lockupViewModel: {
                          contentId: "lowWater002",
                          contentType: "LOCKUP_CONTENT_TYPE_VIDEO",
                          metadata: {
                            lockupMetadataViewModel: {
                              title: { content: "Why low water comes late" },
                              metadata: {
                                contentMetadataViewModel: {
                                  metadataRows: [{ metadataParts: [{ text: { content: "2.1K views" } }, { text: { content: "1 year ago" } }] }]
                                }
                              }
                            }
                          }
                        }
                      }
                    }
                  },
                  { continuationItemRenderer: { trigger: "CONTINUATION_TRIGGER_ON_ITEM_SHOWN" } }
                ]
              }
            }
          }
        }
      ]
    }
  },
  metadata: {
    channelMetadataRenderer: {
      title: "Harbour TV",
      description: "Films from the harbour authority.\nNew videos every month.",
      externalId: "UCharbourTV0000000000000",
      vanityChannelUrl: "http://www.youtube.com/@harbourtv"
    }
  }
}

const channelPage = `<!DOCTYPE html><html lang="en"><head><title>Harbour TV - YouTube</title></head><body><script nonce="n0nce">var ytInitialData = ${JSON.stringify(channelData)};</script></body></html>`

const send = (res: Parameters<FixtureSite.Handler>[1], body: string, type: string) => {
  res.writeHead(200, { "content-type": type })
  res.end(body)
}

/** Routes of the stand-in: `tideGauge01` has human and automatic English captions (json3), `lowWater002` only a
 * classic XML track, `noCaption03` none. */
export const routes: FixtureSite.Routes = {
  "/watch": (req, res) => {
    const id = new URL(req.url ?? "/", "http://x").searchParams.get("v")
    const data = id === "tideGauge01"
      ? player(id, "Reading the tide gauges", [track(id, "de"), track(id, "en", "asr"), track(id, "en")])
      : id === "lowWater002"
      ? player(id, "Why low water comes late", [track(id, "en")])
      : player(id ?? "", "A video without captions", [])
    send(res, watchPage(data), "text/html; charset=utf-8")
  },
  "/api/timedtext": (req, res) => {
    const query = new URL(req.url ?? "/", "http://x").searchParams
    if (query.get("v") === "tideGauge01" && query.get("lang") === "en" && query.get("kind") === null && query.get("fmt") === "json3") {
      return send(res, JSON.stringify(json3), "application/json; charset=UTF-8")
    }
    if (query.get("v") === "lowWater002") return send(res, classicXml, "text/xml; charset=UTF-8")
    send(res, JSON.stringify({ events: [{ tStartMs: 0, segs: [{ utf8: "wrong track" }] }] }), "application/json")
  },
  "/@harbourtv/videos": (_req, res) => send(res, channelPage, "text/html; charset=utf-8")
}
