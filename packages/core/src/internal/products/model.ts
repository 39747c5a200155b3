/**
 * The product shape of `POST /brand/ai/product(s)` (wave2 §11, the SDK's `Product`), and the small readers every
 * source shares (prices, availability, schema.org names).
 */

/** Stock states the SDK knows. */
export type Availability = "in_stock" | "out_of_stock" | "limited_availability" | "preorder" | "backorder" | "made_to_order" | "discontinued"
/** How often the price is paid. */
export type BillingFrequency = "monthly" | "yearly" | "one_time" | "usage_based"
/** How a (SaaS) price is set. */
export type PricingModel = "per_seat" | "flat" | "tiered" | "freemium" | "custom"

/** One variant: the attributes it differs by (`{ color: "Red", size: "M" }`), its images, SKU and URL. */
export interface Variant {
  readonly attributes: Record<string, string>
  readonly images: Array<string>
  readonly sku: string | null
  readonly url: string | null
}

/** A product as the SDK describes it; every member present (`null` or empty when unknown). */
export interface Product {
  name: string
  description: string
  features: Array<string>
  images: Array<string>
  sku: string | null
  tags: Array<string>
  target_audience: Array<string>
  availability: Availability | null
  billing_frequency: BillingFrequency | null
  category: string | null
  currency: string | null
  dimensions: Array<string>
  image_url: string | null
  price: number | null
  pricing_model: PricingModel | null
  regular_price: number | null
  url: string | null
  variants: Array<Variant>
}

/** Images a product carries at most (the SDK: "up to 7"). */
export const MAX_IMAGES = 7
/** Variants kept at most. */
export const MAX_VARIANTS = 100
/** Features, tags, dimensions kept at most, and their length. */
export const MAX_LIST = 20
export const MAX_TEXT = 5_000

/** An empty product named `name`. */
export const empty = (name: string): Product => ({
  name,
  description: "",
  features: [],
  images: [],
  sku: null,
  tags: [],
  target_audience: [],
  availability: null,
  billing_frequency: null,
  category: null,
  currency: null,
  dimensions: [],
  image_url: null,
  price: null,
  pricing_model: null,
  regular_price: null,
  url: null,
  variants: []
})

/** Fills what `into` lacks from `from` (the first source's values win). */
export const merge = (into: Product, from: Product): Product => ({
  name: into.name || from.name,
  description: into.description || from.description,
  features: into.features.length > 0 ? into.features : from.features,
  images: uniqueUrls([...into.images, ...from.images]).slice(0, MAX_IMAGES),
  sku: into.sku ?? from.sku,
  tags: into.tags.length > 0 ? into.tags : from.tags,
  target_audience: into.target_audience.length > 0 ? into.target_audience : from.target_audience,
  availability: into.availability ?? from.availability,
  billing_frequency: into.billing_frequency ?? from.billing_frequency,
  category: into.category ?? from.category,
  currency: into.currency ?? from.currency,
  dimensions: into.dimensions.length > 0 ? into.dimensions : from.dimensions,
  image_url: into.image_url ?? from.image_url,
  price: into.price ?? from.price,
  pricing_model: into.pricing_model ?? from.pricing_model,
  regular_price: into.regular_price ?? from.regular_price,
  url: into.url ?? from.url,
  variants: into.variants.length > 0 ? into.variants : from.variants
})

/** Distinct URLs in order. */
export const uniqueUrls = (urls: ReadonlyArray<string>): Array<string> => [...new Set(urls.filter((u) => u !== ""))]

/** Whitespace collapsed, cut at `max` characters. */
export const clean = (text: string, max = MAX_TEXT): string => text.replace(/\s+/g, " ").trim().slice(0, max)

/** An absolute http(s) URL, or undefined. */
export const absolute = (value: unknown, base: string): string | undefined => {
  if (typeof value !== "string" || value.trim() === "") return undefined
  try {
    const url = new URL(value.trim().startsWith("//") ? `https:${value.trim()}` : value.trim(), base)
    return url.protocol === "http:" || url.protocol === "https:" ? url.href : undefined
  } catch {
    return undefined
  }
}

/**
 * A price from a number or a string: `19.99`, `"1,299.00"`, `"1.299,00"`, `"$ 19"`, `"19,99 €"`. Undefined for
 * anything else (ranges, words) and for negative or absurd values.
 */
export const parsePrice = (value: unknown): number | undefined => {
  if (typeof value === "number") return Number.isFinite(value) && value >= 0 && value < 1e12 ? value : undefined
  if (typeof value !== "string") return undefined
  const text = value.replace(/[^\d.,]/g, "")
  if (text === "" || !/\d/.test(text)) return undefined
  let normal: string
  if (/^\d{1,3}(\.\d{3})+(,\d{1,2})?$/.test(text) || /^\d+,\d{1,2}$/.test(text)) normal = text.replace(/\./g, "").replace(",", ".")
  else normal = text.replace(/,/g, "")
  if (!/^\d+(\.\d+)?$/.test(normal)) return undefined
  const number = Number(normal)
  return Number.isFinite(number) && number < 1e12 ? number : undefined
}

/** A three-letter currency code, upper-cased; undefined otherwise. */
export const currencyOf = (value: unknown): string | undefined =>
  typeof value === "string" && /^[A-Za-z]{3}$/.test(value.trim()) ? value.trim().toUpperCase() : undefined

const availabilityWords: ReadonlyArray<readonly [RegExp, Availability]> = [
  [/^(in ?stock|instock|onlineonly|instoreonly|available|in_stock)$/, "in_stock"],
  [/^(out ?of ?stock|outofstock|oos|soldout|sold ?out|out_of_stock|unavailable)$/, "out_of_stock"],
  [/^(limited ?availability|limitedavailability|limited_availability)$/, "limited_availability"],
  [/^(pre ?order|preorder|presale|pending)$/, "preorder"],
  [/^(back ?order|backorder)$/, "backorder"],
  [/^(made ?to ?order|madetoorder|made_to_order)$/, "made_to_order"],
  [/^(discontinued)$/, "discontinued"]
]

/** A schema.org availability (`https://schema.org/InStock`, `InStock`), an OpenGraph one (`instock`, `oos`) or a shop's word. */
export const availabilityOf = (value: unknown): Availability | undefined => {
  if (typeof value !== "string") return undefined
  const word = value.trim().replace(/^https?:\/\/schema\.org\//i, "").replace(/^schema:/i, "").toLowerCase()
  for (const [test, availability] of availabilityWords) if (test.test(word)) return availability
  return undefined
}
