/**
 * What markup says without structured data: a struck-through "was" price beside the product, and a SaaS pricing
 * table read deterministically (per-seat wording, a free plan, several tiers, "contact sales", billing period,
 * the first plan's feature list). A language model, when one is configured, reads the prose fields instead.
 */
import type { Element, Root, RootContent } from "hast"
import { blockText } from "../page/text.js"
import { type BillingFrequency, clean, MAX_LIST, parsePrice, type PricingModel } from "./model.js"

const MAX_ELEMENTS = 50_000

const classOf = (element: Element): string => {
  const value = element.properties.className
  return Array.isArray(value) ? value.join(" ") : typeof value === "string" ? value : ""
}

/** Elements in document order under `root` (bounded). */
const elements = (root: Root | Element): Array<Element> => {
  const out: Array<Element> = []
  const stack: Array<Root | RootContent> = [root]
  while (stack.length > 0 && out.length < MAX_ELEMENTS) {
    const node = stack.pop()!
    if (node.type === "element") out.push(node)
    if (node.type === "element" || node.type === "root") for (let i = node.children.length - 1; i >= 0; i--) stack.push(node.children[i]!)
  }
  return out
}

const wasPrice = /\b(was|compare[-_]?at|regular[-_]?price|original[-_]?price|old[-_]?price|list[-_]?price|price[-_]?(was|old|before|regular|compare)|strike|crossed)\b/i

// Blocks about other products (related, recommended, "complete the look" strips, product cards): their prices are not
// this product's.
const otherProducts = /related|recommend|upsell|cross-?sell|complete-the-look|also-?like|similar|carousel|\bcard\b|product-card|grid-item/i
const otherHeading = /also like|complete the look|related|recommended|similar|customers also|frequently bought|more from/i

const aboutOtherProducts = (element: Element): boolean => {
  const id = typeof element.properties.id === "string" ? element.properties.id : ""
  if (otherProducts.test(`${classOf(element)} ${id}`)) return true
  if (element.tagName !== "section" && element.tagName !== "div" && element.tagName !== "aside") return false
  const heading = element.children.find((c): c is Element => c.type === "element" && /^h[1-6]$/.test(c.tagName))
  return heading !== undefined && otherHeading.test(blockText(heading))
}

/**
 * The struck-through price nearest the product (`<del>`, `<s>`, a "was"/"compare-at"/"regular" price class) above
 * `price` and at most ten times it, outside blocks about other products; undefined when none.
 */
export const struckPrice = (scope: Root | Element, price: number): number | undefined => {
  const stack: Array<Root | RootContent> = [scope]
  let visited = 0
  while (stack.length > 0 && visited < MAX_ELEMENTS) {
    const node = stack.pop()!
    if (node.type === "element") {
      visited++
      if (node !== scope && aboutOtherProducts(node)) continue
      if (node.tagName === "del" || node.tagName === "s" || node.tagName === "strike" || wasPrice.test(classOf(node))) {
        const value = parsePrice(/\d[\d.,]*/.exec(blockText(node))?.[0])
        if (value !== undefined && value > price && value <= price * 10) return value
        continue
      }
    }
    if (node.type === "element" || node.type === "root") for (let i = node.children.length - 1; i >= 0; i--) stack.push(node.children[i]!)
  }
  return undefined
}

/** The main area of a page: `<main>`, else `<body>`, else the whole tree. */
export const mainArea = (tree: Root): Root | Element => {
  let body: Element | undefined
  for (const element of elements(tree)) {
    if (element.tagName === "main" || element.properties.role === "main") return element
    if (element.tagName === "body") body ??= element
  }
  return body ?? tree
}

/** What the deterministic reader makes of a pricing page. */
export interface PricingReading {
  readonly pricing_model: PricingModel | null
  readonly billing_frequency: BillingFrequency | null
  readonly features: Array<string>
  /** The lowest paid plan price, with its currency symbol read as a code. */
  readonly price: number | null
  readonly currency: string | null
}

const symbols: Record<string, string> = { "$": "USD", "€": "EUR", "£": "GBP", "¥": "JPY", "₹": "INR" }
const planPrice = /([$€£¥₹])\s?(\d{1,5}(?:[.,]\d{2})?)\s*(?:\/|per\s)\s*(user|seat|member|agent|editor|mo(?:nth)?|yr|year|annum)?/gi

/** Reads a SaaS pricing table from the page's main area: never fails; nothing found is nulls and empty arrays. */
export const readPricing = (scope: Root | Element): PricingReading => {
  const text = clean(blockText(scope), 200_000)
  const perSeat = /(\/|per)\s*(user|seat|member|agent|editor)\b/i.test(text)
  const prices: Array<{ amount: number; currency: string }> = []
  for (const match of text.matchAll(planPrice)) {
    const amount = parsePrice(match[2])
    if (amount !== undefined) prices.push({ amount, currency: symbols[match[1]!] ?? "" })
    if (prices.length > 50) break
  }
  const free = /\bfree (plan|tier|forever)\b|\bfree\b[^.]{0,40}\bforever\b/i.test(text) || prices.some((p) => p.amount === 0)
  const custom = /\b(contact (sales|us)|custom pricing|request a quote|get a quote)\b/i.test(text)
  const monthly = /(\/|per)\s*mo(nth)?\b|\bmonthly\b|\bbilled monthly\b/i.test(text)
  const yearly = /(\/|per)\s*(yr|year|annum)\b|\bbilled (annually|yearly)\b|\bannual(ly)?\b/i.test(text)
  const usage = /\bper (request|api call|call|gb|1,?000|million|minute)\b|\bpay as you go\b|\busage[- ]based\b/i.test(text)
  const paid = prices.filter((p) => p.amount > 0)
  const model: PricingModel | null = prices.length === 0
    ? (custom ? "custom" : null)
    : perSeat ? "per_seat" : free && paid.length > 0 ? "freemium" : paid.length >= 3 ? "tiered" : "flat"
  const billing: BillingFrequency | null = prices.length === 0 && !usage ? null : usage && !monthly && !yearly ? "usage_based" : monthly ? "monthly" : yearly ? "yearly" : null
  const cheapest = paid.reduce<typeof paid[number] | undefined>((best, p) => (best === undefined || p.amount < best.amount ? p : best), undefined)
  return {
    pricing_model: model,
    billing_frequency: billing,
    features: prices.length === 0 ? [] : featureList(scope),
    price: cheapest?.amount ?? null,
    currency: cheapest?.currency || null
  }
}

/** The first list of short items after a price: a plan's features. */
const featureList = (scope: Root | Element): Array<string> => {
  for (const element of elements(scope)) {
    if (element.tagName !== "ul") continue
    const items = element.children.flatMap((c) => (c.type === "element" && c.tagName === "li" ? [clean(blockText(c), 200)] : [])).filter((t) => t !== "" && t.length <= 120)
    if (items.length >= 2) return items.slice(0, MAX_LIST)
  }
  return []
}

/** Whether a page reads as a SaaS pricing page (its path or title says pricing, and it states plan prices). */
export const isPricingPage = (url: string, title: string, reading: PricingReading): boolean =>
  (/\/(pricing|plans|price)(\/|$|\?)/i.test(url) || /\b(pricing|plans)\b/i.test(title)) && (reading.price !== null || reading.pricing_model === "custom")

/** The JSON Schema a language model answers with for a product's prose fields. */
export const proseSchema = {
  type: "object",
  additionalProperties: false,
  required: ["pricing_model", "target_audience", "features"],
  properties: {
    pricing_model: { type: ["string", "null"], enum: ["per_seat", "flat", "tiered", "freemium", "custom", null] },
    target_audience: { type: "array", maxItems: MAX_LIST, items: { type: "string", maxLength: 100 } },
    features: { type: "array", maxItems: MAX_LIST, items: { type: "string", maxLength: 200 } }
  }
} as const

/** What a language model reads from the page's prose. */
export interface ProseReading {
  readonly pricing_model: PricingModel | null
  readonly target_audience: Array<string>
  readonly features: Array<string>
}
