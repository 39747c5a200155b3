/**
 * `img` → `![alt](src "title")`, only when `includeImages` is set (otherwise nothing, alt text included). With
 * `inlineImages: "placeholder"` a `data:` URI keeps its media type and loses its payload: `data:image/png;base64,...`.
 */
import type { Element } from "hast"
import { destination, escapeAlt, title } from "../escape.js"
import type { Inline } from "../inline.js"
import { resolveUrl, type State, stringProperty } from "../state.js"

const dataUri = /^\s*data:([^,]*),/i

/** The placeholder a `data:` URI becomes: its header, then `...`. */
export const placeholder = (src: string): string => {
  const match = dataUri.exec(src)
  return match === null ? src : `data:${match[1]!.trim()},...`
}

/** Writes an image, or nothing when images are excluded or it has no source. */
export const image = (el: Element, st: State, buf: Inline): void => {
  if (!st.options.includeImages) return
  const raw = stringProperty(el, "src") ?? stringProperty(el, "dataSrc")
  if (raw === undefined || raw.trim() === "") return
  const src = dataUri.test(raw)
    ? (st.options.inlineImages === "placeholder" ? placeholder(raw) : raw.trim())
    : resolveUrl(st, raw)
  const alt = escapeAlt(stringProperty(el, "alt") ?? "", st.inTable)
  buf.literal(`![${alt}](${destination(src, st.inTable)}${title(stringProperty(el, "title"), st.inTable)})`)
}
