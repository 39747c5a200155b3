/**
 * Consent banners and modal popups: click the accepting or closing control of common consent managers (OneTrust,
 * Cookiebot, Didomi, Quantcast, TrustArc, Usercentrics, Osano, Complianz, CookieYes, Klaro, and generic banners whose
 * id or class says cookie/consent/gdpr), then remove whatever still covers the page and restore scrolling.
 */
import type { Page } from "playwright-core"

// Functions passed to `page.evaluate` run in the browser; these names are the page's globals (core has no DOM types).
declare const document: any, location: any, innerWidth: number, innerHeight: number, scrollX: number, scrollY: number
declare const getComputedStyle: (el: any) => any, scrollTo: (x: number, y: number) => void, requestAnimationFrame: (f: () => void) => void

/** Accept buttons of known consent managers, most specific first. */
export const consentButtons: ReadonlyArray<string> = [
  "#onetrust-accept-btn-handler",
  "#CybotCookiebotDialogBodyLevelButtonLevelOptinAllowAll",
  "#CybotCookiebotDialogBodyButtonAccept",
  "#didomi-notice-agree-button",
  ".qc-cmp2-summary-buttons button[mode=primary]",
  "#truste-consent-button",
  "[data-testid=uc-accept-all-button]",
  ".osano-cm-accept-all",
  ".cmplz-accept",
  ".cky-btn-accept",
  ".klaro .cm-btn-accept-all",
  "#cookie-accept",
  "#accept-cookies"
]

/** Containers of known consent managers, removed if clicking left them in place. */
const consentContainers = [
  "#onetrust-consent-sdk", "#CybotCookiebotDialog", "#didomi-host", ".qc-cmp2-container", "#truste-consent-track",
  "#usercentrics-root", ".osano-cm-window", "#cmplz-cookiebanner-container", ".cky-consent-container", ".klaro"
]

const ACCEPT = /^\s*(accept( all)?( cookies)?|allow( all)?( cookies)?|agree( and close)?|i agree|i accept|ok(ay)?|got it|yes,? i agree|alle akzeptieren|akzeptieren|tout accepter|accepter|aceptar( todo)?)\s*$/i

/** Clicks the consent banner away; returns true when something was dismissed. */
export const dismissCookies = async (page: Page): Promise<boolean> => {
  for (const selector of consentButtons) {
    const button = page.locator(selector).first()
    if (await button.isVisible().catch(() => false)) {
      await button.click({ timeout: 2_000 }).catch(() => undefined)
      await removeLeftovers(page)
      return true
    }
  }
  // A generic banner: an accept-like button inside an element whose id or class mentions cookies or consent.
  const clicked = await page.evaluate((pattern) => {
    const accept = new RegExp(pattern, "i")
    const banners = Array.from<any>(document.querySelectorAll("[id*=cookie i], [class*=cookie i], [id*=consent i], [class*=consent i], [id*=gdpr i], [class*=gdpr i], [aria-label*=cookie i]"))
    for (const banner of banners) {
      const button = Array.from<any>(banner.querySelectorAll("button, a, [role=button], input[type=button], input[type=submit]"))
        .find((el) => accept.test(el.innerText || el.value || ""))
      if (button !== undefined) {
        button.click()
        // Hidden is not gone: a banner left in the DOM would still reach the HTML and the Markdown.
        banner.remove()
        return true
      }
    }
    return false
  }, ACCEPT.source).catch(() => false)
  await removeLeftovers(page)
  return clicked
}

const removeLeftovers = (page: Page) =>
  page.evaluate((selectors) => {
    for (const selector of selectors) document.querySelectorAll(selector).forEach((el: any) => el.remove())
    document.documentElement.style.removeProperty("overflow")
    document.body?.style.removeProperty("overflow")
  }, consentContainers).catch(() => undefined)

const CLOSE = /^\s*(×|✕|✖|x|close|no,? thanks|not now|dismiss|maybe later|skip|continue to site)\s*$/i

/** Closes modal popups (newsletter, promo, app banners): a close control if there is one, else removal. */
export const dismissPopups = async (page: Page): Promise<number> =>
  page.evaluate((pattern) => {
    const close = new RegExp(pattern, "i")
    const area = innerWidth * innerHeight
    const covering = Array.from<any>(document.querySelectorAll("body *")).filter((el) => {
      const style = getComputedStyle(el)
      if (style.display === "none" || style.visibility === "hidden") return false
      const modal = el.matches("[role=dialog], [role=alertdialog], [aria-modal=true], dialog[open], .modal.show, .modal.in, .popup, .overlay")
      if (!modal && style.position !== "fixed") return false
      const box = el.getBoundingClientRect()
      return modal || (box.width * box.height >= area * 0.3 && Number(style.zIndex || 0) >= 10)
    })
    let closed = 0
    for (const el of covering) {
      if (!el.isConnected) continue
      const button = Array.from<any>(el.querySelectorAll("button, a, [role=button], [aria-label]"))
        .find((b) => /close|dismiss/i.test(b.getAttribute("aria-label") ?? "") || close.test(b.innerText ?? ""))
      button?.click()
      // Whatever the page does on close, the overlay must not hide the content.
      if (el.isConnected) el.remove()
      closed++
    }
    document.documentElement.style.removeProperty("overflow")
    document.body?.style.removeProperty("overflow")
    document.body?.classList.remove("modal-open", "no-scroll", "noscroll")
    return closed
  }, CLOSE.source).catch(() => 0)
