/**
 * A forgiving XML event scanner for sitemaps and feeds over htmlparser2's tokenizer in XML mode: start tags (local
 * name, attributes), text (entities decoded, CDATA kept) and end tags, in one pass, with no tree. The tokenizer is
 * forgiving by design; this layer notices where the document breaks (a tag cut off, an end tag nothing opened, an
 * element left open, an unterminated comment or CDATA section) and stops there, reporting it, so everything complete
 * before the damage is still delivered.
 *
 * Why not a tree or a validating parser: a 100,000-URL sitemap set is ~17 MB of XML; fast-xml-parser 5 reads it at
 * ~4 MB/s into a tree of 100,000 objects (hundreds of MB at peak), and rejects a truncated file outright. Sitemaps need
 * three element names and one attribute.
 */
import { Tokenizer } from "htmlparser2"

/** What the scanner reports. */
export interface ScanEvents {
  /** A start tag; `attribute(name)` reads one attribute of it (only valid during the call). */
  readonly open: (local: string, attribute: (name: string) => string | undefined, selfClosing: boolean) => void
  /** Character data inside the current element, entities decoded (may come in several pieces). */
  readonly text: (text: string) => void
  /** Whether text is wanted now; the scanner does not cut or decode text nobody reads. */
  readonly wantsText: () => boolean
  readonly close: (local: string) => void
  /** Checked after each end tag: true stops the scan there (the reader has all it wants; not damage). */
  readonly stopped?: (() => boolean) | undefined
}

/** Where and why the document broke, or `undefined` when it was read to its end with every element closed. */
export type ScanDamage = string | undefined

// XML names are case-sensitive: `RDF`, `pubDate` are compared as written.
const localName = (qualified: string): string => {
  const colon = qualified.indexOf(":")
  return colon === -1 ? qualified : qualified.slice(colon + 1)
}

const LT = 60

// XML mode decodes the five XML entities as spelled and numeric references; hand-made feeds also write `&nbsp;` and
// capitalised names (`&AMP;`), which stay in the text as written: decoded here, in the rare slice holding an `&`.
const leftovers: Record<string, string> = { nbsp: "\u00a0", amp: "&", lt: "<", gt: ">", quot: "\"", apos: "'" }
const leftoverPattern = /&(nbsp|amp|lt|gt|quot|apos);/gi
const decodeLeftovers = (text: string): string =>
  text.indexOf("&") === -1 ? text : text.replace(leftoverPattern, (_, name: string) => leftovers[name.toLowerCase()]!)

/** Scans `source`, calling `events`; returns the damage found, if any. */
export const scan = (source: string, events: ScanEvents): ScanDamage => {
  const open: Array<string> = []
  let damage: ScanDamage
  // Everything before this offset was a complete token; a `<` at or after it at the end is a tag cut off.
  let consumed = 0
  // The start tag being read: its name, where its `<` is, and its attributes (names as written, values decoded).
  let tagName = ""
  let tagStart = 0
  // Reused for every tag (resetting an array's length per tag costs more than the tokenizer's work on it).
  const attributeNames: Array<string> = []
  const attributeValues: Array<string> = []
  let attributeCount = 0
  let value = ""
  // The text run being read, when wanted: the tokenizer gives raw slices and decoded entities apart; one event per run.
  let pending: string | undefined
  const attribute = (name: string): string | undefined => {
    const wanted = name.toLowerCase()
    for (let i = 0; i < attributeCount; i++) {
      if (localName(attributeNames[i]!).toLowerCase() === wanted) return attributeValues[i]
    }
    return undefined
  }
  const fail = (why: string) => {
    // The text read before the damage is still delivered.
    flush()
    if (damage === undefined) damage = why
    tokenizer.pause()
  }
  // Text nobody reads is neither cut out nor decoded.
  const wanted = () => pending !== undefined || (open.length > 0 && events.wantsText())
  const addText = (text: string) => {
    pending = pending === undefined ? text : pending + text
  }
  const flush = () => {
    if (pending === undefined) return
    const text = pending
    pending = undefined
    events.text(text)
  }
  const openTag = (endIndex: number, selfClosing: boolean) => {
    if (damage !== undefined) return
    // A `<` inside the tag means this one was cut off and another began.
    const inner = source.indexOf("<", tagStart + 1)
    if (inner !== -1 && inner < endIndex) return fail(`tag cut off at offset ${tagStart}`)
    consumed = endIndex + 1
    const name = localName(tagName)
    events.open(name, attribute, selfClosing)
    if (selfClosing) events.close(name)
    else open.push(name)
  }
  const stopped = events.stopped
  let done = false
  const stopIfDone = () => {
    if (stopped !== undefined && stopped()) {
      done = true
      tokenizer.pause()
    }
  }
  const tokenizer = new Tokenizer({ xmlMode: true, decodeEntities: true }, {
    onopentagname: (start, endIndex) => {
      flush()
      tagStart = start - 1
      tagName = source.slice(start, endIndex)
      attributeCount = 0
    },
    onattribname: (start, endIndex) => {
      attributeNames[attributeCount] = source.slice(start, endIndex)
      value = ""
    },
    onattribdata: (start, endIndex) => {
      value += decodeLeftovers(source.slice(start, endIndex))
    },
    onattribentity: (codepoint) => {
      value += String.fromCodePoint(codepoint)
    },
    onattribend: () => {
      attributeValues[attributeCount++] = value
    },
    onopentagend: (endIndex) => openTag(endIndex, false),
    onselfclosingtag: (endIndex) => openTag(endIndex, true),
    onclosetag: (start, endIndex) => {
      if (damage !== undefined) return
      flush()
      const lt = start - 2
      consumed = endIndex
      const top = open[open.length - 1]
      // Fast path: the end tag of the innermost element, spelled without a prefix (no string is cut).
      if (top !== undefined && endIndex - start === top.length && source.startsWith(top, start)) {
        events.close(open.pop()!)
        stopIfDone()
        return
      }
      const qualified = source.slice(start, endIndex)
      if (qualified.includes("<")) return fail(`tag cut off at offset ${lt}`)
      const name = localName(qualified)
      const at = open.lastIndexOf(name)
      if (at === -1) return fail(`unexpected </${name}> at offset ${lt}`)
      // Elements left open inside it are closed with it (forgiving, as browsers are with feeds).
      while (open.length > at) events.close(open.pop()!)
      stopIfDone()
    },
    ontext: (start, endIndex) => {
      if (damage !== undefined) return
      if (source.charCodeAt(start) === LT) {
        // The tokenizer keeps a `<` that starts no tag as text: the document ends inside a tag, or the `<` is stray.
        return fail(source.indexOf(">", start) === -1 ? `tag cut off at offset ${start}` : `stray "<" at offset ${start}`)
      }
      consumed = endIndex
      if (wanted()) addText(decodeLeftovers(source.slice(start, endIndex)))
    },
    ontextentity: (codepoint, endIndex) => {
      consumed = endIndex
      if (wanted()) addText(String.fromCodePoint(codepoint))
    },
    oncdata: (start, endIndex, endOffset) => {
      if (damage !== undefined) return
      if (endOffset === 0) return fail(`unterminated CDATA section at offset ${start - 9}`)
      flush()
      consumed = endIndex
      // The section ends `endOffset` characters before the tokenizer's index (the `]]` of `]]>`).
      if (events.wantsText()) events.text(source.slice(start, endIndex - endOffset))
    },
    oncomment: (start, endIndex, endOffset) => {
      if (endOffset === 0) return fail(`unterminated comment at offset ${start - 4}`)
      flush()
      consumed = endIndex
    },
    // `<?xml ...?>` and `<!DOCTYPE ...>`
    onprocessinginstruction: (_start, endIndex) => {
      flush()
      consumed = endIndex
    },
    ondeclaration: (_start, endIndex) => {
      flush()
      consumed = endIndex
    },
    onend: () => {
      if (damage !== undefined) return
      flush()
      const cut = source.indexOf("<", consumed)
      if (cut !== -1) damage = `tag cut off at offset ${cut}`
    }
  })
  tokenizer.write(source)
  // Stopped by the reader: what follows is not read, so neither judged.
  if (done && damage === undefined) return undefined
  if (damage === undefined) tokenizer.end()
  if (damage !== undefined) return damage
  return open.length === 0 ? undefined : `document ends inside <${open[open.length - 1]}>`
}
