/**
 * What one fetched page tells a map: its own title, description, keywords and language (through `Metadata`), and the
 * links it holds. Shared by the link crawl and background enrichment, so both read a page the same way.
 */
import type { Element, Root, RootContent } from "hast"
import * as Charset from "../../Charset.js"
import type { FetchedResponse } from "../../Fetcher.js"
import * as Html from "../../Html.js"
import * as Metadata from "../../Metadata.js"
import type { UrlFacts } from "../../UrlIndex.js"

/** A page read for a map. */
export interface PageFacts {
  /** The page's final URL (after redirects) with its metadata. */
  readonly facts: UrlFacts
  /** `href`s of its `<a>` and `<area>` elements, as written. */
  readonly hrefs: ReadonlyArray<string>
  /** The URL relative links resolve against (`<base href>` or the page URL). */
  readonly base: string
  /** Absolute URLs of the RSS and Atom feeds the page announces (`<link rel="alternate" type="application/rss+xml">`). */
  readonly feeds: ReadonlyArray<string>
}

const feedTypes = new Set(["application/rss+xml", "application/atom+xml", "application/rdf+xml"])

/** Whether a response is an HTML page worth reading. */
export const isHtml = (contentType: string | undefined): boolean =>
  contentType === undefined || contentType === "text/html" || contentType === "application/xhtml+xml"

const linksOf = (tree: Root): { base: string | undefined; hrefs: Array<string> } => {
  const hrefs: Array<string> = []
  let base: string | undefined
  const visit = (node: Root | RootContent): void => {
    if (node.type === "element") {
      const element = node as Element
      const href = element.properties["href"]
      if (typeof href === "string") {
        if (element.tagName === "a" || element.tagName === "area") hrefs.push(href)
        else if (element.tagName === "base" && base === undefined) base = href
      }
    }
    if ("children" in node) for (const child of node.children) visit(child)
  }
  visit(tree)
  return { base, hrefs }
}

/** Reads a fetched page; `undefined` when it is not HTML. */
export const readPage = (response: FetchedResponse): PageFacts | undefined => {
  if (!isHtml(response.contentType)) return undefined
  const tree = Html.parse(Charset.decode(response.body, response.headers["content-type"]).text)
  const page = Metadata.extract(tree, { url: response.url })
  const { base, hrefs } = linksOf(tree)
  let resolvedBase = response.url
  if (base !== undefined) {
    try {
      resolvedBase = new URL(base, response.url).href
    } catch {
      // An unusable <base> is ignored, as browsers do.
    }
  }
  return {
    facts: {
      url: response.url,
      title: page.title,
      description: page.description,
      keywords: page.keywords,
      language: page.language
    },
    hrefs,
    base: resolvedBase,
    feeds: (page.alternates ?? [])
      .filter((alternate) => alternate.type !== undefined && feedTypes.has(alternate.type.toLowerCase()))
      .map((alternate) => alternate.href)
  }
}

/** The `<a>` and `<area>` links of a parsed page as absolute URLs (against its `<base href>` or `url`), unusable ones dropped. */
export const absoluteLinks = (tree: Root, url: string): Array<string> => {
  const { base, hrefs } = linksOf(tree)
  let against = url
  if (base !== undefined) {
    try {
      against = new URL(base, url).href
    } catch {
      // An unusable <base> is ignored, as browsers do.
    }
  }
  const out: Array<string> = []
  for (const href of hrefs) {
    try {
      out.push(new URL(href.trim(), against).href)
    } catch {
      // Not a URL: nothing to follow.
    }
  }
  return out
}
