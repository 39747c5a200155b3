/**
 * CSS selector validation, done once when a request is read so that matching later cannot fail. The matcher
 * (`select.ts`) only rejects some unsupported parts (pseudo-elements, `:hover`) when it reaches them on a matching
 * element, so a probe run alone would let `x:hover` through on pages without an `x`; the parsed selector is therefore
 * checked too.
 */
import type { Root } from "hast"
import type { AstRule, AstSelector } from "css-selector-parser"
import { compile, selectAll } from "./select.js"

// The matcher's own parser and syntax, so "valid here" means "matchable there".
const parseSelector = compile

// Pseudo-classes the matcher implements (those of hast-util-select, whose semantics it keeps); any other throws.
const supportedPseudoClasses = new Set([
  "any-link", "blank", "checked", "dir", "disabled", "empty", "enabled", "first-child", "first-of-type", "has", "is",
  "lang", "last-child", "last-of-type", "not", "nth-child", "nth-last-child", "nth-last-of-type", "nth-of-type",
  "only-child", "only-of-type", "optional", "read-only", "read-write", "required", "root", "scope"
])

// A small page with nesting, so structural pseudo-classes and combinators run at least once.
const probe: Root = {
  type: "root",
  children: [{
    type: "element",
    tagName: "html",
    properties: { lang: "en" },
    children: [{
      type: "element",
      tagName: "body",
      properties: {},
      children: [{ type: "element", tagName: "p", properties: { className: ["x"] }, children: [] }]
    }]
  }]
}

/** Why `selector` cannot be used, or `undefined` when it is a selector list Sift can match. */
export const validateSelector = (selector: string): string | undefined => {
  if (selector.trim() === "") return "the selector is empty"
  let ast: AstSelector
  try {
    ast = parseSelector(selector)
  } catch (error) {
    return describe(error)
  }
  const unsupported = unsupportedIn(ast)
  if (unsupported !== undefined) return unsupported
  try {
    selectAll(selector, probe)
  } catch (error) {
    return describe(error)
  }
  return undefined
}

const describe = (error: unknown): string =>
  (error instanceof Error ? error.message : String(error)).replace(/^css-selector-parser parse error: /, "")

const unsupportedIn = (selector: AstSelector): string | undefined => {
  for (const rule of selector.rules) {
    const found = unsupportedInRule(rule)
    if (found !== undefined) return found
  }
  return undefined
}

const unsupportedInRule = (rule: AstRule): string | undefined => {
  for (const item of rule.items) {
    if (item.type === "PseudoElement") return `pseudo-elements such as ::${item.name} select no element`
    if (item.type === "NestingSelector") return "the nesting selector & is not supported"
    if (item.type === "TagName" && item.namespace !== undefined) return "namespaced type selectors are not supported"
    if (item.type !== "PseudoClass") continue
    if (!supportedPseudoClasses.has(item.name)) return `the pseudo-class :${item.name} is not supported`
    const argument = item.argument
    if (argument?.type === "Selector") {
      const found = unsupportedIn(argument)
      if (found !== undefined) return found
    } else if (argument?.type === "FormulaOfSelector") {
      // Matching throws on it; the probe page may not reach it (`li:nth-child(2n of .x)` has no `li` to test).
      return `:${item.name}(An+B of S) is not supported`
    }
  }
  return rule.nestedRule === undefined ? undefined : unsupportedInRule(rule.nestedRule)
}
