/**
 * Validation of the CSS selectors the browser uses (`waitFor`, the actions' selectors and CSS targets, the screenshot
 * area's selector), done when a request is read. An invalid one used to reach Playwright, whose error was mistaken for
 * a failed page load (`WEBSITE_ACCESS_ERROR`). These selectors go to Playwright (`waitForSelector`, `locator`) or to
 * the page's own `querySelector` (scrolling a container), so a selector is accepted only when both take it: standard
 * CSS as Chromium implements it. Playwright's own extensions (`text=`, `>>`, `:has-text()`, `:visible`) and
 * pseudo-elements (which Playwright's parser refuses) are not, nor pseudo-classes Chromium does not know.
 * `test/render/BrowserSelectors.test.ts` checks these verdicts against Playwright and Chromium themselves.
 */
import { type AstSelector, createParser } from "css-selector-parser"

const parse = createParser({
  syntax: {
    tag: { wildcard: true },
    ids: true,
    classNames: true,
    // `a || b` (column combinator), namespaces and the nesting selector `&`: Playwright's parser refuses them.
    combinators: [">", "+", "~"],
    namespace: false,
    nestingSelector: false,
    // Chromium's `querySelector` knows the `i` flag of attribute selectors, not `s`.
    attributes: {
      operators: ["=", "~=", "|=", "^=", "$=", "*="],
      caseSensitivityModifiers: ["i", "I"],
      unknownCaseSensitivityModifiers: "reject"
    },
    pseudoElements: false,
    pseudoClasses: {
      unknown: "reject",
      // Pseudo-classes Chromium implements (the legacy one-colon pseudo-elements included, which both accept).
      definitions: {
        NoArgument: [
          "active", "after", "any-link", "autofill", "-webkit-autofill", "before", "checked", "current", "default",
          "defined", "disabled", "empty", "enabled", "first-child", "first-letter", "first-line", "first-of-type",
          "focus", "focus-visible", "focus-within", "fullscreen", "future", "host", "hover", "in-range", "indeterminate",
          "invalid", "last-child", "last-of-type", "link", "modal", "only-child", "only-of-type", "open", "optional",
          "out-of-range", "past", "picture-in-picture", "placeholder-shown", "popover-open", "read-only", "read-write",
          "required", "root", "scope", "target", "user-invalid", "user-valid", "valid", "visited", "xr-overlay"
        ],
        Formula: ["nth-of-type", "nth-last-of-type"],
        FormulaOfSelector: ["nth-child", "nth-last-child"],
        String: ["dir", "lang", "state"],
        Selector: ["has", "host", "host-context", "is", "not", "where", "-webkit-any"]
      }
    }
  }
})

/** Why `selector` cannot be used in the browser, or `undefined` when it can. */
export const validateBrowserSelector = (selector: string): string | undefined => {
  if (selector.trim() === "") return "the selector is empty"
  let ast: AstSelector
  try {
    ast = parse(selector)
  } catch (error) {
    return (error instanceof Error ? error.message : String(error)).replace(/^css-selector-parser parse error: /, "")
  }
  return ast.rules.length === 0 ? "the selector is empty" : undefined
}
