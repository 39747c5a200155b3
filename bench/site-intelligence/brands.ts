/**
 * Generated brand sites for bench/site-intelligence's brand half, each with its truth: five generators that state a
 * brand differently (a JSON-LD Organization with a PNG logo and a manifest; a JSON-LD @graph LocalBusiness with an SVG
 * logo and icon-only social links; markup only with a named header logo and a theme-color; an inline SVG logo with a
 * "Page - Brand" title and a style-sheet accent; a WordPress-like theme with a custom-logo and a preset color
 * variable), over varied layouts (navigation and footer orders, link labels, extra sections, decoy images). Which
 * fields a site states in structured data (JSON-LD, manifest, meta) and which only its markup shows is recorded per
 * field, so the bench scores them apart.
 */
import sharp from "sharp"

/** Where a field's truth is stated. */
export type Stated = "structured" | "markup"

/** One site's truth. */
export interface Truth {
  readonly title: string
  /** The first logo's source URL (an inline SVG: the home page's URL). */
  readonly logo: string
  readonly primary: string
  readonly socials: ReadonlyArray<{ readonly type: string; readonly url: string }>
  readonly links: Readonly<Record<string, string>>
  readonly stated: Readonly<Record<"title" | "logo" | "primary" | "socials", Stated>>
}

/** A route's answer. */
export interface Resource {
  readonly contentType: string
  readonly body: string | Uint8Array
}

/** A generated site. */
export interface BrandSite {
  readonly host: string
  readonly generator: string
  readonly routes: ReadonlyMap<string, Resource>
  readonly truth: Truth
}

const WORDS = ["Aster", "Birch", "Cobalt", "Dune", "Ember", "Fjord", "Grove", "Harbor", "Iris", "Juniper", "Kestrel", "Lumen", "Maple", "Nimbus", "Orchid", "Pebble", "Quartz", "Rowan", "Sierra", "Tundra"]
const KINDS = ["Labs", "Coffee", "Studio", "Bikes", "Health", "Legal", "Foods", "Cloud", "Outdoors", "Books"]
const PALETTE = ["#e4572e", "#2563eb", "#16a34a", "#9333ea", "#db2777", "#0891b2", "#ca8a04", "#dc2626", "#4f46e5", "#059669"]
const NETWORKS: ReadonlyArray<readonly [string, (handle: string) => string]> = [
  ["x", (h) => `https://x.com/${h}`], ["facebook", (h) => `https://www.facebook.com/${h}`], ["instagram", (h) => `https://www.instagram.com/${h}/`],
  ["linkedin", (h) => `https://www.linkedin.com/company/${h}`], ["youtube", (h) => `https://www.youtube.com/@${h}`], ["github", (h) => `https://github.com/${h}`],
  ["tiktok", (h) => `https://www.tiktok.com/@${h}`], ["pinterest", (h) => `https://www.pinterest.com/${h}/`]
]
const LINK_LABELS: Readonly<Record<string, ReadonlyArray<readonly [string, string]>>> = {
  pricing: [["/pricing", "Pricing"], ["/plans", "Plans"], ["/p/rates", "Plans & Pricing"]],
  careers: [["/careers", "Careers"], ["/jobs", "Jobs"], ["/company/team-openings", "Careers"]],
  contact: [["/contact", "Contact"], ["/contact-us", "Contact us"], ["/reach/form", "Get in touch"]],
  blog: [["/blog", "Blog"], ["/news/", "News"], ["/journal", "Journal"]],
  privacy: [["/privacy", "Privacy"], ["/legal/privacy-policy", "Privacy Policy"]],
  terms: [["/terms", "Terms"], ["/legal/terms-of-service", "Terms of Service"]]
}

/** A deterministic generator of small choices. */
const prng = (seed: number) => {
  let state = seed * 2654435761 >>> 0
  return (n: number) => {
    state = (state * 1664525 + 1013904223) >>> 0
    return state % n
  }
}

const logoSvg = (color: string, wide: boolean) =>
  `<svg xmlns="http://www.w3.org/2000/svg" width="${wide ? 240 : 120}" height="60" viewBox="0 0 ${wide ? 240 : 120} 60">` +
  `<rect x="0" y="10" width="40" height="40" fill="${color}"/><rect x="50" y="20" width="${wide ? 180 : 60}" height="20" fill="#1f2937"/></svg>`

const escape = (text: string) => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/"/g, "&quot;")

/** `count` generated sites (at least 40 for the bench), five generators in turn. */
export const brandSites = async (count: number): Promise<Array<BrandSite>> => {
  const out: Array<BrandSite> = []
  const generators = ["jsonld-org", "jsonld-graph", "markup", "inline-svg", "wordpress"] as const
  for (let i = 0; i < count; i++) {
    const pick = prng(i + 1)
    const generator = generators[i % generators.length]!
    const name = `${WORDS[pick(WORDS.length)]} ${KINDS[pick(KINDS.length)]}`
    const host = `brand${i}.test`
    const base = `http://${host}`
    const handle = name.toLowerCase().replace(/\s+/g, "")
    const primary = PALETTE[pick(PALETTE.length)]!
    const networks = [...NETWORKS].sort(() => pick(3) - 1).slice(0, 2 + pick(3))
    const socials = networks.map(([type, url]) => ({ type, url: url(handle) }))
    const kinds = Object.keys(LINK_LABELS).filter(() => pick(5) > 0)
    const links: Record<string, string> = {}
    const anchors: Array<string> = []
    for (const kind of kinds) {
      const options = LINK_LABELS[kind]!
      const [path, label] = options[pick(options.length)]!
      links[kind] = `${base}${path}`
      anchors.push(`<a href="${path}">${label}</a>`)
    }
    const nav = anchors.filter((_, j) => j % 2 === 0).join(" ")
    const footerLinks = anchors.filter((_, j) => j % 2 === 1).join(" ")
    const iconLinks = generator === "jsonld-graph"
      ? socials.map((s) => `<a href="${s.url}" aria-label="${s.type}"><svg width="16" height="16"><circle cx="8" cy="8" r="8"/></svg></a>`).join("")
      : socials.map((s) => `<a href="${s.url}">${s.type}</a>`).join(" ")
    const wide = pick(2) === 0
    const svg = logoSvg(primary, wide)
    const png = await sharp(Buffer.from(svg)).png().toBuffer()
    const decoy = await sharp({ create: { width: 600, height: 300, channels: 3, background: "#94a3b8" } }).jpeg().toBuffer()
    const routes = new Map<string, Resource>()
    routes.set("/img/hero.jpg", { contentType: "image/jpeg", body: decoy })
    // Decoys: a partners strip whose images are named logos (after the header's), share links to networks.
    if (pick(2) === 0) routes.set("/img/partner-logo.png", { contentType: "image/png", body: await sharp(Buffer.from(logoSvg("#64748b", true))).png().toBuffer() })
    const partners = routes.has("/img/partner-logo.png") ? `<section class="partners"><h2>Trusted by</h2><img class="partner-logo" src="/img/partner-logo.png" alt="Partner logo"></section>` : ""
    const share = pick(2) === 0 ? `<a href="https://twitter.com/intent/tweet?url=${encodeURIComponent(base)}">Share</a> <a href="https://www.facebook.com/sharer/sharer.php?u=${encodeURIComponent(base)}">Share</a>` : ""
    const extra = partners + share + (pick(2) === 0
      ? `<section><h2>Why ${escape(name)}</h2><p>Made with care since ${2000 + pick(20)}.</p><img src="/img/hero.jpg" alt="Our team"></section>`
      : `<section class="testimonials"><blockquote>Great service.</blockquote></section>`)
    let head = ""
    let header = ""
    let titleTag = `${escape(name)} | Home`
    let truthLogo = ""
    const stated: Record<"title" | "logo" | "primary" | "socials", Stated> = { title: "structured", logo: "structured", primary: "structured", socials: "structured" }
    switch (generator) {
      case "jsonld-org": {
        routes.set("/assets/logo.png", { contentType: "image/png", body: png })
        routes.set("/manifest.json", { contentType: "application/manifest+json", body: JSON.stringify({ name, theme_color: primary, background_color: "#ffffff" }) })
        head = `<link rel="manifest" href="/manifest.json"><script type="application/ld+json">${JSON.stringify({ "@context": "https://schema.org", "@type": "Organization", name, url: `${base}/`, logo: `${base}/assets/logo.png`, sameAs: socials.map((s) => s.url) })}</script>`
        header = `<header><a href="/"><img src="/assets/logo.png" alt="${escape(name)}"></a><nav>${nav}</nav></header>`
        titleTag = `Home | ${escape(name)}`
        truthLogo = `${base}/assets/logo.png`
        break
      }
      case "jsonld-graph": {
        routes.set("/static/brand.svg", { contentType: "image/svg+xml", body: svg })
        head = `<meta name="theme-color" content="${primary}"><script type="application/ld+json">${JSON.stringify({ "@context": "https://schema.org", "@graph": [
          { "@type": "WebSite", name, url: `${base}/` },
          { "@type": "LocalBusiness", name, logo: { "@type": "ImageObject", url: `${base}/static/brand.svg` }, sameAs: socials.map((s) => s.url), address: { "@type": "PostalAddress", addressLocality: "Springfield" } }
        ] })}</script>`
        header = `<header><nav>${nav}</nav><div class="brand"><img src="/static/brand.svg" alt="${escape(name)} logo"></div></header>`
        truthLogo = `${base}/static/brand.svg`
        break
      }
      case "markup": {
        routes.set("/images/site-logo.png", { contentType: "image/png", body: png })
        head = `<meta property="og:site_name" content="${escape(name)}"><meta name="theme-color" content="${primary}">`
        header = `<header><div class="top"><img class="site-logo" src="/images/site-logo.png" alt="${escape(name)}"></div><nav>${nav}</nav></header>`
        truthLogo = `${base}/images/site-logo.png`
        stated.logo = "markup"
        stated.socials = "markup"
        break
      }
      case "inline-svg": {
        routes.set("/site.webmanifest", { contentType: "application/manifest+json", body: JSON.stringify({ short_name: name.split(" ")[0] }) })
        head = `<link rel="manifest" href="/site.webmanifest"><style>:root{--brand:${primary}}.button{background:${primary};color:#fff}.button:hover{background:${primary}}a{color:${primary}}body{color:#1f2937}</style>`
        header = `<header><a href="/" class="home">${svg.replace("<svg ", `<svg aria-label="${escape(name)}" `)}</a><nav>${nav}</nav></header>`
        titleTag = `Welcome - ${escape(name)}`
        truthLogo = `${base}/`
        stated.title = "markup"
        stated.logo = "markup"
        stated.primary = "markup"
        stated.socials = "markup"
        break
      }
      case "wordpress": {
        routes.set("/wp-content/uploads/logo.png", { contentType: "image/png", body: png })
        head = `<meta property="og:site_name" content="${escape(name)}"><style id="global-styles">:root{--wp--preset--color--primary:${primary};--wp--preset--color--base:#ffffff}.wp-block-button__link{background-color:${primary}}</style>`
        header = `<header class="site-header"><div class="site-branding"><a href="/" class="custom-logo-link"><img class="custom-logo" src="/wp-content/uploads/logo.png" alt=""></a></div><nav class="main-navigation">${nav}</nav></header>`
        truthLogo = `${base}/wp-content/uploads/logo.png`
        stated.logo = "markup"
        stated.primary = "markup"
        stated.socials = "markup"
        break
      }
    }
    const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${titleTag}</title>
<meta name="description" content="${escape(name)}: what we do, for whom.">${head}</head><body>${header}
<main><h1>${pick(2) === 0 ? "Hello" : "We make things better"}</h1><p>${escape(name)} serves customers across the region.</p>${extra}</main>
<footer>${footerLinks} <div class="social">${iconLinks}</div> <a href="/">Home</a></footer></body></html>`
    routes.set("/", { contentType: "text/html; charset=utf-8", body: html })
    out.push({ host, generator, routes, truth: { title: name, logo: truthLogo, primary, socials, links, stated } })
  }
  return out
}
