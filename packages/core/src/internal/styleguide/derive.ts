/**
 * From the facts read in the page (`collect.ts`) to the styleguide and the font report: pure functions, so every rule
 * (which button is primary, what the accent is, how spacing is scaled, how a hashed family name reads) is tested
 * without a browser.
 */
import type * as Styleguide from "../../Styleguide.js"
import type { BoxStyle, CardCandidate, Control, FontFace, PageColor, PageFacts } from "./collect.js"
import { googleFontCategory } from "./googleFonts.js"

// ---------------------------------------------------------------------------------------------------------------------
// Colors

const channels = (hex: string): [number, number, number] => [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16)) as [number, number, number]

/** HSL saturation and lightness (0 to 1) of `#rrggbb`. */
export const saturationOf = (hex: string): { readonly saturation: number; readonly lightness: number } => {
  const [r, g, b] = channels(hex).map((n) => n / 255) as [number, number, number]
  const max = Math.max(r, g, b)
  const min = Math.min(r, g, b)
  const lightness = (max + min) / 2
  const saturation = max === min ? 0 : (max - min) / (1 - Math.abs(2 * lightness - 1))
  return { saturation, lightness }
}

/** WCAG relative luminance of `#rrggbb` (0 black to 1 white). */
export const luminanceOf = (hex: string): number => {
  const [r, g, b] = channels(hex).map((n) => {
    const c = n / 255
    return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4
  }) as [number, number, number]
  return 0.2126 * r + 0.7152 * g + 0.0722 * b
}

/** A color as the API writes it: `#rrggbb`, or `#rrggbbaa` when it is not opaque. */
export const hexOf = (color: PageColor): string =>
  color.alpha >= 1 ? color.hex : color.hex + Math.round(color.alpha * 255).toString(16).padStart(2, "0")

/** A color that reads as a brand color: clearly saturated, neither near black nor near white. */
const isVivid = (color: PageColor) => {
  if (color.alpha < 0.5) return false
  const { lightness, saturation } = saturationOf(color.hex)
  return saturation >= 0.35 && lightness >= 0.15 && lightness <= 0.85
}

/** Whether a box paints its own background (a filled button or card), other than the page's. */
const isFilled = (color: PageColor, page: string) => color.alpha >= 0.5 && color.hex !== page

/**
 * The page's background: the body's when painted, else the root's, else the outermost opaque box covering the page
 * (an app's wrapper), else the canvas of its color scheme.
 */
export const backgroundOf = (facts: PageFacts): string => {
  if (facts.bodyBackground.alpha > 0) return facts.bodyBackground.hex
  if (facts.htmlBackground.alpha > 0) return facts.htmlBackground.hex
  if (facts.surfaceBackground !== undefined) return facts.surfaceBackground.hex
  return /\bdark\b/.test(facts.colorScheme) && !/\blight\b/.test(facts.colorScheme) ? "#121212" : "#ffffff"
}

/**
 * The accent: the vivid color the page uses most for action and emphasis. Filled buttons weigh most (their
 * background), then links and outlined buttons (their text), headings and the `theme-color`; without any vivid
 * color, the text color.
 */
export const accentOf = (facts: PageFacts, background: string, text: string): string => {
  const votes = new Map<string, number>()
  const vote = (color: PageColor | undefined, weight: number) => {
    if (color !== undefined && isVivid(color) && color.hex !== background) votes.set(color.hex, (votes.get(color.hex) ?? 0) + weight)
  }
  for (const control of facts.controls) {
    if (isFilled(control.backgroundColor, background)) vote(control.backgroundColor, 3)
    else vote(control.color, control.kind === "link" ? 1 : 2)
    if (control.borderStyle !== "none" && parseFloat(control.borderWidth) > 0) vote(control.borderColor, 1)
  }
  for (const color of facts.headingColors) vote(color, 0.5)
  vote(facts.themeColor, 2)
  let best: string | undefined
  let bestVotes = 0
  for (const [hex, count] of votes) {
    if (count > bestVotes) [best, bestVotes] = [hex, count]
  }
  return best ?? text
}

// ---------------------------------------------------------------------------------------------------------------------
// Fonts

const GENERIC = new Set([
  "serif", "sans-serif", "monospace", "cursive", "fantasy", "system-ui", "ui-serif", "ui-sans-serif", "ui-monospace",
  "ui-rounded", "math", "emoji", "fangsong", "-apple-system", "blinkmacsystemfont", "inherit", "initial", "unset"
])

/** The families of a computed `font-family` stack, unquoted, in order. */
export const familiesOf = (stack: string): Array<string> => {
  const families: Array<string> = []
  let current = ""
  let quote: string | undefined
  for (const char of stack) {
    if (quote !== undefined) {
      if (char === quote) quote = undefined
      else current += char
    } else if (char === "\"" || char === "'") quote = char
    else if (char === ",") {
      families.push(current.trim())
      current = ""
    } else current += char
  }
  families.push(current.trim())
  return families.filter((family) => family !== "")
}

/** Whether a family is a CSS generic family (never a font to download). */
export const isGeneric = (family: string) => GENERIC.has(family.toLowerCase())

/**
 * A readable name for a self-hosted family as build tools rename it: build and hash suffixes dropped
 * (`__Inter_a64ecd`, `inter-var.3f9a2c`), camelCase and PascalCase split (`BrandSans` -> `Brand Sans`, `GTWalsheim`
 * -> `GT Walsheim`), separators made spaces.
 */
export const displayNameOf = (family: string): string => {
  let name = family.trim().replace(/^_+/, "")
  // Hash or build suffixes: a run of hex of 5+ characters containing a digit, or a version.
  name = name.replace(/[._-](?=[0-9a-f]*\d)[0-9a-f]{5,}$/i, "").replace(/[._-]v?\d+(\.\d+)+$/i, "")
  name = name.replace(/[_\-.+]+/g, " ")
  name = name.replace(/([a-z\d])([A-Z])/g, "$1 $2").replace(/([A-Z]+)([A-Z][a-z])/g, "$1 $2")
  name = name.replace(/\s+/g, " ").trim()
  return name === "" ? family : name
}

const WEIGHT_WORDS: Record<string, string> = { normal: "400", bold: "700", lighter: "300", bolder: "700" }

/** The upright weights a `font-weight` declaration covers (`400`, `bold`, a variable range `100 900`). */
export const weightsOf = (declared: string): Array<string> => {
  const words = declared.trim().toLowerCase().split(/\s+/).map((word) => WEIGHT_WORDS[word] ?? word)
  const numbers = words.map(Number).filter((n) => Number.isFinite(n) && n >= 1 && n <= 1000)
  if (numbers.length === 0) return ["400"]
  if (numbers.length === 1) return [String(Math.round(numbers[0]!))]
  const [low, high] = [Math.min(...numbers), Math.max(...numbers)]
  const weights: Array<string> = []
  for (let weight = Math.ceil(low / 100) * 100; weight <= high; weight += 100) weights.push(String(weight))
  return weights.length === 0 ? [String(Math.round(low))] : weights
}

/** The best file of a face: WOFF2, then WOFF, then TrueType/OpenType, then the first. */
const bestSource = (src: ReadonlyArray<string>): string | undefined =>
  src.find((url) => /\.woff2(\?|#|$)/i.test(url)) ?? src.find((url) => /\.woff(\?|#|$)/i.test(url)) ??
    src.find((url) => /\.(ttf|otf)(\?|#|$)/i.test(url)) ?? src[0]

const isGoogleFile = (url: string) => /^https?:\/\/fonts\.gstatic\.com\//i.test(url)

/** The families and upright weights a Google Fonts CSS URL asks for (`css2?family=Inter:wght@400;700`, `css?family=Inter:400,700|Lato`). */
export const googleLinkFamilies = (href: string): Array<{ readonly family: string; readonly weights: Array<string> }> => {
  let url: URL
  try {
    url = new URL(href)
  } catch {
    return []
  }
  const css2 = /\/css2\b/.test(url.pathname)
  const specs = css2 ? url.searchParams.getAll("family") : url.searchParams.getAll("family").flatMap((value) => value.split("|"))
  return specs.slice(0, 50).flatMap((spec) => {
    const [rawName, axes] = spec.split(":", 2) as [string, string | undefined]
    const family = rawName.replace(/\+/g, " ").trim()
    if (family === "") return []
    if (axes === undefined || axes === "") return [{ family, weights: ["400"] }]
    const weights = new Set<string>()
    if (css2) {
      // `wght@400;700`, `ital,wght@0,400;1,700` (upright only), `wght@100..900`.
      const [names, tuples] = axes.split("@", 2) as [string, string | undefined]
      const axisNames = names.split(",")
      const wghtAt = axisNames.indexOf("wght")
      const italAt = axisNames.indexOf("ital")
      for (const tuple of (tuples ?? "").split(";")) {
        const values = tuple.split(",")
        if (italAt >= 0 && values[italAt] === "1") continue
        const weight = wghtAt >= 0 ? values[wghtAt] : undefined
        if (weight === undefined) weights.add("400")
        else for (const w of weightsOf(weight.replace("..", " "))) weights.add(w)
      }
    } else {
      // `400,700italic,900`: upright entries only.
      for (const variant of axes.split(",")) {
        const match = /^(\d{3}|regular|bold)?(i|italic)?$/i.exec(variant.trim())
        if (match === null || match[2] !== undefined) continue
        weights.add(match[1] === undefined || match[1] === "regular" ? "400" : match[1] === "bold" ? "700" : match[1])
      }
    }
    return [{ family, weights: [...(weights.size === 0 ? new Set(["400"]) : weights)].slice(0, 20) }]
  })
}

/** The Google Fonts CSS URL of one family at one upright weight (what a link gives when its files cannot be read). */
const googleCssUrl = (family: string, weight: string) =>
  `https://fonts.googleapis.com/css2?family=${encodeURIComponent(family).replace(/%20/g, "+")}:wght@${weight}&display=swap`

/**
 * `fontLinks`: the downloadable families the page uses (every non-generic family of a font stack seen), each with its
 * upright files by weight. Google Fonts families come from their links (the real files when Google's CSS could be
 * read, else the family's CSS URL per weight) and from `@font-face` rules serving `fonts.gstatic.com` files; the
 * others are `custom`, with a display name.
 */
export const fontLinksOf = (facts: PageFacts): Record<string, Styleguide.FontLinks> => {
  // Family names match case-insensitively (as in CSS); the key is the name as the page's stacks spell it.
  const used = new Map<string, string>()
  for (const stack of facts.stacks) {
    for (const family of familiesOf(stack)) if (!isGeneric(family) && !used.has(family.toLowerCase())) used.set(family.toLowerCase(), family)
  }
  const links: Record<string, Styleguide.FontLinks> = {}
  const add = (family: string, type: "google" | "custom", weight: string, url: string) => {
    const key = used.get(family.toLowerCase())
    if (key === undefined) return
    const entry = links[key] ?? (links[key] = type === "google"
      ? { files: {}, type, ...withCategory(family) }
      : { files: {}, type, displayName: displayNameOf(key) })
    if (Object.keys(entry.files).length < 20 && entry.files[weight] === undefined) (entry.files as Record<string, string>)[weight] = url
  }
  const addFace = (face: FontFace, google: boolean) => {
    if (!/^normal$/i.test(face.style.trim())) return
    const url = bestSource(face.src)
    if (url === undefined || face.family === "") return
    for (const weight of weightsOf(face.weight)) add(face.family, google || isGoogleFile(url) ? "google" : "custom", weight, url)
  }
  for (const href of facts.googleFontLinks) {
    // Later @font-face blocks of a Google sheet are the latin subset: they take the weight's slot first.
    const faces = [...(facts.googleFontFaces[href] ?? [])].reverse()
    for (const face of faces) addFace(face, true)
    for (const { family, weights } of googleLinkFamilies(href)) {
      for (const weight of weights) add(family, "google", weight, googleCssUrl(family, weight))
    }
  }
  for (const face of facts.fontFaces) addFace(face, false)
  return links
}

const withCategory = (family: string): { category?: string } => {
  const category = googleFontCategory(family)
  return category === undefined ? {} : { category }
}

/**
 * The font report: one entry per first family of the stacks that carry text, with its elements and words (and their
 * shares of the page's, in percent with two decimals), the rest of its most used stack as fallbacks, and the element
 * types using it; most words first.
 */
export const fontsOf = (facts: PageFacts): Array<Styleguide.Font> => {
  const byFamily = new Map<string, { elements: number; words: number; tags: Set<string>; stacks: Map<string, number> }>()
  for (const use of facts.fonts) {
    const families = familiesOf(use.stack)
    const font = families[0] ?? "serif"
    const entry = byFamily.get(font) ?? { elements: 0, words: 0, tags: new Set<string>(), stacks: new Map<string, number>() }
    entry.elements += use.elements
    entry.words += use.words
    for (const tag of use.tags) entry.tags.add(tag)
    entry.stacks.set(use.stack, (entry.stacks.get(use.stack) ?? 0) + use.words)
    byFamily.set(font, entry)
  }
  const totalElements = [...byFamily.values()].reduce((sum, entry) => sum + entry.elements, 0)
  const totalWords = [...byFamily.values()].reduce((sum, entry) => sum + entry.words, 0)
  const share = (part: number, whole: number) => (whole === 0 ? 0 : Math.round((part / whole) * 10_000) / 100)
  return [...byFamily].map(([font, entry]) => {
    const stack = [...entry.stacks].sort((a, b) => b[1] - a[1])[0]![0]
    return {
      font,
      fallbacks: familiesOf(stack).slice(1),
      num_elements: entry.elements,
      num_words: entry.words,
      percent_elements: share(entry.elements, totalElements),
      percent_words: share(entry.words, totalWords),
      uses: [...entry.tags].sort()
    }
  }).sort((a, b) => b.num_words - a.num_words || b.num_elements - a.num_elements || a.font.localeCompare(b.font))
}

// ---------------------------------------------------------------------------------------------------------------------
// Typography, components, scales

const weightNumber = (weight: string) => {
  const n = Number(WEIGHT_WORDS[weight] ?? weight)
  return Number.isFinite(n) ? n : 400
}

const typographyOf = (box: BoxStyle): Styleguide.TextStyle => {
  const families = familiesOf(box.fontFamily)
  return {
    fontFamily: families[0] ?? "serif",
    fontFallbacks: families,
    fontSize: box.fontSize,
    fontWeight: weightNumber(box.fontWeight),
    lineHeight: box.lineHeight,
    letterSpacing: box.letterSpacing
  }
}

/** A border that takes room (a transparent one too: it keeps a button's size), and one that shows. */
const hasBorderBox = (box: BoxStyle) => box.borderStyle !== "none" && box.borderStyle !== "hidden" && parseFloat(box.borderWidth) > 0
const hasBorder = (box: BoxStyle) => hasBorderBox(box) && box.borderColor.alpha > 0

/** What makes two controls look alike: the members a reader would see. */
const signatureOf = (box: BoxStyle) =>
  [box.backgroundColor.hex, box.backgroundColor.alpha, box.color.hex, box.borderStyle, box.borderWidth, box.borderColor.hex, box.borderRadius, box.padding, box.fontSize, box.fontWeight].join("|")

/** Controls grouped by look, in the order each look first appears. */
const clusters = <B extends BoxStyle>(boxes: ReadonlyArray<B>): Array<Array<B>> => {
  const groups = new Map<string, Array<B>>()
  for (const box of boxes) {
    const key = signatureOf(box)
    const group = groups.get(key)
    if (group === undefined) groups.set(key, [box])
    else group.push(box)
  }
  return [...groups.values()]
}

const cssBlock = (declarations: ReadonlyArray<readonly [string, string | undefined]>) =>
  declarations.filter(([, value]) => value !== undefined && value !== "").map(([name, value]) => `${name}: ${value};`).join(" ")

const buttonOf = (group: ReadonlyArray<Control>): Styleguide.ButtonStyle => {
  const box = group[0]!
  const families = familiesOf(box.fontFamily)
  const minWidth = `${Math.min(...group.map((control) => control.width))}px`
  const minHeight = `${Math.min(...group.map((control) => control.height))}px`
  const decorationColor = box.textDecorationLine !== "none" && box.textDecorationColor.hex !== box.color.hex ? hexOf(box.textDecorationColor) : undefined
  const fontFamily = box.fontFamily
  return {
    backgroundColor: hexOf(box.backgroundColor),
    borderColor: hexOf(box.borderColor),
    borderRadius: box.borderRadius,
    borderStyle: box.borderStyle,
    borderWidth: box.borderWidth,
    boxShadow: box.boxShadow,
    color: hexOf(box.color),
    css: cssBlock([
      ["background-color", hexOf(box.backgroundColor)],
      ["color", hexOf(box.color)],
      ["font-family", fontFamily],
      ["font-size", box.fontSize],
      ["font-weight", String(weightNumber(box.fontWeight))],
      ["padding", box.padding],
      ["border", hasBorderBox(box) ? `${box.borderWidth} ${box.borderStyle} ${hexOf(box.borderColor)}` : "none"],
      ["border-radius", box.borderRadius],
      ["box-shadow", box.boxShadow],
      ["text-decoration", box.textDecorationLine + (decorationColor === undefined ? "" : ` ${decorationColor}`)],
      ["min-height", minHeight]
    ]),
    fontSize: box.fontSize,
    fontWeight: weightNumber(box.fontWeight),
    minHeight,
    minWidth,
    padding: box.padding,
    textDecoration: box.textDecorationLine,
    ...(families.length === 0 ? {} : { fontFallbacks: families, fontFamily: families[0]! }),
    ...(decorationColor === undefined ? {} : { textDecorationColor: decorationColor })
  }
}

/**
 * The buttons, among controls with a label: `primary` is the most saturated filled look (the more frequent of
 * equals, then the first); `secondary` the most frequent other button look, outlined or neutral; `link` the most
 * frequent look of links drawn as text, content links ahead of navigation.
 */
export const buttonsOf = (facts: PageFacts, background: string): Styleguide.Buttons => {
  // Icon-only controls (a menu toggle, a close cross) are not the page's buttons.
  const labelled = facts.controls.filter((control) => control.labelled)
  const buttonLike = labelled.filter((control) =>
    control.kind === "button" || isFilled(control.backgroundColor, background) || hasBorder(control))
  const filled = clusters(buttonLike.filter((control) => isFilled(control.backgroundColor, background)))
  const ranked = [...filled].sort((a, b) =>
    saturationOf(b[0]!.backgroundColor.hex).saturation - saturationOf(a[0]!.backgroundColor.hex).saturation || b.length - a.length)
  const primary = ranked[0]
  const others = clusters(buttonLike).filter((group) => primary === undefined || signatureOf(group[0]!) !== signatureOf(primary[0]!))
  const secondary = [...others].sort((a, b) => b.length - a.length)[0]
  const textLinks = labelled.filter((control) => control.kind === "link" && !buttonLike.includes(control))
  const content = textLinks.filter((control) => !control.chrome)
  const linkGroups = clusters(content.length > 0 ? content : textLinks).sort((a, b) => b.length - a.length)
  return {
    ...(primary === undefined ? {} : { primary: buttonOf(primary) }),
    ...(secondary === undefined ? {} : { secondary: buttonOf(secondary) }),
    ...(linkGroups[0] === undefined ? {} : { link: buttonOf(linkGroups[0]) })
  }
}

/** The card: the most frequent look among padded, set-off boxes, those holding a heading first. */
export const cardOf = (cards: ReadonlyArray<CardCandidate>): Styleguide.CardStyle | undefined => {
  const withHeading = cards.filter((card) => card.hasHeading)
  const groups = clusters(withHeading.length > 0 ? withHeading : cards).sort((a, b) => b.length - a.length)
  const box = groups[0]?.[0]
  if (box === undefined) return undefined
  return {
    backgroundColor: hexOf(box.backgroundColor),
    borderColor: hexOf(box.borderColor),
    borderRadius: box.borderRadius,
    borderStyle: box.borderStyle,
    borderWidth: box.borderWidth,
    boxShadow: box.boxShadow,
    css: cssBlock([
      ["background-color", hexOf(box.backgroundColor)],
      ["color", hexOf(box.color)],
      ["padding", box.padding],
      ["border", hasBorderBox(box) ? `${box.borderWidth} ${box.borderStyle} ${hexOf(box.borderColor)}` : "none"],
      ["border-radius", box.borderRadius],
      ["box-shadow", box.boxShadow]
    ]),
    padding: box.padding,
    textColor: hexOf(box.color)
  }
}

/** The spacing scale: the 10th, 30th, 50th, 70th and 90th percentiles of the margins, paddings and gaps sampled. */
export const spacingOf = (values: ReadonlyArray<number>): Styleguide.ElementSpacing => {
  const sorted = values.filter((n) => n > 0 && n <= 400).sort((a, b) => a - b)
  if (sorted.length === 0) return { xs: "4px", sm: "8px", md: "16px", lg: "24px", xl: "32px" }
  const at = (q: number) => `${sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]}px`
  return { xs: at(0.1), sm: at(0.3), md: at(0.5), lg: at(0.7), xl: at(0.9) }
}

/** The blur radius of a shadow's first layer (its size on screen). */
const blurOf = (shadow: string) => {
  const lengths = shadow.replace(/rgba?\([^)]*\)|#[0-9a-f]+|[a-z]+\([^)]*\)/gi, " ").match(/-?\d*\.?\d+px/g) ?? []
  return lengths.length >= 3 ? parseFloat(lengths[2]!) : 0
}

/**
 * The shadow scale: the distinct outer shadows ordered by blur, spread over sm, md, lg and xl (the smallest and the
 * largest at the ends); `inner` the most used inset shadow; `none` where the page has none.
 */
export const shadowsOf = (values: ReadonlyArray<string>): Styleguide.Shadows => {
  const counts = new Map<string, number>()
  for (const value of values) counts.set(value, (counts.get(value) ?? 0) + 1)
  const distinct = [...counts.keys()]
  const inset = distinct.filter((value) => /\binset\b/.test(value)).sort((a, b) => counts.get(b)! - counts.get(a)!)
  const outer = distinct.filter((value) => !/\binset\b/.test(value)).sort((a, b) => blurOf(a) - blurOf(b))
  const pick = (q: number) => (outer.length === 0 ? "none" : outer[Math.round(q * (outer.length - 1))]!)
  return { sm: pick(0), md: pick(1 / 3), lg: pick(2 / 3), xl: pick(1), inner: inset[0] ?? "none" }
}

/** The styleguide of a page's facts. */
export const styleguideOf = (facts: PageFacts): Styleguide.Styleguide => {
  const background = backgroundOf(facts)
  // The text on that background: the wrapper's when the wrapper is the page.
  const wrapped = facts.bodyBackground.alpha === 0 && facts.htmlBackground.alpha === 0 && facts.surfaceColor !== undefined
  const text = wrapped ? facts.surfaceColor!.hex : facts.bodyColor.hex
  const card = cardOf(facts.cards)
  const t = facts.typography
  return {
    colors: { accent: accentOf(facts, background, text), background, text },
    mode: luminanceOf(background) < 0.2 ? "dark" : "light",
    typography: {
      headings: {
        ...(t.h1 === undefined ? {} : { h1: typographyOf(t.h1) }),
        ...(t.h2 === undefined ? {} : { h2: typographyOf(t.h2) }),
        ...(t.h3 === undefined ? {} : { h3: typographyOf(t.h3) }),
        ...(t.h4 === undefined ? {} : { h4: typographyOf(t.h4) })
      },
      ...(t.p === undefined ? {} : { p: typographyOf(t.p) })
    },
    elementSpacing: spacingOf(facts.spacing),
    shadows: shadowsOf(facts.shadows),
    components: { button: buttonsOf(facts, background), ...(card === undefined ? {} : { card }) },
    fontLinks: fontLinksOf(facts)
  }
}
