import { describe, expect, it } from "@effect/vitest"
import type { PageFacts } from "../src/internal/styleguide/collect.js"
import * as Derive from "../src/internal/styleguide/derive.js"
import { googleFontCategory } from "../src/internal/styleguide/googleFonts.js"

const color = (hex: string, alpha = 1) => ({ hex, alpha })
const facts = (over: Partial<PageFacts>): PageFacts => ({
  url: "https://a.test/",
  themeColor: undefined,
  htmlBackground: color("#000000", 0),
  bodyBackground: color("#000000", 0),
  bodyColor: color("#222222"),
  surfaceBackground: undefined,
  surfaceColor: undefined,
  colorScheme: "normal",
  typography: { h1: undefined, h2: undefined, h3: undefined, h4: undefined, p: undefined },
  headingColors: [],
  controls: [],
  cards: [],
  spacing: [],
  shadows: [],
  fonts: [],
  fontFaces: [],
  googleFontLinks: [],
  googleFontFaces: {},
  stacks: [],
  ...over
})

describe("styleguide derivations", () => {
  it("display names of self-hosted families: hashes and builds dropped, words split", () => {
    expect(Derive.displayNameOf("__Inter_a64ecd")).toBe("Inter")
    expect(Derive.displayNameOf("BrandSans_4f2a9c1e")).toBe("Brand Sans")
    expect(Derive.displayNameOf("GTWalsheimPro")).toBe("GT Walsheim Pro")
    expect(Derive.displayNameOf("circular-std-book")).toBe("circular std book")
    expect(Derive.displayNameOf("SourceSerif4_v1.2.3")).toBe("Source Serif4")
    // A word that merely looks like hex stays (no digit in it).
    expect(Derive.displayNameOf("Acme_facade")).toBe("Acme facade")
  })

  it("font stacks: quoted and bare names, generics recognised", () => {
    expect(Derive.familiesOf(`"Playfair Display", 'Foo, Bar', Georgia, serif`)).toEqual(["Playfair Display", "Foo, Bar", "Georgia", "serif"])
    expect(["serif", "system-ui", "-apple-system"].every(Derive.isGeneric)).toBe(true)
    expect(Derive.isGeneric("Inter")).toBe(false)
  })

  it("weights: keywords, numbers, variable ranges", () => {
    expect(Derive.weightsOf("normal")).toEqual(["400"])
    expect(Derive.weightsOf("bold")).toEqual(["700"])
    expect(Derive.weightsOf("100 400")).toEqual(["100", "200", "300", "400"])
    expect(Derive.weightsOf("nonsense")).toEqual(["400"])
  })

  it("Google Fonts links: css2 axes (upright only, ranges) and the older css syntax", () => {
    expect(Derive.googleLinkFamilies("https://fonts.googleapis.com/css2?family=Inter:wght@400;700&family=Roboto+Mono&display=swap")).toEqual([
      { family: "Inter", weights: ["400", "700"] },
      { family: "Roboto Mono", weights: ["400"] }
    ])
    expect(Derive.googleLinkFamilies("https://fonts.googleapis.com/css2?family=Lora:ital,wght@0,500;1,700")).toEqual([{ family: "Lora", weights: ["500"] }])
    expect(Derive.googleLinkFamilies("https://fonts.googleapis.com/css2?family=Inter:wght@300..500")).toEqual([{ family: "Inter", weights: ["300", "400", "500"] }])
    expect(Derive.googleLinkFamilies("https://fonts.googleapis.com/css?family=Open+Sans:400,700italic,800|Lato")).toEqual([
      { family: "Open Sans", weights: ["400", "800"] },
      { family: "Lato", weights: ["400"] }
    ])
    expect(Derive.googleLinkFamilies("not a url")).toEqual([])
  })

  it("Google Fonts categories from the bundled table", () => {
    expect(googleFontCategory("Inter")).toBe("sans-serif")
    expect(googleFontCategory("playfair display")).toBe("serif")
    expect(googleFontCategory("Roboto Mono")).toBe("monospace")
    expect(googleFontCategory("Pacifico")).toBe("handwriting")
    expect(googleFontCategory("Lobster")).toBe("display")
    expect(googleFontCategory("BrandSans")).toBeUndefined()
  })

  it("fontLinks: Google's own files when its CSS was read (latin block, upright), only families in use", () => {
    const href = "https://fonts.googleapis.com/css2?family=Inter:wght@400"
    const links = Derive.fontLinksOf(facts({
      stacks: ["Inter, sans-serif"],
      googleFontLinks: [href],
      googleFontFaces: {
        [href]: [
          { family: "Inter", weight: "400", style: "normal", src: ["https://fonts.gstatic.com/s/inter/cyrillic.woff2"] },
          { family: "Inter", weight: "400", style: "italic", src: ["https://fonts.gstatic.com/s/inter/italic.woff2"] },
          { family: "Inter", weight: "400", style: "normal", src: ["https://fonts.gstatic.com/s/inter/latin.woff2"] }
        ]
      },
      fontFaces: [{ family: "Unused", weight: "400", style: "normal", src: ["https://a.test/unused.woff2"] }]
    }))
    expect(links).toEqual({ Inter: { type: "google", category: "sans-serif", files: { "400": "https://fonts.gstatic.com/s/inter/latin.woff2" } } })
  })

  it("fontLinks: keyed by the family as the page's stacks spell it (CSS matches names case-insensitively)", () => {
    const links = Derive.fontLinksOf(facts({
      stacks: ["\"Brand Grotesk\", sans-serif"],
      fontFaces: [{ family: "brand grotesk", weight: "400", style: "normal", src: ["https://a.test/g.woff2"] }]
    }))
    expect(links).toEqual({ "Brand Grotesk": { type: "custom", displayName: "Brand Grotesk", files: { "400": "https://a.test/g.woff2" } } })
  })

  it("fontLinks: a self-hosted face prefers WOFF2; a face served from fonts.gstatic.com is Google's", () => {
    const links = Derive.fontLinksOf(facts({
      stacks: ["Brand, Lato"],
      fontFaces: [
        { family: "Brand", weight: "400", style: "normal", src: ["https://a.test/b.ttf", "https://a.test/b.woff2", "https://a.test/b.woff"] },
        { family: "Lato", weight: "700", style: "normal", src: ["https://fonts.gstatic.com/s/lato/v1/bold.woff2"] }
      ]
    }))
    expect(links).toEqual({
      Brand: { type: "custom", displayName: "Brand", files: { "400": "https://a.test/b.woff2" } },
      Lato: { type: "google", category: "sans-serif", files: { "700": "https://fonts.gstatic.com/s/lato/v1/bold.woff2" } }
    })
  })

  it("colors: background falls back to the scheme's canvas; no vivid color makes the text the accent; mode from luminance", () => {
    const plain = Derive.styleguideOf(facts({}))
    expect(plain.colors).toEqual({ accent: "#222222", background: "#ffffff", text: "#222222" })
    expect(plain.mode).toBe("light")
    const dark = Derive.styleguideOf(facts({ colorScheme: "dark", bodyColor: color("#eeeeee"), themeColor: color("#3366ff") }))
    expect(dark.colors).toEqual({ accent: "#3366ff", background: "#121212", text: "#eeeeee" })
    expect(dark.mode).toBe("dark")
  })

  it("scales: defaults on a page without spacing or shadows; percentiles otherwise", () => {
    expect(Derive.spacingOf([])).toEqual({ xs: "4px", sm: "8px", md: "16px", lg: "24px", xl: "32px" })
    expect(Derive.spacingOf([4, 8, 8, 12, 16, 16, 16, 24, 32, 64])).toEqual({ xs: "8px", sm: "12px", md: "16px", lg: "24px", xl: "64px" })
    expect(Derive.shadowsOf([])).toEqual({ sm: "none", md: "none", lg: "none", xl: "none", inner: "none" })
    expect(Derive.hexOf(color("#ff0000", 0.5))).toBe("#ff000080")
  })

  it("fonts: shares in percent with two decimals, fallbacks of the most used stack", () => {
    const fonts = Derive.fontsOf(facts({
      fonts: [
        { stack: "Inter, Arial, sans-serif", elements: 2, words: 20, tags: ["p"] },
        { stack: "Inter, sans-serif", elements: 1, words: 1, tags: ["span"] },
        { stack: "Mono, monospace", elements: 1, words: 9, tags: ["code"] }
      ]
    }))
    expect(fonts).toEqual([
      { font: "Inter", fallbacks: ["Arial", "sans-serif"], num_elements: 3, num_words: 21, percent_elements: 75, percent_words: 70, uses: ["p", "span"] },
      { font: "Mono", fallbacks: ["monospace"], num_elements: 1, num_words: 9, percent_elements: 25, percent_words: 30, uses: ["code"] }
    ])
  })
})
