/**
 * Text helpers of news: HTML to plain text (bounded), title normalization for syndicated copies, and a 64-bit
 * MinHash sketch of a body's word shingles (near-duplicate bodies share most slots).
 */
import { createHash } from "node:crypto"

const ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: "\"", apos: "'", nbsp: " ", "#39": "'" }

/** Plain text of an HTML fragment: tags out, common entities decoded, whitespace collapsed; at most `max` characters. */
export const plainText = (html: string, max = 4_000): string =>
  html.slice(0, max * 4)
    .replace(/<(script|style)[^>]*>[\s\S]*?<\/\1>/gi, " ")
    .replace(/<[^>]*>/g, " ")
    .replace(/&(#?\w+);/g, (all, name: string) => ENTITIES[name.toLowerCase()] ?? (name.startsWith("#") ? safeChar(name.slice(1)) : all))
    .replace(/\s+/g, " ")
    .trim()
    .slice(0, max)

const safeChar = (code: string): string => {
  const n = code.startsWith("x") || code.startsWith("X") ? Number.parseInt(code.slice(1), 16) : Number.parseInt(code, 10)
  return Number.isFinite(n) && n > 0 && n < 0x110000 ? String.fromCodePoint(n) : " "
}

/** Lower case, accents off, anything but letters and digits as one space. */
export const normalize = (text: string): string =>
  text.toLowerCase().normalize("NFKD").replace(/[\u0300-\u036f]/g, "").replace(/[^\p{L}\p{N}]+/gu, " ").trim()

// A publisher's name after the headline (" - Reuters", " | The Daily"): syndicated copies differ only there.
const PUBLISHER_SUFFIX = /\s+[-–—|:]\s+[^-–—|:]{1,40}$/u

/** A headline as syndicated copies share it: the publisher suffix dropped, normalized. */
export const titleKey = (title: string): string => normalize(title.replace(PUBLISHER_SUFFIX, ""))

const SLOTS = 24

/**
 * The MinHash sketch of the text's 3-word shingles: {@link SLOTS} minima of seeded 32-bit hashes, as hex ("" for a
 * text of fewer than 8 words). The share of equal slots of two sketches estimates the shingles' Jaccard similarity.
 */
export const minhash = (text: string): string => {
  const words = normalize(text).split(" ").filter((w) => w.length > 0).slice(0, 2_000)
  if (words.length < 8) return ""
  const minima = new Array<number>(SLOTS).fill(0xffffffff)
  for (let i = 0; i + 3 <= words.length; i++) {
    const hash = createHash("sha256").update(words.slice(i, i + 3).join(" ")).digest()
    // Slot k takes a different 32-bit window of one digest mixed with k: a cheap family of seeded hashes.
    for (let k = 0; k < SLOTS; k++) {
      const h = (hash.readUInt32BE((k % 8) * 4) ^ Math.imul(k + 1, 0x9e3779b1)) >>> 0
      const mixed = Math.imul(h ^ (h >>> 16), 0x85ebca6b) >>> 0
      if (mixed < minima[k]!) minima[k] = mixed
    }
  }
  return minima.map((m) => m.toString(16).padStart(8, "0")).join("")
}

/** The estimated Jaccard similarity of two sketches (0 when either is missing). */
export const similarity = (a: string, b: string): number => {
  if (a === "" || b === "" || a.length !== b.length) return 0
  let same = 0
  for (let k = 0; k < a.length; k += 8) if (a.slice(k, k + 8) === b.slice(k, k + 8)) same++
  return same / (a.length / 8)
}

/** A short stable id of a string (hex of SHA-256). */
export const digest = (text: string, length = 20): string => createHash("sha256").update(text).digest("hex").slice(0, length)
