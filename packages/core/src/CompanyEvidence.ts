/**
 * Evidence about a company for NAICS classification: its homepage and the most informative internal pages (about,
 * services, products, found from the homepage's links and an optional list of known URLs), each reduced to title,
 * meta description, JSON-LD types and descriptions, headings, navigation labels and main text. Gathering goes
 * through core's `Fetcher` within a deadline; pages that fail or arrive late are left out.
 *
 * @since 0.1.0
 */
import type { Element, Root, RootContent } from "hast"
import { Duration, Effect, Option } from "effect"
import type { InvalidRequest, WebsiteError } from "./Errors.js"
import { Fetcher } from "./Fetcher.js"
import * as Html from "./Html.js"
import * as MainContent from "./MainContent.js"
import * as Metadata from "./Metadata.js"

/** What one page says about the company. @category models */
export interface PageEvidence {
  readonly url: string
  readonly title?: string
  readonly description?: string
  /** schema.org `@type`s of the page's JSON-LD objects (`Brewery`, `LocalBusiness`). */
  readonly jsonLdTypes: ReadonlyArray<string>
  /** `description` members of the JSON-LD objects. */
  readonly jsonLdDescriptions: ReadonlyArray<string>
  readonly headings: ReadonlyArray<{ readonly level: number; readonly text: string }>
  /** Link labels of the navigation and header. */
  readonly nav: ReadonlyArray<string>
  /** The main content as plain text, paragraphs separated by newlines. */
  readonly text: string
  /** Same-site links found on the page, absolute, with their labels. */
  readonly links: ReadonlyArray<{ readonly url: string; readonly label: string }>
  /** What the page prices: each priced item's label with its price ("Oak dining table $749"), in page order. */
  readonly offers?: ReadonlyArray<string>
  /** Labels of the page's buttons ("Add to cart", "Start free trial"): what a visitor is asked to do. */
  readonly buttons?: ReadonlyArray<string>
}

/** Everything gathered for one company. @category models */
export interface CompanyEvidence {
  readonly domain: string
  readonly pages: ReadonlyArray<PageEvidence>
  /** True when the deadline cut off internal pages that were being fetched. */
  readonly partial?: boolean
}

const blockTags = new Set(["p", "div", "section", "article", "li", "h1", "h2", "h3", "h4", "h5", "h6", "br", "tr", "header", "footer", "main", "nav", "ul", "ol", "blockquote"])

/** Plain text of a subtree, with a newline after each block. */
const textOf = (node: Root | RootContent, out: Array<string> = []): Array<string> => {
  if (node.type === "text") out.push(node.value)
  else if (node.type === "element" || node.type === "root") {
    if (node.type === "element" && (node.tagName === "script" || node.tagName === "style" || node.tagName === "template")) return out
    for (const child of node.children) textOf(child as RootContent, out)
    if (node.type === "element" && blockTags.has(node.tagName)) out.push("\n")
  }
  return out
}

const clean = (text: string): string => text.replace(/[ \t\r\f\v]+/g, " ").replace(/ ?\n[\s]*/g, "\n").trim()

const walk = (node: Root | Element, visit: (element: Element, inNav: boolean) => void, inNav = false): void => {
  for (const child of node.children) {
    if (child.type !== "element") continue
    const nav = inNav || child.tagName === "nav" || child.tagName === "header"
    visit(child, nav)
    walk(child, visit, nav)
  }
}

const typesOf = (value: unknown): Array<string> =>
  typeof value === "string" ? [value.replace(/^https?:\/\/schema\.org\//, "")] : Array.isArray(value) ? value.flatMap(typesOf) : []

/** Flattens JSON-LD (graphs and nested objects) into its typed objects. */
const jsonLdObjects = (value: unknown, out: Array<Record<string, unknown>> = [], depth = 0): Array<Record<string, unknown>> => {
  if (depth > 4 || value === null || typeof value !== "object") return out
  if (Array.isArray(value)) {
    for (const item of value) jsonLdObjects(item, out, depth + 1)
    return out
  }
  const record = value as Record<string, unknown>
  if (record["@type"] !== undefined) out.push(record)
  if (record["@graph"] !== undefined) jsonLdObjects(record["@graph"], out, depth + 1)
  return out
}

/** A price: a currency sign and an amount, or an amount and a currency code. */
const pricePattern = /(?:[$€£¥]\s?\d[\d,.]*|\b\d[\d,.]*\s?(?:€|EUR|USD|GBP)\b)/
const pricesPattern = new RegExp(pricePattern.source, "g")

/** Words that qualify a price ("$2/unit/month", "from $45/visit") rather than name what is priced. */
const priceWords = new Set(["from", "per", "month", "mo", "year", "yr", "week", "day", "night", "hour", "hr", "visit", "each", "ea", "lb", "lbs", "oz", "kg", "ton", "dozen", "unit", "user", "seat", "location", "vehicle", "page", "word", "only", "and", "up", "plus", "tax", "vat", "incl", "excl", "usd", "eur", "gbp", "add", "to", "cart", "buy", "now"])

/** Words of a label that name something (not the price's qualifiers). */
const words = (text: string): number => (text.toLowerCase().match(/[a-z]{2,}/g) ?? []).filter((w) => !priceWords.has(w)).length

/**
 * Priced items: for each element whose own text holds a price, the nearest enclosing block that also names the item
 * (a product card, a menu line, a plan); a `dd` price takes its `dt`. Bounded: at most 60 items of 200 characters.
 */
const offersOf = (tree: Root): Array<string> => {
  const out: Array<string> = []
  const seen = new Set<Element>()
  const visit = (node: Root | Element, ancestors: Array<Root | Element>): void => {
    if (out.length >= 60) return
    const children = node.children
    for (let i = 0; i < children.length; i++) {
      const child = children[i]!
      if (child.type === "text" && node.type === "element" && pricePattern.test(child.value)) {
        const chain = [...ancestors, node]
        let label: string | undefined
        if (node.tagName === "dd") {
          const parent = ancestors[ancestors.length - 1]
          const siblings = parent?.children ?? []
          const at = siblings.indexOf(node)
          for (let j = at - 1; j >= 0; j--) {
            const sibling = siblings[j]!
            if (sibling.type === "element" && sibling.tagName === "dt") {
              label = `${clean(textOf(sibling).join(" "))} ${clean(child.value)}`
              break
            }
          }
        }
        for (let j = chain.length - 1; label === undefined && j >= 0; j--) {
          const holder = chain[j]!
          if (holder.type !== "element") break
          const text = clean(textOf(holder).join(" ")).replace(/\n/g, " ")
          // A block holding two prices is a list, not one item.
          if (text.length > 200 || (text.match(pricesPattern)?.length ?? 0) > 1) break
          if (words(text.replace(pricePattern, "")) >= 1 && !seen.has(holder)) {
            seen.add(holder)
            label = text
          }
        }
        if (label !== undefined) out.push(label.slice(0, 200))
      } else if (child.type === "element" && child.tagName !== "script" && child.tagName !== "style" && child.tagName !== "template") {
        visit(child, [...ancestors, node])
      }
    }
  }
  visit(tree, [])
  return out
}

/** Reads the evidence of one page from its HTML. Pure. */
export const fromHtml = (url: string, html: string): PageEvidence => {
  const tree = Html.parse(html)
  const metadata = Metadata.extract(tree, { url })
  const nav: Array<string> = []
  const links: Array<{ url: string; label: string }> = []
  const site = new URL(url)
  const buttons: Array<string> = []
  walk(tree, (element, inNav) => {
    if (element.tagName === "button" || (element.tagName === "input" && element.properties?.["type"] === "submit")) {
      const label = element.tagName === "button" ? clean(textOf(element).join(" ")) : String(element.properties?.["value"] ?? "")
      if (label !== "" && label.length <= 40 && buttons.length < 100) buttons.push(label.replace(/\n/g, " "))
      return
    }
    if (element.tagName !== "a") return
    const label = clean(textOf(element).join(" ")).replace(/\n/g, " ")
    if (inNav && label !== "" && label.length <= 40) nav.push(label)
    const href = element.properties?.["href"]
    if (typeof href !== "string") return
    try {
      const target = new URL(href, url)
      if (target.hostname.replace(/^www\./, "") === site.hostname.replace(/^www\./, "") && /^https?:$/.test(target.protocol)) {
        target.hash = ""
        links.push({ url: target.href, label })
      }
    } catch {
      // An unusable href is not evidence.
    }
  })
  const objects = (metadata.jsonLd ?? []).flatMap((o) => jsonLdObjects(o))
  const main = MainContent.extract(tree, { url })
  return {
    url,
    title: metadata.title,
    description: metadata.description ?? metadata.openGraph?.["description"],
    jsonLdTypes: [...new Set(objects.flatMap((o) => typesOf(o["@type"])))],
    jsonLdDescriptions: objects.map((o) => o["description"]).filter((d): d is string => typeof d === "string"),
    headings: metadata.headings ?? [],
    nav: [...new Set(nav)].slice(0, 40),
    text: clean(textOf(main.tree).join("")).slice(0, 20_000),
    links,
    offers: offersOf(tree),
    buttons: [...new Set(buttons)]
  }
}

/** Paths that usually say what a company does, most telling first. */
const informative: ReadonlyArray<RegExp> = [
  /about|who-we-are|our-story|company|overview/i,
  /services|what-we-do|solutions|capabilities/i,
  /products|menu|shop|our-work|industries/i
]

/** Picks up to `count` internal pages worth reading: one per informative kind, by URL or link label. */
export const informativePages = (
  home: PageEvidence,
  known: ReadonlyArray<string> = [],
  count = 3
): ReadonlyArray<string> => {
  const candidates = [...home.links, ...known.map((url) => ({ url, label: "" }))]
  const homeUrl = new URL(home.url)
  const chosen: Array<string> = []
  for (const pattern of informative) {
    const hit = candidates.find(({ url, label }) => {
      const u = new URL(url)
      return u.pathname !== "/" && u.pathname !== homeUrl.pathname && !chosen.includes(u.href) &&
        (pattern.test(u.pathname) || pattern.test(label.replace(/\s+/g, "-")))
    })
    if (hit !== undefined) chosen.push(new URL(hit.url).href)
    if (chosen.length >= count) break
  }
  return chosen
}

/** How gathering behaves. */
export interface GatherOptions {
  /** Time for the whole gathering, in milliseconds (default 15000). */
  readonly timeoutMs?: number
  /** Internal pages to read besides the homepage (default 3). */
  readonly maxPages?: number
  /** URLs known for the domain (from a URL index), used besides the homepage's links. */
  readonly knownUrls?: ReadonlyArray<string>
  /** The page to read first instead of the homepage (a URL input, read as given). */
  readonly startUrl?: string
}

const decode = (body: Uint8Array): string => new TextDecoder("utf-8", { fatal: false }).decode(body)

const fetchPage = (url: string) =>
  Effect.flatMap(Fetcher, (fetcher) => fetcher.fetch({ url })).pipe(
    Effect.map((response) => fromHtml(response.url, decode(response.body)))
  )

/**
 * Fetches the homepage (https, then http) and the most informative internal pages in parallel. Fails only when the
 * homepage cannot be had; internal pages that fail or miss the deadline are skipped.
 */
export const gather = (
  domain: string,
  options: GatherOptions = {}
): Effect.Effect<CompanyEvidence, WebsiteError | InvalidRequest, Fetcher> =>
  Effect.gen(function*() {
    const budget = Duration.millis(options.timeoutMs ?? 15_000)
    const started = Date.now()
    const first = options.startUrl ?? `https://${domain}/`
    // An https address that does not answer is tried once over http (same host, port and path).
    const plain = first.startsWith("https:") ? `http:${first.slice("https:".length)}` : undefined
    const home = yield* fetchPage(first).pipe(
      Effect.catchTag("WebsiteError", (error) =>
        plain !== undefined && (error.reason === "Unreachable" || error.reason === "Timeout") ? fetchPage(plain) : Effect.fail(error))
    )
    const left = Math.max(0, Duration.toMillis(budget) - (Date.now() - started))
    const urls = informativePages(home, options.knownUrls, options.maxPages ?? 3)
    const others = yield* Effect.forEach(
      urls,
      (url) => fetchPage(url).pipe(Effect.option, Effect.timeoutOption(Duration.millis(left))),
      { concurrency: "unbounded" }
    )
    const partial = others.some(Option.isNone)
    const pages = [home, ...others.flatMap((o) => Option.toArray(Option.flatten(o)))]
    return partial ? { domain, pages, partial } : { domain, pages }
  })
