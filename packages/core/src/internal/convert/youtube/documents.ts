/**
 * The structured documents for YouTube: a video (title, channel, published date, duration, description, transcript)
 * and a channel (name, description, its videos as links), built from the objects the pages embed.
 */
import type { Element, Root } from "hast"
import { clock } from "../textFiles.js"
import { documentTree, h } from "../hast.js"
import { paragraphs, type Cue } from "./captions.js"
import { findAll, textOf } from "./initialData.js"

const record = (value: unknown): Record<string, unknown> =>
  typeof value === "object" && value !== null ? value as Record<string, unknown> : {}

const path = (value: unknown, ...keys: Array<string>): unknown => keys.reduce((at, key) => record(at)[key], value)

/** Description text with its line breaks; blank lines separate paragraphs. */
const multiline = (text: string): Array<Element> =>
  text.split(/\n\s*\n/).map((p) => p.trim()).filter(Boolean).map((p) =>
    h("p", {}, p.split("\n").flatMap((line, i) => i === 0 ? [line] : [h("br"), line])))

const meta = (name: string, content: string | undefined): Array<Element> =>
  content === undefined || content === "" ? [] : [h("meta", { property: name, content })]

/** What a watch page says about its video. */
export interface VideoFacts {
  readonly id: string
  readonly origin: string
  readonly title: string
  readonly channel: string | undefined
  readonly channelUrl: string | undefined
  readonly published: string | undefined
  readonly seconds: number | undefined
  readonly description: string
}

/** Reads the facts of a video from `ytInitialPlayerResponse`. */
export const videoFacts = (player: unknown, id: string, origin: string): VideoFacts => {
  const details = path(player, "videoDetails")
  const micro = path(player, "microformat", "playerMicroformatRenderer")
  const channelId = path(details, "channelId")
  const owner = path(micro, "ownerProfileUrl")
  const length = Number(path(details, "lengthSeconds") ?? path(micro, "lengthSeconds"))
  const published = textOf(path(micro, "publishDate")) ?? textOf(path(micro, "uploadDate"))
  return {
    id,
    origin,
    title: textOf(path(details, "title")) ?? textOf(path(micro, "title")) ?? id,
    channel: textOf(path(details, "author")) ?? textOf(path(micro, "ownerChannelName")),
    channelUrl: typeof owner === "string" ? owner.replace(/^http:\/\/www\.youtube\.com/, origin) : typeof channelId === "string" ? `${origin}/channel/${channelId}` : undefined,
    published: published?.slice(0, 10),
    seconds: Number.isFinite(length) && length > 0 ? length : undefined,
    description: textOf(path(details, "shortDescription")) ?? textOf(path(micro, "description")) ?? ""
  }
}

/** The video document; `cues` is the transcript, when a caption track was readable. */
export const videoDocument = (facts: VideoFacts, cues: ReadonlyArray<Cue> | undefined): Root => {
  const about: Array<Element> = []
  if (facts.channel !== undefined) {
    about.push(h("li", {}, ["Channel: ", facts.channelUrl === undefined ? facts.channel : h("a", { href: facts.channelUrl }, [facts.channel])]))
  }
  if (facts.published !== undefined) about.push(h("li", {}, [`Published: ${facts.published}`]))
  if (facts.seconds !== undefined) about.push(h("li", {}, [`Duration: ${clock(facts.seconds).slice(1, -1)}`]))
  const body: Array<Element> = [h("h1", {}, [facts.title])]
  if (about.length > 0) body.push(h("ul", {}, about))
  if (facts.description.trim() !== "") body.push(h("h2", {}, ["Description"]), ...multiline(facts.description))
  body.push(h("h2", {}, ["Transcript"]))
  body.push(...(cues === undefined || cues.length === 0
    ? [h("p", {}, [h("em", {}, ["No captions are available for this video."])])]
    : paragraphs(cues).map((p) => h("p", {}, [
      // The timestamp links to that moment of the video; as a link it also keeps its brackets unescaped in Markdown.
      h("a", { href: `${facts.origin}/watch?v=${facts.id}&t=${Math.floor(p.start)}s` }, [clock(p.start).slice(1, -1)]),
      ` ${p.text}`
    ]))))
  const tree = documentTree(facts.title, body)
  addHead(tree, [...meta("og:title", facts.title), ...meta("og:type", "video.other"), ...meta("article:published_time", facts.published), ...meta("og:description", facts.description.slice(0, 300))])
  return tree
}

const addHead = (tree: Root, elements: ReadonlyArray<Element>) => {
  const html = tree.children[0] as Element
  const head = html.children[0] as Element
  head.children.push(...elements)
}

/** One video of a channel's list. */
interface ListedVideo {
  readonly id: string
  readonly title: string
  readonly published: string | undefined
  readonly length: string | undefined
  readonly views: string | undefined
}

/** The videos a channel page lists, from both the classic renderers and the newer lockup view models. */
const listedVideos = (data: unknown): Array<ListedVideo> => {
  const seen = new Set<string>()
  const out: Array<ListedVideo> = []
  const add = (video: ListedVideo) => {
    if (seen.has(video.id)) return
    seen.add(video.id)
    out.push(video)
  }
  for (const key of ["videoRenderer", "gridVideoRenderer", "reelItemRenderer"]) {
    for (const renderer of findAll(data, key)) {
      const id = path(renderer, "videoId")
      if (typeof id !== "string") continue
      add({
        id,
        title: textOf(path(renderer, "title")) ?? textOf(path(renderer, "headline")) ?? id,
        published: textOf(path(renderer, "publishedTimeText")),
        length: textOf(path(renderer, "lengthText")),
        views: textOf(path(renderer, "viewCountText"))
      })
    }
  }
  for (const lockup of findAll(data, "lockupViewModel")) {
    const id = path(lockup, "contentId")
    if (typeof id !== "string" || path(lockup, "contentType") !== "LOCKUP_CONTENT_TYPE_VIDEO") continue
    const metadata = path(lockup, "metadata", "lockupMetadataViewModel")
    const rows = findAll(path(metadata, "metadata"), "metadataParts").flatMap((parts) => Array.isArray(parts) ? parts : [])
      .map((part) => textOf(path(part, "text"))).filter((text): text is string => text !== undefined)
    add({ id, title: textOf(path(metadata, "title")) ?? id, published: rows[1], length: undefined, views: rows[0] })
  }
  return out
}

/** The channel document: its name, description and its videos, each a link to its watch page. */
export const channelDocument = (data: unknown, origin: string): Root => {
  const channel = path(data, "metadata", "channelMetadataRenderer")
  const title = textOf(path(channel, "title")) ?? "YouTube channel"
  const description = textOf(path(channel, "description")) ?? ""
  const videos = listedVideos(data)
  const body: Array<Element> = [h("h1", {}, [title])]
  body.push(...multiline(description))
  body.push(h("h2", {}, ["Videos"]))
  body.push(videos.length === 0 ? h("p", {}, [h("em", {}, ["No videos are listed."])]) : h("ul", {}, videos.map((video) => {
    const facts = [video.length, video.views, video.published].filter((x): x is string => x !== undefined && x !== "")
    return h("li", {}, [h("a", { href: `${origin}/watch?v=${video.id}` }, [video.title]), ...(facts.length === 0 ? [] : [` (${facts.join(", ")})`])])
  })))
  const tree = documentTree(title, body)
  addHead(tree, [...meta("og:title", title), ...meta("og:description", description.slice(0, 300))])
  return tree
}
