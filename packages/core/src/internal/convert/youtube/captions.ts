/**
 * Caption tracks → cues → transcript paragraphs. YouTube serves a track as json3 (`events[].segs[].utf8`), as srv3
 * timedtext XML (`<p t="ms" d="ms">`) or as the classic XML (`<text start="s" dur="s">`); all three are read. Cues
 * are grouped into paragraphs that open with their `[m:ss]` start, a new one about every 30 seconds.
 */
import { Parser } from "htmlparser2"

/** One caption cue: start in seconds and its text. */
export interface Cue {
  readonly start: number
  readonly text: string
}

/** The track YouTube lists in `captions.playerCaptionsTracklistRenderer.captionTracks`. */
export interface CaptionTrack {
  readonly baseUrl: string
  readonly languageCode: string
  /** `asr` for automatic captions. */
  readonly kind?: string
}

/** Prefers human captions over automatic ones, English over others, then the first listed. */
export const pickTrack = (tracks: ReadonlyArray<CaptionTrack>, language = "en"): CaptionTrack | undefined => {
  const rank = (track: CaptionTrack) => (track.kind === "asr" ? 2 : 0) + (track.languageCode.split("-")[0] === language ? 0 : 1)
  return [...tracks].sort((a, b) => rank(a) - rank(b))[0]
}

const clean = (text: string) => text.replace(/\s+/g, " ").trim()

const fromJson3 = (data: { events?: Array<{ tStartMs?: number; segs?: Array<{ utf8?: string }> }> }): Array<Cue> =>
  (data.events ?? []).flatMap((event) => {
    const text = clean((event.segs ?? []).map((seg) => seg.utf8 ?? "").join(""))
    return text === "" || event.tStartMs === undefined ? [] : [{ start: event.tStartMs / 1000, text }]
  })

const fromXml = (xml: string): Array<Cue> => {
  const cues: Array<Cue> = []
  let current: { start: number; text: string } | undefined
  const parser = new Parser({
    onopentag: (name, attributes) => {
      if (name === "text" && attributes["start"] !== undefined) current = { start: Number(attributes["start"]), text: "" }
      else if (name === "p" && attributes["t"] !== undefined) current = { start: Number(attributes["t"]) / 1000, text: "" }
      else if (name === "br" && current !== undefined) current.text += " "
    },
    ontext: (text) => {
      if (current !== undefined) current.text += text
    },
    onclosetag: (name) => {
      if ((name === "text" || name === "p") && current !== undefined) {
        // Classic timedtext double-escapes entities (`&amp;#39;`), so a second decoding pass is needed.
        const text = clean(current.text.replace(/&#(\d+);/g, (_, n) => String.fromCharCode(Number(n))).replace(/&quot;/g, "\"").replace(/&amp;/g, "&"))
        if (text !== "" && Number.isFinite(current.start)) cues.push({ start: current.start, text })
        current = undefined
      }
    }
  }, { xmlMode: true, decodeEntities: true })
  parser.end(xml)
  return cues
}

/** Parses a caption file in any of YouTube's formats. */
export const parseCaptions = (body: string): Array<Cue> => {
  const trimmed = body.trimStart()
  if (trimmed.startsWith("{")) {
    try {
      return fromJson3(JSON.parse(trimmed))
    } catch {
      return []
    }
  }
  return fromXml(trimmed)
}

/** Groups cues into paragraphs of about `seconds` each, each opened by its start time. */
export const paragraphs = (cues: ReadonlyArray<Cue>, seconds = 30): Array<{ start: number; text: string }> => {
  const out: Array<{ start: number; text: string }> = []
  for (const cue of cues) {
    const last = out[out.length - 1]
    if (last !== undefined && cue.start - last.start < seconds) last.text += " " + cue.text
    else out.push({ start: cue.start, text: cue.text })
  }
  return out
}
