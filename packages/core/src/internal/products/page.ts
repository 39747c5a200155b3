/**
 * One page read for products: whether a product is its main entity, the product (structured data first, then
 * microdata/RDFa, OpenGraph, markup for a struck-through price, a pricing table for SaaS pages), and the links a
 * catalogue walk follows. Pure: HTML in, reading out.
 */
import type { Element, Root, RootContent } from "hast"
import { parse } from "../../Html.js"
import { blockText } from "../page/text.js"
import { absolute, clean, empty, merge, type Product, uniqueUrls } from "./model.js"
import { isPricingPage, mainArea, readPricing, struckPrice } from "./pricing.js"
import { isShopify, isWooCommerce, shopifyCurrency } from "./shops.js"
import { entitiesOf, graphOf, isComplete, markupItems, metaValues, type Node, openGraphArticle, openGraphProduct, productOf } from "./structured.js"

const MAX_ELEMENTS = 50_000
const MAX_LINKS = 2_000

/** What a page says about products. */
export interface PageReading {
  readonly isProductPage: boolean
  readonly product: Product | null
  /** Item URLs of the page's lists and its links that look like product pages (absolute, same order as on the page). */
  readonly productLinks: ReadonlyArray<string>
  /** Links that look like category or collection pages. */
  readonly categoryLinks: ReadonlyArray<string>
  readonly shopify: boolean
  readonly wooCommerce: boolean
  /** The shop's currency where the page states it outside a product (Shopify's settings, OpenGraph). */
  readonly shopCurrency: string | undefined
  /** The page's text for a language model (bounded). */
  readonly text: string
  /** The page reads as a SaaS pricing page. */
  readonly pricingPage: boolean
}

interface Scan {
  readonly jsonLd: Array<string>
  readonly links: Array<string>
  title: string
  canonical: string | undefined
}

const stringProp = (element: Element, name: string): string | undefined => {
  const value = element.properties[name]
  return value === undefined || value === null || value === false ? undefined : Array.isArray(value) ? value.join(" ") : String(value)
}

const scan = (tree: Root, baseUrl: string): Scan => {
  const out: Scan = { jsonLd: [], links: [], title: "", canonical: undefined }
  let visited = 0
  const stack: Array<Root | RootContent> = [tree]
  while (stack.length > 0 && visited < MAX_ELEMENTS) {
    const node = stack.pop()!
    if (node.type !== "element" && node.type !== "root") continue
    if (node.type === "element") {
      visited++
      if (node.tagName === "script" && (stringProp(node, "type") ?? "").trim().toLowerCase() === "application/ld+json") {
        out.jsonLd.push(node.children.map((c) => (c.type === "text" ? c.value : "")).join(""))
        continue
      }
      if (node.tagName === "title" && out.title === "") out.title = clean(blockText(node), 300)
      if (node.tagName === "link" && /\bcanonical\b/i.test(stringProp(node, "rel") ?? "")) out.canonical ??= absolute(stringProp(node, "href"), baseUrl)
      if (node.tagName === "a" && out.links.length < MAX_LINKS) {
        const href = absolute(stringProp(node, "href"), baseUrl)
        if (href !== undefined) out.links.push(href.replace(/#.*$/, ""))
      }
    }
    for (let i = node.children.length - 1; i >= 0; i--) stack.push(node.children[i]!)
  }
  return out
}

/** Paths that name one product (`/products/<handle>`, `/product/<slug>`, `/p/<id>`, `/item/…`, `/dp/…`). */
export const productPath = /\/(products?|p|items?|dp|shop\/products?)\/[^/?#]+\/?$/i
/** Paths that name a category or collection. */
export const categoryPath = /\/(collections?|categor(y|ies)|product-category|shop|catalog|c)(\/[^/?#]+)?\/?$/i

const sameSite = (url: string, base: string) => {
  try {
    const a = new URL(url).hostname.replace(/^www\./, "")
    const b = new URL(base).hostname.replace(/^www\./, "")
    return a === b
  } catch {
    return false
  }
}

/** Reads one page's HTML. */
export const readPage = (html: string, pageUrl: string): PageReading => {
  const tree = parse(html)
  const found = scan(tree, pageUrl)
  const graph = graphOf(found.jsonLd)
  const markup = markupItems(tree)
  const all = { top: [...graph.top, ...markup.map((m) => m.node)], byId: graph.byId }
  const entities = entitiesOf(all, pageUrl)
  const metas = metaValues(tree)
  const og = openGraphProduct(metas, pageUrl)
  const article = entities.article || openGraphArticle(metas)
  const complete = entities.products.map((node) => ({ node, product: productOf(all, node, pageUrl) })).filter((c) => isComplete(c.product, c.node))
  const shopCurrency = shopifyCurrency(html) ?? undefined
  let main: { node: Node | undefined; product: Product } | undefined
  if (entities.mainProduct !== undefined) {
    const product = productOf(all, entities.mainProduct, pageUrl)
    if (product.name !== "") main = { node: entities.mainProduct, product }
  } else if (!article && !entities.listing) {
    if (complete.length === 1) main = complete[0]
    else if (complete.length === 0 && og !== undefined) main = { node: undefined, product: og }
  }
  const area = mainArea(tree)
  let product: Product | null = null
  if (main !== undefined) {
    let merged = og === undefined || main.product === og ? main.product : merge(main.product, og)
    const element = markup.find((m) => m.node === main!.node)?.element
    if (merged.regular_price === null && merged.price !== null) {
      const struck = struckPrice(element ?? area, merged.price)
      if (struck !== undefined) merged = { ...merged, regular_price: struck }
    }
    if (merged.description === "") merged = { ...merged, description: clean(metas.get("description")?.[0] ?? metas.get("og:description")?.[0] ?? "") }
    if (merged.images.length === 0) {
      const image = absolute(metas.get("og:image")?.[0], pageUrl)
      if (image !== undefined) merged = { ...merged, images: [image], image_url: image }
    }
    merged = { ...merged, url: merged.url ?? found.canonical ?? pageUrl }
    if (merged.currency === null && shopCurrency !== undefined && merged.price !== null) merged = { ...merged, currency: shopCurrency }
    product = merged
  }
  const reading = readPricing(area)
  const pricingPage = !article && !entities.listing && isPricingPage(pageUrl, found.title, reading)
  if (product === null && pricingPage && complete.length === 0) {
    // A SaaS pricing page: the product is the site's offer, priced by its table.
    const name = clean(metas.get("og:site_name")?.[0] ?? found.title.split(/\s[|\-–—]\s/).pop() ?? found.title, 500)
    product = {
      ...empty(name),
      description: clean(metas.get("description")?.[0] ?? metas.get("og:description")?.[0] ?? ""),
      url: found.canonical ?? pageUrl,
      price: reading.price,
      currency: reading.currency,
      billing_frequency: reading.billing_frequency,
      pricing_model: reading.pricing_model,
      features: reading.features
    }
  } else if (product !== null && (pricingPage || product.billing_frequency === "monthly" || product.billing_frequency === "yearly")) {
    product = {
      ...product,
      pricing_model: product.pricing_model ?? reading.pricing_model,
      features: product.features.length > 0 ? product.features : reading.features
    }
  }
  const links = found.links.filter((l) => sameSite(l, pageUrl))
  const productLinks = uniqueUrls([...entities.listUrls.filter((l) => sameSite(l, pageUrl)), ...links.filter((l) => productPath.test(new URL(l).pathname))])
  const categoryLinks = uniqueUrls(links.filter((l) => categoryPath.test(new URL(l).pathname) && !productPath.test(new URL(l).pathname)))
  return {
    isProductPage: product !== null && product.name !== "",
    product: product !== null && product.name !== "" ? product : null,
    productLinks,
    categoryLinks,
    shopify: isShopify(html),
    wooCommerce: isWooCommerce(html),
    shopCurrency: shopCurrency ?? og?.currency ?? undefined,
    text: clean(blockText(area), 12_000),
    pricingPage
  }
}
