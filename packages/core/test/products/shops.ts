/**
 * Fixture shop pages with known truth, shared by the core and API product tests: JSON-LD with a ProductGroup and
 * variants, microdata only, RDFa only, OpenGraph only, a blog post, a category page, a bot wall, a Shopify store
 * (`products.json`, `/products/<handle>.js`) and a WooCommerce store (Store API).
 */
import { type Hosts, urlset, xml } from "../discovery/support/sites.js"
import * as FixtureSite from "../support/FixtureSite.js"

const json = (value: unknown): FixtureSite.Handler => FixtureSite.html(JSON.stringify(value), { contentType: "application/json" })

const doc = (head: string, body: string) => `<!doctype html><html lang="en"><head><meta charset="utf-8">${head}</head><body>${body}</body></html>`

const ld = (value: unknown) => `<script type="application/ld+json">${JSON.stringify(value)}</script>`

/** A product page whose JSON-LD is a `@graph` with a ProductGroup of two variants, a list price and sizes. */
export const jsonLdGroup = (host: string) => doc(
  `<title>Trail Jacket | Northwind Outfitters</title><link rel="canonical" href="http://${host}/p/trail-jacket">` +
    ld({
      "@context": "https://schema.org",
      "@graph": [
        { "@type": "WebSite", "@id": `http://${host}/#site`, name: "Northwind Outfitters" },
        { "@type": "BreadcrumbList", itemListElement: [{ "@type": "ListItem", position: 1, name: "Jackets", item: `http://${host}/c/jackets` }] },
        {
          "@type": "ProductGroup",
          "@id": `http://${host}/p/trail-jacket#group`,
          name: "Trail Jacket",
          description: "A light, waterproof shell for long days on the trail.",
          productGroupID: "TJ-100",
          url: `http://${host}/p/trail-jacket`,
          category: "Apparel > Jackets",
          image: ["/img/trail-main.jpg", "/img/trail-side.jpg"],
          variesBy: ["https://schema.org/color", "https://schema.org/size"],
          weight: { "@type": "QuantitativeValue", value: "0.8", unitCode: "KGM" },
          additionalProperty: [{ "@type": "PropertyValue", name: "Packed dimensions", value: "20 x 15 x 8", unitText: "cm" }],
          hasVariant: [
            {
              "@type": "Product",
              sku: "TJ-100-RED-M",
              name: "Trail Jacket Red M",
              color: "Red",
              size: "M",
              image: "/img/trail-red.jpg",
              offers: {
                "@type": "Offer",
                url: `http://${host}/p/trail-jacket?variant=red-m`,
                price: "129.00",
                priceCurrency: "EUR",
                availability: "https://schema.org/InStock",
                priceSpecification: [
                  { "@type": "UnitPriceSpecification", price: "129.00", priceCurrency: "EUR" },
                  { "@type": "UnitPriceSpecification", priceType: "https://schema.org/ListPrice", price: "159.00", priceCurrency: "EUR" }
                ]
              }
            },
            {
              "@type": "Product",
              sku: "TJ-100-BLU-L",
              name: "Trail Jacket Blue L",
              color: "Blue",
              size: "L",
              image: "/img/trail-blue.jpg",
              offers: { "@type": "Offer", url: `http://${host}/p/trail-jacket?variant=blu-l`, price: 139, priceCurrency: "EUR", availability: "https://schema.org/OutOfStock" }
            }
          ]
        }
      ]
    }),
  `<main><h1>Trail Jacket</h1><p>From €129</p>` +
    `<section><h2>You may also like</h2><a href="/p/rain-pants">Rain pants</a> <a href="/p/fleece">Fleece</a></section></main>`
)

/** Truth for {@link jsonLdGroup}. */
export const jsonLdGroupTruth = (host: string) => ({
  name: "Trail Jacket",
  description: "A light, waterproof shell for long days on the trail.",
  features: [],
  images: [`http://${host}/img/trail-main.jpg`, `http://${host}/img/trail-side.jpg`, `http://${host}/img/trail-red.jpg`, `http://${host}/img/trail-blue.jpg`],
  sku: "TJ-100",
  tags: [],
  target_audience: [],
  availability: "in_stock",
  billing_frequency: "one_time",
  category: "Apparel > Jackets",
  currency: "EUR",
  dimensions: ["Weight: 0.8 kg", "Packed dimensions: 20 x 15 x 8 cm"],
  image_url: `http://${host}/img/trail-main.jpg`,
  price: 129,
  pricing_model: null,
  regular_price: 159,
  url: `http://${host}/p/trail-jacket`,
  variants: [
    { attributes: { color: "Red", size: "M" }, images: [`http://${host}/img/trail-red.jpg`], sku: "TJ-100-RED-M", url: `http://${host}/p/trail-jacket?variant=red-m` },
    { attributes: { color: "Blue", size: "L" }, images: [`http://${host}/img/trail-blue.jpg`], sku: "TJ-100-BLU-L", url: `http://${host}/p/trail-jacket?variant=blu-l` }
  ]
})

/** Microdata only; the list price only as struck-through markup. */
export const microdataOnly = doc(
  `<title>Ceramic Mug — Kiln & Co</title><meta name="description" content="Stoneware mug">`,
  `<nav><a href="/">Home</a></nav><div itemscope itemtype="https://schema.org/Product">` +
    `<h1 itemprop="name">Ceramic Mug</h1><img itemprop="image" src="/img/mug.jpg" alt="">` +
    `<p itemprop="description">Hand-thrown stoneware mug, 350 ml.</p><span>SKU: <span itemprop="sku">MUG-01</span></span>` +
    `<div itemprop="offers" itemscope itemtype="https://schema.org/Offer"><meta itemprop="priceCurrency" content="USD">` +
    `<span itemprop="price" content="18.50">$18.50</span> <del>$24.00</del>` +
    `<link itemprop="availability" href="https://schema.org/LimitedAvailability">Only 3 left</div></div>`
)

/** RDFa only. */
export const rdfaOnly = doc(
  `<title>Desk Lamp</title>`,
  `<div vocab="https://schema.org/" typeof="Product"><h1 property="name">Desk Lamp</h1>` +
    `<img property="image" src="/img/lamp.jpg" alt=""><p property="description">A brass desk lamp.</p><span property="sku">LAMP-9</span>` +
    `<div property="offers" typeof="Offer"><span property="price" content="45.00">CA$45</span><meta property="priceCurrency" content="CAD">` +
    `<link property="availability" href="https://schema.org/PreOrder">Ships in May</div></div>`
)

/** OpenGraph product tags only. */
export const openGraphOnly = doc(
  `<title>Linen Tote</title><meta property="og:type" content="product"><meta property="og:title" content="Linen Tote">` +
    `<meta property="og:description" content="A roomy tote in washed linen."><meta property="og:image" content="/img/tote.jpg">` +
    `<meta property="product:price:amount" content="32.00"><meta property="product:price:currency" content="GBP">` +
    `<meta property="product:availability" content="instock"><meta property="product:retailer_item_id" content="TOTE-7">`,
  `<h1>Linen Tote</h1><p>£32</p>`
)

/** A blog post that mentions prices. */
export const blogPost = (host: string) => doc(
  `<title>Ten trail tips | Northwind journal</title><meta property="og:type" content="article">` +
    ld({ "@context": "https://schema.org", "@type": "BlogPosting", headline: "Ten trail tips", author: { "@type": "Person", name: "Ana" }, mainEntityOfPage: `http://${host}/blog/trail-tips` }),
  `<article><h1>Ten trail tips</h1><p>Our Trail Jacket costs €129 and keeps you dry.</p><a href="/p/trail-jacket">Trail Jacket</a></article>`
)

/** A category page: an ItemList of three products and a product grid. */
export const categoryPage = (host: string) => doc(
  `<title>Jackets | Northwind Outfitters</title>` +
    ld({
      "@context": "https://schema.org",
      "@type": "CollectionPage",
      name: "Jackets",
      mainEntity: {
        "@type": "ItemList",
        itemListElement: ["trail-jacket", "rain-shell", "down-parka"].map((slug, i) => ({ "@type": "ListItem", position: i + 1, url: `http://${host}/p/${slug}` }))
      }
    }),
  `<h1>Jackets</h1>` + ["Trail Jacket", "Rain Shell", "Down Parka"].map((name, i) =>
    `<div itemscope itemtype="https://schema.org/Product"><a href="/p/${["trail-jacket", "rain-shell", "down-parka"][i]}" itemprop="url"><span itemprop="name">${name}</span></a>` +
    `<div itemprop="offers" itemscope itemtype="https://schema.org/Offer"><span itemprop="price">${99 + i * 50}</span><meta itemprop="priceCurrency" content="EUR"></div></div>`).join("")
)

/** A Cloudflare challenge page. */
export const botWall = `<!doctype html><html><head><title>Just a moment...</title></head><body><div id="challenge-form">Checking your browser</div><script src="/cdn-cgi/challenge-platform/h/b/orchestrate/jsch/v1"></script></body></html>`

/** A Shopify store's `products.json`. */
export const shopifyProducts = {
  products: [
    {
      id: 101, title: "Alpine Beanie", handle: "alpine-beanie", body_html: "<p>Merino <strong>beanie</strong>.</p>", vendor: "Peak", product_type: "Hats", tags: ["wool", "winter"],
      options: [{ name: "Color", position: 1, values: ["Red", "Navy"] }],
      variants: [
        { id: 1001, title: "Red", option1: "Red", option2: null, option3: null, sku: "BEAN-RED", price: "24.00", compare_at_price: "30.00", available: true, featured_image: null },
        { id: 1002, title: "Navy", option1: "Navy", option2: null, option3: null, sku: "BEAN-NAVY", price: "24.00", compare_at_price: "30.00", available: false, featured_image: { src: "//cdn.shopify.com/s/files/beanie-navy.jpg" } }
      ],
      images: [{ src: "https://cdn.shopify.com/s/files/beanie.jpg" }]
    },
    {
      id: 102, title: "Wool Socks", handle: "wool-socks", body_html: "Warm socks.", vendor: "Peak", product_type: "Socks", tags: [],
      options: [{ name: "Title", position: 1, values: ["Default Title"] }],
      variants: [{ id: 2001, title: "Default Title", option1: "Default Title", sku: "SOCK-1", price: "12.50", compare_at_price: null, available: false }],
      images: []
    },
    {
      id: 103, title: "Trail Gloves", handle: "trail-gloves", body_html: "", vendor: "Peak", product_type: "Gloves", tags: [],
      options: [{ name: "Size", position: 1, values: ["S", "M"] }],
      variants: [{ id: 3001, title: "S", option1: "S", sku: "GLV-S", price: "35.00", compare_at_price: null, available: true }],
      images: []
    }
  ]
}

/** The Shopify store's home page. */
export const shopifyHome = doc(
  `<title>Peak Goods</title><link rel="preconnect" href="https://cdn.shopify.com"><script>Shopify.shop = "peak.myshopify.com"; Shopify.currency = {"active":"USD","rate":"1.0"};</script>`,
  `<h1>Peak Goods</h1><a href="/collections/all">Shop all</a>`
)

/** A WooCommerce store's Store API answer. */
export const wooProducts = [
  {
    id: 7, name: "Olive Oil 500ml", slug: "olive-oil", permalink: "/product/olive-oil/", sku: "OIL-500",
    short_description: "<p>Cold-pressed.</p>", description: "",
    prices: { price: "1450", regular_price: "1800", sale_price: "1450", currency_code: "EUR", currency_minor_unit: 2 },
    is_in_stock: true, images: [{ src: "/wp-content/uploads/oil.jpg" }], categories: [{ name: "Pantry" }], tags: [{ name: "organic" }], variations: []
  },
  {
    id: 8, name: "Gift Box", slug: "gift-box", permalink: "/product/gift-box/", sku: "",
    prices: { price: "3900", regular_price: "3900", sale_price: "3900", currency_code: "EUR", currency_minor_unit: 2 },
    is_in_stock: false, images: [], categories: [], tags: [], variations: [{ id: 81, attributes: [{ name: "Size", value: "Large" }] }]
  }
]

/** The hosts of a test run: `shop` (the pages), `shopify` and `woo` stores. */
export const hosts = (names: { readonly shop: string; readonly shopify: string; readonly woo: string }): Hosts => ({
  [names.shop]: {
    "/": FixtureSite.html(doc(`<title>Northwind Outfitters</title>`, `<a href="/c/jackets">Jackets</a> <a href="/blog/trail-tips">Journal</a>`)),
    "/p/trail-jacket": FixtureSite.html(jsonLdGroup(names.shop)),
    "/p/mug": FixtureSite.html(microdataOnly),
    "/p/lamp": FixtureSite.html(rdfaOnly),
    "/p/tote": FixtureSite.html(openGraphOnly),
    "/blog/trail-tips": FixtureSite.html(blogPost(names.shop)),
    "/c/jackets": FixtureSite.html(categoryPage(names.shop)),
    "/p/rain-shell": FixtureSite.html(doc(`<title>Rain Shell</title>` + ld({ "@context": "https://schema.org", "@type": "Product", name: "Rain Shell", sku: "RS-1", offers: { "@type": "Offer", price: "149.00", priceCurrency: "EUR", availability: "https://schema.org/InStock" } }), "<h1>Rain Shell</h1>")),
    "/p/down-parka": FixtureSite.html(doc(`<title>Down Parka</title>` + ld({ "@context": "https://schema.org", "@type": "Product", name: "Down Parka", sku: "DP-1", offers: { "@type": "Offer", price: "199.00", priceCurrency: "EUR", availability: "https://schema.org/BackOrder" } }), "<h1>Down Parka</h1>")),
    "/sitemap.xml": xml(urlset([`http://${names.shop}/`, `http://${names.shop}/p/mug`, `http://${names.shop}/p/lamp`])),
    "/wall": FixtureSite.html(botWall)
  },
  [names.shopify]: {
    "/": FixtureSite.html(shopifyHome),
    "/products.json": json(shopifyProducts)
  },
  [names.woo]: {
    "/": FixtureSite.html(doc(`<title>Casa Oliva</title><link rel="stylesheet" href="/wp-content/plugins/woocommerce/assets/css/woocommerce.css">`, `<div class="woocommerce"><h1>Casa Oliva</h1></div>`)),
    "/wp-json/wc/store/v1/products": json(wooProducts),
    // A product page whose theme states no structured data: the Store API answers for its slug.
    "/product/olive-oil/": FixtureSite.html(doc(`<title>Olive Oil 500ml – Casa Oliva</title>`, `<div class="woocommerce product"><h1>Olive Oil 500ml</h1><p class="price">€14.50</p></div>`))
  }
})
