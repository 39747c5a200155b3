/**
 * Renders an evaluation company as a realistic small website: a homepage and, when it has one, an about page. The
 * homepage follows the company's `layout`, so the classifier meets the shapes real sites have: a hero with sections,
 * a shop grid with prices and a cart, a priced menu, prose without headings, a homepage that only hints, a group's
 * corporate page, or a software product's features and plans.
 */
import type { Company } from "./companies.js"

const esc = (s: string): string => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;")
const slug = (s: string): string => s.toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-|-$/g, "")

const navOf = (company: Company): string =>
  `<nav><ul>${company.nav.map((n) => `<li><a href="/${slug(n)}">${esc(n)}</a></li>`).join("")}${
    company.about === undefined ? "" : `<li><a href="/about">About Us</a></li>`
  }</ul></nav>`

const headerOf = (company: Company): string => {
  switch (company.layout) {
    case "shop":
      return `<header><div class="topbar">Free shipping on orders over $75 · Easy returns</div><a href="/" class="logo">${esc(company.name)}</a>
<form class="search"><input type="search" placeholder="Search products"></form>${navOf(company)}
<a href="/account">Account</a> <a href="/cart" class="cart">Cart (0)</a></header>`
    case "saas":
      return `<header><a href="/" class="logo">${esc(company.name)}</a>${navOf(company)}<a href="/login">Log in</a> <a class="button" href="/signup">Start free trial</a></header>`
    case "corporate":
      return `<header><div class="ticker">Share price and filings: see Investors</div><a href="/" class="logo">${esc(company.name)}</a>${navOf(company)}</header>`
    default:
      return `<header><a href="/" class="logo">${esc(company.name)}</a>\n${navOf(company)}</header>`
  }
}

const chrome = (company: Company, body: string, title: string, description: string, jsonLd: string): string => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${esc(title)}</title>
<meta name="description" content="${esc(description)}">
<meta property="og:site_name" content="${esc(company.name)}">
${jsonLd}
</head><body>
<div class="cookie-banner">We use cookies to improve your experience. <a href="/privacy">Learn more</a> <button>Accept</button></div>
${headerOf(company)}
<main>${body}</main>
<footer><p>Sign up for our newsletter for news and offers.</p><p><a href="/contact">Contact</a> · <a href="/careers">Careers</a> · <a href="/privacy">Privacy Policy</a> · <a href="/terms">Terms</a></p>
<p>© 2025 ${esc(company.name)}. All rights reserved.</p></footer></body></html>`

const offersOf = (company: Company, heading: string): string =>
  company.offers === undefined || company.offers.length === 0 ? "" : company.layout === "menu"
    ? `<section class="menu"><h2>${esc(heading)}</h2><dl>${company.offers.map(([item, price]) => `<dt>${esc(item)}</dt><dd>${esc(price)}</dd>`).join("")}</dl></section>`
    : company.layout === "saas"
    ? `<section class="pricing"><h2>${esc(heading)}</h2><div class="plans">${
      company.offers.map(([item, price]) => `<div class="plan"><h3>${esc(item)}</h3><p class="price">${esc(price)}</p><a class="button" href="/signup">Choose ${esc(item)}</a></div>`).join("")
    }</div></section>`
    : company.layout !== "shop"
    ? `<section class="prices"><h2>${esc(heading)}</h2><ul>${company.offers.map(([item, price]) => `<li>${esc(item)} — ${esc(price)}</li>`).join("")}</ul></section>`
    : `<section class="products"><h2>${esc(heading)}</h2><ul class="grid">${
      company.offers.map(([item, price]) => `<li class="product"><a href="/products/${slug(item)}"><h3>${esc(item)}</h3></a><span class="price">${esc(price)}</span><button>Add to cart</button></li>`).join("")
    }</ul></section>`

const homeBody = (company: Company): string => {
  const sections = company.sections.map(([h, t]) => `<section><h2>${esc(h)}</h2><p>${esc(t)}</p></section>`).join("\n")
  switch (company.layout) {
    case "shop":
      return `<section class="hero"><h1>${esc(company.h1)}</h1><p>${esc(company.description)}</p><a class="button" href="/shop">Shop now</a></section>
${offersOf(company, "Best sellers")}
${company.sections.map(([h, t]) => `<div class="promo"><h3>${esc(h)}</h3><p>${esc(t)}</p></div>`).join("\n")}`
    case "menu":
      return `<section class="hero"><h1>${esc(company.h1)}</h1><p>${esc(company.description)}</p><a class="button" href="/reserve">Reserve a table</a></section>
${sections}
${offersOf(company, "From our menu")}`
    case "story":
      // Prose from one voice: no section headings, the sections' texts run as paragraphs.
      return `<article><h1>${esc(company.h1)}</h1><p>${esc(company.description)}</p>${
        company.sections.map(([h, t]) => `<p>${esc(h)}. ${esc(t)}</p>`).join("")
      }${offersOf(company, "Prices")}</article>`
    case "minimal":
      return `<section class="hero"><h1>${esc(company.h1)}</h1><p>${esc(company.description)}</p></section>
${company.sections.map(([h, t]) => `<div class="card"><strong>${esc(h)}</strong><p>${esc(t)}</p></div>`).join("\n")}`
    case "corporate":
      return `<section class="hero"><h1>${esc(company.h1)}</h1><p>${esc(company.description)}</p></section>
${company.sections.map(([h, t]) => `<section class="tile"><h2>${esc(h)}</h2><p>${esc(t)}</p><a href="/${slug(h)}">Learn more</a></section>`).join("\n")}
<section class="news"><h2>Latest news</h2><ul><li><a href="/news/1">Annual report published</a></li><li><a href="/news/2">Leadership appointment announced</a></li></ul></section>`
    case "saas":
      return `<section class="hero"><h1>${esc(company.h1)}</h1><p>${esc(company.description)}</p><a class="button" href="/signup">Start free trial</a> <a href="/demo">Book a demo</a></section>
<section class="features">${company.sections.map(([h, t]) => `<div class="feature"><h3>${esc(h)}</h3><p>${esc(t)}</p></div>`).join("")}</section>
${offersOf(company, "Pricing")}
<section class="logos"><p>Trusted by 2,000+ teams</p></section>`
    default:
      return `<section class="hero"><h1>${esc(company.h1)}</h1><p>${esc(company.description)}</p><a class="button" href="/contact">Get in touch</a></section>
${sections}
${offersOf(company, "Prices")}
<section class="cta"><h2>Let's talk</h2><p>Questions? Our team is happy to help. Call us or send a message.</p></section>`
  }
}

/** The homepage HTML. */
export const homepage = (company: Company): string => {
  const jsonLd = `<script type="application/ld+json">${JSON.stringify({
    "@context": "https://schema.org",
    "@type": company.jsonLd ?? "Organization",
    name: company.name,
    url: `https://${company.domain}/`
  })}</script>`
  return chrome(company, homeBody(company), company.title, company.description, jsonLd)
}

/** The about page HTML, when the company has one. */
export const aboutPage = (company: Company): string | undefined =>
  company.about === undefined ? undefined : chrome(
    company,
    `<article><h1>About ${esc(company.name)}</h1>${company.about.split(/(?<=\.)\s+(?=[A-Z])/).map((p) => `<p>${esc(p)}</p>`).join("")}</article>`,
    `About Us | ${company.name}`,
    `Learn about ${company.name}.`,
    ""
  )

/** Every page of the site by path. */
export const pages = (company: Company): ReadonlyMap<string, string> => {
  const out = new Map([["/", homepage(company)]])
  const about = aboutPage(company)
  if (about !== undefined) out.set("/about", about)
  return out
}
