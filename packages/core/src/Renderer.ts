/**
 * The browser stage: renders a page in a fresh Chromium context from the `BrowserPool` (waits, consent and popup
 * dismissal, theme, viewport, frames, actions) and hands back its DOM. A render is a `RenderSession` that lives in the
 * caller's `Scope`: the page stays open until the scope closes, so a deadline can still take a snapshot of a page
 * that never finished loading, and later stages (screenshots, images) can read the rendered page.
 *
 * @since 0.1.0
 */
import { Context, Effect, Layer, type Scope } from "effect"
import * as BrowserPool from "./BrowserPool.js"
import type { InvalidRequest, WebsiteError } from "./Errors.js"
import type * as Actions from "./Actions.js"
import type * as ScrapeRequest from "./ScrapeRequest.js"
import { openSession } from "./internal/render/session.js"

/** What to render: the target and every browser-side member of `sharedParams`. @category models */
export interface RenderOptions {
  readonly url: string
  readonly headers?: Readonly<Record<string, string>> | undefined
  /** Two letters; the page's traffic goes through that country's proxy. */
  readonly country?: string | undefined
  /** CSS pixels; omitted: 1920x1080, a missing dimension 1440 or 900 (decisions §2). */
  readonly viewport?: { readonly width?: number | undefined; readonly height?: number | undefined } | undefined
  readonly theme?: "light" | "dark" | undefined
  /** Milliseconds (0 skips) or a CSS selector to wait for after load; default 500 ms, 2000 with frames. */
  readonly waitFor?: number | string | undefined
  readonly includeFrames?: boolean | undefined
  readonly settleAnimations?: boolean | undefined
  readonly dismissCookies?: boolean | undefined
  readonly dismissPopups?: boolean | undefined
  readonly actions?: ReadonlyArray<ScrapeRequest.Action> | undefined
  /** Keep the main document's original bytes (`RenderedPage.body`); off by default: it costs a trip to the browser. */
  readonly keepBody?: boolean | undefined
  /** Longest wait for the network to go quiet after load (default 2000 ms). */
  readonly networkIdleCapMs?: number | undefined
  /**
   * Longest wait, after the document is parsed, for its resources (default 10 s, or a third of the request's timeout):
   * then the page is read as it stands, complete. Third-party requests that have not answered within 500 ms are not
   * waited for at all.
   */
  readonly loadWaitMs?: number | undefined
}

/** Where the DOM stood when it was read. @category models */
export type DomState = "complete" | "still-loading"

/** The rendered page. @category models */
export interface RenderedPage {
  readonly requestedUrl: string
  /** The page's URL when it was read (after redirects and client-side navigation). */
  readonly url: string
  /** Status of the main document response (0 when none arrived). */
  readonly status: number
  /** Headers of the main document response, lower-cased names. */
  readonly headers: Readonly<Record<string, string>>
  /** The serialized DOM, iframe documents inlined when `includeFrames`. */
  readonly html: string
  /** The main document's original bytes, when asked for (`keepBody`) and the browser received them. */
  readonly body: Uint8Array | undefined
  readonly finalDOMState: DomState
  /** One verified outcome per requested action, in order (absent without actions). */
  readonly actionsApplied?: ReadonlyArray<Actions.ActionOutcome> | undefined
  /** An action was applied but the DOM could not be read again afterwards; `html` is from before it. */
  readonly actionsHtmlStale?: boolean | undefined
}

/** What to capture: the viewport, the whole page, one element, or a rectangle of the page. @category models */
export type CaptureArea =
  | { readonly kind: "viewport" }
  | { readonly kind: "fullPage" }
  | { readonly kind: "selector"; readonly selector: string }
  | { readonly kind: "rectangle"; readonly x: number; readonly y: number; readonly width: number; readonly height: number }

/** A raw capture: PNG bytes and their size in pixels. @category models */
export interface Capture {
  readonly png: Uint8Array
  readonly width: number
  readonly height: number
}

/** An image as the browser rendered it. @category models */
export interface RenderedImage {
  /** Absolute URL (`currentSrc` for `img`, so the srcset candidate the browser chose). */
  readonly url: string
  readonly alt: string
  /** Where it came from: an `img` element or a CSS background of an element. */
  readonly source: "img" | "background"
  /** Decoded size (0 when not loaded). */
  readonly naturalWidth: number
  readonly naturalHeight: number
  /** Box on the page in CSS pixels, relative to the document. */
  readonly box: { readonly x: number; readonly y: number; readonly width: number; readonly height: number }
  readonly visible: boolean
}

/** One open page. Every member may be used until the scope of `open` closes. @category models */
export interface RenderSession {
  /** Navigates, waits, settles, dismisses and runs the actions; the DOM afterwards. */
  readonly load: Effect.Effect<RenderedPage, WebsiteError>
  /** The DOM as it is now, `still-loading` unless `load` finished: what `return-partial` returns. */
  readonly snapshot: Effect.Effect<RenderedPage, WebsiteError>
  /** A PNG of the page; an element that is missing or invisible is an `InvalidRequest` on `screenshotParams.area`. */
  readonly screenshot: (area: CaptureArea) => Effect.Effect<Capture, WebsiteError | InvalidRequest>
  /** The images as rendered, in document order. */
  readonly images: Effect.Effect<ReadonlyArray<RenderedImage>, WebsiteError>
  /**
   * Runs `script` in the page with `arg` (a self-contained function, sent as its source; `arg` as JSON; the answer
   * must be JSON-like): what only
   * the live page knows, such as computed styles and the CSSOM (styleguides, fonts).
   */
  readonly evaluate: <A, Arg>(script: (arg: Arg) => A | Promise<A>, arg: Arg) => Effect.Effect<A, WebsiteError>
  /** The viewport in CSS pixels. */
  readonly viewport: { readonly width: number; readonly height: number }
}

/** Renders pages in a browser. @category services */
export class Renderer extends Context.Tag("@sift/core/Renderer")<Renderer, {
  /** Opens a fresh context and page (waiting for a pool slot); both close when the scope closes. */
  readonly open: (options: RenderOptions) => Effect.Effect<RenderSession, WebsiteError | InvalidRequest, Scope.Scope>
}>() {}

/** The Renderer over a pool. */
export const make: Effect.Effect<Renderer["Type"], never, BrowserPool.BrowserPool> = Effect.map(
  BrowserPool.BrowserPool,
  (pool) => ({ open: (options) => openSession(pool, options) })
)

/** The Renderer over its own pool with these options (the rest from defaults); the browser closes with the layer. */
export const layer = (options: Partial<BrowserPool.BrowserPoolOptions> = {}): Layer.Layer<Renderer> =>
  Layer.effect(Renderer, make).pipe(Layer.provide(BrowserPool.layer(options)))

/** The Renderer configured from the environment (`SIFT_CHROMIUM_PATH`, `SIFT_BROWSER_WS_ENDPOINT`, `SIFT_BROWSER_POOL_SIZE`, and the Fetcher's variables). */
export const layerConfig = Layer.effect(Renderer, make).pipe(Layer.provide(BrowserPool.layerConfig))

/** The render options of a scrape request. */
export const optionsOf = (request: ScrapeRequest.ScrapeRequest): RenderOptions => {
  const shared = request.sharedParams
  return {
    url: request.url,
    headers: shared?.headers,
    country: shared?.country?.toLowerCase(),
    viewport: shared?.viewport,
    theme: shared?.theme,
    waitFor: shared?.waitFor,
    includeFrames: shared?.includeFrames,
    settleAnimations: shared?.settleAnimations ?? request.wants("screenshot"),
    dismissCookies: shared?.dismissCookies,
    dismissPopups: shared?.dismissPopups,
    actions: shared?.actions,
    keepBody: request.wants("bytes"),
    // Inside the request's deadline, leaving the rest for waits, actions and the outputs.
    loadWaitMs: Math.min(10_000, Math.floor(request.timeoutMs / 3))
  }
}
