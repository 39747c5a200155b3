/**
 * One render: a fresh context and page from the pool, driven through navigation, waits, settling, dismissal and
 * actions. The page is closed by the pool's scope (context close), whatever happens.
 */
import { Effect, type Scope } from "effect"
import type { Page, Request, Response } from "playwright-core"
import * as Actions from "../../Actions.js"
import type * as BrowserPool from "../../BrowserPool.js"
import { InvalidRequest, WebsiteError } from "../../Errors.js"
import type * as Renderer from "../../Renderer.js"
import { dismissCookies, dismissPopups } from "./dismiss.js"
import { inlineFrames } from "./frames.js"
import { documentHtml } from "./document.js"
import { withBackgroundSizes } from "./images.js"
import { collectImages, settleAnimations } from "./settle.js"
import * as Trackers from "./trackers.js"

// Functions passed to `page.evaluate` run in the browser; these names are the page's globals (core has no DOM types).
declare const document: any

/** The longest wait for a page's resources after its document is parsed, when the options name none. */
export const DEFAULT_LOAD_WAIT_MS = 10_000

/** Viewport of a request: omitted 1920x1080; a missing dimension 1440 or 900 (decisions §2). */
export const viewportOf = (viewport: Renderer.RenderOptions["viewport"]) =>
  viewport === undefined
    ? { width: 1920, height: 1080 }
    : { width: viewport.width ?? 1440, height: viewport.height ?? 900 }

const errorText = (error: unknown) => error instanceof Error ? error.message.split("\n")[0]! : String(error)

/** Maps a navigation failure to a website error; `hops` are the main document's request URLs, redirects included. */
const navigationError = (url: string, error: unknown, lease: BrowserPool.Lease, hops: ReadonlyArray<string>): WebsiteError => {
  const text = errorText(error)
  // What the address guard recorded for a hop of the main document explains the failure best.
  for (let i = hops.length - 1; i >= 0; i--) {
    const stopped = lease.failureOf(hops[i]!)
    if (stopped !== undefined) {
      return stopped.reason === "NotFound"
        ? new WebsiteError({ reason: "NotFound", url })
        : new WebsiteError({ reason: stopped.reason, url, detail: stopped.detail })
    }
  }
  const blocked = lease.refused.find((r) => r.url === url || text.includes("ERR_BLOCKED_BY_CLIENT"))
  if (blocked !== undefined) return new WebsiteError({ reason: "PrivateAddress", url, detail: blocked.detail })
  if (/ERR_NAME_NOT_RESOLVED/.test(text)) return new WebsiteError({ reason: "NotFound", url })
  if (/ERR_TOO_MANY_REDIRECTS/.test(text)) return new WebsiteError({ reason: "TooManyRedirects", url })
  if (/ERR_TIMED_OUT|Timeout/.test(text)) return new WebsiteError({ reason: "Timeout", url, detail: text })
  return new WebsiteError({ reason: "Unreachable", url, detail: `in the browser: ${text}` })
}

/** How long a third-party request may go unanswered before the page is read without it. */
export const THIRD_PARTY_GRACE_MS = 500

/**
 * The requests of a page in flight, by whether they are of the page's own site. A third-party request that has not
 * answered within `THIRD_PARTY_GRACE_MS` is stalled: the page is read without waiting for it.
 */
const trackRequests = (page: Page, pageUrl: string) => {
  const site = siteOfUrl(pageUrl)
  const open = new Map<Request, { readonly sameSite: boolean; readonly since: number; answered: boolean }>()
  page.on("request", (request) => open.set(request, { sameSite: siteOfUrl(request.url()) === site, since: Date.now(), answered: false }))
  page.on("response", (response) => {
    const entry = open.get(response.request())
    if (entry !== undefined) entry.answered = true
  })
  // Whoever waits hears at once when a request ends (no polling delay on fast pages).
  const listeners = new Set<() => void>()
  const ended = (request: Request) => {
    open.delete(request)
    for (const listener of listeners) listener()
  }
  page.on("requestfinished", ended)
  page.on("requestfailed", ended)
  return {
    listeners,
    /** Requests still awaited: same-site ones, and third-party ones that answered or are younger than the grace. */
    awaited: (now: number) => {
      let n = 0
      for (const entry of open.values()) if (entry.sameSite || entry.answered || now - entry.since < THIRD_PARTY_GRACE_MS) n++
      return n
    }
  }
}

const siteOfUrl = (url: string): string | undefined => {
  try {
    return Trackers.siteOf(new URL(url).hostname)
  } catch {
    return undefined
  }
}

/**
 * Waits, after the document is parsed, until what the page needs is in: no awaited request (see `trackRequests`)
 * for 100 ms (at once after the `load` event). Bounded twice: `idleCapMs` after the `load` event, and `loadWaitMs` in all (then the page is read as it stands).
 */
const settled = (
  page: Page,
  requests: ReturnType<typeof trackRequests>,
  loaded: () => number | undefined,
  options: { readonly idleCapMs: number; readonly loadWaitMs: number }
): Promise<void> =>
  new Promise((resolve) => {
    const started = Date.now()
    let quietSince = 0
    let timer: ReturnType<typeof setTimeout> | undefined
    const done = () => {
      clearTimeout(timer)
      requests.listeners.delete(check)
      page.off("load", check)
      resolve()
    }
    // Whether the page is settled now: on every tick, on `load` and whenever a request ends.
    function check(): boolean {
      const now = Date.now()
      const loadedAt = loaded()
      if (page.isClosed() || now - started >= options.loadWaitMs || (loadedAt !== undefined && now - loadedAt >= options.idleCapMs)) return (done(), true)
      if (requests.awaited(now) > 0) quietSince = 0
      else if (loadedAt !== undefined) return (done(), true)
      else if (quietSince === 0) quietSince = now
      else if (now - quietSince >= 100) return (done(), true)
      return false
    }
    const tick = () => {
      if (!check()) timer = setTimeout(tick, 25)
    }
    requests.listeners.add(check)
    page.on("load", check)
    tick()
  })

/** Opens a render session in the caller's scope. */
export const openSession = (
  pool: BrowserPool.BrowserPool["Type"],
  options: Renderer.RenderOptions
): Effect.Effect<Renderer.RenderSession, WebsiteError | InvalidRequest, Scope.Scope> =>
  Effect.gen(function*() {
    const viewport = viewportOf(options.viewport)
    const lease = yield* pool.context({ viewport, theme: options.theme, headers: options.headers, country: options.country })
    const page = yield* Effect.tryPromise({
      try: () => lease.context.newPage(),
      catch: (error) => new WebsiteError({ reason: "Unreachable", url: options.url, detail: `the browser failed: ${errorText(error)}` })
    })
    const hops: Array<string> = [options.url]
    page.on("request", (request) => {
      if (request.isNavigationRequest() && request.frame() === page.mainFrame()) hops.push(request.url())
    })
    const requests = trackRequests(page, options.url)
    let loadedAt: number | undefined
    page.on("load", () => loadedAt ??= Date.now())
    let crashed = false
    page.on("crash", () => crashed = true)
    let response: Response | null = null
    let finished = false
    let actionsApplied: Array<Actions.ActionOutcome> | undefined
    let actionsHtmlStale = false
    let lastHtml: string | undefined

    const fail = (error: unknown) =>
      crashed || !lease.context.browser()?.isConnected()
        ? new WebsiteError({ reason: "Unreachable", url: options.url, detail: `the browser or the page crashed: ${errorText(error)}` })
        : navigationError(options.url, error, lease, hops)

    const serialize = async (): Promise<string> => {
      // Frames of a page still loading may never answer: after 2 s the main document alone is read.
      const html = options.includeFrames === true
        ? await Promise.race([inlineFrames(page), new Promise<void>((resolve) => setTimeout(resolve, 2_000).unref()).then(() => page.content())])
        : await documentHtml(page)
      lastHtml = html
      return html
    }

    const read = async (state: Renderer.DomState): Promise<Renderer.RenderedPage> => {
      let html: string
      try {
        html = await serialize()
      } catch (error) {
        if (lastHtml === undefined) throw error
        // The page is navigating after an action: keep the DOM from before and say so.
        html = lastHtml
        if (actionsApplied !== undefined) actionsHtmlStale = true
      }
      // Reading the original bytes is another trip to the browser: only when the `bytes` output asks for them.
      const body = response === null || options.keepBody !== true ? undefined : await response.body().then((b) => new Uint8Array(b), () => undefined)
      return {
        requestedUrl: options.url,
        url: page.url() === "about:blank" ? options.url : page.url(),
        status: response?.status() ?? 0,
        headers: response?.headers() ?? {},
        html,
        body,
        finalDOMState: state,
        ...(actionsApplied === undefined ? {} : { actionsApplied: [...actionsApplied], actionsHtmlStale })
      }
    }

    const loadPage = async (): Promise<Renderer.RenderedPage> => {
      // The parsed document, then its same-site resources; never the `load` event of a third party that does not answer.
      response = await page.goto(options.url, { waitUntil: "domcontentloaded", timeout: 0 })
      await settled(page, requests, () => loadedAt, {
        idleCapMs: options.networkIdleCapMs ?? 2_000,
        loadWaitMs: options.loadWaitMs ?? DEFAULT_LOAD_WAIT_MS
      })
      const waitFor = options.waitFor ?? (options.includeFrames === true ? 2_000 : 500)
      if (typeof waitFor === "string") {
        await page.waitForSelector(waitFor, { state: "attached", timeout: 0 })
      } else if (waitFor > 0) await page.waitForTimeout(waitFor)
      if (options.dismissCookies === true) await dismissCookies(page)
      if (options.dismissPopups === true) await dismissPopups(page)
      if (options.settleAnimations === true) await settleAnimations(page)
      if (options.actions !== undefined && options.actions.length > 0) {
        actionsApplied = []
        await serialize().catch(() => undefined)
        for (const action of options.actions) {
          actionsApplied.push(await Actions.run(page, action, 5_000))
          await page.waitForLoadState("domcontentloaded", { timeout: 5_000 }).catch(() => undefined)
        }
      }
      finished = true
      return read("complete")
    }

    // A redirect hop the guard refused only after the browser followed it (route interception): whatever the page
    // became, none of it is handed out.
    const hopChecked = <A, E>(effect: Effect.Effect<A, E>): Effect.Effect<A, E | WebsiteError> =>
      Effect.flatMap(Effect.exit(effect), (exit) =>
        Effect.flatMap(Effect.promise(() => lease.refusedHop()), (hop) =>
          hop === undefined
            ? exit as Effect.Effect<A, E | WebsiteError>
            : Effect.fail(new WebsiteError({ reason: "PrivateAddress", url: options.url, detail: hop.detail }))))

    const load = hopChecked(Effect.tryPromise({ try: loadPage, catch: fail }))
    const snapshot = hopChecked(Effect.tryPromise({ try: () => read(finished ? "complete" : "still-loading"), catch: fail }))

    const screenshot = (area: Renderer.CaptureArea): Effect.Effect<Renderer.Capture, WebsiteError | InvalidRequest> =>
      hopChecked(Effect.gen(function*() {
        if (area.kind === "selector") {
          const element = page.locator(area.selector).first()
          const visible = yield* Effect.promise(() => element.isVisible().catch(() => false))
          if (!visible) {
            return yield* new InvalidRequest({
              reason: "Invalid",
              field: "screenshotParams.area.selector",
              detail: `no visible element matches ${area.selector}`
            })
          }
          const png = yield* Effect.tryPromise({ try: () => element.screenshot({ type: "png", animations: "disabled" }), catch: fail })
          const box = yield* Effect.promise(() => element.boundingBox())
          return { png: new Uint8Array(png), width: Math.round(box?.width ?? 0), height: Math.round(box?.height ?? 0) }
        }
        const size = yield* Effect.tryPromise({
          try: () => page.evaluate(() => ({ width: document.documentElement.scrollWidth, height: document.documentElement.scrollHeight })),
          catch: fail
        })
        const clip = area.kind === "rectangle" ? { x: area.x, y: area.y, width: area.width, height: area.height } : undefined
        const png = yield* Effect.tryPromise({
          try: () => page.screenshot({
            type: "png",
            // A rectangle is in page coordinates: with `fullPage` Playwright may cut it from below the visible screen.
            fullPage: area.kind === "fullPage" || clip !== undefined,
            ...(clip === undefined ? {} : { clip }),
            animations: "disabled"
          }),
          catch: fail
        })
        const dims = area.kind === "fullPage"
          ? { width: Math.max(viewport.width, size.width), height: Math.max(viewport.height, size.height) }
          : clip ?? viewport
        return { png: new Uint8Array(png), width: dims.width, height: dims.height }
      }))

    // CSS backgrounds have no natural size in the DOM: their pictures are decoded in the page to learn it.
    const images = hopChecked(Effect.tryPromise({ try: () => collectImages(page).then((found) => withBackgroundSizes(page, found)), catch: fail }))

    // Sent as source text with a stand-in for `__name`, the helper esbuild-based runners (tsx) insert into named
    // functions and that the page does not have; the argument travels as JSON.
    const evaluate = <A, Arg>(script: (arg: Arg) => A | Promise<A>, arg: Arg): Effect.Effect<A, WebsiteError> =>
      hopChecked(Effect.tryPromise({
        try: () => page.evaluate(`(() => { const __name = (target) => target; return (${script.toString()})(${JSON.stringify(arg) ?? "undefined"}) })()`) as Promise<A>,
        catch: fail
      }))

    return { load, snapshot, screenshot, images, evaluate, viewport } satisfies Renderer.RenderSession
  })

