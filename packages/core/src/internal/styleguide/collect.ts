/**
 * What a styleguide and a font report are made of, read in the rendered page: computed styles of the elements that
 * carry a design (body, headings, paragraphs, buttons, links, cards), samples of spacing and shadows, the fonts of
 * every text-bearing element with its words, and the fonts the page declares (`@font-face` rules of the CSSOM,
 * Google Fonts links). `collectInPage` runs in the browser (`RenderSession.evaluate`): it is self-contained and every
 * read is bounded by `CollectLimits`, so a page with a million elements or rules costs a known amount.
 */

// Functions passed to `page.evaluate` run in the browser; these names are the page's globals (core has no DOM types).
declare const document: any
declare const window: any
declare const getComputedStyle: (element: any, pseudo?: string | null) => any
declare const NodeFilter: any
declare const AbortController: any
declare const fetch: (url: string, init: any) => Promise<any>
declare const setTimeout: (f: () => void, ms: number) => unknown
declare const TextDecoder: new() => { decode: (bytes: unknown, options?: { stream: boolean }) => string }

/** Bounds on what is read from the page. */
export interface CollectLimits {
  /** Elements looked at (document order, visible or not). */
  readonly maxElements: number
  /** Style-sheet rules walked for `@font-face` (nested rules of `@media`/`@supports` included). */
  readonly maxRules: number
  /** `@font-face` rules kept. */
  readonly maxFontFaces: number
  /** Characters kept of any string read (class names, font stacks, shadows, URLs). */
  readonly maxString: number
  /** Buttons, links and card candidates kept, each. */
  readonly maxControls: number
  /** Google Fonts style sheets read by their URL when the CSSOM does not expose them (milliseconds for all). */
  readonly googleCssMs: number
}

/** The default bounds. */
export const DEFAULT_LIMITS: CollectLimits = {
  maxElements: 4_000,
  maxRules: 10_000,
  maxFontFaces: 200,
  maxString: 400,
  maxControls: 200,
  googleCssMs: 1_500
}

/** A color read from the page: `#rrggbb` and its alpha (0 to 1). */
export interface PageColor {
  readonly hex: string
  readonly alpha: number
}

/** The computed styles kept of an element. */
export interface BoxStyle {
  readonly tag: string
  readonly fontFamily: string
  readonly fontSize: string
  readonly fontWeight: string
  readonly lineHeight: string
  readonly letterSpacing: string
  readonly color: PageColor
  readonly backgroundColor: PageColor
  readonly borderColor: PageColor
  readonly borderStyle: string
  readonly borderWidth: string
  readonly borderRadius: string
  readonly boxShadow: string
  readonly padding: string
  readonly textDecorationLine: string
  readonly textDecorationColor: PageColor
  readonly width: number
  readonly height: number
}

/** A clickable element: a button, or a link drawn as a button or as text. */
export interface Control extends BoxStyle {
  /** `button`: a button element, an input button or `role=button`; `link`: an `a` element. */
  readonly kind: "button" | "link"
  /** Inside `nav`, `header` or `footer`. */
  readonly chrome: boolean
  /** It shows a label (text, or an input button's value): icon-only controls (menus, close buttons) do not. */
  readonly labelled: boolean
}

/** A box that may be a card: padded, set off by a border, a shadow or its own background, holding text. */
export interface CardCandidate extends BoxStyle {
  readonly hasHeading: boolean
}

/** Words and elements of one computed font stack. */
export interface FontUse {
  readonly stack: string
  readonly elements: number
  readonly words: number
  readonly tags: ReadonlyArray<string>
}

/** An `@font-face` rule: family, weight and style as declared, and its source URLs (absolute). */
export interface FontFace {
  readonly family: string
  readonly weight: string
  readonly style: string
  readonly src: ReadonlyArray<string>
}

/** Everything read from the page. */
export interface PageFacts {
  readonly url: string
  readonly themeColor: PageColor | undefined
  readonly htmlBackground: PageColor
  readonly bodyBackground: PageColor
  readonly bodyColor: PageColor
  /**
   * The background of the outermost opaque box that covers the page (full width, at least the viewport's height):
   * an app's root wrapper, for pages whose body and root paint nothing.
   */
  readonly surfaceBackground: PageColor | undefined
  /** That box's text color. */
  readonly surfaceColor: PageColor | undefined
  /** The computed `color-scheme` of the root (`normal`, `light dark`, ...). */
  readonly colorScheme: string
  readonly typography: Readonly<Record<"h1" | "h2" | "h3" | "h4" | "p", BoxStyle | undefined>>
  readonly headingColors: ReadonlyArray<PageColor>
  readonly controls: ReadonlyArray<Control>
  readonly cards: ReadonlyArray<CardCandidate>
  /** Margins, paddings and gaps in px (non-zero, rounded), one per side and element sampled. */
  readonly spacing: ReadonlyArray<number>
  /** Computed `box-shadow` values other than `none`, one per element sampled. */
  readonly shadows: ReadonlyArray<string>
  readonly fonts: ReadonlyArray<FontUse>
  readonly fontFaces: ReadonlyArray<FontFace>
  /** `href`s of Google Fonts style sheets (links and `@import`s). */
  readonly googleFontLinks: ReadonlyArray<string>
  /** `@font-face` rules of Google Fonts style sheets, by the sheet's URL, when they could be read. */
  readonly googleFontFaces: Readonly<Record<string, ReadonlyArray<FontFace>>>
  /** Every font stack seen (computed `font-family`), so declared families can be matched to the ones used. */
  readonly stacks: ReadonlyArray<string>
}

/** Reads the page's design facts; runs in the browser. */
export const collectInPage = async (limits: CollectLimits): Promise<PageFacts> => {
  const cut = (value: unknown): string => String(value ?? "").slice(0, limits.maxString)
  // Colors in any syntax the page uses (oklch, color-mix...) become sRGB bytes by painting one pixel.
  const canvas = document.createElement("canvas")
  canvas.width = 1
  canvas.height = 1
  const context = canvas.getContext("2d", { willReadFrequently: true })
  const colors = new Map<string, { hex: string; alpha: number }>()
  const colorOf = (css: string): { hex: string; alpha: number } => {
    const known = colors.get(css)
    if (known !== undefined) return known
    let result = { hex: "#000000", alpha: 0 }
    if (context !== null && css !== "" && css !== "transparent") {
      context.clearRect(0, 0, 1, 1)
      context.fillStyle = "#000000"
      context.fillStyle = css
      context.fillRect(0, 0, 1, 1)
      const [r, g, b, a] = context.getImageData(0, 0, 1, 1).data
      const hex = "#" + [r, g, b].map((n: number) => n.toString(16).padStart(2, "0")).join("")
      result = { hex, alpha: Math.round((a / 255) * 100) / 100 }
    }
    if (colors.size < 2_000) colors.set(css, result)
    return result
  }
  const sides = (style: any, prefix: string): string => {
    const [top, right, bottom, left] = ["top", "right", "bottom", "left"].map((side) => style.getPropertyValue(`${prefix}-${side}`))
    if (top === right && top === bottom && top === left) return top
    if (top === bottom && right === left) return `${top} ${right}`
    if (right === left) return `${top} ${right} ${bottom}`
    return `${top} ${right} ${bottom} ${left}`
  }
  const sidesOf = (style: any, prefix: string, suffix: string): string => {
    const values = ["top", "right", "bottom", "left"].map((side) => style.getPropertyValue(`${prefix}-${side}-${suffix}`))
    return values.every((v) => v === values[0]) ? values[0] : values.join(" ")
  }
  const boxOf = (element: any, style: any): BoxStyle => {
    const rect = element.getBoundingClientRect()
    return {
      tag: element.tagName.toLowerCase(),
      fontFamily: cut(style.fontFamily),
      fontSize: style.fontSize,
      fontWeight: style.fontWeight,
      lineHeight: style.lineHeight,
      letterSpacing: style.letterSpacing,
      color: colorOf(style.color),
      backgroundColor: colorOf(style.backgroundColor),
      borderColor: colorOf(style.borderTopColor),
      borderStyle: style.borderTopStyle,
      borderWidth: sidesOf(style, "border", "width"),
      borderRadius: cut(style.borderRadius),
      boxShadow: cut(style.boxShadow),
      padding: sides(style, "padding"),
      textDecorationLine: style.textDecorationLine,
      textDecorationColor: colorOf(style.textDecorationColor),
      width: Math.round(rect.width),
      height: Math.round(rect.height)
    }
  }
  // Whether an element holds at least `chars` characters of text, looking at no more than 64 text nodes: a card or a
  // button wrapping the whole page must not cost a copy of all its text (textContent) for each element checked.
  const holdsText = (element: any, chars: number): boolean => {
    const walker = document.createTreeWalker(element, NodeFilter.SHOW_TEXT)
    let found = 0
    for (let i = 0; i < 64; i++) {
      const node = walker.nextNode()
      if (node === null) return false
      found += String(node.data).slice(0, chars).trim().length
      if (found >= chars) return true
    }
    return false
  }
  const visible = (element: any, style: any): boolean => {
    if (style.display === "none" || style.visibility === "hidden" || style.visibility === "collapse" || Number(style.opacity) === 0) return false
    // Boxes of a pixel or two are screen-reader-only text (the "sr-only" pattern), not what a reader sees.
    const rect = element.getBoundingClientRect()
    return rect.width > 2 && rect.height > 2
  }

  const root = document.documentElement
  const body = document.body ?? root
  const rootStyle = getComputedStyle(root)
  const bodyStyle = getComputedStyle(body)
  const themeMeta = [...document.querySelectorAll("meta[name='theme-color' i]")].find((meta: any) => {
    const media = meta.getAttribute("media")
    return media === null || window.matchMedia(media).matches
  })
  const themeColor = themeMeta === undefined ? undefined : colorOf(cut(themeMeta.getAttribute("content")).trim())

  const typography: Record<string, BoxStyle | undefined> = { h1: undefined, h2: undefined, h3: undefined, h4: undefined, p: undefined }
  const headingColors: Array<{ hex: string; alpha: number }> = []
  const controls: Array<Control> = []
  const cards: Array<CardCandidate> = []
  const spacing: Array<number> = []
  const shadows: Array<string> = []
  const stacks = new Set<string>()
  let surface: { hex: string; alpha: number } | undefined
  let surfaceColor: { hex: string; alpha: number } | undefined
  const fonts = new Map<string, { elements: number; words: number; tags: Set<string> }>()
  const cardTags = new Set(["div", "article", "section", "li", "aside", "figure", "a"])
  const skipped = new Set(["script", "style", "noscript", "template", "svg", "head", "meta", "link", "title"])

  const elements = body.getElementsByTagName("*")
  // The body is the first element looked at.
  const count = Math.min(elements.length, limits.maxElements - 1)
  for (let i = -1; i < count; i++) {
    const element = i < 0 ? body : elements[i]
    const tag = element.tagName.toLowerCase()
    if (skipped.has(tag)) continue
    const style = getComputedStyle(element)
    if (!visible(element, style)) continue
    if (stacks.size < 200) stacks.add(cut(style.fontFamily))
    // Text directly inside the element counts for its font.
    let words = 0
    for (const child of element.childNodes) {
      if (child.nodeType === 3) {
        const text = String(child.data).slice(0, 20_000).trim()
        if (text !== "") words += text.split(/\s+/).length
      }
    }
    if (words > 0 && fonts.size < 200) {
      const stack = cut(style.fontFamily)
      const entry = fonts.get(stack) ?? { elements: 0, words: 0, tags: new Set<string>() }
      entry.elements++
      entry.words += words
      if (entry.tags.size < 20) entry.tags.add(tag)
      fonts.set(stack, entry)
    }
    if (surface === undefined && i >= 0) {
      const background = colorOf(style.backgroundColor)
      if (background.alpha >= 0.5) {
        const rect = element.getBoundingClientRect()
        if (rect.width >= window.innerWidth * 0.9 && rect.height >= Math.min(window.innerHeight, root.scrollHeight) * 0.9) {
          surface = background
          surfaceColor = colorOf(style.color)
        }
      }
    }
    if (tag in typography && typography[tag] === undefined) typography[tag] = boxOf(element, style)
    if (/^h[1-6]$/.test(tag) && headingColors.length < limits.maxControls) headingColors.push(colorOf(style.color))
    const role = element.getAttribute("role")
    const type = tag === "input" ? String(element.getAttribute("type") ?? "").toLowerCase() : ""
    const isButton = tag === "button" || role === "button" || (tag === "input" && ["button", "submit", "reset"].includes(type))
    if ((isButton || tag === "a") && controls.length < limits.maxControls) {
      controls.push({
        ...boxOf(element, style),
        kind: tag === "a" && role !== "button" ? "link" : "button",
        chrome: element.closest("nav, header, footer") !== null,
        labelled: tag === "input" ? String(element.value ?? "").trim() !== "" : holdsText(element, 1)
      })
    }
    for (const prefix of ["margin", "padding"]) {
      for (const side of ["top", "right", "bottom", "left"]) {
        const px = parseFloat(style.getPropertyValue(`${prefix}-${side}`))
        if (px > 0 && spacing.length < 20_000) spacing.push(Math.round(px))
      }
    }
    const gap = parseFloat(style.rowGap)
    if (gap > 0 && spacing.length < 20_000) spacing.push(Math.round(gap))
    if (style.boxShadow !== "none" && shadows.length < 2_000) shadows.push(cut(style.boxShadow))
    if (cardTags.has(tag) && cards.length < limits.maxControls) {
      const padded = ["top", "right", "bottom", "left"].some((side) => parseFloat(style.getPropertyValue(`padding-${side}`)) >= 8)
      const bordered = parseFloat(style.borderTopWidth) > 0 && style.borderTopStyle !== "none"
      const shadowed = style.boxShadow !== "none"
      const filled = colorOf(style.backgroundColor).alpha > 0
      const rect = element.getBoundingClientRect()
      if (padded && (bordered || shadowed || filled) && rect.height >= 40 && rect.width < window.innerWidth * 0.9 && holdsText(element, 20)) {
        cards.push({ ...boxOf(element, style), hasHeading: element.querySelector("h1, h2, h3, h4, h5, h6") !== null })
      }
    }
  }

  // Declared fonts: `@font-face` rules of readable sheets, nested rules included, within `maxRules`.
  const fontFaces: Array<FontFace> = []
  const googleFontLinks: Array<string> = []
  const googleFontFaces: Record<string, Array<FontFace>> = {}
  const isGoogleCss = (href: string) => /^https?:\/\/fonts\.googleapis\.com\/css2?\b/i.test(href)
  const srcUrls = (src: string, base: string): Array<string> => {
    const urls: Array<string> = []
    for (const match of src.matchAll(/url\(\s*(['"]?)([^'")]+)\1\s*\)/g)) {
      if (urls.length >= 8) break
      try {
        const url = new URL(match[2], base)
        if (url.protocol === "http:" || url.protocol === "https:") urls.push(cut(url.href))
      } catch {
        // Not a URL: skipped.
      }
    }
    return urls
  }
  const faceOf = (rule: any, base: string): FontFace => ({
    family: cut(rule.style.getPropertyValue("font-family")).replace(/^['"]|['"]$/g, "").trim(),
    weight: cut(rule.style.getPropertyValue("font-weight") || "400"),
    style: cut(rule.style.getPropertyValue("font-style") || "normal"),
    src: srcUrls(String(rule.style.getPropertyValue("src")).slice(0, 4_000), base)
  })
  let rules = 0
  const walk = (list: any, base: string, into: Array<FontFace>) => {
    for (const rule of list) {
      if (++rules > limits.maxRules || into.length >= limits.maxFontFaces) return
      if (rule.type === 5 /* CSSRule.FONT_FACE_RULE */) into.push(faceOf(rule, base))
      else if (rule.type === 3 /* CSSRule.IMPORT_RULE */) {
        const href = cut(rule.href === undefined ? "" : new URL(rule.href, base).href)
        if (isGoogleCss(href) && googleFontLinks.length < 20) googleFontLinks.push(href)
        try {
          if (rule.styleSheet?.cssRules !== undefined) walk(rule.styleSheet.cssRules, rule.styleSheet.href ?? base, into)
        } catch {
          // A sheet of another origin: its rules are not readable.
        }
      } else if (rule.cssRules !== undefined) walk(rule.cssRules, base, into)
    }
  }
  for (const sheet of [...document.styleSheets].slice(0, 200)) {
    const base = sheet.href ?? document.baseURI
    const google = sheet.href !== null && isGoogleCss(sheet.href)
    if (google && googleFontLinks.length < 20) googleFontLinks.push(cut(sheet.href))
    try {
      const into: Array<FontFace> = google ? (googleFontFaces[cut(sheet.href)] = []) : fontFaces
      walk(sheet.cssRules, base, into)
    } catch {
      // A sheet of another origin: its rules are not readable.
    }
  }
  for (const link of [...document.querySelectorAll("link[href]")].slice(0, 200)) {
    const href = cut(link.href)
    if (isGoogleCss(href) && !googleFontLinks.includes(href) && googleFontLinks.length < 20) googleFontLinks.push(href)
  }
  // Google's CSS answers any origin: read it for the real file URLs when the CSSOM could not (a few, quickly).
  const unread = googleFontLinks.filter((href) => (googleFontFaces[href]?.length ?? 0) === 0).slice(0, 3)
  if (unread.length > 0) {
    const abort = new AbortController()
    const timer = setTimeout(() => abort.abort(), limits.googleCssMs)
    await Promise.all(unread.map(async (href) => {
      try {
        const response = await fetch(href, { signal: abort.signal, credentials: "omit" })
        if (!response.ok) return
        // At most 256 KiB of it is read (Google's answers are a few KiB).
        const reader = response.body.getReader()
        const decoder = new TextDecoder()
        let text = ""
        while (text.length < 256 * 1024) {
          const { done, value } = await reader.read()
          if (done) break
          text += decoder.decode(value, { stream: true })
        }
        reader.cancel().catch(() => undefined)
        const faces: Array<FontFace> = []
        // Google writes one block per subset, latin last: later blocks replace earlier ones of the same weight.
        for (const block of text.matchAll(/@font-face\s*\{([^}]*)\}/g)) {
          if (faces.length >= limits.maxFontFaces) break
          const declaration = (name: string) => new RegExp(`${name}\\s*:\\s*([^;]+)`, "i").exec(block[1])?.[1]?.trim() ?? ""
          faces.push({
            family: cut(declaration("font-family")).replace(/^['"]|['"]$/g, ""),
            weight: cut(declaration("font-weight") || "400"),
            style: cut(declaration("font-style") || "normal"),
            src: srcUrls(declaration("src"), href)
          })
        }
        googleFontFaces[href] = faces
      } catch {
        // Unreachable or too slow: the link alone is reported.
      }
    }))
    ;(globalThis as any).clearTimeout?.(timer)
  }

  return {
    url: cut(document.location.href),
    themeColor,
    htmlBackground: colorOf(rootStyle.backgroundColor),
    bodyBackground: colorOf(bodyStyle.backgroundColor),
    bodyColor: colorOf(bodyStyle.color),
    surfaceBackground: surface,
    surfaceColor,
    colorScheme: cut(rootStyle.colorScheme),
    typography: typography as PageFacts["typography"],
    headingColors,
    controls,
    cards,
    spacing,
    shadows,
    fonts: [...fonts].map(([stack, entry]) => ({ stack, elements: entry.elements, words: entry.words, tags: [...entry.tags] })),
    fontFaces,
    googleFontLinks,
    googleFontFaces,
    stacks: [...stacks]
  }
}
