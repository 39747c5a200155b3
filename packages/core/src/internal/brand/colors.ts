/**
 * Colors of a brand: parsing the CSS forms pages state (`#abc`, `#aabbcc`, `rgb()`), perceptual distance (CIELAB ΔE76)
 * and names from a small table of common color names (written for Sift: CSS named colors a reader recognizes).
 */

/** An sRGB color, channels 0–255. */
export interface Rgb {
  readonly r: number
  readonly g: number
  readonly b: number
}

const NAMES: ReadonlyArray<readonly [string, string]> = [
  ["Black", "#000000"], ["White", "#ffffff"], ["Gray", "#808080"], ["Dark Gray", "#404040"], ["Light Gray", "#d3d3d3"],
  ["Silver", "#c0c0c0"], ["Charcoal", "#36454f"], ["Slate Gray", "#708090"], ["Red", "#ff0000"], ["Dark Red", "#8b0000"],
  ["Crimson", "#dc143c"], ["Maroon", "#800000"], ["Salmon", "#fa8072"], ["Coral", "#ff7f50"], ["Tomato", "#ff6347"],
  ["Orange", "#ffa500"], ["Dark Orange", "#ff8c00"], ["Gold", "#ffd700"], ["Yellow", "#ffff00"], ["Khaki", "#f0e68c"],
  ["Beige", "#f5f5dc"], ["Ivory", "#fffff0"], ["Cream", "#fffdd0"], ["Tan", "#d2b48c"], ["Brown", "#8b4513"],
  ["Chocolate", "#d2691e"], ["Olive", "#808000"], ["Lime", "#00ff00"], ["Green", "#008000"], ["Dark Green", "#006400"],
  ["Forest Green", "#228b22"], ["Sea Green", "#2e8b57"], ["Mint", "#98ff98"], ["Teal", "#008080"], ["Turquoise", "#40e0d0"],
  ["Cyan", "#00ffff"], ["Sky Blue", "#87ceeb"], ["Light Blue", "#add8e6"], ["Steel Blue", "#4682b4"], ["Blue", "#0000ff"],
  ["Royal Blue", "#4169e1"], ["Dodger Blue", "#1e90ff"], ["Navy", "#000080"], ["Midnight Blue", "#191970"],
  ["Indigo", "#4b0082"], ["Purple", "#800080"], ["Violet", "#ee82ee"], ["Lavender", "#e6e6fa"], ["Magenta", "#ff00ff"],
  ["Pink", "#ffc0cb"], ["Hot Pink", "#ff69b4"], ["Deep Pink", "#ff1493"], ["Plum", "#dda0dd"]
]

/** `#rrggbb` of a color. */
export const toHex = (c: Rgb): string =>
  "#" + [c.r, c.g, c.b].map((v) => Math.max(0, Math.min(255, Math.round(v))).toString(16).padStart(2, "0")).join("")

/** A color in a CSS form pages use for theme colors (`#abc`, `#aabbcc`, `#aabbccdd`, `rgb()`/`rgba()`), else undefined. */
export const parseColor = (text: string): Rgb | undefined => {
  const value = text.trim().toLowerCase()
  const hex = /^#([0-9a-f]{3,8})$/.exec(value)?.[1]
  if (hex !== undefined) {
    if (hex.length === 3 || hex.length === 4) {
      return { r: parseInt(hex[0]! + hex[0]!, 16), g: parseInt(hex[1]! + hex[1]!, 16), b: parseInt(hex[2]! + hex[2]!, 16) }
    }
    if (hex.length === 6 || hex.length === 8) {
      return { r: parseInt(hex.slice(0, 2), 16), g: parseInt(hex.slice(2, 4), 16), b: parseInt(hex.slice(4, 6), 16) }
    }
    return undefined
  }
  const rgb = /^rgba?\(\s*(\d{1,3})[\s,]+(\d{1,3})[\s,]+(\d{1,3})\s*(?:[,/]\s*([\d.]+%?)\s*)?\)$/.exec(value)
  if (rgb !== null) {
    // A transparent color is no theme color.
    if (rgb[4] !== undefined && parseFloat(rgb[4]) === 0) return undefined
    const [r, g, b] = [rgb[1], rgb[2], rgb[3]].map((v) => Math.min(255, Number(v)))
    return { r: r!, g: g!, b: b! }
  }
  const named = NAMED_CSS.get(value)
  return named === undefined ? undefined : parseColor(named)
}

// The CSS keywords a theme-color is most often written with.
const NAMED_CSS = new Map([["white", "#ffffff"], ["black", "#000000"], ["red", "#ff0000"], ["blue", "#0000ff"], ["green", "#008000"], ["navy", "#000080"], ["orange", "#ffa500"], ["purple", "#800080"], ["teal", "#008080"], ["gray", "#808080"], ["grey", "#808080"]])

const linear = (v: number) => {
  const c = v / 255
  return c <= 0.04045 ? c / 12.92 : Math.pow((c + 0.055) / 1.055, 2.4)
}

/** Relative luminance (WCAG), 0 (black) to 1 (white). */
export const luminance = (c: Rgb): number => 0.2126 * linear(c.r) + 0.7152 * linear(c.g) + 0.0722 * linear(c.b)

/** HSL saturation, 0 to 1. */
export const saturation = (c: Rgb): number => {
  const max = Math.max(c.r, c.g, c.b) / 255
  const min = Math.min(c.r, c.g, c.b) / 255
  const l = (max + min) / 2
  return max === min ? 0 : (max - min) / (1 - Math.abs(2 * l - 1))
}

/** CIELAB (D65) of an sRGB color. */
export const toLab = (c: Rgb): readonly [number, number, number] => {
  const r = linear(c.r), g = linear(c.g), b = linear(c.b)
  const f = (t: number) => t > 216 / 24389 ? Math.cbrt(t) : (24389 / 27 * t + 16) / 116
  const x = f((0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047)
  const y = f(0.2126 * r + 0.7152 * g + 0.0722 * b)
  const z = f((0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883)
  return [116 * y - 16, 500 * (x - y), 200 * (y - z)]
}

/** ΔE76 between two colors (about 2.3 is a just-noticeable difference). */
export const deltaE = (a: Rgb, b: Rgb): number => {
  const [l1, a1, b1] = toLab(a)
  const [l2, a2, b2] = toLab(b)
  return Math.hypot(l1 - l2, a1 - a2, b1 - b2)
}

const table = NAMES.map(([name, hex]) => ({ name, rgb: parseColor(hex)! }))

/** The nearest name of the table. */
export const nameOf = (c: Rgb): string => {
  let best = table[0]!
  let distance = Infinity
  for (const entry of table) {
    const d = deltaE(c, entry.rgb)
    if (d < distance) {
      distance = d
      best = entry
    }
  }
  return best.name
}

/** A named color as the API gives it. */
export const named = (c: Rgb): { readonly hex: string; readonly name: string } => ({ hex: toHex(c), name: nameOf(c) })
