import { describe, expect, it } from "@effect/vitest"
import * as UrlSearch from "../../src/UrlSearch.js"

const docs: ReadonlyArray<UrlSearch.SearchDocument> = [
  { url: "https://e.com/" , title: "Home" },
  { url: "https://e.com/about-us", title: "About us", description: "Our team and history" },
  { url: "https://e.com/docs/getting-started", title: "Getting started", description: "Install the CLI and run it" },
  { url: "https://e.com/blog/release-notes-2024" },
  { url: "https://e.com/products/running-shoes", title: "Running shoes", keywords: ["trail", "marathon"] },
  { url: "https://e.com/products/shoeCare", title: "Care" },
  { url: "https://e.com/café/menu", title: "Menu" }
]

describe("UrlSearch", () => {
  it("tokenizes URLs into path words: separators, camelCase, escapes, plurals, no host", () => {
    expect(UrlSearch.urlWords("https://www.shop.com/products/shoeCare-Tips?page=2")).toEqual(["product", "shoe", "care", "tip", "page", "2"])
    expect(UrlSearch.urlWords("https://e.com/caf%C3%A9")).toEqual(["cafe"])
  })

  it("keeps only matching documents, most relevant first", () => {
    const found = UrlSearch.search(docs, "running shoes").map((d) => d.url)
    expect(found[0]).toBe("https://e.com/products/running-shoes")
    expect(found).toContain("https://e.com/products/shoeCare")
    expect(found).not.toContain("https://e.com/about-us")
  })

  it("matches URLs without metadata by their path words", () => {
    expect(UrlSearch.search(docs, "release notes").map((d) => d.url)).toEqual(["https://e.com/blog/release-notes-2024"])
  })

  it("uses description and keywords, and folds accents", () => {
    expect(UrlSearch.search(docs, "install cli").map((d) => d.url)).toEqual(["https://e.com/docs/getting-started"])
    expect(UrlSearch.search(docs, "marathon").map((d) => d.url)).toEqual(["https://e.com/products/running-shoes"])
    expect(UrlSearch.search(docs, "Cafe").map((d) => d.url)).toEqual(["https://e.com/café/menu"])
  })

  it("finds nothing for stop words or unknown words", () => {
    expect(UrlSearch.search(docs, "the and")).toEqual([])
    expect(UrlSearch.search(docs, "zebra")).toEqual([])
  })

  it("scores rarer words higher", () => {
    const many = [
      { url: "https://e.com/guide/a" },
      { url: "https://e.com/guide/b" },
      { url: "https://e.com/guide/c" },
      { url: "https://e.com/kubernetes" }
    ]
    const ranked = UrlSearch.rank(many, "guide kubernetes")
    expect(ranked[0]!.document.url).toBe("https://e.com/kubernetes")
    expect(ranked).toHaveLength(4)
  })
})
