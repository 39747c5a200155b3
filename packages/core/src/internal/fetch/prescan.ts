/**
 * The WHATWG "prescan a byte stream to determine its encoding" algorithm (HTML §13.2.3.2), over the first 1024 bytes.
 * It works on bytes, not text, because the encoding is what we are trying to find; it returns the raw label found in a
 * `<meta charset>` or `<meta http-equiv="Content-Type" content="...charset=...">`, leaving label resolution to the caller.
 */

const LT = 0x3c
const GT = 0x3e
const SLASH = 0x2f
const EQ = 0x3d
const DQ = 0x22
const SQ = 0x27
const BANG = 0x21
const QUESTION = 0x3f
const DASH = 0x2d

const isSpace = (b: number): boolean => b === 0x09 || b === 0x0a || b === 0x0c || b === 0x0d || b === 0x20
const isUpper = (b: number): boolean => b >= 0x41 && b <= 0x5a
const isLetter = (b: number): boolean => isUpper(b) || (b >= 0x61 && b <= 0x7a)
const lower = (b: number): number => (isUpper(b) ? b + 0x20 : b)

/** How many bytes the prescan looks at, as browsers do. */
export const PRESCAN_LIMIT = 1024

interface Attribute {
  readonly name: string
  readonly value: string
}

class Scanner {
  pos = 0
  constructor(readonly bytes: Uint8Array, readonly end: number) {}

  at(offset = 0): number {
    const i = this.pos + offset
    return i < this.end ? this.bytes[i]! : -1
  }

  /** Case-insensitive ASCII match of `word` at the current position. */
  startsWith(word: string): boolean {
    for (let i = 0; i < word.length; i++) {
      if (lower(this.at(i)) !== word.charCodeAt(i)) return false
    }
    return true
  }

  /** Moves to the first occurrence of `byte` at or after the position; false when the input ends first. */
  seek(byte: number): boolean {
    while (this.pos < this.end && this.bytes[this.pos] !== byte) this.pos++
    return this.pos < this.end
  }

  /** The "get an attribute" algorithm; undefined at `>` or at the end of input. */
  attribute(): Attribute | undefined {
    while (isSpace(this.at()) || this.at() === SLASH) this.pos++
    if (this.at() === GT || this.at() === -1) return undefined
    let name = ""
    let value = ""
    // Name: up to `=`, whitespace, `/` or `>`.
    for (;;) {
      const b = this.at()
      if (b === -1) return undefined
      if (b === EQ && name !== "") {
        this.pos++
        return this.attributeValue(name)
      }
      if (isSpace(b)) break
      if (b === SLASH || b === GT) return { name, value }
      name += String.fromCharCode(lower(b))
      this.pos++
    }
    while (isSpace(this.at())) this.pos++
    if (this.at() !== EQ) return this.at() === -1 ? undefined : { name, value }
    this.pos++
    return this.attributeValue(name)
  }

  private attributeValue(name: string): Attribute | undefined {
    while (isSpace(this.at())) this.pos++
    let value = ""
    const quote = this.at()
    if (quote === DQ || quote === SQ) {
      for (;;) {
        this.pos++
        const b = this.at()
        if (b === -1) return undefined
        if (b === quote) {
          this.pos++
          return { name, value }
        }
        value += String.fromCharCode(lower(b))
      }
    }
    if (quote === GT) return { name, value }
    for (;;) {
      const b = this.at()
      if (b === -1) return undefined
      if (isSpace(b) || b === GT) return { name, value }
      value += String.fromCharCode(lower(b))
      this.pos++
    }
  }
}

/** The "extract a character encoding from a meta element" algorithm, on a `content` attribute value. */
export const charsetFromContent = (content: string): string | undefined => {
  const text = content.toLowerCase()
  let pos = 0
  for (;;) {
    const found = text.indexOf("charset", pos)
    if (found < 0) return undefined
    pos = found + 7
    while (pos < text.length && isSpace(text.charCodeAt(pos))) pos++
    if (text[pos] !== "=") continue
    pos++
    while (pos < text.length && isSpace(text.charCodeAt(pos))) pos++
    const first = text[pos]
    if (first === undefined) return undefined
    if (first === "\"" || first === "'") {
      const close = text.indexOf(first, pos + 1)
      return close < 0 ? undefined : content.slice(pos + 1, close)
    }
    let stop = pos
    while (stop < text.length && !isSpace(text.charCodeAt(stop)) && text[stop] !== ";") stop++
    return content.slice(pos, stop)
  }
}

/**
 * Finds the encoding label a `<meta>` element declares in the first {@link PRESCAN_LIMIT} bytes. `resolve` turns a
 * label into an encoding name (undefined for unknown labels, which the prescan skips as browsers do).
 */
export const prescanMeta = (bytes: Uint8Array, resolve: (label: string) => string | undefined): string | undefined => {
  const s = new Scanner(bytes, Math.min(bytes.length, PRESCAN_LIMIT))
  while (s.pos < s.end) {
    if (s.startsWith("<!--")) {
      // The `-->` may share its dashes with the opening `<!--` (`<!-->` is a whole comment).
      s.pos += 2
      for (;;) {
        if (!s.seek(GT)) return undefined
        if (s.bytes[s.pos - 1] === DASH && s.bytes[s.pos - 2] === DASH) break
        s.pos++
      }
    } else if (s.startsWith("<meta") && (isSpace(s.at(5)) || s.at(5) === SLASH)) {
      s.pos += 6
      const found = metaEncoding(s, resolve)
      if (found !== undefined) return found
      continue
    } else if (s.at() === LT && (isLetter(s.at(1)) || (s.at(1) === SLASH && isLetter(s.at(2))))) {
      while (s.pos < s.end && !isSpace(s.at()) && s.at() !== GT) s.pos++
      while (s.attribute() !== undefined) { /* skip the tag's attributes */ }
    } else if (s.at() === LT && (s.at(1) === BANG || s.at(1) === SLASH || s.at(1) === QUESTION)) {
      if (!s.seek(GT)) return undefined
    }
    s.pos++
  }
  return undefined
}

const metaEncoding = (s: Scanner, resolve: (label: string) => string | undefined): string | undefined => {
  const seen = new Set<string>()
  let gotPragma = false
  let needPragma: boolean | undefined
  let charset: string | undefined
  for (let attr = s.attribute(); attr !== undefined; attr = s.attribute()) {
    if (seen.has(attr.name)) continue
    seen.add(attr.name)
    if (attr.name === "http-equiv") {
      if (attr.value === "content-type") gotPragma = true
    } else if (attr.name === "content") {
      const label = charsetFromContent(attr.value)
      const encoding = label === undefined ? undefined : resolve(label)
      if (encoding !== undefined && charset === undefined) {
        charset = encoding
        needPragma = true
      }
    } else if (attr.name === "charset") {
      charset = resolve(attr.value)
      needPragma = false
    }
  }
  if (needPragma === undefined || (needPragma && !gotPragma) || charset === undefined) return undefined
  // A document that could be read as ASCII to find this tag cannot be UTF-16.
  if (charset === "utf-16le" || charset === "utf-16be") return "utf-8"
  return charset
}
