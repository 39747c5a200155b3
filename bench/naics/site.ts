/** Renders an evaluation company as a realistic small website: a homepage and, when it has one, an about page. */
import type { Company } from "./companies.js"

const esc = (s: string): string => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;")
const slug = (s: string): string => s.toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-|-$/g, "")

const chrome = (company: Company, body: string, title: string, description: string, jsonLd: string): string => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${esc(title)}</title>
<meta name="description" content="${esc(description)}">
<meta property="og:site_name" content="${esc(company.name)}">
${jsonLd}
</head><body>
<div class="cookie-banner">We use cookies to improve your experience. <a href="/privacy">Learn more</a> <button>Accept</button></div>
<header><a href="/" class="logo">${esc(company.name)}</a>
<nav><ul>${company.nav.map((n) => `<li><a href="/${slug(n)}">${esc(n)}</a></li>`).join("")}${company.about === undefined ? "" : `<li><a href="/about">About Us</a></li>`}</ul></nav></header>
<main>${body}</main>
<footer><p>Sign up for our newsletter for news and offers.</p><p><a href="/contact">Contact</a> · <a href="/careers">Careers</a> · <a href="/privacy">Privacy Policy</a> · <a href="/terms">Terms</a></p>
<p>© 2025 ${esc(company.name)}. All rights reserved.</p></footer></body></html>`

/** The homepage HTML. */
export const homepage = (company: Company): string => {
  const jsonLd = `<script type="application/ld+json">${JSON.stringify({
    "@context": "https://schema.org",
    "@type": company.jsonLd ?? "Organization",
    name: company.name,
    url: `https://${company.domain}/`
  })}</script>`
  const sections = company.sections.map(([h, t]) => `<section><h2>${esc(h)}</h2><p>${esc(t)}</p></section>`).join("\n")
  const body = `<section class="hero"><h1>${esc(company.h1)}</h1><p>${esc(company.description)}</p><a class="button" href="/contact">Get in touch</a></section>
${sections}
<section class="cta"><h2>Let's talk</h2><p>Questions? Our team is happy to help. Call us or send a message.</p></section>`
  return chrome(company, body, company.title, company.description, jsonLd)
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
