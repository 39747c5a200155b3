/**
 * Brand retrieval from the site itself (wave2 §10): the home page (static first; rendered when the page signals that
 * JavaScript draws it and a `Renderer` is provided), its web manifest, icons and logos, and its schema.org
 * Organization give title, description, slogan, logos (SVG ahead of a similarly shaped raster; `type`, `mode` and
 * palette from decoded pixels), colors (`site` from theme signals and style sheets, `logo` from logo pixels, named),
 * backdrops, socials, links, email, phone, address, language, industries (EIC through the NAICS classifier), stock
 * and employees where stated. The images themselves come back as content-addressed `assets` for the caller to host.
 *
 * Every decode is bounded: the home page at 5 MiB, the manifest at 256 KiB of JSON, each image at 5 MiB and
 * `Images.MAX_PIXELS` decoded pixels, at most 8 logo candidates and 2 backdrops fetched.
 *
 * @since 0.1.0
 */
import { Duration, Effect, Option } from "effect"
import { createHash } from "node:crypto"
import * as BlockDetection from "./BlockDetection.js"
import * as CompanyEvidence from "./CompanyEvidence.js"
import { type InvalidRequest, RequestTimeout, WebsiteError } from "./Errors.js"
import { Fetcher } from "./Fetcher.js"
import * as Html from "./Html.js"
import { analyse, type ImageFacts, modeOf } from "./internal/brand/images.js"
import { deltaE, luminance, named, parseColor, type Rgb, saturation } from "./internal/brand/colors.js"
import { buttonColors } from "./internal/brand/inPage.js"
import { eicOf } from "./internal/brand/eic.js"
import { languageOf } from "./internal/brand/languages.js"
import { readAnchors, socialOf, type SocialType } from "./internal/brand/links.js"
import { type LogoCandidate, read as readPage } from "./internal/brand/page.js"
import * as Metadata from "./Metadata.js"
import * as NaicsClassifier from "./NaicsClassifier.js"
import { Renderer } from "./Renderer.js"
import * as RenderPlan from "./RenderPlan.js"

/** A color as the API gives it. */
export interface NamedColor {
  readonly hex: string
  readonly name: string
}

/** An image's size. */
export interface Resolution {
  readonly width: number
  readonly height: number
  readonly aspect_ratio: number
}

/** Where a logo or backdrop is kept: its content hash and extension (the caller serves it). */
export interface AssetRef {
  readonly sha256: string
  readonly ext: string
}

/** A logo, its `url` the image's address on the site until the caller hosts it. */
export interface Logo {
  readonly url: string
  readonly asset: AssetRef
  readonly type: "icon" | "logo"
  readonly mode: "light" | "dark" | "has_opaque_background"
  readonly resolution: Resolution
  readonly colors: ReadonlyArray<NamedColor>
}

/** A backdrop image. */
export interface Backdrop {
  readonly url: string
  readonly asset: AssetRef
  readonly resolution: Resolution
  readonly colors: ReadonlyArray<NamedColor>
}

/** The brand (the SDK's `Brand`; every member optional there, absent here when unknown). */
export interface Brand {
  readonly domain: string
  readonly title?: string
  readonly description?: string
  readonly slogan?: string
  readonly logos: ReadonlyArray<Logo>
  readonly colors: ReadonlyArray<NamedColor & { readonly source: "site" | "logo" }>
  readonly backdrops: ReadonlyArray<Backdrop>
  readonly socials: ReadonlyArray<{ readonly type: SocialType; readonly url: string }>
  readonly links: Partial<Record<"blog" | "careers" | "contact" | "pricing" | "privacy" | "terms", string>>
  readonly email?: string
  readonly phone?: string
  readonly address?: Partial<Record<"street" | "city" | "state_code" | "state_province" | "postal_code" | "country" | "country_code", string>>
  readonly primary_language?: string
  readonly industries?: { readonly eic: ReadonlyArray<{ readonly industry: string; readonly subindustry: string }> }
  readonly stock?: { readonly ticker: string; readonly exchange?: string }
  readonly employees?: { readonly exact?: number; readonly range?: string }
  readonly is_nsfw: boolean
}

/** An image to host: its bytes under their SHA-256. */
export interface Asset extends AssetRef {
  readonly contentType: string
  readonly bytes: Uint8Array
}

/** What a retrieval gives: the brand, the images its logos and backdrops point to, and whether time ran out. */
export interface BrandResult {
  readonly brand: Brand
  readonly assets: ReadonlyArray<Asset>
  readonly partial?: boolean
  /** The page was rendered in a browser. */
  readonly rendered: boolean
}

/** Options of a retrieval. */
export interface RetrieveOptions {
  /** The whole retrieval's budget (default 30000 ms). */
  readonly timeoutMs?: number
  /** `fail` (default): running out of time is a `RequestTimeout`; `return-partial`: what was read by then. */
  readonly timeoutBehavior?: "fail" | "return-partial"
  /** Fewer images, no rendering: faster, less complete. */
  readonly maxSpeed?: boolean
}

/** What to read: a domain's home page, or exactly one URL (`by_direct_url`). */
export interface Target {
  readonly domain: string
  readonly url?: string
}

const MAX_PAGE_BYTES = 5 * 1024 * 1024
const MAX_MANIFEST_BYTES = 256 * 1024
const MAX_IMAGE_BYTES = 5 * 1024 * 1024
const MAX_LOGO_FETCHES = 8
const MAX_BACKDROPS = 2

const ORGANIZATION_TYPES = /^(Organization|Corporation|LocalBusiness|OnlineBusiness|OnlineStore|Store|Restaurant|Brewery|NGO|EducationalOrganization|MedicalOrganization|SportsOrganization|NewsMediaOrganization|Airline|Bank|FinancialService|ProfessionalService|LegalService|Hotel|Dentist|Physician|AutoDealer|[A-Za-z]*(Business|Store|Organization|Service|Company))$/

type Json = Record<string, unknown>

const isRecord = (value: unknown): value is Json => typeof value === "object" && value !== null && !Array.isArray(value)

const typesOf = (value: unknown): Array<string> =>
  typeof value === "string" ? [value.replace(/^https?:\/\/schema\.org\//, "")] : Array.isArray(value) ? value.flatMap(typesOf) : []

/** JSON-LD objects (graphs, arrays and nested members) flattened, to a small depth and count. */
const flatten = (value: unknown, out: Array<Json> = [], depth = 0): Array<Json> => {
  if (depth > 5 || out.length > 200) return out
  if (Array.isArray(value)) {
    for (const item of value) flatten(item, out, depth + 1)
  } else if (isRecord(value)) {
    if (value["@type"] !== undefined) out.push(value)
    for (const [key, member] of Object.entries(value)) if (key === "@graph" || isRecord(member) || Array.isArray(member)) flatten(member, out, depth + 1)
  }
  return out
}

const text = (value: unknown): string | undefined => {
  if (typeof value === "string") return value.trim() === "" ? undefined : value.trim().replace(/\s+/g, " ")
  if (typeof value === "number") return String(value)
  if (Array.isArray(value)) return text(value[0])
  if (isRecord(value)) return text(value["@value"] ?? value["name"])
  return undefined
}

const urlOf = (value: unknown, base: string): string | undefined => {
  const raw = typeof value === "string" ? value : Array.isArray(value) ? value[0] : isRecord(value) ? value["url"] ?? value["contentUrl"] ?? value["@id"] : undefined
  if (typeof raw !== "string") return Array.isArray(raw) ? urlOf(raw, base) : undefined
  try {
    const url = new URL(raw.trim(), base)
    return url.protocol === "http:" || url.protocol === "https:" ? url.href : undefined
  } catch {
    return undefined
  }
}

const list = (value: unknown): Array<unknown> => (value === undefined || value === null ? [] : Array.isArray(value) ? value : [value])

const decodeText = (bytes: Uint8Array): string => new TextDecoder("utf-8", { fatal: false }).decode(bytes)

const sha256 = (bytes: Uint8Array): string => createHash("sha256").update(bytes).digest("hex")

const EXT: Readonly<Record<string, readonly [string, string]>> = {
  svg: ["svg", "image/svg+xml"], png: ["png", "image/png"], jpeg: ["jpg", "image/jpeg"], webp: ["webp", "image/webp"],
  gif: ["gif", "image/gif"], avif: ["avif", "image/avif"], heif: ["avif", "image/avif"]
}

const resolution = (facts: ImageFacts): Resolution => ({
  width: facts.width,
  height: facts.height,
  aspect_ratio: Math.round(facts.width / facts.height * 1000) / 1000
})

const ICON_SOURCES = new Set<LogoCandidate["source"]>(["apple-touch-icon", "icon", "mask-icon", "manifest", "favicon"])

// Words that name a page, never a brand ("Home | Acme", "Welcome - Acme").
const PAGE_WORDS = /^(home|homepage|home page|welcome|start|index|main|official site|official website)$/i

const squash = (text: string) => text.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, "")

/**
 * A title's brand part and the rest: "Acme | Tools for builders" → ["Acme", "Tools for builders"]. The brand is the end
 * that names the domain or a known name (`hints`), else the end that is not a page word, else the shorter end.
 */
const splitTitle = (title: string, hints: ReadonlyArray<string>): readonly [string, string | undefined] => {
  const parts = title.split(/\s+[|–—·:-]\s+/).map((p) => p.trim()).filter((p) => p !== "")
  if (parts.length < 2) return [title.trim(), undefined]
  const first = parts[0]!, last = parts[parts.length - 1]!
  const asFirst = [first, parts.slice(1).join(" - ")] as const
  const asLast = [last, parts.slice(0, -1).join(" - ")] as const
  const named = (part: string) => hints.some((hint) => hint.length >= 3 && (squash(part).includes(hint) || hint.includes(squash(part))))
  if (named(first) !== named(last)) return named(first) ? asFirst : asLast
  if (PAGE_WORDS.test(first) !== PAGE_WORDS.test(last)) return PAGE_WORDS.test(first) ? asLast : asFirst
  return first.length <= last.length ? asFirst : asLast
}

/** The brand part of a page title on `domain` ("Home | Acme" on acme.com → "Acme"), as retrievals read titles. */
export const titleBrand = (title: string, domain: string): string =>
  splitTitle(title, [squash(domain.replace(/^www\./, "").split(".")[0] ?? "")])[0]

const RANGES: ReadonlyArray<readonly [number, string]> = [
  [10, "1 to 10"], [50, "11 to 50"], [200, "51 to 200"], [500, "201 to 500"], [1000, "501 to 1000"], [5000, "1001 to 5000"], [10000, "5001 to 10000"]
]
const rangeOf = (n: number): string => RANGES.find(([max]) => n <= max)?.[1] ?? "10001+"

const employeesOf = (value: unknown): Brand["employees"] | undefined => {
  const number = (v: unknown) => (typeof v === "number" ? v : typeof v === "string" && /^\d[\d,]*$/.test(v.trim()) ? Number(v.replace(/,/g, "")) : undefined)
  const exact = number(value) ?? (isRecord(value) ? number(value["value"]) : undefined)
  if (exact !== undefined && exact > 0) return { exact, range: rangeOf(exact) }
  if (isRecord(value)) {
    const max = number(value["maxValue"]), min = number(value["minValue"])
    if (max !== undefined && max > 0) return { range: rangeOf(max) }
    if (min !== undefined && min > 0) return { range: rangeOf(min) }
  }
  return undefined
}

const regionNames = new Intl.DisplayNames(["en"], { type: "region", fallback: "none" })

const addressOf = (value: unknown): Brand["address"] | undefined => {
  const record = list(value).find(isRecord)
  if (record === undefined) return typeof value === "string" && value.trim() !== "" ? { street: value.trim() } : undefined
  const out: Record<string, string> = {}
  const street = text(record["streetAddress"])
  const city = text(record["addressLocality"])
  const region = text(record["addressRegion"])
  const postal = text(record["postalCode"])
  const country = text(record["addressCountry"])
  if (street !== undefined) out["street"] = street
  if (city !== undefined) out["city"] = city
  if (region !== undefined) out[/^[A-Z]{2,3}$/.test(region) ? "state_code" : "state_province"] = region
  if (postal !== undefined) out["postal_code"] = postal
  if (country !== undefined) {
    if (/^[A-Za-z]{2}$/.test(country)) {
      out["country_code"] = country.toUpperCase()
      const name = regionNames.of(country.toUpperCase())
      if (name !== undefined) out["country"] = name
    } else out["country"] = country
  }
  return Object.keys(out).length === 0 ? undefined : out
}

const stockOf = (value: unknown): Brand["stock"] | undefined => {
  const raw = text(value)
  if (raw === undefined) return undefined
  const match = /^(?:([A-Za-z]+)\s*[:\s]\s*)?([A-Za-z][A-Za-z0-9.\-]{0,9})$/.exec(raw)
  if (match === null) return undefined
  return match[1] === undefined ? { ticker: match[2]!.toUpperCase() } : { ticker: match[2]!.toUpperCase(), exchange: match[1].toUpperCase() }
}

/** Accent colors among CSS color values: saturated, neither near white nor near black, by frequency. */
const accentsOf = (values: Iterable<string>): Array<Rgb> => {
  const counts = new Map<string, number>()
  let found = 0
  for (const value of values) {
    if (++found > 5_000) break
    const color = parseColor(value)
    if (color === undefined) continue
    const lum = luminance(color)
    if (saturation(color) < 0.3 || lum < 0.02 || lum > 0.85) continue
    const hex = named(color).hex
    counts.set(hex, (counts.get(hex) ?? 0) + 1)
  }
  return [...counts.entries()].sort((a, b) => b[1] - a[1]).map(([hex]) => parseColor(hex)!)
}

/** Accent colors of the page's style sheets' text. */
const cssAccents = (css: string): Array<Rgb> => accentsOf(Array.from(css.matchAll(/#[0-9a-fA-F]{3,8}\b|rgba?\([^)]{5,40}\)/g), (m) => m[0]))


const addColor = <T extends NamedColor>(out: Array<T>, color: T) => {
  const rgb = parseColor(color.hex)!
  if (!out.some((c) => deltaE(parseColor(c.hex)!, rgb) < 5)) out.push(color)
}

/** Reads one URL: the Fetcher with a byte cap, answering undefined for any failure or non-2xx status. */
const fetchBytes = (url: string, maxBytes: number) =>
  Effect.flatMap(Fetcher, (fetcher) => fetcher.fetch({ url, maxBytes })).pipe(
    Effect.map((response) => (response.status >= 200 && response.status < 300 ? Option.some(response) : Option.none())),
    Effect.catchAll(() => Effect.succeed(Option.none()))
  )

/** A bot wall, challenge, login wall or soft 404 in place of the page: its error (a brand read from it would be the wall's). */
const wallOf = (url: string, status: number, html: string): WebsiteError | undefined => {
  const verdict = BlockDetection.inspect({ url, status, html })
  return verdict === undefined ? undefined : BlockDetection.toError(url, verdict)
}

/** Fetches the home page: https then http for a domain; exactly the URL for `by_direct_url`. */
const fetchHome = (target: Target) =>
  Effect.gen(function*() {
    const fetcher = yield* Fetcher
    const first = target.url ?? `https://${target.domain}/`
    const plain = target.url === undefined ? `http://${target.domain}/` : undefined
    const response = yield* fetcher.fetch({ url: first, maxBytes: MAX_PAGE_BYTES }).pipe(
      Effect.catchTag("WebsiteError", (error) =>
        plain !== undefined && (error.reason === "Unreachable" || error.reason === "Timeout") ? fetcher.fetch({ url: plain, maxBytes: MAX_PAGE_BYTES }) : Effect.fail(error))
    )
    const wall = wallOf(response.url, response.status, decodeText(response.body.subarray(0, 400_000)))
    if (wall !== undefined) return yield* wall
    if (response.status >= 400) return yield* new WebsiteError({ reason: "HttpStatus", url: response.url, status: response.status })
    return response
  })

interface Fetched {
  readonly candidate: LogoCandidate
  readonly bytes: Uint8Array
  readonly facts: ImageFacts
}

const fetchImage = (candidate: LogoCandidate) =>
  Effect.gen(function*() {
    let bytes: Uint8Array
    if (candidate.inline !== undefined) bytes = new TextEncoder().encode(candidate.inline)
    else {
      const response = yield* fetchBytes(candidate.url, MAX_IMAGE_BYTES)
      if (Option.isNone(response)) return Option.none<Fetched>()
      bytes = response.value.body
    }
    const facts = yield* Effect.promise(() => analyse(bytes))
    return facts === undefined || EXT[facts.format] === undefined ? Option.none<Fetched>() : Option.some({ candidate, bytes, facts })
  })

const assetOf = (fetched: Fetched): Asset => {
  const [ext, contentType] = EXT[fetched.facts.format]!
  return { sha256: sha256(fetched.bytes), ext, contentType, bytes: fetched.bytes }
}

/** SVGs ahead of a similarly shaped raster of the same type; otherwise the order of relevance. */
const svgFirst = (logos: ReadonlyArray<Logo>): Array<Logo> => {
  const out: Array<Logo> = []
  const used = new Set<Logo>()
  for (const logo of logos) {
    if (used.has(logo)) continue
    if (logo.asset.ext !== "svg") {
      const svg = logos.find((other) =>
        !used.has(other) && other.asset.ext === "svg" && other.type === logo.type && other.mode === logo.mode &&
        Math.abs(other.resolution.aspect_ratio - logo.resolution.aspect_ratio) / logo.resolution.aspect_ratio < 0.1)
      if (svg !== undefined) {
        out.push(svg)
        used.add(svg)
      }
    }
    out.push(logo)
    used.add(logo)
  }
  return out
}

const NSFW_RATINGS = /^(adult|mature|rta-5042-1996-1400-1577-rta|restricted)$/i

/**
 * Retrieves a brand from its site. Fails when the home page cannot be read (`WebsiteError`), or when time runs out
 * before it is read (`RequestTimeout`; with `return-partial`, later stages are cut and the result says `partial`).
 */
export const retrieve = (
  target: Target,
  options: RetrieveOptions = {}
): Effect.Effect<BrandResult, WebsiteError | InvalidRequest | RequestTimeout, Fetcher> =>
  Effect.gen(function*() {
    const timeoutMs = options.timeoutMs ?? 30_000
    const started = Date.now()
    const left = () => Math.max(1, timeoutMs - (Date.now() - started))
    const timedOut = () => new RequestTimeout({ milliseconds: timeoutMs, detail: "the brand was not read in time" })

    const home = yield* fetchHome(target).pipe(Effect.timeoutFail({ duration: Duration.millis(left()), onTimeout: timedOut }))
    let html = decodeText(home.body)
    let pageUrl = home.url
    let rendered = false
    let computed: ReadonlyArray<string> = []
    const renderer = yield* Effect.serviceOption(Renderer)
    if (options.maxSpeed !== true && Option.isSome(renderer) && RenderPlan.afterFetch({ contentType: home.contentType, html }).render) {
      const page = yield* Effect.scoped(Effect.flatMap(renderer.value.open({ url: pageUrl, waitFor: 0 }), (session) =>
        Effect.zip(session.load, session.evaluate(buttonColors, 40).pipe(Effect.orElseSucceed(() => [] as Array<string>))))).pipe(
          Effect.timeoutOption(Duration.millis(Math.floor(left() / 2))),
          Effect.catchAll(() => Effect.succeed(Option.none()))
        )
      if (Option.isSome(page)) {
        const wall = wallOf(page.value[0].url, page.value[0].status, page.value[0].html)
        if (wall !== undefined) return yield* wall
        html = page.value[0].html
        pageUrl = page.value[0].url
        computed = page.value[1].slice(0, 40).filter((value): value is string => typeof value === "string" && value.length <= 64)
        rendered = true
      }
    }

    const tree = Html.parse(html)
    const metadata = Metadata.extract(tree, { url: pageUrl })
    const signals = readPage(tree, pageUrl)
    const objects = flatten(metadata.jsonLd ?? [])
    const organization = objects.find((o) => typesOf(o["@type"]).some((t) => ORGANIZATION_TYPES.test(t))) ?? {}
    const org = (key: string) => organization[key]

    // Everything else is best effort within the time left; what is cut makes the answer partial.
    let partial = false
    const bounded = <A>(effect: Effect.Effect<A, never, Fetcher>, fallback: A, share: number) =>
      effect.pipe(
        Effect.timeoutOption(Duration.millis(Math.max(1, Math.floor(left() * share)))),
        Effect.map(Option.getOrElse(() => {
          partial = true
          return fallback
        }))
      )

    const manifest = signals.manifestUrl === undefined ? undefined : yield* bounded(
      Effect.map(fetchBytes(signals.manifestUrl, MAX_MANIFEST_BYTES), (response) => {
        if (Option.isNone(response)) return undefined
        try {
          const value: unknown = JSON.parse(decodeText(response.value.body))
          return isRecord(value) ? value : undefined
        } catch {
          return undefined
        }
      }),
      undefined,
      0.3
    )

    // Logo candidates, most relevant first.
    const candidates: Array<LogoCandidate> = []
    const push = (candidate: LogoCandidate | undefined) => {
      if (candidate !== undefined && !candidates.some((c) => c.url === candidate.url)) candidates.push(candidate)
    }
    const jsonLdLogo = urlOf(org("logo"), pageUrl)
    if (jsonLdLogo !== undefined) push({ url: jsonLdLogo, source: "jsonld" })
    for (const logo of signals.logos.filter((l) => !ICON_SOURCES.has(l.source))) push(logo)
    const icons = signals.logos.filter((l) => ICON_SOURCES.has(l.source))
      .sort((a, b) => iconRank(a) - iconRank(b) || (b.declaredSize ?? 0) - (a.declaredSize ?? 0))
    for (const icon of icons) push(icon)
    if (manifest !== undefined) {
      const manifestIcons = list(manifest["icons"]).filter(isRecord)
        .map((icon) => ({ url: urlOf(icon["src"], signals.manifestUrl!), size: Number(/(\d+)x\d+/.exec(String(icon["sizes"] ?? ""))?.[1] ?? 0) }))
        .filter((icon): icon is { url: string; size: number } => icon.url !== undefined)
        .sort((a, b) => b.size - a.size)
      for (const icon of manifestIcons) push({ url: icon.url, source: "manifest", declaredSize: icon.size })
    }
    if (!candidates.some((c) => ICON_SOURCES.has(c.source))) push({ url: new URL("/favicon.ico", pageUrl).href, source: "favicon" })

    const fetches = options.maxSpeed === true ? 4 : MAX_LOGO_FETCHES
    const fetched = yield* bounded(
      Effect.map(Effect.forEach(candidates.slice(0, fetches), fetchImage, { concurrency: 4 }), (all) => all.flatMap(Option.toArray)),
      [] as Array<Fetched>,
      0.8
    )

    const assets = new Map<string, Asset>()
    const logos: Array<Logo> = []
    for (const image of fetched) {
      const asset = assetOf(image)
      if (assets.has(asset.sha256)) continue
      assets.set(asset.sha256, asset)
      const res = resolution(image.facts)
      const squareish = res.aspect_ratio >= 0.9 && res.aspect_ratio <= 1.1
      const type = ICON_SOURCES.has(image.candidate.source) || squareish && Math.max(res.width, res.height) <= 512 ? "icon" : "logo"
      logos.push({
        url: image.candidate.inline === undefined ? image.candidate.url : pageUrl,
        asset: { sha256: asset.sha256, ext: asset.ext },
        type,
        mode: modeOf(image.facts),
        resolution: res,
        colors: image.facts.palette.map(named)
      })
    }
    // Logos before icons, each in relevance order, SVGs ahead of their raster twins.
    const orderedLogos = svgFirst([...logos.filter((l) => l.type === "logo"), ...logos.filter((l) => l.type === "icon")])

    // Backdrops: the page's sharing images.
    const og = metadata.openGraph ?? {}
    const tw = metadata.twitter ?? {}
    const backdropUrls = [...new Set([og["image"], og["image:url"], og["image:secure_url"], tw["image"], tw["image:src"], urlOf(org("image"), pageUrl)]
      .map((u) => (typeof u === "string" ? urlOf(u, pageUrl) : undefined)).filter((u): u is string => u !== undefined))].slice(0, MAX_BACKDROPS)
    const backdropImages = yield* bounded(
      Effect.map(Effect.forEach(backdropUrls, (url) => fetchImage({ url, source: "named" }), { concurrency: 2 }), (all) => all.flatMap(Option.toArray)),
      [] as Array<Fetched>,
      0.9
    )
    const backdrops: Array<Backdrop> = []
    for (const image of backdropImages) {
      const asset = assetOf(image)
      assets.set(asset.sha256, asset)
      backdrops.push({ url: image.candidate.url, asset: { sha256: asset.sha256, ext: asset.ext }, resolution: resolution(image.facts), colors: image.facts.palette.slice(0, 3).map(named) })
    }

    // Colors: the site's own theme signals, then its style sheets' accents; then the main logo's pixels.
    const colors: Array<NamedColor & { source: "site" | "logo" }> = []
    const lightTheme = signals.themeColors.filter((t) => !/prefers-color-scheme\s*:\s*dark/i.test(t.media ?? ""))
    for (const theme of [...lightTheme.map((t) => t.value), text(manifest?.["theme_color"]), text(manifest?.["background_color"])]) {
      const rgb = theme === undefined ? undefined : parseColor(theme)
      if (rgb !== undefined) addColor(colors, { ...named(rgb), source: "site" })
    }
    // Rendered pages: the buttons' computed backgrounds first (set by script or inline, never in a style sheet's text).
    for (const accent of accentsOf(computed).slice(0, 2)) addColor(colors, { ...named(accent), source: "site" })
    for (const accent of cssAccents(signals.css).slice(0, 3)) addColor(colors, { ...named(accent), source: "site" })
    const mainLogo = orderedLogos.find((l) => l.type === "logo") ?? orderedLogos[0]
    for (const color of mainLogo?.colors ?? []) addColor(colors, { ...color, source: "logo" })

    // Title, description, slogan.
    const hints = [target.domain.replace(/^www\./, "").split(".")[0] ?? "", text(manifest?.["short_name"]) ?? "", text(metadata.siteName) ?? ""].map(squash).filter((h) => h !== "")
    const [titleStem, titleRest] = splitTitle(metadata.title ?? "", hints)
    const title = text(org("name")) ?? text(metadata.siteName) ?? text(manifest?.["name"]) ?? (titleStem === "" ? undefined : titleStem)
    const description = text(org("description")) ?? metadata.description
    const h1 = signals.h1 !== undefined && signals.h1.length <= 120 && signals.h1 !== title ? signals.h1 : undefined
    const slogan = text(org("slogan")) ?? titleRest ?? h1

    // Socials: sameAs first, then the page's anchors.
    const anchors = readAnchors(signals.anchors, pageUrl)
    const socials: Array<{ type: SocialType; url: string }> = []
    for (const same of list(org("sameAs"))) {
      const url = urlOf(same, pageUrl)
      const type = url === undefined ? undefined : socialOf(url)
      if (url !== undefined && type !== undefined && !socials.some((s) => s.type === type)) socials.push({ type, url })
    }
    for (const [type, url] of anchors.socials) if (!socials.some((s) => s.type === type)) socials.push({ type, url })

    const contactPoints = list(org("contactPoint")).filter(isRecord)
    const email = text(org("email"))?.replace(/^mailto:/i, "") ?? contactPoints.map((c) => text(c["email"])).find((e) => e !== undefined)?.replace(/^mailto:/i, "") ?? anchors.email
    const phone = text(org("telephone")) ?? contactPoints.map((c) => text(c["telephone"])).find((t) => t !== undefined) ?? anchors.phone
    const address = addressOf(org("address") ?? (isRecord(org("location")) ? (org("location") as Json)["address"] : undefined))
    const stock = stockOf(org("tickerSymbol"))
    const employees = employeesOf(org("numberOfEmployees"))
    const language = languageOf(metadata.language)

    // Industries: the NAICS classifier on the home page, through the NAICS→EIC table.
    const evidence = { domain: target.domain, pages: [CompanyEvidence.fromHtml(pageUrl, html)] }
    const ranked = NaicsClassifier.classify(evidence, { maxResults: 3 })
    const eic: Array<{ industry: string; subindustry: string }> = []
    for (const code of ranked.slice(0, 2)) {
      if (code !== ranked[0] && code.confidence === "low") continue
      const pair = eicOf(code.code)
      if (pair !== undefined && !eic.some((p) => p.subindustry === pair.subindustry)) eic.push(pair)
    }

    const brand: Brand = {
      domain: target.domain,
      ...(title === undefined ? {} : { title }),
      ...(description === undefined ? {} : { description }),
      ...(slogan === undefined ? {} : { slogan }),
      logos: orderedLogos,
      colors,
      backdrops,
      socials,
      links: Object.fromEntries(anchors.links),
      ...(email === undefined ? {} : { email }),
      ...(phone === undefined ? {} : { phone }),
      ...(address === undefined ? {} : { address }),
      ...(language === undefined ? {} : { primary_language: language }),
      ...(eic.length === 0 ? {} : { industries: { eic } }),
      ...(stock === undefined ? {} : { stock }),
      ...(employees === undefined ? {} : { employees }),
      is_nsfw: signals.rating !== undefined && NSFW_RATINGS.test(signals.rating.trim())
    }
    if (partial && options.timeoutBehavior !== "return-partial") return yield* timedOut()
    return { brand, assets: [...assets.values()], rendered, ...(partial ? { partial } : {}) }
  })

const iconRank = (candidate: LogoCandidate): number =>
  candidate.source === "apple-touch-icon" ? 0 : candidate.source === "icon" ? 1 : candidate.source === "manifest" ? 2 : candidate.source === "mask-icon" ? 3 : 4
