/**
 * Generated shop sites for the products half of bench/site-intelligence: each site has its own generator (how it
 * states its products: JSON-LD single or grouped, microdata, RDFa, OpenGraph, Shopify theme with `.js` product JSON,
 * WooCommerce theme, AggregateOffer with formatted prices), its own layout (navigation, breadcrumbs, related products, reviews, footers) and invented
 * products, with the truth each page should give. Deterministic from a seed.
 */

/** What a page should answer. */
export interface Truth {
  readonly isProductPage: boolean
  readonly name?: string
  readonly price?: number
  readonly currency?: string
  readonly availability?: string
  /** Sorted "attr=value;attr=value" per variant. */
  readonly variants?: ReadonlyArray<string>
  /** A list price the page states (structured or as struck-through markup). */
  readonly regularPrice?: number | null
}

/** How a field is stated on the page: in structured data, or only in the markup. */
export type Stated = "structured" | "markup"

export interface Page {
  readonly path: string
  readonly html?: string
  readonly json?: unknown
  readonly truth?: Truth
  /** How each field of the truth is stated. */
  readonly stated?: Partial<Record<"name" | "price" | "currency" | "availability" | "variants" | "regularPrice", Stated>>
}

export interface Site {
  readonly host: string
  readonly generator: string
  readonly pages: ReadonlyArray<Page>
}

/** A small seeded PRNG (mulberry32). */
const random = (seed: number) => () => {
  seed |= 0
  seed = (seed + 0x6d2b79f5) | 0
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}

const adjectives = ["Alpine", "Coastal", "Urban", "Nordic", "Classic", "Rustic", "Modern", "Vintage", "Summit", "Harbor", "Meadow", "Canyon", "Linen", "Cedar", "Copper", "Velvet"]
const nouns = ["Jacket", "Backpack", "Mug", "Lamp", "Tote", "Sneaker", "Scarf", "Kettle", "Chair", "Notebook", "Blanket", "Bottle", "Watch", "Wallet", "Candle", "Speaker"]
const colors = ["Red", "Navy", "Olive", "Black", "Sand", "Teal"]
const sizes = ["XS", "S", "M", "L", "XL"]
const currencies: ReadonlyArray<readonly [string, string]> = [["USD", "$"], ["EUR", "€"], ["GBP", "£"], ["CAD", "CA$"], ["AUD", "A$"], ["JPY", "¥"]]
const stock: ReadonlyArray<readonly [string, string, string]> = [
  ["in_stock", "https://schema.org/InStock", "In stock"],
  ["out_of_stock", "https://schema.org/OutOfStock", "Sold out"],
  ["preorder", "https://schema.org/PreOrder", "Pre-order"],
  ["backorder", "https://schema.org/BackOrder", "Backorder"],
  ["limited_availability", "https://schema.org/LimitedAvailability", "Only a few left"]
]
const ogStock: Record<string, string> = { in_stock: "instock", out_of_stock: "oos", preorder: "preorder", backorder: "backorder", limited_availability: "limited availability" }

interface Item {
  readonly name: string
  readonly slug: string
  readonly price: number
  readonly regular: number | null
  readonly currency: readonly [string, string]
  readonly stock: readonly [string, string, string]
  readonly variants: ReadonlyArray<{ readonly color: string; readonly size?: string; readonly sku: string; readonly price: number }>
  readonly sku: string
}

const esc = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/"/g, "&quot;")
const money = (item: Item, value: number) => `${item.currency[1]}${item.currency[0] === "JPY" ? value.toFixed(0) : value.toFixed(2)}`
const ld = (value: unknown) => `<script type="application/ld+json">${JSON.stringify(value)}</script>`

/** One of several page chromes: navigation, breadcrumbs, related products, reviews, footer, in a varying order. */
const chrome = (rnd: () => number, shop: string, main: string, related: ReadonlyArray<Item>) => {
  const nav = `<header><a href="/">${esc(shop)}</a><nav><a href="/collections/all">Shop</a> <a href="/blog">Journal</a> <a href="/pages/about">About</a></nav></header>`
  const crumbs = rnd() < 0.5 ? `<ol class="breadcrumbs"><li><a href="/">Home</a></li><li><a href="/collections/all">All</a></li></ol>` : ""
  const rel = related.length === 0 ? "" : `<section class="related"><h2>You may also like</h2>${related.map((r) =>
    `<div class="card"><a href="/products/${r.slug}">${esc(r.name)}</a><span class="price">${money(r, r.price)}</span></div>`).join("")}</section>`
  const reviews = rnd() < 0.5 ? `<section class="reviews"><h2>Reviews</h2><p>“Great quality, would buy again.” — Sam</p><p>Rated 4.6 out of 5</p></section>` : ""
  const footer = `<footer><p>© 2026 ${esc(shop)}</p><a href="/pages/shipping">Shipping</a> <a href="/pages/returns">Returns</a> <form><input name="email" placeholder="Newsletter"></form></footer>`
  // Some themes put a "complete the look" strip, struck-through prices and all, inside the product's main column.
  const look = related.length > 0 && rnd() < 0.4
    ? `<div class="complete-the-look"><h3>Complete the look</h3>${related.slice(0, 2).map((r) =>
      `<div class="card"><a href="/products/${r.slug}">${esc(r.name)}</a> <s>${money(r, r.price * 1.5)}</s> <span>${money(r, r.price)}</span></div>`).join("")}</div>`
    : ""
  const body = rnd() < 0.5 ? `${crumbs}<main>${main}${look}${reviews}</main>${rel}` : `<div class="layout"><aside>${rel}</aside><main>${crumbs}${main}${look}</main>${reviews}</div>`
  return `${nav}${body}${footer}`
}

const doc = (title: string, head: string, body: string) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${esc(title)}</title>${head}</head><body>${body}</body></html>`

type Generator = (rnd: () => number, host: string, shop: string, item: Item, related: ReadonlyArray<Item>) => Page

const offer = (item: Item, price: number) => ({
  "@type": "Offer",
  price: price.toFixed(2),
  priceCurrency: item.currency[0],
  availability: item.stock[1],
  ...(item.regular === null ? {} : { priceSpecification: [{ "@type": "UnitPriceSpecification", priceType: "https://schema.org/ListPrice", price: item.regular.toFixed(2), priceCurrency: item.currency[0] }] })
})

const variantKey = (v: { readonly color: string; readonly size?: string }) =>
  Object.entries({ color: v.color, ...(v.size === undefined ? {} : { size: v.size }) }).sort(([a], [b]) => a.localeCompare(b)).map(([k, value]) => `${k}=${value}`).join(";")

const truthOf = (item: Item, variants: boolean): Truth => ({
  isProductPage: true,
  name: item.name,
  price: variants && item.variants.length > 0 ? Math.min(...item.variants.map((v) => v.price)) : item.price,
  currency: item.currency[0],
  availability: item.stock[0],
  variants: variants ? item.variants.map(variantKey).sort() : [],
  regularPrice: item.regular
})

const visible = (item: Item, struck: boolean) =>
  `<h1 class="product-title">${esc(item.name)}</h1><div class="price-box"><span class="price">${money(item, item.price)}</span>` +
  (struck && item.regular !== null ? ` <s class="price--compare">${money(item, item.regular)}</s>` : "") +
  `</div><p class="stock">${item.stock[2]}</p><p>Made to last, designed for everyday use.</p><button>Add to cart</button>`

const generators: Record<string, Generator> = {
  jsonLdSingle: (rnd, host, shop, item, related) => ({
    path: `/products/${item.slug}`,
    html: doc(`${item.name} | ${shop}`, ld({ "@context": "https://schema.org", "@type": "Product", name: item.name, sku: item.sku, image: `/img/${item.slug}.jpg`, description: "Made to last.", offers: offer(item, item.price) }),
      chrome(rnd, shop, visible(item, false), related)),
    truth: { ...truthOf(item, false) },
    stated: { name: "structured", price: "structured", currency: "structured", availability: "structured", variants: "structured", regularPrice: "structured" }
  }),
  jsonLdGraphGroup: (rnd, host, shop, item, related) => ({
    path: `/p/${item.slug}`,
    html: doc(`${item.name} – ${shop}`, ld({
      "@context": "https://schema.org",
      "@graph": [
        { "@type": "Organization", "@id": `https://${host}/#org`, name: shop },
        { "@type": "ItemPage", "@id": `https://${host}/p/${item.slug}#page`, mainEntity: { "@id": `https://${host}/p/${item.slug}#product` } },
        {
          "@type": "ProductGroup", "@id": `https://${host}/p/${item.slug}#product`, name: item.name, productGroupID: item.sku, variesBy: ["https://schema.org/color", ...(item.variants[0]?.size === undefined ? [] : ["https://schema.org/size"])],
          hasVariant: item.variants.map((v) => ({ "@type": "Product", sku: v.sku, color: v.color, ...(v.size === undefined ? {} : { size: v.size }), offers: { "@type": "Offer", price: v.price, priceCurrency: item.currency[0], availability: item.stock[1] } }))
        }
      ]
    }), chrome(rnd, shop, visible(item, true), related)),
    truth: { ...truthOf(item, true) },
    stated: { name: "structured", price: "structured", currency: "structured", availability: "structured", variants: "structured", regularPrice: "markup" }
  }),
  microdata: (rnd, host, shop, item, related) => ({
    path: `/item/${item.slug}`,
    html: doc(`${item.name}`, "", chrome(rnd, shop,
      `<div itemscope itemtype="https://schema.org/Product"><h1 itemprop="name">${esc(item.name)}</h1><img itemprop="image" src="/img/${item.slug}.jpg" alt="">` +
        `<span itemprop="sku">${item.sku}</span><div itemprop="offers" itemscope itemtype="https://schema.org/Offer">` +
        `<meta itemprop="priceCurrency" content="${item.currency[0]}"><span itemprop="price" content="${item.price.toFixed(2)}">${money(item, item.price)}</span>` +
        (item.regular === null ? "" : ` <del>${money(item, item.regular)}</del>`) +
        `<link itemprop="availability" href="${item.stock[1]}">${item.stock[2]}</div></div>`, related)),
    truth: { ...truthOf(item, false) },
    stated: { name: "structured", price: "structured", currency: "structured", availability: "structured", variants: "structured", regularPrice: "markup" }
  }),
  rdfa: (rnd, host, shop, item, related) => ({
    path: `/shop/products/${item.slug}`,
    html: doc(item.name, "", chrome(rnd, shop,
      `<div vocab="https://schema.org/" typeof="Product"><h1 property="name">${esc(item.name)}</h1><span property="sku">${item.sku}</span>` +
        `<div property="offers" typeof="Offer"><span property="price" content="${item.price.toFixed(2)}">${money(item, item.price)}</span>` +
        `<meta property="priceCurrency" content="${item.currency[0]}"><link property="availability" href="${item.stock[1]}"></div></div>`, related)),
    truth: { ...truthOf(item, false), regularPrice: null },
    stated: { name: "structured", price: "structured", currency: "structured", availability: "structured", variants: "structured", regularPrice: "structured" }
  }),
  openGraph: (rnd, host, shop, item, related) => ({
    path: `/products/${item.slug}`,
    html: doc(item.name,
      `<meta property="og:type" content="product"><meta property="og:title" content="${esc(item.name)}"><meta property="og:image" content="/img/${item.slug}.jpg">` +
        `<meta property="product:price:amount" content="${item.price.toFixed(2)}"><meta property="product:price:currency" content="${item.currency[0]}">` +
        `<meta property="product:availability" content="${ogStock[item.stock[0]]}">`,
      chrome(rnd, shop, visible(item, true), related)),
    truth: { ...truthOf(item, false) },
    stated: { name: "structured", price: "structured", currency: "structured", availability: "structured", variants: "structured", regularPrice: "markup" }
  }),
  shopifyTheme: (rnd, host, shop, item, related) => ({
    path: `/products/${item.slug}`,
    html: doc(`${item.name} – ${shop}`,
      `<link rel="preconnect" href="https://cdn.shopify.com"><script>Shopify.shop="${host}";Shopify.currency = {"active":"${item.currency[0]}","rate":"1.0"};</script>` +
        ld({ "@context": "http://schema.org/", "@type": "Product", name: item.name, sku: item.sku, offers: [{ "@type": "Offer", price: Math.min(...item.variants.map((v) => v.price)).toFixed(2), priceCurrency: item.currency[0], availability: item.stock[1] }] }),
      `<div class="shopify-section">${chrome(rnd, shop, visible(item, false), related)}</div>`),
    truth: { ...truthOf(item, true), regularPrice: null },
    stated: { name: "structured", price: "structured", currency: "structured", availability: "structured", variants: "structured", regularPrice: "structured" }
  })
}

/** A WooCommerce theme's product page: its JSON-LD (an `@graph` with the breadcrumb, offers as an array with an
 * untyped price specification, `http://` schema.org values) and its sale markup (`<del>` regular, `<ins>` sale). */
const wooCommerce: Generator = (rnd, host, shop, item, related) => ({
  path: `/product/${item.slug}/`,
  html: doc(`${item.name} – ${shop}`,
    `<link rel="stylesheet" href="/wp-content/plugins/woocommerce/assets/css/woocommerce.css">` + ld({
      "@context": "https://schema.org/",
      "@graph": [
        { "@type": "BreadcrumbList", itemListElement: [{ "@type": "ListItem", position: 1, item: { name: "Shop", "@id": `https://${host}/shop/` } }] },
        {
          "@type": "Product", "@id": `https://${host}/product/${item.slug}/#product`, name: item.name, url: `https://${host}/product/${item.slug}/`, sku: item.sku,
          offers: [{ "@type": "Offer", price: item.price.toFixed(2), priceValidUntil: "2027-12-31", priceSpecification: { price: item.price.toFixed(2), priceCurrency: item.currency[0], valueAddedTaxIncluded: "false" }, priceCurrency: item.currency[0], availability: item.stock[1].replace("https:", "http:"), url: `https://${host}/product/${item.slug}/` }]
        }
      ]
    }),
    `<div class="woocommerce">${chrome(rnd, shop,
      `<h1 class="product_title entry-title">${esc(item.name)}</h1><p class="price">` +
        (item.regular === null
          ? `<span class="woocommerce-Price-amount amount"><bdi>${money(item, item.price)}</bdi></span>`
          : `<del aria-hidden="true"><span class="woocommerce-Price-amount amount"><bdi>${money(item, item.regular)}</bdi></span></del> <ins><span class="woocommerce-Price-amount amount"><bdi>${money(item, item.price)}</bdi></span></ins>`) +
        `</p><p class="stock">${item.stock[2]}</p>`, related)}</div>`),
  truth: { ...truthOf(item, false) },
  stated: { name: "structured", price: "structured", currency: "structured", availability: "structured", variants: "structured", regularPrice: "markup" }
})

/** JSON-LD with an `AggregateOffer` (lowest and highest price of several sellers), prices with thousands separators. */
const aggregateOffer: Generator = (rnd, host, shop, item, related) => {
  const high = item.price * 1.3
  return {
    path: `/dp/${item.sku}`,
    html: doc(item.name, ld({
      "@context": "https://schema.org", "@type": "Product", name: item.name, gtin13: `40${String(item.sku.length).padStart(11, "0")}`,
      offers: { "@type": "AggregateOffer", lowPrice: item.price.toLocaleString("en-US", { minimumFractionDigits: 2 }), highPrice: high.toFixed(2), offerCount: 3, priceCurrency: item.currency[0], availability: item.stock[1] }
    }), chrome(rnd, shop, `<h1>${esc(item.name)}</h1><p>From ${money(item, item.price)} at 3 sellers</p>`, related)),
    truth: { ...truthOf(item, false), regularPrice: null },
    stated: { name: "structured", price: "structured", currency: "structured", availability: "structured", variants: "structured", regularPrice: "structured" }
  }
}

generators.wooCommerce = wooCommerce
generators.aggregateOffer = aggregateOffer

/** The `.js` JSON a Shopify store answers for a product page of {@link generators.shopifyTheme}. */
const shopifyJs = (item: Item) => ({
  id: 1, title: item.name, handle: item.slug, description: "<p>Made to last.</p>", type: "Goods", tags: [],
  price: Math.round(Math.min(...item.variants.map((v) => v.price)) * 100), available: item.stock[0] !== "out_of_stock",
  options: [{ name: "color", position: 1 }, ...(item.variants[0]?.size === undefined ? [] : [{ name: "size", position: 2 }])],
  variants: item.variants.map((v, i) => ({ id: 100 + i, title: `${v.color}${v.size === undefined ? "" : ` / ${v.size}`}`, option1: v.color, option2: v.size ?? null, sku: v.sku, price: Math.round(v.price * 100), compare_at_price: null, available: item.stock[0] !== "out_of_stock" })),
  images: []
})

const blog = (rnd: () => number, shop: string, item: Item): Page => ({
  path: "/blog/care-guide",
  html: doc(`How to care for your ${item.name} | ${shop}`,
    `<meta property="og:type" content="article">` + ld({ "@context": "https://schema.org", "@type": "BlogPosting", headline: `Caring for your ${item.name}`, author: { "@type": "Person", name: "Ana" } }),
    chrome(rnd, shop, `<article><h1>Caring for your ${esc(item.name)}</h1><p>It costs ${money(item, item.price)} and lasts for years.</p></article>`, [])),
  truth: { isProductPage: false }
})

const category = (rnd: () => number, host: string, shop: string, items: ReadonlyArray<Item>): Page => ({
  path: "/collections/all",
  html: doc(`All products | ${shop}`,
    ld({ "@context": "https://schema.org", "@type": "CollectionPage", name: "All", mainEntity: { "@type": "ItemList", itemListElement: items.map((it, i) => ({ "@type": "ListItem", position: i + 1, url: `https://${host}/products/${it.slug}` })) } }),
    chrome(rnd, shop, `<h1>All products</h1>${items.map((it) => `<div class="card"><a href="/products/${it.slug}">${esc(it.name)}</a> <span>${money(it, it.price)}</span></div>`).join("")}`, [])),
  truth: { isProductPage: false }
})

const itemOf = (rnd: () => number, index: number, withVariants: boolean): Item => {
  const name = `${adjectives[Math.floor(rnd() * adjectives.length)]} ${nouns[Math.floor(rnd() * nouns.length)]} ${index + 1}`
  const currency = currencies[Math.floor(rnd() * currencies.length)]!
  const whole = currency[0] === "JPY"
  const price = whole ? Math.round(1000 + rnd() * 20000) : Math.round((5 + rnd() * 300) * 100) / 100
  const regular = rnd() < 0.4 ? (whole ? Math.round(price * 1.25) : Math.round(price * 125) / 100) : null
  const sized = rnd() < 0.5
  const variantCount = withVariants ? 2 + Math.floor(rnd() * 3) : 0
  const used = new Set<string>()
  const variants: Array<Item["variants"][number]> = []
  for (let i = 0; variants.length < variantCount && i < 50; i++) {
    const color = colors[Math.floor(rnd() * colors.length)]!
    const size = sized ? sizes[Math.floor(rnd() * sizes.length)]! : undefined
    const key = `${color}/${size}`
    if (used.has(key)) continue
    used.add(key)
    variants.push({ color, ...(size === undefined ? {} : { size }), sku: `SKU-${index}-${variants.length}`, price: i === 0 ? price : (whole ? price + 500 : Math.round((price + 5) * 100) / 100) })
  }
  const slug = name.toLowerCase().replace(/[^a-z0-9]+/g, "-")
  return { name, slug, price, regular, currency, stock: stock[Math.floor(rnd() * stock.length)]!, variants, sku: `SKU-${index}` }
}

/** `count` sites (at least 40), generators in turn, `productsPerSite` product pages each plus a blog post and a category page. */
export const sites = (count: number, productsPerSite: number, seed = 7): Array<Site> => {
  const rnd = random(seed)
  const names = Object.keys(generators)
  const out: Array<Site> = []
  for (let s = 0; s < count; s++) {
    const generator = names[s % names.length]!
    const host = `shop${s}-${generator.toLowerCase()}.test`
    const shop = `${adjectives[s % adjectives.length]} ${["Goods", "Supply", "Outfitters", "Studio", "Co"][s % 5]}`
    const withVariants = generator === "jsonLdGraphGroup" || generator === "shopifyTheme"
    const items = Array.from({ length: productsPerSite }, (_, i) => itemOf(rnd, s * 100 + i, withVariants))
    const pages: Array<Page> = []
    for (const item of items) {
      const page = generators[generator]!(rnd, host, shop, item, items.filter((other) => other !== item).slice(0, 3))
      pages.push(page)
      if (generator === "shopifyTheme") pages.push({ path: `${page.path}.js`, json: shopifyJs(item) })
    }
    pages.push(blog(rnd, shop, items[0]!), category(rnd, host, shop, items))
    out.push({ host, generator, pages })
  }
  return out
}
