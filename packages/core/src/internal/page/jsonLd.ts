/**
 * JSON-LD blocks: lenient parsing (pages wrap them in comments or CDATA, or leave a trailing semicolon) and look-ups of
 * the few schema.org members metadata falls back to.
 */

/** A parsed JSON-LD object. */
export type JsonLdObject = Record<string, unknown>

/** At most this many objects are returned, so a page cannot blow up its metadata. */
const maxObjects = 100

/** Parses each script's text; a block that is not JSON even after the usual clean-ups is skipped. */
export const parseJsonLd = (sources: ReadonlyArray<string>): Array<JsonLdObject> => {
  const objects: Array<JsonLdObject> = []
  for (const source of sources) {
    const value = parseLenient(source)
    const items = Array.isArray(value) ? value : [value]
    for (const item of items) {
      if (isObject(item) && objects.length < maxObjects) objects.push(item)
    }
  }
  return objects
}

const parseLenient = (source: string): unknown => {
  const attempts = [
    source,
    source
      .replace(/^\s*(?:<!--|\/\/\s*<!\[CDATA\[|<!\[CDATA\[)/, "")
      .replace(/(?:-->|\/\/\s*\]\]>|\]\]>)\s*$/, "")
      .trim()
      .replace(/;\s*$/, ""),
    // Raw control characters inside strings are invalid JSON but common in hand-written blocks.
    source.replace(/[\u0000-\u001f]+/g, " ")
  ]
  for (const attempt of attempts) {
    try {
      return JSON.parse(attempt)
    } catch {
      // try the next clean-up
    }
  }
  return undefined
}

const isObject = (value: unknown): value is JsonLdObject =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/**
 * The objects to search, breadth first: the top-level objects, then members of `@graph`, then nested objects (an
 * `Article` inside a `WebPage`'s `mainEntity`), to a small depth.
 */
const candidates = (objects: ReadonlyArray<JsonLdObject>): Array<JsonLdObject> => {
  const out: Array<JsonLdObject> = []
  let level: Array<JsonLdObject> = [...objects]
  for (let depth = 0; depth < 4 && level.length > 0; depth++) {
    const next: Array<JsonLdObject> = []
    for (const object of level) {
      out.push(object)
      for (const value of Object.values(object)) {
        for (const item of Array.isArray(value) ? value : [value]) if (isObject(item)) next.push(item)
      }
    }
    level = next
  }
  return out
}

/** The first string value of `member` in document order, searching nested objects breadth first. */
export const findString = (objects: ReadonlyArray<JsonLdObject>, member: string): string | undefined => {
  for (const object of candidates(objects)) {
    const value = object[member]
    if (typeof value === "string" && value.trim() !== "") return value.trim()
  }
  return undefined
}

/** A person or organization reference as a name: a string, `{ name }`, or a list of either joined with commas. */
export const findName = (objects: ReadonlyArray<JsonLdObject>, member: string): string | undefined => {
  for (const object of candidates(objects)) {
    const name = nameOf(object[member])
    if (name !== undefined) return name
  }
  return undefined
}

const nameOf = (value: unknown): string | undefined => {
  if (typeof value === "string") return value.trim() === "" ? undefined : value.trim()
  if (Array.isArray(value)) {
    const names = value.map(nameOf).filter((name): name is string => name !== undefined)
    return names.length === 0 ? undefined : names.join(", ")
  }
  if (isObject(value) && typeof value.name === "string" && value.name.trim() !== "") return value.name.trim()
  return undefined
}

/** An image reference as a URL: a string, `{ url }`, or the first of a list. */
export const findImage = (objects: ReadonlyArray<JsonLdObject>): string | undefined => {
  for (const object of candidates(objects)) {
    const url = urlOf(object.image)
    if (url !== undefined) return url
  }
  return undefined
}

const urlOf = (value: unknown): string | undefined => {
  if (typeof value === "string") return value.trim() === "" ? undefined : value.trim()
  if (Array.isArray(value)) return value.length === 0 ? undefined : urlOf(value[0])
  if (isObject(value)) return urlOf(value.url ?? value.contentUrl)
  return undefined
}
