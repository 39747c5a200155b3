/**
 * Products stated in a page's structured data: JSON-LD (`Product`, `ProductGroup` with `hasVariant`/`variesBy`,
 * offers, `@graph`, `@id` references, arrays, nesting), microdata and RDFa (read into the same JSON-LD-like objects)
 * and OpenGraph product tags; and what the page is about (its main entity), so a listing or an article is not taken
 * for a product page. Every walk is bounded (objects, elements, depth).
 */
import type { Element, ElementContent, Root, RootContent } from "hast"
import { parseJsonLd } from "../page/jsonLd.js"
import { blockText } from "../page/text.js"
import {
  absolute,
  availabilityOf,
  type BillingFrequency,
  clean,
  currencyOf,
  empty,
  MAX_IMAGES,
  MAX_LIST,
  MAX_VARIANTS,
  parsePrice,
  type Product,
  uniqueUrls,
  type Variant
} from "./model.js"

/** A JSON-LD node (or a microdata/RDFa item read into one). */
export type Node = Record<string, unknown>

/** Nodes a page may contribute at most, and how deep a walk goes. */
const MAX_NODES = 2_000
const MAX_DEPTH = 12
/** Elements a microdata/RDFa walk visits at most. */
const MAX_ELEMENTS = 50_000

const productTypes = new Set(["Product", "ProductGroup", "IndividualProduct", "ProductModel", "SomeProducts", "Vehicle", "Car", "Book", "SoftwareApplication"])
const articleTypes = new Set(["Article", "BlogPosting", "NewsArticle", "TechArticle", "Report", "ScholarlyArticle", "Recipe", "HowTo", "Blog"])
const listingTypes = new Set(["CollectionPage", "SearchResultsPage", "OfferCatalog"])

const isNode = (value: unknown): value is Node => typeof value === "object" && value !== null && !Array.isArray(value)
const list = (value: unknown): Array<unknown> => (value === undefined || value === null ? [] : Array.isArray(value) ? value : [value])

/** A node's types without the vocabulary (`https://schema.org/Product` → `Product`). */
export const typesOf = (node: Node): Array<string> =>
  list(node["@type"]).flatMap((t) => (typeof t === "string" ? [t.replace(/^https?:\/\/schema\.org\//i, "").replace(/^schema:/i, "").trim()] : []))

const hasType = (node: Node, set: ReadonlySet<string>) => typesOf(node).some((t) => set.has(t))

/** The first string of a value (a string, a number, `{ name }`, `{ @value }`, or a list of those). */
const text = (value: unknown): string | undefined => {
  for (const item of list(value)) {
    if (typeof item === "string" && item.trim() !== "") return item.trim()
    if (typeof item === "number" && Number.isFinite(item)) return String(item)
    if (isNode(item)) {
      const inner = text(item["@value"]) ?? text(item.name)
      if (inner !== undefined) return inner
    }
  }
  return undefined
}

/** The page's JSON-LD, with `@graph` members and `@id` references resolved. */
export interface Graph {
  /** Top-level nodes (members of `@graph` count as top-level). */
  readonly top: ReadonlyArray<Node>
  /** A node by `@id`, for references such as `"offers": { "@id": "#offer" }`. */
  readonly byId: ReadonlyMap<string, Node>
}

/** Reads JSON-LD script texts into a graph. */
export const graphOf = (sources: ReadonlyArray<string>): Graph => {
  const top: Array<Node> = []
  const byId = new Map<string, Node>()
  let count = 0
  const index = (value: unknown, depth: number): void => {
    if (depth > MAX_DEPTH || count >= MAX_NODES) return
    for (const item of list(value)) {
      if (!isNode(item)) continue
      count++
      const id = item["@id"]
      // A full node wins over a bare reference to it.
      if (typeof id === "string" && (!byId.has(id) || Object.keys(item).length > Object.keys(byId.get(id)!).length)) byId.set(id, item)
      for (const [key, child] of Object.entries(item)) if (key !== "@context") index(child, depth + 1)
    }
  }
  for (const object of parseJsonLd(sources)) {
    const members = Array.isArray(object["@graph"]) ? object["@graph"] : [object]
    for (const member of members) if (isNode(member) && top.length < MAX_NODES) top.push(member)
    index(object, 0)
  }
  return { top, byId }
}

const deref = (graph: Graph, value: unknown): unknown => {
  if (isNode(value) && typeof value["@id"] === "string" && Object.keys(value).length === 1) return graph.byId.get(value["@id"]) ?? value
  return value
}
const nodes = (graph: Graph, value: unknown): Array<Node> => list(value).map((v) => deref(graph, v)).filter(isNode)

/** What a page says about itself in structured data. */
export interface PageEntities {
  /** Products that stand alone on the page (not a list's items, not a group's variants), in order. */
  readonly products: ReadonlyArray<Node>
  /** A product named as the page's main entity (`WebPage.mainEntity`, `ItemPage`). */
  readonly mainProduct: Node | undefined
  /** The page is an article (blog post, news) or a listing (an `ItemList` of several items, a collection page). */
  readonly article: boolean
  readonly listing: boolean
  /** Item URLs of the page's `ItemList`s (product discovery). */
  readonly listUrls: ReadonlyArray<string>
}

const sameProduct = (a: Node, b: Node) =>
  a === b || (typeof a["@id"] === "string" && a["@id"] === b["@id"]) ||
  (text(a.name) !== undefined && text(a.name) === text(b.name) && text(a.sku) === text(b.sku))

/** The page's entities from JSON-LD top-level nodes (and microdata/RDFa items given as more top-level nodes). */
export const entitiesOf = (graph: Graph, baseUrl: string): PageEntities => {
  const products: Array<Node> = []
  const variants = new Set<Node>()
  const listUrls: Array<string> = []
  let mainProduct: Node | undefined
  let article = false
  let listing = false
  const addProduct = (node: Node) => {
    if (!products.some((p) => sameProduct(p, node))) products.push(node)
  }
  for (const node of graph.top) {
    if (hasType(node, productTypes)) addProduct(node)
    if (hasType(node, articleTypes)) article = true
    if (hasType(node, listingTypes)) listing = true
    const lists = typesOf(node).includes("ItemList") ? [node] : []
    for (const main of nodes(graph, node.mainEntity)) {
      if (hasType(main, productTypes)) {
        mainProduct ??= main
        addProduct(main)
      }
      if (hasType(main, articleTypes)) article = true
      if (typesOf(main).includes("ItemList")) {
        listing = true
        lists.push(main)
      }
    }
    if (typesOf(node).includes("ItemPage") && products.length > 0) mainProduct ??= products[0]
    for (const itemList of lists) {
      // A list beside a product (related products) does not make a listing; a list that is the page's main
      // entity or a collection page's does (below and above).
      const items = nodes(graph, itemList.itemListElement)
      for (const entry of items.slice(0, 500)) {
        const item = nodes(graph, entry.item)[0] ?? entry
        const url = absolute(text(item.url) ?? text(entry.url) ?? (typeof item["@id"] === "string" ? item["@id"] : undefined), baseUrl)
        if (url !== undefined) listUrls.push(url)
      }
    }
  }
  // Variants of a group on the page are not products of their own.
  for (const product of products) {
    for (const variant of nodes(graph, product.hasVariant)) variants.add(variant)
  }
  const standing = products.filter((p) => !variants.has(p) && ![...variants].some((v) => sameProduct(v, p)) && p.isVariantOf === undefined)
  return { products: standing, mainProduct, article, listing, listUrls: uniqueUrls(listUrls) }
}

const priceTypeOf = (spec: Node) => (text(spec.priceType) ?? "").replace(/^https?:\/\/schema\.org\//i, "")

const billingOf = (spec: Node): BillingFrequency | undefined => {
  const duration = text(spec.billingDuration)
  const unit = text(isNode(spec.referenceQuantity) ? spec.referenceQuantity.unitCode : undefined) ?? text(spec.unitCode)
  const said = `${duration ?? ""} ${unit ?? ""} ${text(isNode(spec.referenceQuantity) ? spec.referenceQuantity.unitText : undefined) ?? ""} ${text(spec.unitText) ?? ""}`.toUpperCase()
  if (/\bP1M\b|\bMON\b|\bMONTH/.test(said) || duration === "1" && /MON/.test(said)) return "monthly"
  if (/\bP1Y\b|\bANN\b|\bYEAR/.test(said) || /\bP12M\b/.test(said)) return "yearly"
  if (text(spec.billingIncrement) !== undefined || /USAGE|\bC62\b/.test(said) && duration !== undefined) return "usage_based"
  return undefined
}

interface OfferFacts {
  price?: number
  regular?: number
  currency?: string
  availability?: Product["availability"]
  billing?: BillingFrequency
  url?: string
}

/** The facts of a product's offers: the lowest current price, a list price before a discount, currency, stock. */
const offerFacts = (graph: Graph, product: Node, baseUrl: string): OfferFacts => {
  const facts: OfferFacts = {}
  const offers = nodes(graph, product.offers)
  const all: Array<Node> = []
  for (const offer of offers) {
    all.push(offer)
    if (typesOf(offer).includes("AggregateOffer")) all.push(...nodes(graph, offer.offers))
  }
  for (const offer of all) {
    const specs = nodes(graph, offer.priceSpecification)
    const listSpec = specs.find((s) => /ListPrice|StrikethroughPrice|MSRP|SRP/i.test(priceTypeOf(s)))
    const saleSpec = specs.find((s) => s !== listSpec && parsePrice(s.price) !== undefined)
    const price = parsePrice(offer.price) ?? parsePrice(saleSpec?.price) ?? parsePrice(offer.lowPrice)
    if (price !== undefined && (facts.price === undefined || price < facts.price)) facts.price = price
    const regular = parsePrice(listSpec?.price)
    if (regular !== undefined && facts.regular === undefined) facts.regular = regular
    facts.currency ??= currencyOf(offer.priceCurrency) ?? currencyOf(saleSpec?.priceCurrency) ?? currencyOf(listSpec?.priceCurrency)
    facts.availability ??= availabilityOf(text(offer.availability))
    for (const spec of specs) facts.billing ??= billingOf(spec)
    facts.url ??= absolute(text(offer.url), baseUrl)
  }
  return facts
}

const imagesOf = (graph: Graph, value: unknown, baseUrl: string): Array<string> =>
  uniqueUrls(nodes(graph, value).map((n) => absolute(text(n.contentUrl) ?? text(n.url), baseUrl) ?? "").concat(
    list(value).flatMap((v) => (typeof v === "string" ? [absolute(v, baseUrl) ?? ""] : []))
  ))

const quantity = (graph: Graph, label: string, value: unknown): string | undefined => {
  const node = nodes(graph, value)[0]
  if (node === undefined) return typeof value === "string" || typeof value === "number" ? `${label}: ${value}` : undefined
  const amount = text(node.value)
  if (amount === undefined) return undefined
  const unit = text(node.unitText) ?? unitName(text(node.unitCode))
  return `${label}: ${amount}${unit === undefined ? "" : ` ${unit}`}`
}

// UN/CEFACT codes schema.org uses for sizes and weights.
const unitNames: Record<string, string> = { CMT: "cm", MMT: "mm", MTR: "m", INH: "in", FOT: "ft", KGM: "kg", GRM: "g", LBR: "lb", ONZ: "oz", LTR: "l", MLT: "ml" }
const unitName = (code: string | undefined) => (code === undefined ? undefined : unitNames[code.toUpperCase()] ?? code)

const dimensionsOf = (graph: Graph, product: Node): Array<string> => {
  const out: Array<string> = []
  for (const [key, label] of [["width", "Width"], ["height", "Height"], ["depth", "Depth"], ["weight", "Weight"], ["size", "Size"]] as const) {
    const said = quantity(graph, label, product[key])
    if (said !== undefined) out.push(said)
  }
  for (const property of nodes(graph, product.additionalProperty)) {
    const name = text(property.name)
    const value = text(property.value)
    if (name === undefined || value === undefined) continue
    if (!/dimension|size|width|height|depth|length|weight|diameter|volume|capacity/i.test(name)) continue
    const unit = text(property.unitText) ?? unitName(text(property.unitCode))
    out.push(`${name}: ${value}${unit === undefined ? "" : ` ${unit}`}`)
  }
  return [...new Set(out)].slice(0, MAX_LIST)
}

/** `variesBy` names (`https://schema.org/color` → `color`). */
const variesByOf = (group: Node): Array<string> =>
  list(group.variesBy).flatMap((v) => (typeof v === "string" ? [v.replace(/^https?:\/\/schema\.org\//i, "").replace(/^schema:/i, "")] : []))

const variantOf = (graph: Graph, variant: Node, keys: ReadonlyArray<string>, baseUrl: string): Variant => {
  const attributes: Record<string, string> = {}
  const wanted = keys.length > 0 ? keys : ["color", "size", "material", "pattern", "suggestedAge", "suggestedGender"]
  for (const key of wanted) {
    const value = text(variant[key])
    if (value !== undefined) attributes[key] = value
  }
  for (const property of nodes(graph, variant.additionalProperty)) {
    const name = text(property.name)
    const value = text(property.value)
    if (name !== undefined && value !== undefined && attributes[name] === undefined && Object.keys(attributes).length < MAX_LIST) attributes[name] = value
  }
  const offer = nodes(graph, variant.offers)[0]
  return {
    attributes,
    images: imagesOf(graph, variant.image, baseUrl).slice(0, MAX_IMAGES),
    sku: text(variant.sku) ?? null,
    url: absolute(text(variant.url) ?? text(offer?.url), baseUrl) ?? null
  }
}

/** The product a JSON-LD (or microdata/RDFa) node states. */
export const productOf = (graph: Graph, node: Node, baseUrl: string): Product => {
  const product = empty(clean(text(node.name) ?? "", 500))
  product.description = clean(text(node.description) ?? "")
  const groupVariants = nodes(graph, node.hasVariant).slice(0, MAX_VARIANTS)
  const facts = offerFacts(graph, node, baseUrl)
  // A group's price is its variants' lowest when the group itself states none.
  const variantFacts = groupVariants.map((v) => offerFacts(graph, v, baseUrl))
  const prices = variantFacts.flatMap((f) => (f.price === undefined ? [] : [f.price]))
  product.price = facts.price ?? (prices.length > 0 ? Math.min(...prices) : null)
  const cheapest = variantFacts.find((f) => f.price === product.price)
  product.regular_price = facts.regular ?? cheapest?.regular ?? null
  if (product.regular_price !== null && product.price !== null && product.regular_price <= product.price) product.regular_price = null
  product.currency = facts.currency ?? variantFacts.find((f) => f.currency !== undefined)?.currency ?? null
  product.availability = facts.availability ??
    (variantFacts.some((f) => f.availability === "in_stock") ? "in_stock" : variantFacts.find((f) => f.availability !== undefined)?.availability) ?? null
  product.billing_frequency = facts.billing ?? (product.price !== null ? "one_time" : null)
  const sku = text(node.sku) ?? text(node.mpn) ?? text(node.gtin13) ?? text(node.gtin12) ?? text(node.gtin14) ?? text(node.gtin8) ?? text(node.gtin) ?? text(node.productGroupID)
  product.sku = sku ?? null
  const images = imagesOf(graph, node.image, baseUrl)
  const variantImages = groupVariants.flatMap((v) => imagesOf(graph, v.image, baseUrl))
  product.images = uniqueUrls([...images, ...variantImages]).slice(0, MAX_IMAGES)
  product.image_url = product.images[0] ?? null
  product.url = absolute(text(node.url), baseUrl) ?? facts.url ?? null
  const category = text(node.category)
  product.category = category === undefined ? null : clean(category.replace(/\s*>\s*/g, " > "), 300)
  product.dimensions = dimensionsOf(graph, node)
  const keywords = text(node.keywords)
  product.tags = keywords === undefined ? [] : keywords.split(",").map((k) => clean(k, 100)).filter((k) => k !== "").slice(0, MAX_LIST)
  const audience = nodes(graph, node.audience).flatMap((a) => text(a.audienceType) ?? text(a.name) ?? [])
  product.target_audience = audience.slice(0, MAX_LIST)
  const keys = variesByOf(node)
  product.variants = groupVariants.map((v) => variantOf(graph, v, keys, baseUrl))
  return product
}

/** Whether a stated product is enough for a product page: a name and an offer, a price or a SKU. */
export const isComplete = (product: Product, node: Node): boolean =>
  product.name !== "" && (product.price !== null || product.sku !== null || node.offers !== undefined)

// ---- microdata and RDFa, read into nodes ----

const stringProp = (element: Element, name: string): string | undefined => {
  const value = element.properties[name]
  if (value === undefined || value === null || value === false) return undefined
  return Array.isArray(value) ? value.join(" ") : String(value)
}

/** An element's value as a microdata property (HTML's rules) or an RDFa one (`content`, `href`, `src`, `resource`, text). */
const valueOf = (element: Element): string => {
  const content = stringProp(element, "content")
  if (content !== undefined) return content
  switch (element.tagName) {
    case "audio": case "embed": case "iframe": case "img": case "source": case "track": case "video":
      return stringProp(element, "src") ?? ""
    case "a": case "area": case "link":
      return stringProp(element, "href") ?? ""
    case "object":
      return stringProp(element, "data") ?? ""
    case "data": case "meter":
      return stringProp(element, "value") ?? ""
    case "time":
      return stringProp(element, "dateTime") ?? blockText(element)
  }
  return stringProp(element, "resource") ?? blockText(element)
}

interface Dialect {
  /** The element starts an item: its types. */
  readonly itemTypes: (element: Element) => Array<string> | undefined
  /** Property names the element carries for its parent item. */
  readonly props: (element: Element) => Array<string>
}

const schemaName = (value: string) => value.replace(/^https?:\/\/schema\.org\//i, "").replace(/^schema:/i, "")

const microdata: Dialect = {
  itemTypes: (element) => (element.properties.itemScope === true || element.properties.itemScope === "" ? (stringProp(element, "itemType") ?? "").split(/\s+/).filter((t) => t !== "").map(schemaName) : undefined),
  props: (element) => (stringProp(element, "itemProp") ?? "").split(/\s+/).filter((p) => p !== "").map(schemaName)
}
const rdfa: Dialect = {
  itemTypes: (element) => {
    const type = stringProp(element, "typeof")
    return type === undefined ? undefined : type.split(/\s+/).filter((t) => t !== "").map(schemaName)
  },
  props: (element) => (stringProp(element, "property") ?? "").split(/\s+/).filter((p) => p !== "" && !/^(og|product|fb|twitter|article):/i.test(p)).map(schemaName)
}

/** Top-level items of a dialect as nodes, each with the element it came from. */
const itemsOf = (tree: Root, dialect: Dialect): Array<{ node: Node; element: Element }> => {
  const top: Array<{ node: Node; element: Element }> = []
  let visited = 0
  const add = (node: Node, name: string, value: unknown) => {
    const existing = node[name]
    node[name] = existing === undefined ? value : Array.isArray(existing) ? [...existing, value] : [existing, value]
  }
  // Iterative walk: (element, the item its properties belong to).
  const stack: Array<{ child: ElementContent | Root; item: Node | undefined }> = [{ child: tree, item: undefined }]
  while (stack.length > 0 && visited < MAX_ELEMENTS) {
    const { child, item } = stack.pop()!
    let inner = item
    if (child.type === "element") {
      visited++
      const types = dialect.itemTypes(child)
      const names = dialect.props(child)
      if (types !== undefined) {
        const node: Node = { "@type": types }
        if (item !== undefined && names.length > 0) for (const name of names) add(item, name, node)
        else top.push({ node, element: child })
        inner = node
      } else if (item !== undefined && names.length > 0) {
        const value = clean(valueOf(child), 2_000)
        for (const name of names) add(item, name, value)
      }
    }
    if (child.type === "element" || child.type === "root") {
      for (let i = child.children.length - 1; i >= 0; i--) {
        const next = child.children[i]!
        if (next.type === "element") stack.push({ child: next, item: inner })
      }
    }
  }
  return top
}

/** Microdata and RDFa items that stand at the top of the page, as JSON-LD-like nodes. */
export const markupItems = (tree: Root): Array<{ node: Node; element: Element }> => [...itemsOf(tree, microdata), ...itemsOf(tree, rdfa)]

// ---- OpenGraph ----

/** The page's `<meta property|name>` values by lower-cased key, in order (a key may repeat: `og:image`). */
export const metaValues = (tree: Root): Map<string, Array<string>> => {
  const out = new Map<string, Array<string>>()
  let visited = 0
  const stack: Array<Root | RootContent> = [tree]
  while (stack.length > 0 && visited < MAX_ELEMENTS) {
    const node = stack.pop()!
    if (node.type === "element") {
      visited++
      if (node.tagName === "meta") {
        const key = (stringProp(node, "property") ?? stringProp(node, "name") ?? stringProp(node, "itemProp"))?.trim().toLowerCase()
        const content = stringProp(node, "content")
        if (key !== undefined && content !== undefined) out.set(key, [...(out.get(key) ?? []), content])
      }
      if (node.tagName === "body") continue
    }
    if (node.type === "element" || node.type === "root") for (let i = node.children.length - 1; i >= 0; i--) stack.push(node.children[i]!)
  }
  return out
}

/** The product OpenGraph tags state (`og:type` product), or undefined. */
export const openGraphProduct = (metas: ReadonlyMap<string, ReadonlyArray<string>>, baseUrl: string): Product | undefined => {
  const first = (...keys: Array<string>) => {
    for (const key of keys) {
      const value = metas.get(key)?.[0]
      if (value !== undefined && value.trim() !== "") return value.trim()
    }
    return undefined
  }
  const type = first("og:type")?.toLowerCase()
  if (type === undefined || !/^(product|product\.item|og:product|product\.group)$/.test(type)) return undefined
  const product = empty(clean(first("og:title", "twitter:title") ?? "", 500))
  product.description = clean(first("og:description", "description") ?? "")
  const sale = parsePrice(first("product:sale_price:amount"))
  const price = parsePrice(first("product:price:amount", "og:price:amount"))
  const original = parsePrice(first("product:original_price:amount"))
  product.price = sale ?? price ?? null
  const regular = sale !== undefined ? (price ?? original) : original
  product.regular_price = regular !== undefined && product.price !== null && regular > product.price ? regular : null
  product.currency = currencyOf(first("product:price:currency", "og:price:currency", "product:sale_price:currency")) ?? null
  product.availability = availabilityOf(first("product:availability", "og:availability")) ?? null
  product.sku = first("product:retailer_item_id", "product:sku") ?? null
  product.category = first("product:category") ?? null
  product.images = uniqueUrls([...(metas.get("og:image") ?? []), ...(metas.get("og:image:secure_url") ?? [])].map((u) => absolute(u, baseUrl) ?? "")).slice(0, MAX_IMAGES)
  product.image_url = product.images[0] ?? null
  product.url = absolute(first("og:url"), baseUrl) ?? null
  product.billing_frequency = product.price !== null ? "one_time" : null
  return product.name === "" ? undefined : product
}

/** Whether the page's OpenGraph type says article. */
export const openGraphArticle = (metas: ReadonlyMap<string, ReadonlyArray<string>>): boolean =>
  /^(article|blog|website:article)$/i.test(metas.get("og:type")?.[0]?.trim() ?? "")
