/**
 * `includeFrames`: each iframe's document is read from its own frame (same-origin or not) and put in place of the
 * iframe in the serialized HTML, as a `<div data-sift-frame="<src>">` holding the frame's body, so the HTML and the
 * Markdown carry what a person sees inside frames. One level of nesting is followed inside each frame as well.
 */
import type { Frame, Page } from "playwright-core"

// Functions passed to `page.evaluate` run in the browser; these names are the page's globals (core has no DOM types).
declare const document: any

const MARK = "data-sift-frame-id"

const frameBody = async (frame: Frame, depth: number): Promise<string> => {
  if (depth > 0) await markAndReplace(frame, depth - 1).catch(() => undefined)
  return frame.evaluate(() => document.body?.innerHTML ?? "").catch(() => "")
}

const escapeAttribute = (text: string) => text.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;")

/** Replaces iframes inside `frame` (in its live DOM: only used on child frames, never on the page a person sees). */
const markAndReplace = async (frame: Frame, depth: number): Promise<void> => {
  const handles = await frame.$$("iframe")
  for (const handle of handles) {
    const child = await handle.contentFrame().catch(() => null)
    const body = child === null ? "" : await frameBody(child, depth)
    await handle.evaluate((el, html) => {
      const div = document.createElement("div")
      div.setAttribute("data-sift-frame", el.getAttribute("src") ?? "")
      div.innerHTML = html
      el.replaceWith(div)
    }, body).catch(() => undefined)
  }
}

/** The page's HTML with every iframe's document inlined; the page itself is left untouched. */
export const inlineFrames = async (page: Page): Promise<string> => {
  const handles = await page.$$("iframe")
  const bodies: Array<string> = []
  for (const [index, handle] of handles.entries()) {
    const child = await handle.contentFrame().catch(() => null)
    bodies.push(child === null ? "" : await frameBody(child, 1))
    await handle.evaluate((el, [mark, id]) => el.setAttribute(mark!, id!), [MARK, String(index)]).catch(() => undefined)
  }
  const html = await page.content()
  if (bodies.length === 0) return html
  return html.replace(/<iframe\b([^>]*)\bdata-sift-frame-id="(\d+)"([^>]*)>[\s\S]*?<\/iframe>/gi, (_all, before: string, id: string, after: string) => {
    const src = /\bsrc="([^"]*)"/.exec(before + after)?.[1] ?? ""
    return `<div data-sift-frame="${escapeAttribute(src)}">${bodies[Number(id)] ?? ""}</div>`
  })
}
