/**
 * Parse rules (`parseParams`, decisions §2): named CSS selectors whose matches become the fields of `parsed.data`, as
 * text, outer HTML or an attribute's value, one item or a list.
 *
 * @since 0.1.0
 */
import type { Element, Root } from "hast"
import { Either, ParseResult, Schema } from "effect"
import { find, html } from "property-information"
import { InvalidRequest } from "./Errors.js"
import { indexTree, selectAll, select as selectOne } from "./internal/page/select.js"
import { serialize } from "./internal/page/serialize.js"
import { validateSelector as validate } from "./internal/page/selector.js"
import { blockText } from "./internal/page/text.js"
import { absoluteSrcset, documentBase, resolve } from "./internal/page/url.js"

/** Why `selector` cannot be matched (the parser's message), or `undefined` when it is a usable selector list. */
export const validateSelector = (selector: string): string | undefined => validate(selector)

/** The most rules one request may hold. */
export const maxRules = 100

/** A CSS selector list of 1 to 2048 characters that Sift can match. @category schemas */
export const Selector = Schema.String.pipe(
  Schema.minLength(1),
  Schema.maxLength(2048),
  Schema.filter((selector) => {
    const problem = validate(selector)
    return problem === undefined ? undefined : `invalid CSS selector: ${problem}`
  })
)

/** What a match becomes: its text, its outer HTML, or the value of the named attribute. @category schemas */
export const Output = Schema.Union(
  Schema.Literal("text", "html"),
  Schema.String.pipe(Schema.pattern(/^[^\s"'>/=\u0000-\u001f]{1,100}$/, {
    message: () => "output must be \"text\", \"html\" or an attribute name"
  }))
)

/** One rule in its long form. @category schemas */
export const RuleObject = Schema.Struct({
  selector: Selector,
  type: Schema.optional(Schema.Literal("item", "list")),
  output: Schema.optional(Output)
})

/** One rule: a bare selector (an item's text) or the long form. @category schemas */
export const Rule = Schema.Union(Selector, RuleObject)
/** @category models */
export type Rule = typeof Rule.Type

/** A field name of 1 to 100 characters; `__proto__` is refused since no JavaScript object can carry it as data. */
export const FieldName = Schema.String.pipe(
  Schema.minLength(1),
  Schema.maxLength(100),
  Schema.filter((name) => (name === "__proto__" ? "__proto__ cannot be a field name" : undefined))
)

/** The `parseParams` member of a scrape request. @category schemas */
export const ParseParams = Schema.Struct({
  rules: Schema.Record({ key: FieldName, value: Rule }).pipe(
    Schema.filter((rules) =>
      Object.keys(rules).length <= maxRules ? undefined : `at most ${maxRules} rules are allowed`
    )
  )
})
/** @category models */
export type ParseParams = typeof ParseParams.Type

/**
 * Decodes `parseParams` from a request body. A bad member becomes an `InvalidRequest` naming it; for a bad selector
 * the field is the rule (`parseParams.rules.price`).
 */
export const decode = (input: unknown): Either.Either<ParseParams, InvalidRequest> =>
  Schema.decodeUnknownEither(ParseParams, { onExcessProperty: "error" })(input).pipe(
    Either.mapLeft((error) => {
      const issues = ParseResult.ArrayFormatter.formatErrorSync(error)
      // In the `string | object` union the deepest issue is the one about what the caller actually wrote.
      const issue = issues.reduce((deepest, next) => (next.path.length > deepest.path.length ? next : deepest))
      const path = issue.path.at(-1) === "selector" && issue.path[0] === "rules" ? issue.path.slice(0, -1) : issue.path
      const field = ["parseParams", ...path.map(String)].join(".")
      return new InvalidRequest({ reason: "Invalid", field, detail: issue.message })
    })
  )

/** The fields a set of rules produced: an item is a string or `null`, a list an array (possibly empty). */
export type Parsed = Record<string, string | null | Array<string>>

/**
 * Applies validated rules to a page. Attribute outputs that hold URLs come out absolute, resolved against the page's
 * `<base href>` and then `baseUrl`.
 */
export const apply = (tree: Root, params: ParseParams, context: { readonly baseUrl: string }): Parsed => {
  const base = documentBase(tree, context.baseUrl)
  const index = indexTree(tree)
  const entries: Array<[string, string | null | Array<string>]> = []
  for (const [name, rule] of Object.entries(params.rules)) {
    const { output, selector, type } = typeof rule === "string"
      ? { selector: rule, type: "item" as const, output: "text" }
      : { selector: rule.selector, type: rule.type ?? "item", output: rule.output ?? "text" }
    if (type === "item") {
      const element = selectOne(selector, index)
      entries.push([name, element === undefined ? null : valueOf(element, output, base) ?? null])
    } else {
      const values: Array<string> = []
      for (const element of selectAll(selector, index)) {
        const value = valueOf(element, output, base)
        // A list of attribute values skips the matches that lack the attribute rather than padding with nulls.
        if (value !== undefined) values.push(value)
      }
      entries.push([name, values])
    }
  }
  // `fromEntries` defines own properties, so a rule named `__proto__` is a field like any other.
  return Object.fromEntries(entries)
}

const urlAttributes = new Set([
  "href", "src", "action", "formaction", "poster", "cite", "data", "background", "longdesc", "manifest", "codebase",
  "icon", "itemid", "xlink:href", "data-src", "data-lazy-src", "data-original", "data-href", "data-url"
])
const srcsetAttributes = new Set(["srcset", "imagesrcset", "data-srcset", "data-lazy-srcset"])

const valueOf = (element: Element, output: string, base: string): string | undefined => {
  if (output === "text") return blockText(element)
  if (output === "html") return serialize(element)
  const name = output.toLowerCase()
  const value = attributeValue(element, name)
  if (value === undefined) return undefined
  if (urlAttributes.has(name)) return resolve(value, base) ?? value
  if (srcsetAttributes.has(name)) return absoluteSrcset(value, base)
  if (name === "ping") return value.split(/\s+/).map((url) => resolve(url, base) ?? url).join(" ")
  return value
}

/** An attribute's value by its HTML name, as `getAttribute` would give it (`""` for a boolean attribute). */
const attributeValue = (element: Element, name: string): string | undefined => {
  const info = find(html, name)
  const value = element.properties[info.property]
  if (value === undefined || value === null || value === false) return undefined
  if (value === true) return ""
  if (Array.isArray(value)) return value.join(info.commaSeparated ? ", " : " ")
  return String(value)
}
