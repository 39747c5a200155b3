/**
 * `extractRules` of `GET /web/scrape/html` (wave2 §17): CSS rules run on the returned (cleaned, filtered) HTML into
 * `extracted`. A rule is a selector string (`"h1"`, or `"a@href"` for an attribute) or `{ selector, type: item|list,
 * output: text|html|@attribute|{ nested rules } }`; nested rules run inside each match. At most 100 fields across 5
 * levels. Missing items are null, lists without matches empty, a list item without the attribute null. Matching is
 * core's `ParseRules` (the same selector engine and limits as `parseParams`).
 *
 * @since 0.1.0
 */
import { Errors, Html, ParseRules } from "@sift/core"

type Root = ReturnType<typeof Html.parse>

/** Fields across all levels, and levels, at most. */
export const MAX_FIELDS = 100
export const MAX_LEVELS = 5
/** Matches of one nested list that are read, at most. */
const MAX_NESTED_ITEMS = 1_000

/** A checked rule. */
export interface Rule {
  readonly name: string
  readonly selector: string
  readonly type: "item" | "list"
  readonly output: { readonly kind: "text" } | { readonly kind: "html" } | { readonly kind: "attribute"; readonly name: string } | { readonly kind: "nested"; readonly rules: ReadonlyArray<Rule> }
}

const ATTRIBUTE = /^[A-Za-z_:][-A-Za-z0-9_:.]{0,99}$/

const invalid = (field: string, detail: string) => new Errors.InvalidRequest({ reason: "Invalid", field, detail })

/** `"a@href"` → `a` and `href`, when what follows the last `@` is an attribute name outside brackets and quotes. */
const shorthand = (text: string): { readonly selector: string; readonly attribute?: string } => {
  const at = text.lastIndexOf("@")
  if (at <= 0) return { selector: text }
  const attribute = text.slice(at + 1).trim()
  const selector = text.slice(0, at).trim()
  if (!ATTRIBUTE.test(attribute) || /[\]"']/.test(text.slice(at))) return { selector: text }
  return { selector, attribute }
}

const checkSelector = (selector: unknown, field: string): string => {
  if (typeof selector !== "string" || selector.trim() === "") throw invalid(field, "must be a CSS selector")
  if (selector.length > 2048) throw invalid(field, "must be at most 2048 characters")
  const problem = ParseRules.validateSelector(selector)
  if (problem !== undefined) throw invalid(field, `invalid CSS selector: ${problem}`)
  return selector
}

/** Checks `extractRules` (as the query gave it), throwing an `InvalidRequest` that names the member. */
export const compile = (input: unknown): ReadonlyArray<Rule> => {
  let fields = 0
  const level = (value: unknown, path: string, depth: number): Array<Rule> => {
    if (depth > MAX_LEVELS) throw invalid(path, `rules nest at most ${MAX_LEVELS} levels`)
    if (typeof value !== "object" || value === null || Array.isArray(value)) throw invalid(path, "must be an object of named rules")
    const entries = Object.entries(value)
    if (entries.length === 0) throw invalid(path, "must name at least one field")
    return entries.map(([name, rule]): Rule => {
      const field = `${path}.${name}`
      if (name === "" || name.length > 100 || name === "__proto__") throw invalid(field, "field names are 1 to 100 characters")
      if (++fields > MAX_FIELDS) throw invalid("extractRules", `at most ${MAX_FIELDS} fields across all levels`)
      if (typeof rule === "string") {
        const { attribute, selector } = shorthand(rule)
        return { name, selector: checkSelector(selector, field), type: "item", output: attribute === undefined ? { kind: "text" } : { kind: "attribute", name: attribute } }
      }
      if (typeof rule !== "object" || rule === null || Array.isArray(rule)) throw invalid(field, "must be a selector or { selector, type, output }")
      const { output, selector, type, ...rest } = rule as Record<string, unknown>
      const unknown = Object.keys(rest)[0]
      if (unknown !== undefined) throw invalid(`${field}.${unknown}`, "is not a known member")
      if (type !== undefined && type !== "item" && type !== "list") throw invalid(`${field}.type`, "must be item or list")
      const checked = checkSelector(selector, `${field}.selector`)
      let out: Rule["output"]
      if (output === undefined || output === "text") out = { kind: "text" }
      else if (output === "html") out = { kind: "html" }
      else if (typeof output === "string") {
        const attribute = output.startsWith("@") ? output.slice(1) : ""
        if (!ATTRIBUTE.test(attribute)) throw invalid(`${field}.output`, "must be text, html, @attribute or nested rules")
        out = { kind: "attribute", name: attribute }
      } else out = { kind: "nested", rules: level(output, `${field}.output`, depth + 1) }
      return { name, selector: checked, type: type === "list" ? "list" : "item", output: out }
    })
  }
  return level(input, "extractRules", 1)
}

const named: Record<string, string> = { amp: "&", quot: "\"", lt: "<", gt: ">", apos: "'", nbsp: "\u00a0" }
const decodeEntities = (text: string) =>
  text.replace(/&(#x[0-9a-f]{1,6}|#\d{1,7}|amp|quot|lt|gt|apos|nbsp);/gi, (whole, name: string) => {
    if (name[0] !== "#") return named[name.toLowerCase()] ?? whole
    const code = name[1] === "x" || name[1] === "X" ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10)
    return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole
  })

/** An attribute of the first tag of an element's outer HTML, as written (entities decoded); undefined when absent. */
const attributeOf = (outerHtml: string, name: string): string | undefined => {
  const tag = /^<[^\s>/]+([^>]*)>/.exec(outerHtml)?.[1] ?? ""
  const escaped = name.replace(/[.:]/g, "\\$&")
  const match = new RegExp(`(?:^|\\s)${escaped}(?:\\s*=\\s*(?:"([^"]*)"|'([^']*)'|([^\\s"'>]+)))?(?=\\s|/|$)`, "i").exec(tag)
  if (match === null) return undefined
  return decodeEntities(match[1] ?? match[2] ?? match[3] ?? "")
}

/** The inside of a matched element as a tree, for its nested rules. */
const inside = (outerHtml: string): Root => {
  const fragment = Html.parseFragment(outerHtml)
  const element = fragment.children.find((c) => c.type === "element")
  return { type: "root", children: element !== undefined && element.type === "element" ? element.children : [] }
}

const matches = (root: Root, rule: Rule, output: "text" | "html", baseUrl: string): string | null | Array<string> =>
  ParseRules.apply(root, { rules: { m: { selector: rule.selector, type: rule.type, output } } }, { baseUrl }).m ?? null

/** Runs checked rules on a tree. */
export const apply = (root: Root, rules: ReadonlyArray<Rule>, baseUrl: string): Record<string, unknown> => {
  const out: Array<[string, unknown]> = []
  for (const rule of rules) {
    const output = rule.output
    if (output.kind === "text" || output.kind === "html") {
      out.push([rule.name, matches(root, rule, output.kind, baseUrl)])
      continue
    }
    const found = matches(root, rule, "html", baseUrl)
    const one = (html: string) => (output.kind === "attribute" ? attributeOf(html, output.name) ?? null : apply(inside(html), output.rules, baseUrl))
    if (Array.isArray(found)) out.push([rule.name, found.slice(0, output.kind === "nested" ? MAX_NESTED_ITEMS : undefined).map(one)])
    else out.push([rule.name, found === null ? null : one(found)])
  }
  return Object.fromEntries(out)
}

/** Runs checked rules on the returned HTML. */
export const extract = (html: string, rules: ReadonlyArray<Rule>, baseUrl: string): Record<string, unknown> =>
  apply(Html.parse(html), rules, baseUrl)
