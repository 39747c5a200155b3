/**
 * Settling a page before it is read or captured: finish CSS animations and transitions, load lazy images by scrolling
 * them into view (then back to the top), and the list of images as the browser rendered them.
 */
import type { Page } from "playwright-core"
import type * as Renderer from "../../Renderer.js"

// Functions passed to `page.evaluate` run in the browser; these names are the page's globals (core has no DOM types).
declare const document: any, location: any, innerWidth: number, innerHeight: number, scrollX: number, scrollY: number
declare const getComputedStyle: (el: any) => any, scrollTo: (x: number, y: number) => void, requestAnimationFrame: (f: () => void) => void

/** Finishes animations, makes lazy images eager and scrolls through the page once so lazy loaders fire. */
export const settleAnimations = async (page: Page): Promise<void> => {
  await page.evaluate(async () => {
    document.querySelectorAll("img[loading=lazy]").forEach((img: any) => img.loading = "eager")
    const height = document.documentElement.scrollHeight
    for (let y = 0; y < Math.min(height, 20_000); y += innerHeight) {
      scrollTo(0, y)
      await new Promise((resolve) => requestAnimationFrame(() => resolve(undefined)))
    }
    scrollTo(0, 0)
    for (const animation of document.getAnimations()) {
      try {
        animation.finish()
      } catch {
        // Infinite animations cannot finish; pause them where they are instead.
        animation.pause()
      }
    }
    await Promise.all(Array.from<any>(document.images).filter((img: any) => !img.complete).map((img: any) =>
      new Promise((resolve) => {
        img.addEventListener("load", resolve, { once: true })
        img.addEventListener("error", resolve, { once: true })
        setTimeout(resolve, 2_000)
      })
    ))
  }).catch(() => undefined)
}

/** Every `img` and CSS background image of the page, as rendered, in document order. */
export const collectImages = (page: Page): Promise<ReadonlyArray<Renderer.RenderedImage>> =>
  page.evaluate(() => {
    const found: Array<Renderer.RenderedImage> = []
    const boxOf = (el: any) => {
      const r = el.getBoundingClientRect()
      return { x: Math.round(r.x + scrollX), y: Math.round(r.y + scrollY), width: Math.round(r.width), height: Math.round(r.height) }
    }
    const shown = (el: any) => {
      const style = getComputedStyle(el)
      const r = el.getBoundingClientRect()
      return style.display !== "none" && style.visibility !== "hidden" && Number(style.opacity) > 0 && r.width > 0 && r.height > 0
    }
    for (const el of Array.from<any>(document.querySelectorAll("body *"))) {
      if (el.tagName === "IMG") {
        const url = el.currentSrc || el.src
        if (url === "") continue
        found.push({ url, alt: el.alt, source: "img", naturalWidth: el.naturalWidth, naturalHeight: el.naturalHeight, box: boxOf(el), visible: shown(el) })
        continue
      }
      const background = getComputedStyle(el).backgroundImage
      const match = /url\(["']?([^"')]+)["']?\)/.exec(background)
      if (match === null) continue
      found.push({
        url: new URL(match[1]!, document.baseURI).href,
        alt: el.getAttribute("aria-label") ?? "",
        source: "background",
        naturalWidth: 0,
        naturalHeight: 0,
        box: boxOf(el),
        visible: shown(el)
      })
    }
    return found
  })
