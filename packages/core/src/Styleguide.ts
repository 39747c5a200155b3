/**
 * A site's design system and fonts, read from its rendered page: computed styles and the CSSOM in Chromium (colors,
 * typography, spacing and shadow scales, buttons and a card with ready-to-use CSS, light or dark mode, font files), and
 * the fonts of its text with their element and word counts. One render gives both (`read`); the derivations are pure
 * (`internal/styleguide/derive.ts`). The page is rendered like any other (the `Renderer`, its address guard, bot-wall
 * detection) under one deadline; everything read from it is bounded (`CollectLimits`).
 *
 * @since 0.1.0
 */
import { Clock, Effect, Option } from "effect"
import * as BlockDetection from "./BlockDetection.js"
import * as Deadline from "./Deadline.js"
import { ContentError, InvalidRequest, type ScrapeError, WebsiteError } from "./Errors.js"
import { type CollectLimits, collectInPage, DEFAULT_LIMITS, type PageFacts } from "./internal/styleguide/collect.js"
import { fontLinksOf, fontsOf, styleguideOf } from "./internal/styleguide/derive.js"
import * as Renderer from "./Renderer.js"

export type { CollectLimits, PageFacts } from "./internal/styleguide/collect.js"
export { DEFAULT_LIMITS } from "./internal/styleguide/collect.js"

/** A text style: `fontFamily` is the first of `fontFallbacks` (the computed stack, unquoted). @category models */
export interface TextStyle {
  readonly fontFamily: string
  readonly fontFallbacks: ReadonlyArray<string>
  readonly fontSize: string
  readonly fontWeight: number
  readonly lineHeight: string
  readonly letterSpacing: string
}

/** A button look, sampled from the page, with a CSS declaration block that reproduces it. @category models */
export interface ButtonStyle {
  readonly backgroundColor: string
  readonly borderColor: string
  readonly borderRadius: string
  readonly borderStyle: string
  readonly borderWidth: string
  readonly boxShadow: string
  readonly color: string
  readonly css: string
  readonly fontSize: string
  readonly fontWeight: number
  readonly minHeight: string
  readonly minWidth: string
  readonly padding: string
  readonly textDecoration: string
  readonly fontFallbacks?: ReadonlyArray<string>
  readonly fontFamily?: string
  readonly textDecorationColor?: string
}

/** The page's buttons by role. @category models */
export interface Buttons {
  readonly primary?: ButtonStyle
  readonly secondary?: ButtonStyle
  readonly link?: ButtonStyle
}

/** A card look. @category models */
export interface CardStyle {
  readonly backgroundColor: string
  readonly borderColor: string
  readonly borderRadius: string
  readonly borderStyle: string
  readonly borderWidth: string
  readonly boxShadow: string
  readonly css: string
  readonly padding: string
  readonly textColor: string
}

/** The spacing scale. @category models */
export interface ElementSpacing {
  readonly xs: string
  readonly sm: string
  readonly md: string
  readonly lg: string
  readonly xl: string
}

/** The shadow scale. @category models */
export interface Shadows {
  readonly sm: string
  readonly md: string
  readonly lg: string
  readonly xl: string
  readonly inner: string
}

/** The files of one font family by upright weight (absolute URLs). @category models */
export interface FontLinks {
  readonly files: Readonly<Record<string, string>>
  readonly type: "google" | "custom"
  /** Google Fonts category (`sans-serif`, `serif`, `display`, `handwriting`, `monospace`) of a Google family. */
  readonly category?: string
  /** A custom family's readable name (build and hash suffixes dropped, words split). */
  readonly displayName?: string
}

/** A design system read from a page (the shape of `GET /web/styleguide`'s `styleguide`). @category models */
export interface Styleguide {
  readonly colors: { readonly accent: string; readonly background: string; readonly text: string }
  readonly mode: "light" | "dark"
  readonly typography: {
    readonly headings: { readonly h1?: TextStyle; readonly h2?: TextStyle; readonly h3?: TextStyle; readonly h4?: TextStyle }
    readonly p?: TextStyle
  }
  readonly elementSpacing: ElementSpacing
  readonly shadows: Shadows
  readonly components: { readonly button: Buttons; readonly card?: CardStyle }
  readonly fontLinks: Readonly<Record<string, FontLinks>>
}

/** One font of a page's text (the shape of `GET /web/fonts`'s `fonts` items). @category models */
export interface Font {
  readonly font: string
  readonly fallbacks: ReadonlyArray<string>
  readonly num_elements: number
  readonly num_words: number
  /** Percent of the page's text-bearing elements, two decimals. */
  readonly percent_elements: number
  /** Percent of the page's words, two decimals. */
  readonly percent_words: number
  /** Element types whose own text is set in it. */
  readonly uses: ReadonlyArray<string>
}

/** What one render of a page gives. @category models */
export interface PageDesign {
  /** The page read, after redirects. */
  readonly url: string
  readonly styleguide: Styleguide
  readonly fonts: ReadonlyArray<Font>
  readonly fontLinks: Readonly<Record<string, FontLinks>>
  /** `still-loading` when a `return-partial` deadline read the page before it finished loading. */
  readonly finalDOMState: "loaded" | "still-loading"
  /** Epoch milliseconds of the read. */
  readonly readAt: number
}

/** What to read. @category models */
export interface ReadOptions {
  readonly url: string
  /** Emulates `prefers-color-scheme` (omitted: the browser's default, light). */
  readonly colorScheme?: "light" | "dark" | undefined
  /** The whole budget (default 60 s). */
  readonly timeoutMs?: number | undefined
  readonly timeoutBehavior?: Deadline.Behavior | undefined
  readonly limits?: Partial<CollectLimits> | undefined
}

/** Default budget of a read. */
export const DEFAULT_TIMEOUT_MS = 60_000

/** The styleguide, fonts and font links of a page's facts (pure). */
export const fromFacts = (facts: PageFacts): Pick<PageDesign, "styleguide" | "fonts" | "fontLinks"> => ({
  styleguide: styleguideOf(facts),
  fonts: fontsOf(facts),
  fontLinks: fontLinksOf(facts)
})

const targetOf = (url: string): Effect.Effect<string, InvalidRequest> => {
  try {
    const parsed = new URL(url)
    if (parsed.protocol === "http:" || parsed.protocol === "https:") return Effect.succeed(parsed.href)
  } catch {
    // Reported below.
  }
  return Effect.fail(new InvalidRequest({ reason: "Invalid", field: "url", detail: "must be an http or https URL" }))
}

/**
 * Renders a page and reads its design (needs a `Renderer` in the environment, else `CapabilityMissing`). A page that
 * answers 4xx/5xx, a bot wall or a soft 404 fails as a scrape would; with `return-partial` a deadline reads the page
 * as it stands (`still-loading`), or fails with `RequestTimeout` when it shows no text yet.
 */
export const read = (options: ReadOptions): Effect.Effect<PageDesign, ScrapeError> =>
  Effect.scoped(Effect.gen(function*() {
    const url = yield* targetOf(options.url)
    const renderer = yield* Effect.serviceOption(Renderer.Renderer)
    if (Option.isNone(renderer)) {
      return yield* new ContentError({ reason: "CapabilityMissing", detail: "Reading a styleguide needs a browser, and no renderer is configured" })
    }
    const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS
    const deadline = yield* Deadline.make(timeoutMs, options.timeoutBehavior ?? "fail")
    let session: Renderer.RenderSession | undefined
    const loaded = yield* Deadline.gather(deadline, Effect.gen(function*() {
      session = yield* renderer.value.open({
        url,
        theme: options.colorScheme,
        viewport: { width: 1440, height: 900 },
        dismissCookies: true,
        loadWaitMs: Math.min(10_000, Math.floor(timeoutMs / 3))
      })
      return yield* session.load
    }))
    let page: Renderer.RenderedPage
    if (Option.isSome(loaded)) {
      page = loaded.value
      if (page.status >= 400) return yield* new WebsiteError({ reason: "HttpStatus", url: page.url, status: page.status })
      const verdict = BlockDetection.inspect(page)
      if (verdict !== undefined) return yield* BlockDetection.toError(page.url, verdict)
    } else if (session !== undefined && deadline.behavior === "return-partial") {
      const left = yield* Deadline.remaining(deadline)
      page = yield* session.snapshot.pipe(
        Effect.timeoutFail({ duration: Math.max(1, left), onTimeout: () => Deadline.expired(deadline, "the page could not be read in time") })
      )
    } else {
      return yield* Deadline.expired(deadline, "while rendering the page")
    }
    const open = session!
    const facts = yield* Deadline.finish(deadline, open.evaluate(collectInPage, { ...DEFAULT_LIMITS, ...options.limits }))
    // A partial read is a result only when the page had shown something: no text yet is nothing to return.
    if (page.finalDOMState !== "complete" && facts.fonts.length === 0) {
      return yield* Deadline.expired(deadline, "nothing had loaded yet to return as a partial result")
    }
    const readAt = yield* Clock.currentTimeMillis
    return {
      url: page.url,
      ...fromFacts(facts),
      finalDOMState: page.finalDOMState === "complete" ? "loaded" : "still-loading",
      readAt
    } satisfies PageDesign
  }))
