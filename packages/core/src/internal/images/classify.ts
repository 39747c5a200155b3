/**
 * The deterministic image classifier: a fixed order of rules over the decoded features (size, colours, alpha,
 * repetition), the image's place on the page and its names (file name and alt text). No model, so the same image on
 * the same page always gets the same class. The rules are documented in docs/api.md (Images).
 */
import type { Analysis } from "./analysis.js"

/** The classes of decisions §2. */
export type Classification = "photography" | "illustration" | "logo" | "wordmark" | "icon" | "pattern" | "graphic" | "other"

/** Where the image sits and what it is called. */
export interface Context {
  readonly url: string
  readonly alt: string
  /** Position among the page's images (0 = first in document order, after `og:image`). */
  readonly index: number
}

const LOGO_NAME = /(?:^|[^a-z])(?:logo|logotype|brand|brandmark)(?:[^a-z]|$)/
const WORDMARK_NAME = /(?:^|[^a-z])(?:wordmark|logotype)(?:[^a-z]|$)/
const ICON_NAME = /(?:^|[^a-z])(?:favicon|apple-touch-icon|icons?|glyph|sprite|emoji)(?:[^a-z]|$)/
const PATTERN_NAME = /(?:^|[^a-z])(?:pattern|texture|tile|tiled|seamless)(?:[^a-z]|$)/

/** The file name of a URL (a data URL has none) and the alt text, lower-cased: what the page calls the image. */
const namesOf = (context: Context): string => {
  let file = ""
  if (!context.url.startsWith("data:")) {
    try {
      file = decodeURIComponent(new URL(context.url).pathname.split("/").pop() ?? "")
    } catch {
      file = ""
    }
  }
  return `${file} ${context.alt}`.toLowerCase()
}

/** Classifies one decoded image. */
export const classify = (image: Analysis, context: Context): Classification => {
  const names = namesOf(context)
  const longSide = Math.max(image.width, image.height)
  const aspect = image.width / image.height
  const brandShape = (): Classification => (aspect >= 2.5 ? "wordmark" : "logo")
  // 1. What the page calls it, checked against the pixels where names are often reused loosely.
  if (WORDMARK_NAME.test(names)) return "wordmark"
  if (LOGO_NAME.test(names) && image.colours < 600) return brandShape()
  if (ICON_NAME.test(names) && longSide <= 256) return "icon"
  // 2. Tiny images are icons whatever they are called.
  if (longSide <= 64) return "icon"
  // 3. A tile repeating itself, or one called a pattern.
  if (image.periodic || PATTERN_NAME.test(names)) return "pattern"
  // 4. Many colours with no dominant few, opaque: a photograph.
  if (image.colours >= 600 && image.topColourShare < 0.5 && image.transparency < 0.05) return "photography"
  // 5. Transparent flat artwork near the top of the page (the header): the site's brand.
  if (image.transparency >= 0.2 && image.colours <= 64 && context.index < 3) return brandShape()
  // 6. Small square-ish flat artwork: an icon.
  if (longSide <= 128 && aspect >= 0.75 && aspect <= 1.33 && image.colours <= 64) return "icon"
  // 7. Flat areas of a few colours: charts, diagrams, banners, buttons.
  if (image.colours <= 24 || image.topColourShare >= 0.85) return "graphic"
  // 8. Drawn artwork: more colours than a graphic, fewer (or more dominant ones) than a photograph.
  if (image.colours < 600 || image.topColourShare >= 0.5) return "illustration"
  return "other"
}
