/**
 * One walk over a whole page that gathers what metadata is read from: the title, named `<meta>` values, `<link>`
 * elements, JSON-LD scripts, `<time>` elements and headings. Walking once keeps metadata linear in the page size.
 */
import type { Element, Root, RootContent } from "hast"
import { inlineText } from "./text.js"

/** A `<meta>` value under one of its names (`name`, `property`, `itemprop` or `http-equiv`). */
export interface MetaEntry {
  readonly key: string
  readonly content: string
}

/** A `<time>` element and what marks it as a publication or modification date. */
export interface TimeEntry {
  readonly dateTime: string
  readonly role: "published" | "modified" | undefined
}

/** What {@link scan} found, in document order. */
export interface DocumentScan {
  readonly title: string | undefined
  readonly htmlLang: string | undefined
  readonly metas: ReadonlyArray<MetaEntry>
  readonly links: ReadonlyArray<Element>
  readonly jsonLdSources: ReadonlyArray<string>
  readonly times: ReadonlyArray<TimeEntry>
  readonly headings: ReadonlyArray<Element>
}

/** Walks `tree` once, skipping SVG/MathML content (their `<title>` is not the page's) and templates. */
export const scan = (tree: Root): DocumentScan => {
  const state: Mutable = {
    title: undefined,
    htmlLang: undefined,
    metas: [],
    links: [],
    jsonLdSources: [],
    times: [],
    headings: []
  }
  walk(tree.children, state)
  return state
}

type Mutable = {
  title: string | undefined
  htmlLang: string | undefined
  metas: Array<MetaEntry>
  links: Array<Element>
  jsonLdSources: Array<string>
  times: Array<TimeEntry>
  headings: Array<Element>
}

const headingTags = new Set(["h1", "h2", "h3", "h4", "h5", "h6"])
const foreign = new Set(["svg", "math"])

const walk = (nodes: ReadonlyArray<RootContent>, state: Mutable): void => {
  for (const node of nodes) {
    if (node.type !== "element") continue
    const tag = node.tagName
    if (foreign.has(tag)) continue
    if (headingTags.has(tag)) {
      state.headings.push(node)
    } else if (tag === "meta") {
      readMeta(node, state.metas)
    } else if (tag === "link") {
      state.links.push(node)
    } else if (tag === "title") {
      if (state.title === undefined) state.title = inlineText(node)
    } else if (tag === "script") {
      const type = node.properties.type
      if (typeof type === "string" && type.trim().toLowerCase() === "application/ld+json") {
        state.jsonLdSources.push(rawText(node))
      }
    } else if (tag === "time") {
      readTime(node, state.times)
    } else if (tag === "html" && state.htmlLang === undefined && typeof node.properties.lang === "string") {
      state.htmlLang = node.properties.lang
    }
    // Headings are not walked into (their text is read whole); everything else may hold any of the above.
    if (!headingTags.has(tag)) walk(node.children, state)
  }
}

const readMeta = (meta: Element, metas: Array<MetaEntry>): void => {
  const content = meta.properties.content
  if (typeof content !== "string" && typeof content !== "number") return
  const value = String(content).trim()
  if (value === "") return
  for (const key of metaKeys(meta)) metas.push({ key, content: value })
}

const metaKeys = (meta: Element): Array<string> => {
  const keys: Array<string> = []
  for (const property of ["name", "property", "itemProp", "httpEquiv"] as const) {
    const value = meta.properties[property]
    if (typeof value === "string" && value.trim() !== "") keys.push(value.trim())
    else if (Array.isArray(value)) {
      for (const token of value) if (String(token).trim() !== "") keys.push(String(token).trim())
    }
  }
  return keys
}

const readTime = (time: Element, times: Array<TimeEntry>): void => {
  const dateTime = time.properties.dateTime
  if (typeof dateTime !== "string" || dateTime.trim() === "") return
  const itemProp = time.properties.itemProp
  const props = Array.isArray(itemProp) ? itemProp.map(String) : []
  const role = time.properties.pubDate !== undefined || time.properties.pubdate !== undefined ||
      props.includes("datePublished")
    ? "published"
    : props.includes("dateModified")
    ? "modified"
    : undefined
  times.push({ dateTime: dateTime.trim(), role })
}

// Script content is raw text: its children are text nodes only.
const rawText = (element: Element): string =>
  element.children.map((child) => (child.type === "text" ? child.value : "")).join("")
