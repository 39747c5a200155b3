/**
 * URL handling shared by the page modules: the document's base URL, resolving references against it, and `srcset`
 * candidate lists.
 */
import type { Element, Root, RootContent } from "hast"

/** Resolves `reference` against `base`; `undefined` when either is unusable (so callers drop rather than guess). */
export const resolve = (reference: string, base: string): string | undefined => {
  const trimmed = reference.trim()
  if (trimmed === "") return undefined
  try {
    return new URL(trimmed, base).href
  } catch {
    return undefined
  }
}

/**
 * The URL relative references in `tree` resolve against: the first `<base href>` (itself resolved against the page
 * URL), else the page URL. Browsers use only the first `base` with an `href`, wherever it is.
 */
export const documentBase = (tree: Root, pageUrl: string): string => {
  const base = firstBaseHref(tree.children)
  if (base === undefined) return pageUrl
  return resolve(base, pageUrl) ?? pageUrl
}

const firstBaseHref = (nodes: ReadonlyArray<RootContent>): string | undefined => {
  for (const node of nodes) {
    if (node.type !== "element") continue
    if (node.tagName === "base" && typeof node.properties.href === "string") return node.properties.href
    // `base` is only meaningful in the head; do not walk the whole body for it.
    if (node.tagName === "html" || node.tagName === "head") {
      const found = firstBaseHref(node.children)
      if (found !== undefined) return found
    }
  }
  return undefined
}

/** Whether a URL runs script when followed (`javascript:`, `vbscript:`), ignoring the whitespace browsers ignore. */
export const isScriptUrl = (value: string): boolean =>
  /^(?:javascript|vbscript):/i.test(value.replace(/[\u0000-\u0020]+/g, ""))

/** One `srcset` candidate: its URL and its descriptor (`w` width, `x` density). */
export interface SrcsetCandidate {
  readonly url: string
  readonly width?: number
  readonly density?: number
}

/**
 * Splits a `srcset` value into candidates, as the HTML algorithm does: URLs may contain commas (so split on a comma
 * only when it follows whitespace or a descriptor), descriptors follow the URL.
 */
export const parseSrcset = (value: string): Array<SrcsetCandidate> => {
  const candidates: Array<SrcsetCandidate> = []
  let position = 0
  const length = value.length
  while (position < length) {
    while (position < length && /[\s,]/.test(value[position]!)) position++
    if (position >= length) break
    const start = position
    while (position < length && !/\s/.test(value[position]!)) position++
    let url = value.slice(start, position)
    let descriptors = ""
    if (url.endsWith(",")) {
      url = url.replace(/,+$/, "")
    } else {
      const end = value.indexOf(",", position)
      descriptors = value.slice(position, end === -1 ? length : end)
      position = end === -1 ? length : end + 1
    }
    if (url === "") continue
    candidates.push(withDescriptor(url, descriptors.trim()))
  }
  return candidates
}

const withDescriptor = (url: string, descriptors: string): SrcsetCandidate => {
  for (const descriptor of descriptors.split(/\s+/)) {
    const match = /^(\d+(?:\.\d+)?)([wx])$/i.exec(descriptor)
    if (match === null) continue
    const amount = Number(match[1])
    return match[2]!.toLowerCase() === "w" ? { url, width: amount } : { url, density: amount }
  }
  return { url }
}

/** The candidate a person on a large screen would get: the largest width, else the largest density, else the first. */
export const bestCandidate = (candidates: ReadonlyArray<SrcsetCandidate>): SrcsetCandidate | undefined => {
  let best: SrcsetCandidate | undefined
  for (const candidate of candidates) {
    if (best === undefined || score(candidate) > score(best)) best = candidate
  }
  return best
}

// Width descriptors outrank densities: a `w` set is chosen by size, and a bare URL counts as density 1.
const score = (candidate: SrcsetCandidate): number =>
  candidate.width !== undefined ? 1e6 + candidate.width : candidate.density ?? 1

/** Rewrites every candidate URL of a `srcset` to an absolute one, keeping the descriptors. */
export const absoluteSrcset = (value: string, base: string): string =>
  parseSrcset(value)
    .map((candidate) => {
      const url = resolve(candidate.url, base) ?? candidate.url
      const descriptor = candidate.width !== undefined
        ? ` ${candidate.width}w`
        : candidate.density !== undefined
        ? ` ${candidate.density}x`
        : ""
      return url + descriptor
    })
    .join(", ")

/** The string value of an element's property (hast stores some attributes as numbers or token lists). */
export const stringProperty = (element: Element, property: string): string | undefined => {
  const value = element.properties[property]
  if (typeof value === "string") return value
  if (typeof value === "number") return String(value)
  if (Array.isArray(value)) return value.join(" ")
  return undefined
}
