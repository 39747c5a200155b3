import { describe, expect, it } from "@effect/vitest"
import { Either } from "effect"
import { readFileSync } from "node:fs"
import { InvalidRequest } from "../src/Errors.js"
import { parse } from "../src/Html.js"
import * as ParseRules from "../src/ParseRules.js"

const fixture = (name: string) => readFileSync(new URL(`./fixtures/page/${name}`, import.meta.url), "utf8")
const baseUrl = "https://shop.example/p/trail-runner-3"

const decoded = (input: unknown): ParseRules.ParseParams => {
  const result = ParseRules.decode(input)
  if (Either.isLeft(result)) throw new Error(`expected valid rules: ${result.left.message}`)
  return result.right
}

const rejected = (input: unknown): InvalidRequest => {
  const result = ParseRules.decode(input)
  if (Either.isRight(result)) throw new Error("expected the rules to be rejected")
  return result.left
}

describe("ParseRules.apply", () => {
  const tree = parse(fixture("product.html"))
  const run = (rules: Record<string, unknown>) => ParseRules.apply(tree, decoded({ rules }), { baseUrl })

  it("reads items as whitespace-collapsed text, blocks on their own lines", () => {
    expect(run({
      title: "h1.product-title",
      price: { selector: ".price .amount" },
      description: { selector: ".description", type: "item", output: "text" },
      specs: ".specs"
    })).toEqual({
      title: "Trail Runner 3",
      price: "129.95",
      description: "Grippy outsole for wet rock.\nBreathable mesh upper.\nWeighs 280 g.",
      specs: "Weight 280 g\nDrop 4 mm"
    })
  })

  it("reads lists, the first match for items, null and [] when nothing matches", () => {
    expect(run({
      features: { selector: ".features li", type: "list" },
      firstReview: ".review p",
      stars: { selector: "#product .review .stars", type: "list" },
      missing: ".does-not-exist",
      missingList: { selector: ".does-not-exist", type: "list" }
    })).toEqual({
      features: ["Vibram sole", "4 mm drop Sponsored", "Recycled laces"],
      firstReview: "Great on mud.",
      stars: ["5", "4"],
      missing: null,
      missingList: []
    })
  })

  it("returns outer HTML", () => {
    expect(run({
      price: { selector: ".price", output: "html" },
      stars: { selector: ".stars", type: "list", output: "html" }
    })).toEqual({
      price: `<div class="price"><span class="currency">EUR</span> <span class="amount">129.95</span></div>`,
      stars: [`<span class="stars">5</span>`, `<span class="stars">4</span>`]
    })
  })

  it("returns attributes, URL attributes made absolute", () => {
    expect(run({
      zoom: { selector: ".gallery a.zoom", type: "list", output: "href" },
      firstZoom: { selector: ".gallery a", output: "href" },
      linklessZoom: { selector: ".gallery a:not([href])", output: "href" },
      thumbnail: { selector: ".gallery img", output: "src" },
      srcset: { selector: ".gallery img[srcset]", output: "srcset" },
      sku: { selector: "#product", output: "data-sku" },
      variant: { selector: ".buy", output: "data-variant-id" },
      disabled: { selector: ".buy", output: "disabled" },
      classes: { selector: ".buy", type: "list", output: "class" },
      alts: { selector: "img", type: "list", output: "alt" }
    })).toEqual({
      zoom: ["https://shop.example/images/tr3-side.jpg", "https://shop.example/p/images/tr3-top.jpg"],
      firstZoom: "https://shop.example/images/tr3-side.jpg",
      linklessZoom: null,
      thumbnail: "https://shop.example/images/tr3-side-thumb.jpg",
      srcset: "https://shop.example/images/tr3-top-640.jpg 640w, https://shop.example/images/tr3-top-1280.jpg 1280w",
      sku: "TR3-BLU-42",
      variant: "v42",
      disabled: "",
      classes: ["buy"],
      alts: ["Side view", "Top view"]
    })
  })

  it("treats any rule name as a plain field", () => {
    const parsed = run({ constructor: ".price .currency", hasOwnProperty: "h1" })
    expect(Object.getPrototypeOf(parsed)).toBe(Object.prototype)
    expect(Object.entries(parsed)).toEqual([["constructor", "EUR"], ["hasOwnProperty", "Trail Runner 3"]])
    expect(rejected(JSON.parse(`{"rules":{"__proto__":"h1"}}`)).field).toContain("parseParams.rules")
  })

  it("does not change the tree", () => {
    const page = parse(fixture("product.html"))
    const before = JSON.stringify(page)
    ParseRules.apply(page, decoded({ rules: { a: { selector: "a", type: "list", output: "href" } } }), { baseUrl })
    expect(JSON.stringify(page)).toBe(before)
  })
})

describe("ParseRules.decode", () => {
  it("rejects an invalid selector naming the rule, in both forms", () => {
    const short = rejected({ rules: { title: "h1", price: ".price >" } })
    expect(short).toBeInstanceOf(InvalidRequest)
    expect(short.reason).toBe("Invalid")
    expect(short.errorCode).toBe("INPUT_VALIDATION_ERROR")
    expect(short.field).toBe("parseParams.rules.price")
    expect(short.detail).toContain("invalid CSS selector")
    const long = rejected({ rules: { images: { selector: "img::before", type: "list" } } })
    expect(long.field).toBe("parseParams.rules.images")
    expect(long.detail).toContain("::before")
  })

  it("rejects selectors the matcher cannot run, even where no element would reach them", () => {
    expect(rejected({ rules: { x: "nothing-here:hover" } }).detail).toContain(":hover")
    expect(rejected({ rules: { x: "p:contains(a)" } }).field).toBe("parseParams.rules.x")
    expect(ParseRules.validateSelector("main article > p:first-child, .x[data-y='a b']")).toBeUndefined()
    expect(ParseRules.validateSelector("div:has(> img)")).toBeUndefined()
    expect(ParseRules.validateSelector("a[")).toMatch(/attribute/i)
  })

  it("enforces the limits: 100 rules, names of 1 to 100 characters, selectors up to 2048", () => {
    const many = Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`f${i}`, "p"]))
    expect(rejected({ rules: many }).detail).toContain("100")
    expect(Either.isRight(ParseRules.decode({ rules: Object.fromEntries(Object.entries(many).slice(0, 100)) })))
      .toBe(true)
    expect(rejected({ rules: { ["n".repeat(101)]: "p" } }).field).toContain("parseParams.rules")
    expect(rejected({ rules: { "": "p" } }).field).toContain("parseParams.rules")
    expect(rejected({ rules: { long: "p".padEnd(2049, " ") } }).field).toBe("parseParams.rules.long")
  })

  it("rejects unknown outputs, types and members", () => {
    expect(rejected({ rules: { a: { selector: "a", output: "not an attribute" } } }).field)
      .toBe("parseParams.rules.a.output")
    expect(rejected({ rules: { a: { selector: "a", type: "many" } } }).field).toBe("parseParams.rules.a.type")
    expect(rejected({ rules: { a: { selector: "a", kind: "list" } } }).field).toBe("parseParams.rules.a.kind")
    expect(rejected({}).field).toBe("parseParams.rules")
  })
})
