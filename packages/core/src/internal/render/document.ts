/**
 * Reading a page's serialized DOM cheaply. `page.content()` installs Playwright's injected script (~345 KB of source
 * sent and compiled in every fresh page) just to read `outerHTML`; the DevTools `DOM.getOuterHTML` of the document
 * gives the same text (doctype included) from the browser's own serializer, out of reach of page scripts.
 */
import type { CDPSession, Page } from "playwright-core"

const sessions = new WeakMap<Page, Promise<CDPSession | undefined>>()

const sessionOf = (page: Page): Promise<CDPSession | undefined> => {
  let session = sessions.get(page)
  if (session === undefined) {
    // A browser without DevTools sessions (not Chromium) falls back to `page.content()` for good.
    session = page.context().newCDPSession(page).catch(() => undefined)
    sessions.set(page, session)
  }
  return session
}

/** The page's HTML as `page.content()` gives it: doctype and `documentElement.outerHTML`. */
export const documentHtml = async (page: Page): Promise<string> => {
  const session = await sessionOf(page)
  if (session === undefined) return page.content()
  try {
    const { root } = await session.send("DOM.getDocument", { depth: 0 })
    const { outerHTML } = await session.send("DOM.getOuterHTML", { nodeId: root.nodeId })
    return outerHTML
  } catch (error) {
    // A closed page must fail as it would with `page.content()`; anything else gets Playwright's own reading.
    if (page.isClosed()) throw error
    return page.content()
  }
}
