/**
 * A fixture site with a known design, for the styleguide and font tests (core and API): an accent color (#ff5500), a
 * self-hosted `@font-face` family with a build hash in its name (real TrueType files from Debian's fonts-dejavu), a
 * Google Fonts link (the link only: tests have no network), primary and secondary buttons, an icon-only menu button, a screen-reader-only heading, two cards, a
 * `prefers-color-scheme: dark` block, three fonts in known proportions, plus a bot wall and a 404.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import * as FixtureSite from "./FixtureSite.js"

/** A real TrueType file: DejaVu (fonts-dejavu-core, which Chromium's fontconfig brings), else any installed one. */
const fontFile = (name: string): Uint8Array => {
  const preferred = join("/usr/share/fonts/truetype/dejavu", name)
  if (existsSync(preferred)) return readFileSync(preferred)
  const any = (readdirSync("/usr/share/fonts", { recursive: true }) as Array<string>).find((file) => file.endsWith(".ttf"))
  if (any === undefined) throw new Error("no TrueType font under /usr/share/fonts for the design fixture")
  return readFileSync(join("/usr/share/fonts", any))
}

/** The home page. Word counts by font: BrandSans 43 words in 10 elements, Playfair Display 9 in 4, Courier New 3 in 1. */
export const home = `<!doctype html><html lang="en"><head><title>Acme Design</title>
<meta name="theme-color" content="#ff5500">
<link rel="stylesheet" href="https://fonts.googleapis.com/css2?family=Playfair+Display:ital,wght@0,400;0,700;1,400&display=swap">
<style>
@font-face { font-family: "BrandSans_4f2a9c1e"; src: url("/fonts/brand-sans-400.ttf") format("truetype"); font-weight: 400; font-style: normal; }
@font-face { font-family: "BrandSans_4f2a9c1e"; src: url("/fonts/brand-sans-700.ttf") format("truetype"); font-weight: 700; font-style: normal; }
@font-face { font-family: "BrandSans_4f2a9c1e"; src: url("/fonts/brand-sans-400.ttf") format("truetype"); font-weight: 400; font-style: italic; }
:root { --accent: #ff5500; --bg: #ffffff; --text: #1a1a1a; }
@media (prefers-color-scheme: dark) { :root { --bg: #0f1115; --text: #f2f2f2; } }
* { margin: 0; padding: 0; }
html, body { background: var(--bg); color: var(--text); }
body { font-family: "BrandSans_4f2a9c1e", Arial, sans-serif; font-size: 16px; line-height: 24px; }
h1, h2, h3, h4 { font-family: "Playfair Display", Georgia, serif; margin-bottom: 8px; }
h1 { font-size: 48px; font-weight: 700; line-height: 56px; letter-spacing: -1px; }
h2 { font-size: 32px; font-weight: 700; line-height: 40px; }
h3 { font-size: 24px; font-weight: 600; line-height: 32px; }
h4 { font-size: 20px; font-weight: 600; line-height: 28px; }
p { margin-bottom: 16px; }
a { color: var(--accent); text-decoration: underline; }
nav { display: flex; gap: 32px; padding: 4px; }
.btn { display: inline-block; box-sizing: border-box; width: 160px; height: 48px; padding: 12px 24px; border-radius: 8px;
  font-family: inherit; font-size: 16px; font-weight: 600; line-height: 24px; text-decoration: none; }
.btn-primary { background: var(--accent); color: #ffffff; border: 0; }
.btn-secondary { background: transparent; color: var(--text); border: 1px solid #cccccc; }
.card { width: 300px; margin: 16px; padding: 24px; background: #ffffff; border: 1px solid #e5e5e5; border-radius: 12px;
  box-shadow: 0 4px 12px rgba(0, 0, 0, 0.1); }
.chip { display: inline-block; width: 40px; height: 10px; box-shadow: 0 1px 2px rgba(0, 0, 0, 0.05); }
.panel { width: 200px; height: 20px; box-shadow: 0 20px 40px rgba(0, 0, 0, 0.25); }
.well { width: 200px; height: 20px; box-shadow: inset 0 1px 2px rgba(0, 0, 0, 0.2); }
code { font-family: "Courier New", monospace; }
.menu { width: 40px; height: 40px; background: none; border: 0; }
.sr-only { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0, 0, 0, 0); white-space: nowrap; font-size: 10px; }
</style></head>
<body><header><nav><a href="/">Home</a><a href="/about">About</a></nav><button class="menu" type="button" aria-label="Menu"></button></header>
<main>
<h1 class="sr-only">Acme design system, for screen readers</h1>
<h1>Design that ships</h1>
<p>Alpha beta gamma delta epsilon zeta eta theta iota kappa.</p>
<p>Read <a href="/docs">the docs</a> today.</p>
<a class="btn btn-primary" href="/start">Get started</a>
<button class="btn btn-primary" type="button">Sign up</button>
<a class="btn btn-secondary" href="/tour">Take the tour</a>
<h2>Our work</h2>
<div class="card"><h3>Fast builds</h3><p>Lambda mu nu xi omicron pi rho sigma tau upsilon.</p></div>
<div class="card"><h4>Small bundles</h4><p>Phi chi psi omega one two three four five six.</p></div>
<span class="chip"></span><div class="panel"></div><div class="well"></div>
<pre><code>npm install acme</code></pre>
</main></body></html>`

/**
 * A dark-first page of another make: colors in oklch and rgba, a Google font by `@import` in an inline sheet, a submit
 * input as the primary button, a ghost button with a translucent border, links in another color than the accent.
 */
export const night = `<!doctype html><html><head><title>Night</title><style>
@import url("https://fonts.googleapis.com/css2?family=Inter:wght@400;600&display=swap");
:root { --brand: oklch(62.8% 0.2577 29.23); }
body { margin: 0; background: #111827; color: #e5e7eb; font-family: Inter, system-ui, sans-serif; font-size: 15px; }
h1 { font-size: 40px; font-weight: 800; line-height: 1.1; letter-spacing: 0.5px; }
a { color: #60a5fa; text-decoration: none; }
.cta { background: var(--brand); color: white; border: 2px solid transparent; border-radius: 9999px; padding: 8px 16px;
  font: 600 14px/20px Inter, sans-serif; }
.ghost { background: transparent; color: #e5e7eb; border: 1px solid rgba(255, 255, 255, 0.2); border-radius: 9999px;
  padding: 8px 16px; font: 600 14px/20px Inter, sans-serif; }
</style></head><body><main><h1>Night mode</h1><p>Everything you need to ship at night, in one place.</p>
<form><input class="cta" type="submit" value="Subscribe"></form><button class="ghost" type="button">Learn more</button>
<p>Questions? <a href="/faq">Read the answers</a> or <a href="/contact">write to us</a>.</p></main></body></html>`

/**
 * A page set in a Google font whose CSS the test serves itself: the page links `http://fonts.googleapis.com/css2`, which
 * the test's host rules send to this site (`/css2`, Google's format: one block per subset, latin last).
 */
export const googled = `<!doctype html><html><head><title>Lora</title>
<link rel="stylesheet" href="http://fonts.googleapis.com/css2?family=Lora:wght@400;700&display=swap">
<style>body { font-family: Lora, serif; }</style></head><body><p>Set in Lora from Google Fonts.</p></body></html>`

/** What Google's CSS API answers for `family=Lora:wght@400;700` (abridged, same layout). */
export const googleCss = `/* cyrillic */
@font-face {
  font-family: 'Lora';
  font-style: normal;
  font-weight: 400;
  font-display: swap;
  src: url(https://fonts.gstatic.com/s/lora/v35/cyrillic-400.woff2) format('woff2');
  unicode-range: U+0301, U+0400-045F;
}
/* latin */
@font-face {
  font-family: 'Lora';
  font-style: normal;
  font-weight: 400;
  font-display: swap;
  src: url(https://fonts.gstatic.com/s/lora/v35/latin-400.woff2) format('woff2');
  unicode-range: U+0000-00FF;
}
/* latin */
@font-face {
  font-family: 'Lora';
  font-style: normal;
  font-weight: 700;
  font-display: swap;
  src: url(https://fonts.gstatic.com/s/lora/v35/latin-700.woff2) format('woff2');
  unicode-range: U+0000-00FF;
}
`

/** An app whose body paints nothing: its root wrapper, full width and at least the viewport's height, is the page. */
export const app = `<!doctype html><html><head><title>App</title><style>
body { margin: 0; font-family: sans-serif; }
#root { background: #0b0f19; color: #cbd5e1; min-height: 100vh; }
.hero { background: #7c3aed; color: #ffffff; height: 200px; }
a { color: #a78bfa; }
</style></head><body><div id="root"><div class="hero"><h1>Ship faster</h1></div><p>All your deploys in one dashboard. <a href="/deploys">See deploys</a></p></div></body></html>`

/** A Cloudflare challenge page. */
export const wall = `<!doctype html><html><head><title>Just a moment...</title></head><body><div id="challenge-form">Checking your browser</div></body></html>`

/** The routes of the design site. */
export const routes = (): FixtureSite.Routes => ({
  "/": FixtureSite.html(home),
  "/night": FixtureSite.html(night),
  "/google": FixtureSite.html(googled),
  "/app": FixtureSite.html(app),
  "/css2": FixtureSite.html(googleCss, { contentType: "text/css; charset=utf-8", headers: { "access-control-allow-origin": "*" } }),
  "/fonts/brand-sans-400.ttf": FixtureSite.html(fontFile("DejaVuSans.ttf"), { contentType: "font/ttf" }),
  "/fonts/brand-sans-700.ttf": FixtureSite.html(fontFile("DejaVuSans-Bold.ttf"), { contentType: "font/ttf" }),
  "/wall": FixtureSite.html(wall, { status: 403 }),
  "/challenge": FixtureSite.html(wall),
  "/missing": FixtureSite.status(404)
})
