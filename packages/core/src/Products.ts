/**
 * Product extraction (wave2 §11): `extractProduct` decides whether a URL is a product detail page and reads the
 * product from the page itself (JSON-LD `Product`/`ProductGroup` with variants and offers, microdata, RDFa, OpenGraph
 * product tags, Shopify's and WooCommerce's product JSON, markup for a struck-through price, a pricing table for SaaS
 * pages); `extractProducts` finds a shop's products (Shopify `products.json`, the WooCommerce Store API, `ItemList`s,
 * product links, sitemaps) and reads up to `maxProducts`. Pages load through the `Pipeline` (cache, address guard,
 * static first and the browser when the page needs one, bot-wall detection). The prose fields (`pricing_model`,
 * `target_audience`, `features`) come from the `LanguageModel` when one is configured and from the deterministic
 * readers otherwise; a model's failure never fails the extraction.
 *
 * @since 0.1.0
 */
import { Duration, Effect, Option } from "effect"
import type { Cache } from "./Cache.js"
import { type ScrapeError, RequestTimeout, type WebsiteError } from "./Errors.js"
import type { Fetcher } from "./Fetcher.js"
import * as LanguageModel from "./LanguageModel.js"
import * as Pipeline from "./Pipeline.js"
import * as ScrapeRequest from "./ScrapeRequest.js"
import type { CacheMetadata } from "./ScrapeResult.js"
import { merge, type Product } from "./internal/products/model.js"
import { categoryPath, type PageReading, productPath, readPage } from "./internal/products/page.js"
import { type ProseReading, proseSchema } from "./internal/products/pricing.js"
import { shopifyCatalog, shopifyProduct, wooCatalog } from "./internal/products/shops.js"

export type { Availability, BillingFrequency, PricingModel, Product, Variant } from "./internal/products/model.js"
export { readPage } from "./internal/products/page.js"

/** Where a product page lives. */
export type Platform = "amazon" | "tiktok_shop" | "etsy" | "generic"

/** The answer for one URL (the SDK's `AIExtractProductResponse` members). */
export interface ProductPage {
  readonly is_product_page: boolean
  readonly platform: Platform | null
  readonly product: Product | null
}

/** Defaults and caps (wave2 §11, §21.5). */
export const limits = {
  maxAgeMs: { default: 604_800_000, max: ScrapeRequest.MAX_MAX_AGE_MS },
  maxProducts: { default: 12, max: 100 },
  timeoutMs: { default: 60_000 }
} as const

/** How pages are loaded. */
export interface LoadOptions {
  /** Reuse cached pages younger than this (default 7 days; 0: always fetch). */
  readonly maxAgeMs?: number | undefined
  /** Zero data retention: no shared cache. */
  readonly zdr?: boolean | undefined
  /** The whole request's budget (default 60 s). */
  readonly timeoutMs?: number | undefined
  /** `fail` (default) or `return-partial` (products: what was read; one product: nothing to return, so a timeout). */
  readonly timeoutBehavior?: "fail" | "return-partial" | undefined
}

/** Bodies of shop JSON read at most. */
const MAX_JSON_BYTES = 5 * 1024 * 1024
/** Pages one catalogue walk reads at most, beside the products it keeps. */
const MAX_PAGES = 300
const CONCURRENCY = 4

/** The platform of a URL's host. */
export const platformOf = (url: string): Platform => {
  const host = (() => {
    try {
      return new URL(url).hostname.toLowerCase()
    } catch {
      return ""
    }
  })()
  if (/(^|\.)amazon\.[a-z.]+$/.test(host)) return "amazon"
  if (/(^|\.)etsy\.com$/.test(host)) return "etsy"
  if (/(^|\.)shop\.tiktok\.com$|(^|\.)tiktok\.com$/.test(host) && (host.startsWith("shop.") || /\/(shop|view\/product)\//.test(url))) return "tiktok_shop"
  return "generic"
}

/** Collects the cache outcomes of every load that went into an answer. */
class CacheLog {
  readonly entries: Array<CacheMetadata> = []
  constructor(readonly zdr: boolean) {}
  /** A hit only when every contributing load was one, aged by the oldest. */
  get metadata(): CacheMetadata {
    if (this.zdr) return { status: "zdr", age_ms: 0 }
    const hit = this.entries.length > 0 && this.entries.every((e) => e.status === "hit")
    return { status: hit ? "hit" : "miss", age_ms: hit ? Math.max(...this.entries.map((e) => e.age_ms)) : 0 }
  }
}

const pageRequest = (url: string, options: LoadOptions, formats: ScrapeRequest.ScrapeRequestInput["formats"], extra: Partial<ScrapeRequest.ScrapeRequestInput> = {}) =>
  ScrapeRequest.decode({
    url,
    formats,
    ...extra,
    maxAgeMs: Math.min(options.maxAgeMs ?? limits.maxAgeMs.default, limits.maxAgeMs.max),
    timeoutOpts: { milliseconds: Math.min(options.timeoutMs ?? limits.timeoutMs.default, ScrapeRequest.MAX_TIMEOUT_MS) },
    ...(options.zdr === true ? { zdr: "enabled" as const } : {})
  })

/** A loaded HTML page: its final URL and its whole markup (scripts included, as rendered when it was). */
interface LoadedHtml {
  readonly url: string
  readonly html: string
}

// The whole document's outer HTML, scripts included (the `html` output drops them; JSON-LD lives in scripts).
const wholePage = { rules: { page: { selector: "html", output: "html" } } }

/** Loads a page's HTML through the pipeline; a page that is not HTML is an empty document. */
const loadHtml = (url: string, options: LoadOptions, log: CacheLog): Effect.Effect<LoadedHtml, ScrapeError, Fetcher | Cache> =>
  Effect.gen(function*() {
    const request = yield* pageRequest(url, options, { parse: true }, { parseParams: wholePage })
    const result = yield* Pipeline.run(request)
    log.entries.push(result.cache_metadata)
    const page = result.parsed.data?.page
    return { url: result.url, html: typeof page === "string" ? page : "" }
  })

/** Loads JSON through the pipeline (as bytes); anything that fails or is not JSON is none. */
const loadJson = (url: string, options: LoadOptions, log: CacheLog): Effect.Effect<Option.Option<unknown>, never, Fetcher | Cache> =>
  Effect.gen(function*() {
    const request = yield* pageRequest(url, options, { bytes: true })
    const result = yield* Pipeline.run(request)
    const bytes = result.bytes.data
    if (bytes === null || bytes.base64.length > (MAX_JSON_BYTES * 4) / 3 + 4) return Option.none()
    const text = Buffer.from(bytes.base64, "base64").toString("utf8")
    if (!/^\s*[[{]/.test(text)) return Option.none()
    log.entries.push(result.cache_metadata)
    return Option.some(JSON.parse(text) as unknown)
  }).pipe(
    Effect.catchAll(() => Effect.succeed(Option.none())),
    Effect.catchAllDefect(() => Effect.succeed(Option.none())),
    // A JSON that is not there should not cost the whole request's budget.
    Effect.timeoutTo({ duration: Duration.seconds(15), onTimeout: () => Option.none(), onSuccess: (v) => v })
  )

/** Loads a text resource (sitemaps) as bytes; none on any failure. */
const loadText = (url: string, options: LoadOptions): Effect.Effect<string, never, Fetcher | Cache> =>
  Effect.gen(function*() {
    const request = yield* pageRequest(url, options, { bytes: true })
    const result = yield* Pipeline.run(request)
    const bytes = result.bytes.data
    return bytes === null || bytes.base64.length > (MAX_JSON_BYTES * 4) / 3 + 4 ? "" : Buffer.from(bytes.base64, "base64").toString("utf8")
  }).pipe(Effect.catchAll(() => Effect.succeed("")), Effect.catchAllDefect(() => Effect.succeed("")), Effect.timeoutTo({ duration: Duration.seconds(15), onTimeout: () => "", onSuccess: (v) => v }))

const originOf = (url: string) => new URL(url).origin

/** Shopify's product JSON for a `/products/<handle>` URL (variants with their options, prices in cents). */
const shopifyJsonFor = (url: string, currency: string | undefined, options: LoadOptions, log: CacheLog) => {
  const match = /^(.*\/products\/[^/?#.]+)/.exec(new URL(url).origin + new URL(url).pathname)
  if (match === null) return Effect.succeed(undefined)
  return Effect.map(loadJson(`${match[1]}.js`, options, log), (json) => Option.isSome(json) ? shopifyProduct(json.value, originOf(url), currency) : undefined)
}

/** The prose fields from a configured model within `budgetMs`; none without one, without time, or when it fails. */
const proseFromModel = (reading: PageReading, product: Product, budgetMs: number): Effect.Effect<ProseReading | undefined> =>
  Effect.gen(function*() {
    const service = yield* Effect.serviceOption(LanguageModel.LanguageModel)
    if (Option.isNone(service) || Option.isNone(service.value.endpoint) || budgetMs < 1_000) return undefined
    const answer = yield* LanguageModel.completeStructured(
      service.value.endpoint.value,
      [
        {
          role: "system",
          content: "You read a product page and answer in JSON: pricing_model (per_seat, flat, tiered, freemium, custom, or null when the page does not say), " +
            "target_audience (who the product is for, short phrases, [] when not said) and features (short phrases the page states, [] when none). Use only what the page says."
        },
        { role: "user", content: `Product: ${product.name}\nPage text:\n${reading.text}` }
      ],
      proseSchema,
      { timeoutMs: Math.min(20_000, budgetMs), maxTokens: 2_000 },
      { name: "product_prose" }
    )
    return answer as ProseReading
  }).pipe(Effect.catchAll(() => Effect.succeed(undefined)))

/** A product finished with the model's prose fields when one answers (structured values stay first). */
const withProse = (reading: PageReading, product: Product, budgetMs: number): Effect.Effect<Product> =>
  Effect.map(proseFromModel(reading, product, budgetMs), (prose) =>
    prose === undefined ? product : {
      ...product,
      pricing_model: product.pricing_model ?? prose.pricing_model,
      target_audience: product.target_audience.length > 0 ? product.target_audience : prose.target_audience,
      features: product.features.length > 0 ? product.features : prose.features
    })

/** Reads one loaded page into its answer, consulting Shopify's product JSON on Shopify product pages. */
const answerFor = (loaded: LoadedHtml, options: LoadOptions, log: CacheLog, until: number): Effect.Effect<ProductPage, never, Fetcher | Cache> =>
  Effect.gen(function*() {
    const reading = readPage(loaded.html, loaded.url)
    let product = reading.product
    if (reading.shopify && /\/products\/[^/?#]+/.test(new URL(loaded.url).pathname) && (product === null || product.variants.length === 0)) {
      const shop = yield* shopifyJsonFor(loaded.url, product?.currency ?? reading.shopCurrency, options, log)
      if (shop !== undefined) product = product === null ? shop : merge(product, shop)
    }
    // A WooCommerce product page without structured data: the Store API knows the product by its slug.
    const slug = /\/product\/([^/?#]+)\/?$/.exec(new URL(loaded.url).pathname)?.[1]
    if (product === null && reading.wooCommerce && slug !== undefined) {
      const origin = originOf(loaded.url)
      const catalog = yield* loadJson(`${origin}/wp-json/wc/store/v1/products?slug=${encodeURIComponent(slug)}`, options, log)
      const match = Option.isSome(catalog) ? wooCatalog(catalog.value, origin).find((p) => p.url !== null && new URL(p.url).pathname.replace(/\/$/, "").endsWith(`/${slug}`)) : undefined
      if (match !== undefined) product = match
    }
    if (product === null) return { is_product_page: false, platform: null, product: null }
    // The model gets what is left of the request's deadline (less a margin to answer), so a slow one never turns a
    // readable page into a timeout.
    const budgetMs = until - Date.now() - 1_000
    return { is_product_page: true, platform: platformOf(loaded.url), product: yield* withProse(reading, product, budgetMs) }
  })

/** Whether a URL is a product detail page, and its product. */
export const extractProduct = (
  url: string,
  options: LoadOptions = {}
): Effect.Effect<{ readonly page: ProductPage; readonly cache: CacheMetadata }, ScrapeError, Fetcher | Cache> => {
  const log = new CacheLog(options.zdr === true)
  const timeoutMs = options.timeoutMs ?? limits.timeoutMs.default
  const until = Date.now() + timeoutMs
  const work = Effect.flatMap(loadHtml(url, options, log), (loaded) => answerFor(loaded, options, log, until))
  return Effect.timeoutFail(work, {
    duration: Duration.millis(timeoutMs),
    onTimeout: () => new RequestTimeout({ milliseconds: timeoutMs, detail: "the product page was not read in time" })
  }).pipe(Effect.map((page) => ({ page, cache: log.metadata })))
}

/** Where a catalogue walk starts. */
export interface CatalogOptions extends LoadOptions {
  /** A domain (`shop.example`) or a URL to start from instead. */
  readonly domain?: string | undefined
  readonly directUrl?: string | undefined
  /** 1 to 100 (default 12). */
  readonly maxProducts?: number | undefined
}

/** A catalogue walk's answer. */
export interface Catalog {
  readonly products: ReadonlyArray<Product>
  readonly cache: CacheMetadata
  /** The deadline passed with `return-partial`: these are the products read by then. */
  readonly partial?: true
}

const locs = (xml: string): Array<string> => {
  const out: Array<string> = []
  for (const match of xml.matchAll(/<loc>\s*(?:<!\[CDATA\[)?\s*([^<\s\]]+)/gi)) {
    out.push(match[1]!.replace(/&amp;/g, "&"))
    if (out.length >= 50_000) break
  }
  return out
}

/** Product URLs from the site's sitemap (a sitemap index's product sitemaps first, three read at most). */
const sitemapProducts = (origin: string, options: LoadOptions): Effect.Effect<Array<string>, never, Fetcher | Cache> =>
  Effect.gen(function*() {
    const root = yield* loadText(`${origin}/sitemap.xml`, options)
    if (!/<(urlset|sitemapindex)\b/i.test(root)) return []
    if (/<sitemapindex\b/i.test(root)) {
      const children = locs(root).sort((a, b) => Number(/product/i.test(b)) - Number(/product/i.test(a))).slice(0, 3)
      const bodies = yield* Effect.forEach(children, (child) => loadText(child, options), { concurrency: 3 })
      return bodies.flatMap(locs).filter((u) => productPath.test(safePath(u)))
    }
    return locs(root).filter((u) => productPath.test(safePath(u)))
  })

const safePath = (url: string) => {
  try {
    return new URL(url).pathname
  } catch {
    return ""
  }
}

/** Loads the start page: a domain over https, then http when https does not answer. */
const loadStart = (options: CatalogOptions, log: CacheLog): Effect.Effect<LoadedHtml, ScrapeError, Fetcher | Cache> => {
  if (options.directUrl !== undefined) return loadHtml(options.directUrl, options, log)
  const domain = options.domain!.replace(/^https?:\/\//i, "").replace(/\/.*$/, "")
  return loadHtml(`https://${domain}/`, options, log).pipe(
    Effect.catchTag("WebsiteError", (error: WebsiteError) =>
      error.reason === "Unreachable" || error.reason === "Timeout" ? loadHtml(`http://${domain}/`, options, log) : Effect.fail(error))
  )
}

/** Finds a shop's products and reads up to `maxProducts` of them. */
export const extractProducts = (options: CatalogOptions): Effect.Effect<Catalog, ScrapeError, Fetcher | Cache> => {
  const log = new CacheLog(options.zdr === true)
  const maxProducts = Math.max(1, Math.min(options.maxProducts ?? limits.maxProducts.default, limits.maxProducts.max))
  const timeoutMs = options.timeoutMs ?? limits.timeoutMs.default
  const found: Array<Product> = []
  const keep = (product: Product) => {
    if (found.length >= maxProducts) return
    if (found.some((p) => (p.url !== null && p.url === product.url) || (p.name === product.name && p.sku === product.sku))) return
    found.push(product)
  }
  let inFlight: Array<Product | null | undefined> = []
  const until = Date.now() + timeoutMs
  const walk = Effect.gen(function*() {
    const start = yield* loadStart(options, log)
    const origin = originOf(start.url)
    const home = readPage(start.html, start.url)
    // Shop platforms list their catalogue as JSON: complete products without reading each page.
    if (home.shopify || home.productLinks.length === 0) {
      const catalog = yield* loadJson(`${origin}/products.json?limit=250`, options, log)
      if (Option.isSome(catalog)) for (const product of shopifyCatalog(catalog.value, origin, home.shopCurrency)) keep(product)
      if (found.length > 0) return
    }
    if (home.wooCommerce || home.productLinks.length === 0) {
      for (const path of ["/wp-json/wc/store/v1/products?per_page=100", "/wp-json/wc/store/products?per_page=100"]) {
        const catalog = yield* loadJson(`${origin}${path}`, options, log)
        if (Option.isSome(catalog)) for (const product of wooCatalog(catalog.value, origin)) keep(product)
        if (found.length > 0) return
      }
    }
    if (home.product !== null) keep(home.product)
    let candidates = [...home.productLinks]
    if (candidates.length < maxProducts) candidates.push(...(yield* sitemapProducts(origin, options)))
    // Category pages list products: read a few when the home page and the sitemap named too few.
    if (new Set(candidates).size < maxProducts) {
      const categories = home.categoryLinks.filter((l) => categoryPath.test(safePath(l))).slice(0, 3)
      const listed = yield* Effect.forEach(categories, (url) =>
        loadHtml(url, options, log).pipe(Effect.map((page) => readPage(page.html, page.url).productLinks), Effect.orElseSucceed(() => [])), { concurrency: CONCURRENCY })
      candidates.push(...listed.flat())
    }
    candidates = [...new Set(candidates)].filter((u) => u !== start.url).slice(0, Math.min(MAX_PAGES, maxProducts * 3))
    // Read in batches, kept in the candidates' order (so the answer does not depend on which page answered first);
    // a batch's pages read when a deadline cuts it are kept too (`inFlight`).
    for (let at = 0; at < candidates.length && found.length < maxProducts; at += CONCURRENCY) {
      const batch = candidates.slice(at, at + CONCURRENCY)
      inFlight = batch.map(() => undefined)
      yield* Effect.forEach(batch, (url, i) =>
        loadHtml(url, options, log).pipe(
          Effect.flatMap((loaded) => answerFor(loaded, options, log, until)),
          Effect.option,
          Effect.map((page) => void (inFlight[i] = Option.isSome(page) ? page.value.product : null))
        ), { concurrency: CONCURRENCY, discard: true })
      for (const product of inFlight) if (product !== undefined && product !== null) keep(product)
      inFlight = []
    }
  })
  return Effect.gen(function*() {
    const finished = yield* Effect.timeoutOption(walk, Duration.millis(timeoutMs))
    if (Option.isNone(finished)) {
      for (const product of inFlight) if (product !== undefined && product !== null) keep(product)
      if (options.timeoutBehavior !== "return-partial" || found.length === 0) {
        return yield* new RequestTimeout({ milliseconds: timeoutMs, detail: found.length === 0 ? "no product had been read" : "the products were not all read in time" })
      }
      return { products: [...found], cache: log.metadata, partial: true as const }
    }
    return { products: [...found], cache: log.metadata }
  })
}
