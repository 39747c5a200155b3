/**
 * Products from shop platforms' own JSON: Shopify (`/products/<handle>.js` with prices in cents, `/products/<handle>.json`
 * and `/products.json` with decimal strings) and WooCommerce's Store API (`/wp-json/wc/store/v1/products`, prices in
 * minor units). Unknown shapes give nothing; every list is bounded.
 */
import { absolute, clean, currencyOf, empty, MAX_IMAGES, MAX_LIST, MAX_VARIANTS, parsePrice, type Product, uniqueUrls, type Variant } from "./model.js"

type Json = Record<string, unknown>
const isObject = (value: unknown): value is Json => typeof value === "object" && value !== null && !Array.isArray(value)
const array = (value: unknown): Array<unknown> => (Array.isArray(value) ? value : [])
const str = (value: unknown): string | undefined => (typeof value === "string" && value.trim() !== "" ? value.trim() : typeof value === "number" ? String(value) : undefined)

/** Text of an HTML fragment (descriptions), without tags or entities worth keeping. */
export const htmlText = (html: string): string =>
  clean(html.slice(0, 100_000).replace(/<(script|style)\b[\s\S]*?<\/\1\s*>/gi, " ").replace(/<\/?(p|br|li|ul|ol|div|h[1-6]|tr|td|th|table|section|blockquote)\b[^>]*>/gi, " ").replace(/<[^>]*>/g, "")
    .replace(/&nbsp;/g, " ").replace(/&amp;/g, "&").replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&quot;/g, "\"").replace(/&#0?39;|&apos;/g, "'"))

/** A Shopify price: integer cents in `.js`, a decimal string in `.json`. */
const shopifyPrice = (value: unknown): number | undefined =>
  typeof value === "number" ? (Number.isFinite(value) && value >= 0 ? Math.round(value) / 100 : undefined) : parsePrice(value)

/** A Shopify product object (from `.js`, `.json`'s `product`, or an entry of `products.json`). */
export const shopifyProduct = (raw: unknown, origin: string, currency: string | undefined): Product | undefined => {
  if (!isObject(raw)) return undefined
  const title = str(raw.title)
  const handle = str(raw.handle)
  if (title === undefined || handle === undefined) return undefined
  const product = empty(clean(title, 500))
  product.description = htmlText(str(raw.description) ?? str(raw.body_html) ?? "")
  const url = absolute(`/products/${encodeURIComponent(handle)}`, origin) ?? null
  product.url = url
  const options = array(raw.options).map((o, i) => (isObject(o) ? str(o.name) : str(o)) ?? `option${i + 1}`)
  const images = array(raw.images).map((i) => absolute(isObject(i) ? i.src : i, origin) ?? "")
  const variants = array(raw.variants).filter(isObject).slice(0, MAX_VARIANTS)
  const priced = variants.map((v) => ({ v, price: shopifyPrice(v.price), compare: shopifyPrice(v.compare_at_price) }))
  const available = priced.filter(({ v }) => v.available !== false)
  const pick = (available.length > 0 ? available : priced).reduce<typeof priced[number] | undefined>(
    (best, next) => (next.price !== undefined && (best?.price === undefined || next.price < best.price) ? next : best),
    undefined
  )
  product.price = pick?.price ?? shopifyPrice(raw.price) ?? null
  const compare = pick?.compare ?? shopifyPrice(raw.compare_at_price)
  product.regular_price = compare !== undefined && product.price !== null && compare > product.price ? compare : null
  product.currency = currency ?? null
  const anyAvailable = raw.available === true || variants.some((v) => v.available === true)
  const known = raw.available !== undefined || variants.some((v) => v.available !== undefined)
  product.availability = known ? (anyAvailable ? "in_stock" : "out_of_stock") : null
  product.billing_frequency = product.price !== null ? "one_time" : null
  product.sku = str(variants[0]?.sku) ?? null
  product.category = str(raw.type) ?? str(raw.product_type) ?? null
  const tags = Array.isArray(raw.tags) ? raw.tags.map(str) : (str(raw.tags) ?? "").split(",")
  product.tags = tags.flatMap((t) => (t === undefined || t.trim() === "" ? [] : [clean(t, 100)])).slice(0, MAX_LIST)
  const variantImages = variants.map((v) => absolute(isObject(v.featured_image) ? v.featured_image.src : undefined, origin) ?? "")
  product.images = uniqueUrls([...images, ...variantImages]).slice(0, MAX_IMAGES)
  product.image_url = product.images[0] ?? null
  // A product with one default variant ("Default Title") has no variants to speak of.
  const real = variants.filter((v) => str(v.title) !== "Default Title")
  product.variants = real.map((v): Variant => {
    const attributes: Record<string, string> = {}
    for (let i = 0; i < 3; i++) {
      const value = str(v[`option${i + 1}`])
      if (value !== undefined) attributes[options[i] ?? `option${i + 1}`] = value
    }
    const image = absolute(isObject(v.featured_image) ? v.featured_image.src : undefined, origin)
    return {
      attributes,
      images: image === undefined ? [] : [image],
      sku: str(v.sku) ?? null,
      url: url === null || v.id === undefined ? url : `${url}?variant=${encodeURIComponent(String(v.id))}`
    }
  })
  return product
}

/** The products of a Shopify `products.json` body. */
export const shopifyCatalog = (body: unknown, origin: string, currency: string | undefined): Array<Product> =>
  isObject(body) ? array(body.products).flatMap((p) => shopifyProduct(p, origin, currency) ?? []) : []

/** A Store API minor-unit price (`"1999"` with 2 minor digits → 19.99). */
const wooPrice = (value: unknown, minor: number): number | undefined => {
  const text = str(value)
  if (text === undefined || !/^\d+$/.test(text)) return undefined
  return Number(text) / 10 ** minor
}

/** A WooCommerce Store API product. */
export const wooProduct = (raw: unknown, origin: string): Product | undefined => {
  if (!isObject(raw)) return undefined
  const name = str(raw.name)
  if (name === undefined) return undefined
  const product = empty(clean(htmlText(name), 500))
  product.description = htmlText(str(raw.short_description) ?? str(raw.description) ?? "")
  product.url = absolute(str(raw.permalink), origin) ?? null
  product.sku = str(raw.sku) ?? null
  const prices = isObject(raw.prices) ? raw.prices : {}
  const minor = typeof prices.currency_minor_unit === "number" && prices.currency_minor_unit >= 0 && prices.currency_minor_unit <= 4 ? prices.currency_minor_unit : 2
  product.price = wooPrice(prices.sale_price, minor) ?? wooPrice(prices.price, minor) ?? null
  const regular = wooPrice(prices.regular_price, minor)
  product.regular_price = regular !== undefined && product.price !== null && regular > product.price ? regular : null
  product.currency = currencyOf(prices.currency_code) ?? null
  const stock = isObject(raw.stock_availability) ? str(raw.stock_availability.class) : undefined
  product.availability = stock === "on-backorder" ? "backorder" : raw.is_in_stock === true ? "in_stock" : raw.is_in_stock === false ? "out_of_stock" : null
  product.billing_frequency = product.price !== null ? "one_time" : null
  product.images = uniqueUrls(array(raw.images).map((i) => absolute(isObject(i) ? i.src : undefined, origin) ?? "")).slice(0, MAX_IMAGES)
  product.image_url = product.images[0] ?? null
  product.category = array(raw.categories).flatMap((c) => (isObject(c) && str(c.name) !== undefined ? [htmlText(str(c.name)!)] : []))[0] ?? null
  product.tags = array(raw.tags).flatMap((t) => (isObject(t) && str(t.name) !== undefined ? [clean(str(t.name)!, 100)] : [])).slice(0, MAX_LIST)
  product.variants = array(raw.variations).filter(isObject).slice(0, MAX_VARIANTS).map((v): Variant => {
    const attributes: Record<string, string> = {}
    for (const a of array(v.attributes)) if (isObject(a) && str(a.name) !== undefined && str(a.value) !== undefined) attributes[str(a.name)!] = str(a.value)!
    return { attributes, images: [], sku: null, url: product.url === null || v.id === undefined ? null : `${product.url}${product.url.includes("?") ? "&" : "?"}variation_id=${encodeURIComponent(String(v.id))}` }
  })
  return product
}

/** The products of a Store API `products` body (an array). */
export const wooCatalog = (body: unknown, origin: string): Array<Product> => array(body).flatMap((p) => wooProduct(p, origin) ?? [])

/** The shop's currency as a Shopify page states it (`Shopify.currency = {"active":"EUR"`), else undefined. */
export const shopifyCurrency = (html: string): string | undefined => {
  const active = /Shopify\.currency\s*=\s*\{[^}]*"active"\s*:\s*"([A-Za-z]{3})"/.exec(html)?.[1]
  return currencyOf(active)
}

/** Whether a page is served by Shopify. */
export const isShopify = (html: string): boolean => /cdn\.shopify\.com|Shopify\.shop\s*=|shopify-section/i.test(html)
/** Whether a page is a WooCommerce shop's. */
export const isWooCommerce = (html: string): boolean => /woocommerce|wc-block|\/wp-json\/wc\//i.test(html)
