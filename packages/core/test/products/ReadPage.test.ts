import { describe, expect, it } from "vitest"
import { readPage } from "../../src/internal/products/page.js"
import * as Shops from "./shops.js"

const host = "shop.test"

describe("readPage", () => {
  it("JSON-LD @graph ProductGroup: variants with attributes, list price, sizes, images", () => {
    const reading = readPage(Shops.jsonLdGroup(host), `http://${host}/p/trail-jacket`)
    expect(reading.isProductPage).toBe(true)
    expect(reading.product).toEqual(Shops.jsonLdGroupTruth(host))
    // The related products are links to follow, not the page's product.
    expect(reading.productLinks).toEqual([`http://${host}/p/rain-pants`, `http://${host}/p/fleece`])
  })

  it("microdata only: the offer's price and stock, the struck-through price as the regular one", () => {
    const reading = readPage(Shops.microdataOnly, `http://${host}/p/mug`)
    expect(reading.product).toMatchObject({
      name: "Ceramic Mug", description: "Hand-thrown stoneware mug, 350 ml.", sku: "MUG-01", price: 18.5, regular_price: 24, currency: "USD",
      availability: "limited_availability", images: [`http://${host}/img/mug.jpg`], image_url: `http://${host}/img/mug.jpg`, url: `http://${host}/p/mug`, variants: []
    })
  })

  it("a struck-through price of another product (a related strip in the main column) is not this product's regular price", () => {
    const html = `<html><body><main><div itemscope itemtype="https://schema.org/Product"><h1 itemprop="name">Desk Lamp</h1>
      <div itemprop="offers" itemscope itemtype="https://schema.org/Offer"><span itemprop="price" content="40">$40</span><meta itemprop="priceCurrency" content="USD"></div></div>
      <section><h3>Customers also bought</h3><a href="/p/shade">Shade</a> <s>$60.00</s> $45.00</section>
      <div class="upsell"><a href="/p/bulb">Bulb</a> <del>$50</del></div></main></body></html>`
    expect(readPage(html, `http://${host}/p/lamp`).product).toMatchObject({ name: "Desk Lamp", price: 40, regular_price: null })
    // JSON-LD pages look at the main column for it, with the same exclusions.
    const ldPage = `<html><head><script type="application/ld+json">{"@type":"Product","name":"Mug","sku":"M1","offers":{"price":"10","priceCurrency":"USD"}}</script></head>
      <body><main><h1>Mug</h1><p>$10 <s class="was">$14</s></p><div class="complete-the-look"><s>$99</s></div></main></body></html>`
    expect(readPage(ldPage, `http://${host}/p/mug`).product).toMatchObject({ price: 10, regular_price: 14 })
  })

  it("RDFa only", () => {
    const reading = readPage(Shops.rdfaOnly, `http://${host}/p/lamp`)
    expect(reading.product).toMatchObject({ name: "Desk Lamp", sku: "LAMP-9", price: 45, currency: "CAD", availability: "preorder", images: [`http://${host}/img/lamp.jpg`] })
  })

  it("OpenGraph only", () => {
    const reading = readPage(Shops.openGraphOnly, `http://${host}/p/tote`)
    expect(reading.product).toMatchObject({
      name: "Linen Tote", description: "A roomy tote in washed linen.", sku: "TOTE-7", price: 32, regular_price: null, currency: "GBP",
      availability: "in_stock", images: [`http://${host}/img/tote.jpg`], billing_frequency: "one_time"
    })
  })

  it("a blog post and a category page are not product pages; the category's items are links to follow", () => {
    expect(readPage(Shops.blogPost(host), `http://${host}/blog/trail-tips`)).toMatchObject({ isProductPage: false, product: null })
    const category = readPage(Shops.categoryPage(host), `http://${host}/c/jackets`)
    expect(category).toMatchObject({ isProductPage: false, product: null })
    expect(category.productLinks).toEqual(["trail-jacket", "rain-shell", "down-parka"].map((s) => `http://${host}/p/${s}`))
  })

  it("keeps at most 7 images, in the page's order, each once", () => {
    const images = Array.from({ length: 10 }, (_, i) => `/img/kite-${i}.jpg`)
    const product = { "@context": "https://schema.org", "@type": "Product", name: "Stunt Kite", sku: "KITE-1", image: [images[0], ...images],
      offers: { "@type": "Offer", price: "79.00", priceCurrency: "EUR", availability: "https://schema.org/InStock" } }
    const html = `<html><head><script type="application/ld+json">${JSON.stringify(product)}</script></head><body><h1>Stunt Kite</h1></body></html>`
    const reading = readPage(html, `http://${host}/p/kite`)
    expect(reading.product?.images).toEqual(images.slice(0, 7).map((path) => `http://${host}${path}`))
    expect(reading.product?.image_url).toBe(`http://${host}/img/kite-0.jpg`)
  })

  it("a SaaS pricing page is read by the deterministic table reader", () => {
    const html = `<html><head><title>Pricing | Loomly</title><meta property="og:site_name" content="Loomly"></head><body><main><h1>Pricing</h1>
      <div><h2>Free</h2><p>$0 forever</p><ul><li>1 project</li><li>Community support</li></ul></div>
      <div><h2>Team</h2><p>$12 per user / month, billed monthly</p><ul><li>Unlimited projects</li><li>SSO</li></ul></div>
      <div><h2>Enterprise</h2><p>Contact sales</p></div></main></body></html>`
    const reading = readPage(html, "http://saas.test/pricing")
    expect(reading.product).toMatchObject({ name: "Loomly", pricing_model: "per_seat", billing_frequency: "monthly", price: 12, currency: "USD", features: ["1 project", "Community support"] })
  })
})
