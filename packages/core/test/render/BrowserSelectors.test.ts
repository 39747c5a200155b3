/**
 * The browser-selector check against the browser itself: for each selector, `validateBrowserSelector` accepts it
 * exactly when both Playwright (`waitForSelector`, as `waitFor`, the actions' CSS targets and the screenshot area use
 * it) and the page's own `querySelector` (as scrolling a container does) take it in real Chromium.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type Browser, chromium, type Page } from "playwright-core"
import { existsSync } from "node:fs"
import { validateBrowserSelector } from "../../src/internal/page/browserSelector.js"

const selectors = [
  // Valid CSS.
  "#q", "input[name=q]", "div > p.x:nth-child(2n+1)", ":is(a,b) c", "[data-x='1' i]", "a b c > d ~ e + f", "p.-x",
  "p.\\31 a", "li:nth-child(2n+1 of .x)", ":has(> p)", "a:hover", "a:link", "a:visited", "a:active", ":focus-visible",
  ":focus-within", ":root", ":scope", ":host", ":popover-open", ":open", ":modal", ":user-valid", ":user-invalid",
  ":state(x)", "p:lang(en)", "p:dir(rtl)", ":any-link", ":autofill", ":-webkit-autofill", ":indeterminate",
  ":fullscreen", ":defined", ":placeholder-shown", ":read-only", ":in-range", ":picture-in-picture", ":current",
  ":past", ":future", ":xr-overlay", ":-webkit-any(a)", "p:first-line", "p:empty", "p:only-child", "p:enabled",
  "p:not(.x, #y)", "*", "a[href^='https:'][href$=\".PDF\" i]", "main p:nth-last-of-type(odd)", "p:where(.x) ~ *",
  // Broken syntax.
  "div[", "##x", "a:not(", "}", "a,,b", "[", "p#1a", "div:nth-child(foo)", ":where()", ":is()", "p >", "a..b",
  // Not CSS, or not CSS both understand: Playwright's extensions, pseudo-elements, namespaces, nesting, columns.
  "text=Foo", "a >> b", "//div", "xpath=//div", "p >> nth=0", "div:has-text(\"x\")", ":visible", "p:text('hi')",
  "p:right-of(a)", "p::before", "p::first-line", "p::placeholder", "p::marker", "p::-webkit-scrollbar", "p::foo",
  "svg|a", "*|p", "&", "a || b", "a[href$='.pdf' s]",
  // Pseudo-classes Chromium does not know.
  "a:foo", "a:contains('x')", "a:unknownthing(1 2 3)", ":target-within", ":playing", ":paused", ":muted",
  ":local-link", ":blank", ":nth-col(1)", ":has-slotted", ":-internal-x"
]

const executablePath = ["/usr/lib/chromium/chromium", "/usr/bin/chromium"].find((path) => existsSync(path))

describe.skipIf(executablePath === undefined)("browser selectors, checked against Chromium", () => {
  let browser: Browser
  let page: Page
  beforeAll(async () => {
    browser = await chromium.launch({ executablePath, args: ["--no-sandbox"] })
    page = await browser.newPage()
    await page.setContent("<main><p class=x>text</p></main>")
  })
  afterAll(async () => {
    await browser?.close()
  })

  /** Whether Playwright and the page both take the selector (a timeout means it parsed and matched nothing). */
  const browserTakes = async (selector: string): Promise<boolean> => {
    const playwright = await page.waitForSelector(selector, { state: "attached", timeout: 1 }).then(
      () => true,
      (error: Error) => error.name === "TimeoutError"
    )
    const native = await page.evaluate((s) => {
      try {
        ;(globalThis as unknown as { document: { querySelector(s: string): unknown } }).document.querySelector(s)
        return true
      } catch {
        return false
      }
    }, selector)
    return playwright && native
  }

  it("accepts exactly what Playwright and Chromium both accept", async () => {
    const disagreements: Array<string> = []
    for (const selector of selectors) {
      const ours = validateBrowserSelector(selector) === undefined
      const theirs = await browserTakes(selector)
      if (ours !== theirs) disagreements.push(`${selector}: ours ${ours}, browser ${theirs}`)
    }
    expect(disagreements).toEqual([])
    // The corpus has both kinds.
    expect(selectors.filter((s) => validateBrowserSelector(s) === undefined).length).toBeGreaterThan(40)
    expect(selectors.filter((s) => validateBrowserSelector(s) !== undefined).length).toBeGreaterThan(40)
  })
})
