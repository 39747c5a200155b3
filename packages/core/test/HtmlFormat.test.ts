import { describe, expect, it } from "@effect/vitest"
import { readFileSync } from "node:fs"
import * as ContentFilter from "../src/ContentFilter.js"
import { parse } from "../src/Html.js"
import * as HtmlFormat from "../src/HtmlFormat.js"

const fixture = (name: string) => readFileSync(new URL(`./fixtures/page/${name}`, import.meta.url), "utf8")
const baseUrl = "https://docs.example.com/start/page.html"
const site = "https://docs.example.com/site/v2/"

describe("HtmlFormat.toHtml", () => {
  const tree = parse(fixture("relative-base.html"))
  const pristine = JSON.stringify(tree)
  const html = HtmlFormat.toHtml(tree, { baseUrl })

  it("drops scripts, styles, noscript, templates, comments and <base>", () => {
    expect(html).not.toMatch(/<script|<style|<noscript|<template|<base|<!--/)
    expect(html).not.toContain("boot()")
    expect(html).not.toContain("Please enable JavaScript")
    expect(html).not.toContain("Row template")
    expect(html).not.toContain("navigation starts here")
    expect(html).toMatch(/^<!doctype html>/)
  })

  it("drops event handlers, javascript: URLs and srcdoc documents", () => {
    expect(html).not.toMatch(/\son[a-z]+=/i)
    expect(html).not.toMatch(/javascript:/i)
    expect(html).not.toContain("srcdoc")
    expect(html).toContain("<a>Menu</a>")
    expect(html).toContain("<a>Evil</a>")
    expect(html).toContain("<body>")
  })

  it("makes every URL attribute absolute against <base href>", () => {
    expect(html).toContain(`<link rel="stylesheet" href="${site}css/main.css">`)
    expect(html).toContain(`<a href="${site}guide/intro.html">Introduction</a>`)
    expect(html).toContain(`<a href="${site}#top">Top</a>`)
    expect(html).toContain(`<a href="https://cdn.example.org/asset.js">CDN</a>`)
    expect(html).toContain(`<a href="mailto:docs@example.org">Mail</a>`)
    expect(html).toContain(
      `<img src="${site}img/diagram.png" srcset="${site}img/diagram.png 1x, ${site}img/diagram@2x.png 2x" ` +
        `alt="Architecture diagram" width="640" height="360">`
    )
    expect(html).toContain(`<form action="${site}search" method="get">`)
    expect(html).toContain(`<button formaction="${site}search/advanced">Go</button>`)
    expect(html).toContain(`<video poster="${site}media/poster.jpg" src="${site}media/intro.mp4"></video>`)
    expect(html).toContain(`<blockquote cite="https://docs.example.com/quotes/1">Quoted</blockquote>`)
    expect(html).toContain(`<iframe src="${site}embed/widget.html"></iframe>`)
    expect(html).toContain(`<a href="https://other.example/x?y=1#z">link</a>`)
  })

  it("keeps the rest of the markup as it was", () => {
    expect(html).toContain(`<link rel="shortcut icon" href="${site}img/favicon.ico">`)
    expect(html).toContain(`<meta property="og:image" content="img/share.png">`)
    expect(html).toContain(
      `<div style="background-image: url(&#x27;${site}img/banner.jpg&#x27;); color: red" aria-label="Banner">`
    )
    expect(html).toContain("<h1>Welcome</h1>")
  })

  it("uses baseUrl when the page has no <base>, and leaves the tree alone", () => {
    const page = parse(`<p><a href="../up.html" onmouseover="x()">Up</a><img src="i.png" data-src="lazy.png"></p>`)
    expect(HtmlFormat.toHtml(page, { baseUrl: "https://a.example/b/c/d.html" })).toBe(
      `<html><head></head><body><p><a href="https://a.example/b/up.html">Up</a>` +
        `<img src="https://a.example/b/c/i.png" data-src="https://a.example/b/c/lazy.png"></p></body></html>`
    )
    expect(JSON.stringify(tree)).toBe(pristine)
  })

  it("serialises a filtered tree", () => {
    const filtered = ContentFilter.select(tree, { includeSelectors: ["nav"], excludeSelectors: ["a[href^=mailto]"] })
    const out = HtmlFormat.toHtml(filtered, { baseUrl })
    expect(out).toContain(`<body><nav><a href="${site}guide/intro.html">Introduction</a>`)
    expect(out).not.toContain("Mail")
    expect(out).not.toContain("Welcome")
  })
})
