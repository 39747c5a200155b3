/**
 * The JSON objects YouTube pages embed in scripts (`var ytInitialPlayerResponse = {...};`, `ytInitialData = {...};`),
 * cut out by matching braces outside strings and parsed, so no regular expression has to understand JSON.
 */

/** The object assigned to `name` in a page's scripts, if present and valid JSON. */
export const embeddedJson = (html: string, name: string): unknown => {
  const marker = new RegExp(`(?:var\\s+|window\\[["']|\\b)${name}["']?\\]?\\s*=\\s*\\{`)
  const match = marker.exec(html)
  if (match === null) return undefined
  const start = match.index + match[0].length - 1
  let depth = 0
  let inString = false
  for (let i = start; i < html.length; i++) {
    const c = html[i]
    if (inString) {
      if (c === "\\") i++
      else if (c === "\"") inString = false
      continue
    }
    if (c === "\"") inString = true
    else if (c === "{") depth++
    else if (c === "}" && --depth === 0) {
      try {
        return JSON.parse(html.slice(start, i + 1))
      } catch {
        return undefined
      }
    }
  }
  return undefined
}

/** YouTube's text objects: `{ simpleText }` or `{ runs: [{ text }] }` (or a plain string). */
export const textOf = (value: unknown): string | undefined => {
  if (typeof value === "string") return value
  if (typeof value !== "object" || value === null) return undefined
  const record = value as { simpleText?: unknown; runs?: unknown; content?: unknown }
  if (typeof record.simpleText === "string") return record.simpleText
  if (typeof record.content === "string") return record.content
  if (Array.isArray(record.runs)) return record.runs.map((run) => typeof run?.text === "string" ? run.text : "").join("")
  return undefined
}

/** Every object under `value` that has the key `key`, depth first, as the value of that key. */
export const findAll = (value: unknown, key: string, out: Array<unknown> = []): Array<unknown> => {
  if (Array.isArray(value)) for (const item of value) findAll(item, key, out)
  else if (typeof value === "object" && value !== null) {
    for (const [k, v] of Object.entries(value)) {
      if (k === key) out.push(v)
      else findAll(v, key, out)
    }
  }
  return out
}
