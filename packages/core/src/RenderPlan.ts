/**
 * When to render: the request's own needs (screenshot, actions, a `waitFor` selector, frames, theme, viewport,
 * consent or popup dismissal) always need a browser; otherwise the statically fetched page decides by its signals
 * (an empty body with script bundles, an empty application root, a `noscript` notice asking for JavaScript). Static
 * pages never pay for a browser.
 *
 * @since 0.1.0
 */
import type * as ScrapeRequest from "./ScrapeRequest.js"

/** The decision and why. @category models */
export interface Decision {
  readonly render: boolean
  /** Request members or page signals that asked for a browser (empty for a static render). */
  readonly reasons: ReadonlyArray<string>
}

/** The request members that only a browser can honour, by name. */
export const requestNeeds = (request: ScrapeRequest.ScrapeRequest): ReadonlyArray<string> => {
  const shared = request.sharedParams
  const needs: Array<string> = []
  if (request.wants("screenshot")) needs.push("formats.screenshot")
  if ((shared?.actions?.length ?? 0) > 0) needs.push("sharedParams.actions")
  if (typeof shared?.waitFor === "string") needs.push("sharedParams.waitFor (a selector)")
  if (shared?.includeFrames === true) needs.push("sharedParams.includeFrames")
  if (shared?.theme !== undefined) needs.push("sharedParams.theme")
  if (shared?.viewport !== undefined) needs.push("sharedParams.viewport")
  if (shared?.dismissCookies === true) needs.push("sharedParams.dismissCookies")
  if (shared?.dismissPopups === true) needs.push("sharedParams.dismissPopups")
  return needs
}

const stripNonText = (html: string) =>
  html.replace(/<(script|style|noscript|template|svg)\b[\s\S]*?<\/\1\s*>/gi, " ").replace(/<!--[\s\S]*?-->/g, " ")

/** The page's own signals that its content is drawn by JavaScript. */
export const pageSignals = (html: string): ReadonlyArray<string> => {
  const signals: Array<string> = []
  const body = /<body\b[^>]*>([\s\S]*)(<\/body>|$)/i.exec(html)?.[1] ?? html
  const text = stripNonText(body).replace(/<[^>]+>/g, " ").replace(/&nbsp;|\s+/g, " ").trim()
  const bundles = (html.match(/<script\b[^>]*\bsrc=/gi) ?? []).length + (html.match(/<script\b[^>]*type=["']?module/gi) ?? []).length
  if (text.length < 200 && bundles > 0) signals.push("an almost empty body with script bundles")
  if (/<div\b[^>]*\bid=["'](root|app|__next|__nuxt|svelte|main-app)["'][^>]*>\s*<\/div>/i.test(body)) {
    signals.push("an empty application root")
  }
  const noscript = /<noscript\b[^>]*>([\s\S]*?)<\/noscript>/gi
  for (const match of body.matchAll(noscript)) {
    if (/enable javascript|javascript (is )?(required|disabled)|requires javascript|turn on javascript|need to enable javascript/i.test(match[1]!)) {
      signals.push("a noscript notice asking for JavaScript")
      break
    }
  }
  return signals
}

/** Decides before any fetch: render at once when the request needs a browser. */
export const beforeFetch = (request: ScrapeRequest.ScrapeRequest): Decision => {
  const reasons = requestNeeds(request)
  return { render: reasons.length > 0, reasons }
}

/** Decides after a static fetch: render when an HTML page signals that JavaScript draws its content. */
export const afterFetch = (page: { readonly contentType: string | undefined; readonly html: string }): Decision => {
  const isHtml = page.contentType === undefined || page.contentType === "text/html" || page.contentType === "application/xhtml+xml"
  if (!isHtml) return { render: false, reasons: [] }
  const reasons = pageSignals(page.html)
  return { render: reasons.length > 0, reasons }
}
