/**
 * A fixture brand site with known truth (issue 19's quality bar): a JSON-LD Organization (logo, sameAs, address,
 * contactPoint, ticker, employees), a web manifest with theme colors and an icon, an SVG and a PNG logo of one shape,
 * a dark-mode logo in a `<picture>`, an apple-touch icon, an og:image, links to the named pages and to networks, and a
 * style sheet with an accent color. Images are real PNG/JPEG bytes drawn with sharp.
 */
import sharp from "sharp"
import * as FixtureSite from "../../support/FixtureSite.js"

/** The site's colors. */
export const ORANGE = "#e4572e"
export const NAVY = "#1d3557"
export const LINK_BLUE = "#1d4ed8"

/** The logo: a navy block and an orange block on a transparent 400x100 canvas (gaps keep the colors unblended). */
export const logoSvg = (fill = NAVY) =>
  `<svg xmlns="http://www.w3.org/2000/svg" width="400" height="100" viewBox="0 0 400 100">` +
  `<rect x="0" y="0" width="240" height="100" fill="${fill}"/><rect x="280" y="0" width="120" height="100" fill="${ORANGE}"/></svg>`

const png = (svg: string) => sharp(Buffer.from(svg)).png().toBuffer()

/** Routes of the site at `host`, with every image drawn. */
export const routes = async (host: string, name = "Acme Rockets"): Promise<FixtureSite.Routes> => {
  const logoPng = await png(logoSvg())
  // The dark-mode variant: light marks on transparent.
  const logoDarkPng = await png(logoSvg("#f1faee"))
  const touchIcon = await sharp({ create: { width: 180, height: 180, channels: 3, background: ORANGE } }).png().toBuffer()
  const manifestIcon = await sharp({ create: { width: 192, height: 192, channels: 4, background: { r: 29, g: 53, b: 87, alpha: 1 } } }).png().toBuffer()
  const ogImage = await sharp({ create: { width: 1200, height: 630, channels: 3, background: NAVY } }).jpeg({ quality: 95 }).toBuffer()
  const image = (bytes: Uint8Array, contentType: string) => FixtureSite.html(bytes, { contentType })
  const organization = {
    "@context": "https://schema.org",
    "@graph": [
      { "@type": "WebSite", name, url: `http://${host}/` },
      {
        "@type": "Corporation",
        name,
        url: `http://${host}/`,
        logo: { "@type": "ImageObject", url: `http://${host}/img/logo.png` },
        description: `${name} builds small reusable rockets for hobbyists and schools.`,
        sameAs: ["https://twitter.com/acmerockets", "https://www.linkedin.com/company/acme-rockets", "https://github.com/acme-rockets"],
        address: { "@type": "PostalAddress", streetAddress: "1 Launch Way", addressLocality: "Springfield", addressRegion: "OR", postalCode: "97477", addressCountry: "US" },
        contactPoint: [{ "@type": "ContactPoint", contactType: "customer service", telephone: "+1-555-0100", email: "hello@acme.test" }],
        tickerSymbol: "NASDAQ: ACME",
        numberOfEmployees: { "@type": "QuantitativeValue", value: 120 },
        founder: { "@type": "Person", name: "Wile E. Coyote" }
      }
    ]
  }
  const home = `<!doctype html><html lang="en-US"><head>
<meta charset="utf-8"><title>${name} | Rockets for every backyard</title>
<meta name="description" content="Small reusable rockets for hobbyists and schools.">
<meta name="theme-color" content="${ORANGE}">
<meta name="theme-color" media="(prefers-color-scheme: dark)" content="#101820">
<meta property="og:image" content="/img/og.jpg">
<link rel="manifest" href="/site.webmanifest">
<link rel="apple-touch-icon" sizes="180x180" href="/img/apple-touch-icon.png">
<style>.btn-primary{background:${ORANGE};color:#fff}.btn-primary:hover{background:${ORANGE}}a{color:${LINK_BLUE}}body{color:#111;background:#fff}</style>
<script type="application/ld+json">${JSON.stringify(organization)}</script>
</head><body>
<header><a href="/" class="brand"><picture><source media="(prefers-color-scheme: dark)" srcset="/img/logo-dark.png">
<img src="/img/logo.svg" alt="${name} logo" width="200" height="50"></picture></a>
<nav><a href="/pricing">Pricing</a><a href="/blog/">Blog</a><a href="/careers">Careers</a><a href="/contact-us">Contact us</a></nav></header>
<main><h1>Rockets for every backyard</h1><p>We design and manufacture small reusable model rockets, launch pads and
rocket motors for hobbyists and schools, and sell them in our online store.</p>
<a class="btn-primary" href="/shop">Shop rockets</a></main>
<footer><a href="/legal/privacy">Privacy</a> <a href="/legal/terms">Terms of Service</a>
<a href="https://www.facebook.com/acmerockets">Facebook</a> <a href="https://www.instagram.com/acmerockets/">Instagram</a>
<a href="https://twitter.com/intent/tweet?url=x">Share</a> <a href="mailto:press@acme.test">Press</a></footer>
</body></html>`
  const manifest = JSON.stringify({
    name, short_name: "Acme", theme_color: ORANGE, background_color: "#ffffff",
    icons: [{ src: "/img/icon-192.png", sizes: "192x192", type: "image/png" }]
  })
  return {
    "/": FixtureSite.html(home),
    "/site.webmanifest": FixtureSite.html(manifest, { contentType: "application/manifest+json" }),
    "/img/logo.png": image(logoPng, "image/png"),
    "/img/logo-dark.png": image(logoDarkPng, "image/png"),
    "/img/logo.svg": FixtureSite.html(logoSvg(), { contentType: "image/svg+xml" }),
    "/img/apple-touch-icon.png": image(touchIcon, "image/png"),
    "/img/icon-192.png": image(manifestIcon, "image/png"),
    "/img/og.jpg": image(ogImage, "image/jpeg")
  }
}
