import { describe, expect, it } from "@effect/vitest"
import type { Element, Nodes, Root } from "hast"
import { select as selectOne } from "hast-util-select"
import { toHtml } from "hast-util-to-html"
import { readFileSync } from "node:fs"
import * as ContentFilter from "../src/ContentFilter.js"
import { InvalidRequest } from "../src/Errors.js"
import { parse, parseFragment } from "../src/Html.js"

const fixture = (name: string) => readFileSync(new URL(`./fixtures/page/${name}`, import.meta.url), "utf8")

const bodyHtml = (tree: Root): string => {
  const body = selectOne("body", tree)
  return body === undefined ? "" : toHtml(body.children)
}

const elements = (node: Nodes, out = new Set<Element>()): Set<Element> => {
  if (node.type === "element") out.add(node)
  if ("children" in node) for (const child of node.children) elements(child, out)
  return out
}

describe("ContentFilter.select", () => {
  const tree = parse(fixture("product.html"))
  const pristine = JSON.stringify(tree)

  it("keeps only the outermost included subtrees, in document order, beside the head", () => {
    const result = ContentFilter.select(tree, { includeSelectors: [".price", "h1", "#product .price .amount"] })
    expect(bodyHtml(result)).toBe(
      `<h1 class="product-title">Trail   Runner\n      3</h1>` +
        `<div class="price"><span class="currency">EUR</span> <span class="amount">129.95</span></div>`
    )
    expect(toHtml(selectOne("head > title", result)!)).toBe("<title>Trail Runner 3 | Peak Outfitters</title>")
    expect(selectOne("html", result)?.properties.lang).toBe("en")
    expect(toHtml(result)).toMatch(/^<!doctype html>/)
  })

  it("treats a comma-separated selector as one selector list", () => {
    const joined = ContentFilter.select(tree, { includeSelectors: ["h1, .price"] })
    const separate = ContentFilter.select(tree, { includeSelectors: ["h1", ".price"] })
    expect(bodyHtml(joined)).toBe(bodyHtml(separate))
    expect(bodyHtml(joined)).toContain("129.95")
  })

  it("removes excluded subtrees inside included ones", () => {
    const result = ContentFilter.select(tree, { includeSelectors: ["#product"], excludeSelectors: [".ad", ".stars"] })
    const html = bodyHtml(result)
    expect(html).toContain("Great on mud.")
    expect(html).toContain("Vibram sole")
    expect(html).not.toContain("Sponsored")
    expect(html).not.toContain("Buy socks!")
    expect(html).not.toContain(`class="stars"`)
    expect(html).not.toContain("Peak Outfitters GmbH")
    expect(html).not.toContain("cookies")
  })

  it("lets exclusion win over inclusion", () => {
    const result = ContentFilter.select(tree, { includeSelectors: [".review"], excludeSelectors: [".reviews"] })
    expect(bodyHtml(result)).toBe(`<div class="review">Not a product review</div>`)
    const nothing = ContentFilter.select(tree, { includeSelectors: [".price"], excludeSelectors: [".price"] })
    expect(bodyHtml(nothing)).toBe("")
  })

  it("with exclusions only, keeps the rest of the page", () => {
    const result = ContentFilter.select(tree, { excludeSelectors: ["header, footer", ".cookie-banner"] })
    const html = toHtml(result)
    expect(html).toContain("<title>Trail Runner 3 | Peak Outfitters</title>")
    expect(html).toContain("Grippy outsole")
    expect(html).toContain("Not a product review")
    expect(html).not.toContain("site-header")
    expect(html).not.toContain("Peak Outfitters GmbH")
    expect(html).not.toContain("We use cookies")
  })

  it("handles the document elements themselves as selectors", () => {
    const whole = ContentFilter.select(tree, { includeSelectors: ["html"], excludeSelectors: ["aside"] })
    expect(toHtml(whole)).toContain("site-header")
    expect(toHtml(whole)).not.toContain("Not a product review")
    const body = ContentFilter.select(tree, { includeSelectors: ["body"] })
    expect(selectOne("body > main#product", body)).toBeDefined()
    expect(selectOne("body body", body)).toBeUndefined()
  })

  it("returns the input unchanged without selectors, and never changes or shares the input", () => {
    expect(ContentFilter.select(tree, {})).toBe(tree)
    expect(ContentFilter.select(tree, { includeSelectors: null, excludeSelectors: [] })).toBe(tree)
    const inputElements = elements(tree)
    for (const options of [{ includeSelectors: ["main"] }, { excludeSelectors: [".ad"] }]) {
      const result = ContentFilter.select(tree, options)
      for (const element of elements(result)) expect(inputElements.has(element)).toBe(false)
    }
    expect(JSON.stringify(tree)).toBe(pristine)
  })

  it("filters fragments without inventing a document", () => {
    const fragment = parseFragment("<p>a</p><div class=x><p>b</p></div>")
    const result = ContentFilter.select(fragment, { includeSelectors: [".x p"] })
    expect(toHtml(result)).toBe("<p>b</p>")
  })
})

describe("ContentFilter.validateSelectors", () => {
  it("names the index of the first bad selector", () => {
    const error = ContentFilter.validateSelectors(["main", "article, .post", "div >", "p:hover"], "sharedParams.includeSelectors")
    expect(error).toBeInstanceOf(InvalidRequest)
    expect(error?.field).toBe("sharedParams.includeSelectors[2]")
    expect(error?.errorCode).toBe("INPUT_VALIDATION_ERROR")
    expect(error?.message).toMatch(/^sharedParams\.includeSelectors\[2\]: invalid CSS selector/)
    expect(ContentFilter.validateSelectors(["x::after"], "sharedParams.excludeSelectors")?.field)
      .toBe("sharedParams.excludeSelectors[0]")
  })

  it("accepts good lists and enforces the limits", () => {
    expect(ContentFilter.validateSelectors(["main", "#a > .b:not(.c)", "[data-x]"], "f")).toBeUndefined()
    expect(ContentFilter.validateSelectors(null, "f")).toBeUndefined()
    expect(ContentFilter.validateSelectors(Array(51).fill("p"), "f")?.field).toBe("f")
    expect(ContentFilter.validateSelectors(Array(50).fill("p"), "f")).toBeUndefined()
    expect(ContentFilter.validateSelectors(["p", "p".repeat(2049)], "f")?.field).toBe("f[1]")
    expect(ContentFilter.validateSelectors([""], "f")?.field).toBe("f[0]")
  })
})
