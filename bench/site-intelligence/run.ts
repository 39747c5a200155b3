/**
 * bench/site-intelligence, products half: generated shop sites (eight generators: JSON-LD single and grouped with
 * variants, microdata, RDFa, OpenGraph only, a Shopify theme with its `.js` product JSON, a WooCommerce theme, an
 * AggregateOffer with formatted prices; varied layouts, related
 * products, reviews, blog posts and category pages) served from one local HTTP server, each page read by core's
 * `Products.extractProduct` through the real Fetcher and pipeline. Reports the product-page verdict's accuracy and
 * per-field accuracy (name, price, currency, availability, variants, regular price) apart for fields the page states
 * in structured data (target >= 0.95) and fields only its markup shows (target >= 0.8), and pages per second.
 *
 * Run: `npm run bench -- site-intelligence [--quick] [--sites N] [--products N] [--misses]`
 */
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { Effect, Layer, ManagedRuntime } from "effect"
import * as Cache from "../../packages/core/src/Cache.js"
import * as Fetcher from "../../packages/core/src/Fetcher.js"
import * as Products from "../../packages/core/src/Products.js"
import { type Page, type Site, sites as generate, type Stated } from "./shops.js"

const args = process.argv.slice(2)
const option = (name: string, fallback: number) => {
  const at = args.indexOf(name)
  return at >= 0 ? Number(args[at + 1]) : fallback
}
const quick = args.includes("--quick")
const siteCount = Math.max(40, option("--sites", quick ? 40 : 60))
const perSite = option("--products", quick ? 2 : 4)
const showMisses = args.includes("--misses")

const sites = generate(siteCount, perSite)
const byHost = new Map<string, Map<string, Page>>(sites.map((site) => [site.host, new Map(site.pages.map((p) => [p.path, p]))]))

const server = createServer((req, res) => {
  const page = byHost.get((req.headers.host ?? "").replace(/:\d+$/, ""))?.get((req.url ?? "/").split("?")[0]!)
  if (page === undefined) {
    res.writeHead(404, { "content-type": "text/html" }).end("<h1>Not found</h1>")
    return
  }
  if (page.json !== undefined) res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(page.json))
  else res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(page.html)
})
await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
const port = (server.address() as AddressInfo).port

const runtime = ManagedRuntime.make(Layer.merge(
  Fetcher.layer({ allowPrivateTargets: true, hostRules: `MAP *.test 127.0.0.1:${port}` }),
  Cache.layerMemory()
))

type Field = "name" | "price" | "currency" | "availability" | "variants" | "regularPrice"
const fields: ReadonlyArray<Field> = ["name", "price", "currency", "availability", "variants", "regularPrice"]
const tally = new Map<string, { right: number; total: number }>()
const count = (key: string, right: boolean) => {
  const entry = tally.get(key) ?? { right: 0, total: 0 }
  entry.total++
  if (right) entry.right++
  tally.set(key, entry)
}
const misses: Array<string> = []

const variantsOf = (product: Products.Product) =>
  product.variants.map((v) => Object.entries(v.attributes).map(([k, value]) => [k.toLowerCase(), value] as const).sort(([a], [b]) => a.localeCompare(b)).map(([k, value]) => `${k}=${value}`).join(";")).sort()

const near = (a: number | null | undefined, b: number | null | undefined) => (a ?? null) === null || (b ?? null) === null ? (a ?? null) === (b ?? null) : Math.abs(a! - b!) < 0.005

const score = (site: Site, page: Page, answer: Products.ProductPage) => {
  const truth = page.truth!
  const verdict = answer.is_product_page === truth.isProductPage
  count("verdict", verdict)
  if (!verdict) misses.push(`${site.host}${page.path}: is_product_page ${answer.is_product_page}`)
  if (!truth.isProductPage) return
  const product = answer.product
  const got: Record<Field, unknown> = {
    name: product?.name,
    price: product?.price,
    currency: product?.currency,
    availability: product?.availability,
    variants: product === null ? undefined : variantsOf(product!),
    regularPrice: product?.regular_price ?? null
  }
  for (const field of fields) {
    const expected = truth[field]
    if (expected === undefined) continue
    const right = field === "price" || field === "regularPrice" ? near(got[field] as number, expected as number) : JSON.stringify(got[field]) === JSON.stringify(expected)
    const stated: Stated = page.stated?.[field] ?? "structured"
    count(`${field}:${stated}`, right)
    if (!right) misses.push(`${site.host}${page.path} [${site.generator}] ${field}: got ${JSON.stringify(got[field])}, want ${JSON.stringify(expected)}`)
  }
}

const work = sites.flatMap((site) => site.pages.filter((p) => p.truth !== undefined).map((page) => ({ site, page })))
const started = performance.now()
const CONCURRENCY = 4
for (let at = 0; at < work.length; at += CONCURRENCY) {
  const batch = work.slice(at, at + CONCURRENCY)
  const answers = await Promise.all(batch.map(({ page, site }) =>
    runtime.runPromise(Products.extractProduct(`http://${site.host}${page.path}`, { maxAgeMs: 0, timeoutMs: 30_000 })).then((r) => r.page)))
  batch.forEach(({ page, site }, i) => score(site, page, answers[i]!))
}
const seconds = (performance.now() - started) / 1000
await runtime.dispose()
server.close()

const ratio = (key: string) => {
  const entry = tally.get(key)
  return entry === undefined ? undefined : entry.right / entry.total
}
console.log(`products: ${sites.length} sites (${new Set(sites.map((s) => s.generator)).size} generators), ${work.length} pages read (${work.filter((w) => w.page.truth!.isProductPage).length} product pages, the rest blog posts and category pages)`)
const verdict = ratio("verdict")!
console.log(`products is_product_page accuracy ${verdict.toFixed(3)} (target >= 0.95)`)
let lowestStructured = 1
let lowestMarkup = 1
for (const field of fields) {
  for (const stated of ["structured", "markup"] as const) {
    const value = ratio(`${field}:${stated}`)
    if (value === undefined) continue
    const entry = tally.get(`${field}:${stated}`)!
    console.log(`  ${field.padEnd(13)} ${stated.padEnd(10)} ${value.toFixed(3)} (${entry.right}/${entry.total})`)
    if (stated === "structured") lowestStructured = Math.min(lowestStructured, value)
    else lowestMarkup = Math.min(lowestMarkup, value)
  }
}
console.log(`products lowest field accuracy, stated in structured data: ${lowestStructured.toFixed(3)} (target >= 0.95)`)
console.log(`products lowest field accuracy, inferred from markup: ${lowestMarkup.toFixed(3)} (target >= 0.8)`)
console.log(`products throughput: ${(work.length / seconds).toFixed(1)} pages/s (${seconds.toFixed(1)} s, ${CONCURRENCY} at a time, fresh fetches)`)
if (showMisses || misses.length <= 10) for (const miss of misses.slice(0, 50)) console.log(`  miss: ${miss}`)

// The brand half (brand.ts: its own generated sites, fields and the warm-browser cold retrieval) on the same arguments.
await import("./brand.js")
