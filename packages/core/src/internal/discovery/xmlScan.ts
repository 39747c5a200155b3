/**
 * A forgiving, allocation-light XML event scanner for sitemaps and feeds: start tags (local name, attributes on
 * demand), text (entities decoded, CDATA kept) and end tags, in one left-to-right pass with `indexOf`. No tree, no
 * validation beyond noticing where the document breaks: a tag cut off or left unclosed ends the scan there and is
 * reported, so everything complete before the damage is still delivered.
 *
 * Why not a general parser: a 100,000-URL sitemap set is ~17 MB of XML; fast-xml-parser 5 reads it at ~4 MB/s into a
 * tree of 100,000 objects (hundreds of MB at peak), and rejects a truncated file outright. Sitemaps need three
 * element names and one attribute; this scanner reads them at memory speed and keeps the entries before any damage.
 */

/** What the scanner reports. */
export interface ScanEvents {
  /** A start tag; `attribute(name)` reads one attribute of it (only valid during the call). */
  readonly open: (local: string, attribute: (name: string) => string | undefined, selfClosing: boolean) => void
  /** Character data inside the current element, entities decoded (may come in several pieces). */
  readonly text: (text: string) => void
  /** Whether text is wanted now; the scanner does not cut or decode text nobody reads. */
  readonly wantsText: () => boolean
  readonly close: (local: string) => void
}

/** Where and why the document broke, or `undefined` when it was read to its end with every element closed. */
export type ScanDamage = string | undefined

const named: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: "\"", apos: "'", nbsp: "\u00a0" }

/** Decodes the XML entities (and `&nbsp;`, common in hand-made feeds); unknown ones stay as written. */
export const decodeEntities = (text: string): string =>
  text.indexOf("&") === -1 ? text : text.replace(/&(#x[0-9a-f]+|#[0-9]+|[a-z]+);/gi, (whole, body: string) => {
    if (body[0] === "#") {
      const code = body[1] === "x" || body[1] === "X" ? parseInt(body.slice(2), 16) : parseInt(body.slice(1), 10)
      return Number.isFinite(code) && code >= 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole
    }
    return named[body.toLowerCase()] ?? whole
  })

// XML names are case-sensitive: `RDF`, `pubDate` are compared as written.
const localName = (qualified: string): string => {
  const colon = qualified.indexOf(":")
  return colon === -1 ? qualified : qualified.slice(colon + 1)
}

const attributePatterns = new Map<string, RegExp>()
const attributePattern = (name: string): RegExp => {
  let pattern = attributePatterns.get(name)
  if (pattern === undefined) {
    pattern = new RegExp(`(?:^|\\s)(?:[\\w.-]+:)?${name}\\s*=\\s*(?:"([^"]*)"|'([^']*)')`, "i")
    attributePatterns.set(name, pattern)
  }
  return pattern
}

const isNameStart = (code: number): boolean =>
  (code >= 65 && code <= 90) || (code >= 97 && code <= 122) || code === 95 || code === 58 || code > 127

/** Scans `source`, calling `events`; returns the damage found, if any. */
export const scan = (source: string, events: ScanEvents): ScanDamage => {
  const open: Array<string> = []
  // The current start tag's attribute text; one reader for every tag, so scanning allocates no closure per tag.
  let attributeStart = 0
  let attributeEnd = 0
  const attribute = (name: string): string | undefined => {
    const match = attributePattern(name).exec(source.slice(attributeStart, attributeEnd))
    return match === null ? undefined : decodeEntities(match[1] ?? match[2] ?? "")
  }
  let i = 0
  const length = source.length
  while (i < length) {
    const lt = source.indexOf("<", i)
    const textEnd = lt === -1 ? length : lt
    if (textEnd > i && open.length > 0 && events.wantsText()) events.text(decodeEntities(source.slice(i, textEnd)))
    if (lt === -1) break
    const first = source.charCodeAt(lt + 1)
    if (first === 33 && source.startsWith("<![CDATA[", lt)) {
      const end = source.indexOf("]]>", lt + 9)
      if (end === -1) return `unterminated CDATA section at offset ${lt}`
      if (events.wantsText()) events.text(source.slice(lt + 9, end))
      i = end + 3
      continue
    }
    if (first === 33 && source.startsWith("<!--", lt)) {
      const end = source.indexOf("-->", lt + 4)
      if (end === -1) return `unterminated comment at offset ${lt}`
      i = end + 3
      continue
    }
    const gt = source.indexOf(">", lt + 1)
    // A `<` inside the tag means this one was cut off and another began.
    const nextLt = source.indexOf("<", lt + 1)
    if (gt === -1 || (nextLt !== -1 && nextLt < gt)) return `tag cut off at offset ${lt}`
    if (first === 63 || first === 33) {
      // `<?xml ...?>` or `<!DOCTYPE ...>`
      i = gt + 1
      continue
    }
    if (first === 47) {
      // Fast path: the end tag of the innermost element, spelled without a prefix (no string is cut).
      const top = open[open.length - 1]
      if (top !== undefined && gt === lt + 2 + top.length && source.startsWith(top, lt + 2)) {
        events.close(open.pop()!)
        i = gt + 1
        continue
      }
      const name = localName(source.slice(lt + 2, gt).trim())
      const at = open.lastIndexOf(name)
      if (at === -1) return `unexpected </${name}> at offset ${lt}`
      // Elements left open inside it are closed with it (forgiving, as browsers are with feeds).
      while (open.length > at) events.close(open.pop()!)
      i = gt + 1
      continue
    }
    if (!isNameStart(first)) return `stray "<" at offset ${lt}`
    let nameEnd = lt + 1
    while (nameEnd < gt) {
      const c = source.charCodeAt(nameEnd)
      if (c === 32 || c === 9 || c === 10 || c === 13 || c === 47) break
      nameEnd++
    }
    const name = localName(source.slice(lt + 1, nameEnd))
    const selfClosing = source.charCodeAt(gt - 1) === 47
    attributeStart = nameEnd
    attributeEnd = selfClosing ? gt - 1 : gt
    events.open(name, attribute, selfClosing)
    if (selfClosing) events.close(name)
    else open.push(name)
    i = gt + 1
  }
  return open.length === 0 ? undefined : `document ends inside <${open[open.length - 1]}>`
}
