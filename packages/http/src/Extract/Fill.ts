/**
 * The deterministic parts of `POST /web/extract`: the words a JSON Schema and instructions are about (to rank a
 * site's links), the fields of a schema filled from pages' structured data (JSON-LD, OpenGraph and meta tags: name,
 * description, price, email, telephone, address, logo, images...; microdata and RDFa too) when no model is configured, and the fact check
 * that nulls values the pages do not state.
 *
 * @since 0.1.0
 */
import type { ScrapeResult } from "@sift/core"
import { stem } from "@sift/core/Stem"
import * as StructuredData from "@sift/core/StructuredData"

const stopWords = new Set(
  "a an and are as at be by for from how in is it of on or that the this to was what when where which who why with into the its their our your all any each page pages url urls list string number value data type".split(" ")
)

/** A text's words as compared: split at case changes and punctuation, lower case, stemmed, without stop words. */
export const wordsOf = (text: string): Array<string> =>
  (text.replace(/([a-z])([A-Z])/g, "$1 $2").toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [])
    .filter((w) => w.length > 1 && !stopWords.has(w))
    .map(stem)

/** The words of a schema (property names, titles, descriptions, at any depth) and the instructions. */
export const topicWords = (schema: unknown, instructions: string | undefined): Set<string> => {
  const words = new Set<string>(wordsOf(instructions ?? ""))
  const stack: Array<unknown> = [schema]
  let visited = 0
  while (stack.length > 0 && visited++ < 5_000) {
    const node = stack.pop()
    if (typeof node !== "object" || node === null) continue
    if (Array.isArray(node)) {
      stack.push(...node)
      continue
    }
    const record = node as Record<string, unknown>
    for (const key of ["title", "description"]) if (typeof record[key] === "string") wordsOf(record[key] as string).forEach((w) => words.add(w))
    if (typeof record.properties === "object" && record.properties !== null) {
      for (const [name, child] of Object.entries(record.properties as Record<string, unknown>)) {
        wordsOf(name).forEach((w) => words.add(w))
        stack.push(child)
      }
    }
    for (const key of ["items", "anyOf", "oneOf", "allOf"]) if (record[key] !== undefined) stack.push(record[key])
  }
  return words
}

/** How much a link is about the topic: distinct topic words in its path and anchor text. */
export const linkScore = (url: string, anchor: string, topic: ReadonlySet<string>): number => {
  let path = url
  try {
    path = decodeURIComponent(new URL(url).pathname)
  } catch { /* keep the raw URL */ }
  const words = new Set([...wordsOf(path.replace(/[-_/.]/g, " ")), ...wordsOf(anchor)])
  let score = 0
  for (const word of words) if (topic.has(word)) score++
  return score
}

/** Anchor texts of a page's Markdown links by absolute URL. */
export const anchorsOf = (markdown: string, pageUrl: string): Map<string, string> => {
  const anchors = new Map<string, string>()
  for (const match of markdown.slice(0, 1_000_000).matchAll(/\[([^\]\n]{1,200})\]\(([^)\s]{1,2048})(?:\s+"[^"\n]*")?\)/g)) {
    try {
      const url = new URL(match[2]!, pageUrl)
      url.hash = ""
      const key = url.href
      anchors.set(key, `${anchors.get(key) ?? ""} ${match[1]}`.trim())
    } catch { /* not a URL */ }
  }
  return anchors
}

type Json = Record<string, unknown>

const normalizeKey = (key: string): string => key.toLowerCase().replace(/^og:|^product:/, "").replace(/[^a-z0-9]/g, "")

/** Other names of the same fact, as schema properties may spell it. */
const aliases: Record<string, ReadonlyArray<string>> = {
  name: ["name", "title", "sitename", "companyname", "productname", "legalname"],
  companyname: ["legalname", "name", "sitename"],
  title: ["title", "name", "headline"],
  description: ["description", "summary", "about"],
  summary: ["description"],
  price: ["price", "lowprice", "priceamount"],
  currency: ["pricecurrency", "currency", "priceamountcurrency"],
  email: ["email"],
  phone: ["telephone", "phone"],
  telephone: ["telephone", "phone"],
  phonenumber: ["telephone"],
  address: ["address"],
  logo: ["logo"],
  logourl: ["logo"],
  image: ["image", "logo"],
  imageurl: ["image"],
  images: ["image"],
  imageurls: ["image"],
  photos: ["image"],
  productphotos: ["image"],
  url: ["url", "website"],
  website: ["url"],
  brand: ["brand"],
  sku: ["sku"],
  founded: ["foundingdate"],
  foundingdate: ["foundingdate"],
  author: ["author"],
  sociallinks: ["sameas"],
  socials: ["sameas"]
}

/** Every fact of the pages' structured data by normalized key, first seen first (JSON-LD, then OpenGraph, then meta). */
export const factsOf = (results: ReadonlyArray<ScrapeResult.ScrapeResult>): Map<string, Array<unknown>> => {
  const facts = new Map<string, Array<unknown>>()
  const add = (key: string, value: unknown) => {
    if (value === undefined || value === null || value === "") return
    const k = normalizeKey(key)
    const list = facts.get(k) ?? []
    if (list.length < 50) list.push(value)
    facts.set(k, list)
  }
  for (const result of results) {
    // JSON-LD first, then microdata and RDFa items of the page's HTML.
    const html = result.html?.data ?? ""
    const markup = html === "" || !/\s(?:itemscope|typeof)\b/i.test(html) ? [] : StructuredData.markupNodes(html)
    const stack: Array<{ node: unknown; depth: number }> = [...(result.metadata.jsonLd ?? []), ...markup].map((node) => ({ node, depth: 0 }))
    let visited = 0
    while (stack.length > 0 && visited++ < 10_000) {
      const { node, depth } = stack.shift()!
      if (typeof node !== "object" || node === null || depth > 8) continue
      if (Array.isArray(node)) {
        stack.push(...node.map((n) => ({ node: n, depth: depth + 1 })))
        continue
      }
      for (const [key, value] of Object.entries(node as Json)) {
        if (key === "@graph") {
          stack.push({ node: value, depth: depth + 1 })
          continue
        }
        if (key.startsWith("@")) continue
        add(key, value)
        if (typeof value === "object" && value !== null) stack.push({ node: value, depth: depth + 1 })
      }
    }
    for (const [key, value] of Object.entries(result.metadata.openGraph ?? {})) add(key, value)
    for (const [key, value] of Object.entries(result.metadata.additionalMeta ?? {})) add(key, value)
    add("title", result.metadata.title)
    add("description", result.metadata.description)
    add("sitename", result.metadata.siteName)
    add("image", result.metadata.image)
  }
  return facts
}

const typesOf = (schema: Json): Array<string> =>
  Array.isArray(schema.type) ? schema.type.filter((t): t is string => typeof t === "string") : typeof schema.type === "string" ? [schema.type] : []

/** A structured-data value as the schema's type wants it, or `undefined` when it does not fit. */
const coerce = (value: unknown, schema: Json): unknown => {
  const types = typesOf(schema)
  const want = types.find((t) => t !== "null") ?? (schema.properties !== undefined ? "object" : schema.items !== undefined ? "array" : "string")
  const first = Array.isArray(value) ? value[0] : value
  switch (want) {
    case "string": {
      if (typeof first === "string" || typeof first === "number") return String(first).trim()
      if (typeof first === "object" && first !== null) {
        const o = first as Json
        if (typeof o.url === "string") return o.url
        if (typeof o.contentUrl === "string") return o.contentUrl
        if (typeof o.name === "string") return o.name
        if (typeof o.price === "string" || typeof o.price === "number") return String(o.price)
        // A postal address as one line.
        const parts = ["streetAddress", "addressLocality", "addressRegion", "postalCode", "addressCountry"].map((k) => o[k]).map((v) => typeof v === "object" && v !== null ? (v as Json).name : v).filter((v): v is string => typeof v === "string" && v.trim() !== "")
        if (parts.length > 0) return parts.join(", ")
      }
      return undefined
    }
    case "number":
    case "integer": {
      const n = typeof first === "number" ? first : typeof first === "string" ? Number(first.replace(/[^0-9.\-]/g, "")) : typeof first === "object" && first !== null ? Number((first as Json).price ?? Number.NaN) : Number.NaN
      if (!Number.isFinite(n) || (typeof first === "string" && first.replace(/[^0-9]/g, "") === "")) return undefined
      return want === "integer" ? Math.round(n) : n
    }
    case "boolean":
      return typeof first === "boolean" ? first : undefined
    case "array": {
      const items = (Array.isArray(value) ? value : [value]).map((v) => coerce(v, (schema.items as Json | undefined) ?? { type: "string" })).filter((v) => v !== undefined)
      return items.length > 0 ? [...new Set(items.map((v) => JSON.stringify(v)))].map((v) => JSON.parse(v)) : undefined
    }
    case "object": {
      if (typeof first !== "object" || first === null || Array.isArray(first)) return undefined
      const inner = new Map(Object.entries(first as Json).map(([k, v]) => [normalizeKey(k), [v]]))
      return fillObject(schema, inner)
    }
    default:
      return undefined
  }
}

/** An object schema's properties from facts by key (and its aliases); null where nothing fits. */
const fillObject = (schema: Json, facts: ReadonlyMap<string, ReadonlyArray<unknown>>): Json => {
  const properties = (typeof schema.properties === "object" && schema.properties !== null ? schema.properties : {}) as Record<string, Json>
  const out: Json = {}
  for (const [name, child] of Object.entries(properties)) {
    const key = normalizeKey(name)
    const keys = [key, ...(aliases[key] ?? [])]
    let value: unknown = undefined
    for (const k of keys) {
      const found = facts.get(k)
      if (found === undefined) continue
      const wantsArray = typesOf(child ?? {}).includes("array")
      value = coerce(wantsArray ? found.flat() : found[0], child ?? {})
      if (value !== undefined) break
    }
    out[name] = value ?? null
  }
  return out
}

/** The schema filled from the pages' structured data, null for what it does not state (no model configured). */
export const fromStructuredData = (schema: Json, results: ReadonlyArray<ScrapeResult.ScrapeResult>): Json =>
  fillObject(schema, factsOf(results))

const squash = (text: string): string => text.toLowerCase().replace(/\s+/g, " ")

/** Whether a value is stated in the text: a string by its words, a number in any of its usual spellings. */
const grounded = (value: string | number, text: string): boolean => {
  if (typeof value === "number") {
    const forms = [String(value), value.toFixed(2), value.toLocaleString("en-US"), value.toLocaleString("de-DE")]
    return forms.some((form) => text.includes(form.toLowerCase()))
  }
  const v = squash(value).trim()
  return v === "" || text.includes(v)
}

/** `factCheck`: strings and numbers the pages' text does not state become null (array items are dropped). */
export const factCheck = (data: unknown, pagesText: string): unknown => {
  const text = squash(pagesText)
  const walk = (value: unknown, depth: number): unknown => {
    if (depth > 32) return null
    if (typeof value === "string" || typeof value === "number") return grounded(value, text) ? value : null
    if (Array.isArray(value)) return value.map((v) => walk(v, depth + 1)).filter((v) => v !== null)
    if (typeof value === "object" && value !== null) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, walk(v, depth + 1)]))
    return value
  }
  return walk(data, 0)
}

/** Whether the schema asks for images (a property named like `image_urls`, `product_photos`, `logo`), at any depth. */
export const wantsImages = (schema: unknown): boolean =>
  /"[^"]*(?:image|photo|picture|logo|thumbnail)[^"]*"\s*:/i.test(JSON.stringify(schema).slice(0, 100_000))

/** A page's image references: `<img src>`/`srcset` and `og:image`, absolute, without data URLs; at most `limit`. */
export const imagesOf = (html: string, pageUrl: string, limit = 40): Array<string> => {
  const found = new Set<string>()
  const add = (raw: string) => {
    if (found.size >= limit || raw.startsWith("data:")) return
    try {
      const url = new URL(raw.trim().split(/\s+/)[0]!, pageUrl)
      if (url.protocol === "http:" || url.protocol === "https:") found.add(url.href)
    } catch { /* not a URL */ }
  }
  for (const match of html.slice(0, 2_000_000).matchAll(/<(?:img|source)\b[^>]*?\s(?:src|data-src|srcset)\s*=\s*["']([^"']{1,2048})["']/gi)) add(match[1]!)
  for (const match of html.slice(0, 200_000).matchAll(/<meta\b[^>]*?property\s*=\s*["']og:image["'][^>]*?content\s*=\s*["']([^"']{1,2048})["']/gi)) add(match[1]!)
  return [...found]
}
