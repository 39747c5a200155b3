import { describe, expect, it } from "@effect/vitest"
import type { Root, RootContent } from "hast"
import { fromHtml as parse5 } from "hast-util-from-html"
import { execFileSync } from "node:child_process"
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { decode } from "../src/Charset.js"
import * as Html from "../src/Html.js"
import * as Markdown from "../src/Markdown.js"

/** The tree as markup, properties sorted, positions and data ignored: two builders agree when these are equal. */
const shape = (node: Root | RootContent): string => {
  switch (node.type) {
    case "root":
      return node.children.map(shape).join("")
    case "element": {
      const props = Object.entries(node.properties).map(([k, v]) => ` ${k}=${JSON.stringify(v)}`).sort().join("")
      const content = node.tagName === "template" && node.content ? shape(node.content) : node.children.map(shape).join("")
      return `<${node.tagName}${props}>${content}</${node.tagName}>`
    }
    case "text":
      return JSON.stringify(node.value)
    case "comment":
      return `<!--${node.value}-->`
    default:
      return ""
  }
}

const body = (html: string, tree: Root): string => {
  const text = shape(tree)
  return text.slice(text.indexOf("<body>"), text.lastIndexOf("</html>"))
}
const same = (html: string) => expect(body(html, Html.parse(html)), html).toBe(body(html, parse5(html) as Root))

describe("Html.parse builds the tree a browser builds", () => {
  it("a link opened inside an open link closes it, also across blocks (the adoption agency)", () => {
    same(`<a href="/1">one<a href="/2">two</a>`)
    same(`<a href="/1"><div>inside<a href="/2">two</a> after</div>tail</a>`)
    same(`<p><a href="/1"><div><section>deep<a href="/2">two</a></section></div>`)
    const markdown = Markdown.fromHtml(`<a href="/1"><div>Headline<a href="/2">Byline</a></div></a>`)
    expect(markdown).toContain("[Byline](/2)")
    expect(markdown).toContain("[Headline](/1)")
  })

  it("an unclosed link or emphasis is reopened after the block that closed it", () => {
    same(`<p><a href="/x">Sign in</p><p>Text after</p>`)
    same(`<div><b>bold</div><p>still bold</p><i>x</i>`)
    same(`<p><b><i>both</p><p>again</b> only italic</p>`)
    same(`<table><tr><td><b>cell</td><td>next</td></tr></table>after`)
    expect(Markdown.fromHtml(`<div><em>So gendered</div><p>language is</p>`)).toBe("*So gendered*\n\n*language is*\n")
  })

  it("at most three alike formatting elements are reopened (Noah's ark), and the list is bounded", () => {
    same(`<p><b><b><b><b><b>x</p><p>y</p>`)
    const many = Array.from({ length: 500 }, (_, i) => `<b class="c${i}">`).join("") + "x</div>"
    const tree = Html.parse(`<div>${many}${"<p>y</p>".repeat(200)}`)
    expect(JSON.stringify(tree).length).toBeLessThan(2_000_000)
  })

  it("</li> does not close an item across a list opened inside it", () => {
    same(`<ul><li>News<ul class="sub"></li><li>One</li><li>Two</li></ul></li><li>Next</li></ul>`)
    expect(Markdown.fromHtml(`<ul><li>News<ul></li><li>One</li></ul></li><li>Next</li></ul>`)).toBe(
      "- News\n  - One\n- Next\n"
    )
  })

  it("CDATA in HTML content is a comment up to the first `>`; the rest is markup and text", () => {
    same(`<div><![CDATA[ <p>kept</p> ]]>tail</div>`)
    same(`<p>a <![CDATA[x]]> b</p>`)
    expect(Markdown.fromHtml(`<div><![CDATA[ <p>kept text</p> ]]></div>`)).toContain("kept text")
    // In SVG and MathML it is text.
    same(`<svg><text><![CDATA[a < b]]></text></svg>`)
  })
})

// Parity with parse5 over the extraction corpus (../shared/corpora, unpacked into bench/.data by the benchmarks).
const root = resolve(import.meta.dirname, "..", "..", "..")
const archive = process.env.SIFT_CORPORA_DIR
  ? join(process.env.SIFT_CORPORA_DIR, "extraction-dev.tar.gz")
  : resolve(root, "..", "shared", "corpora", "extraction-dev.tar.gz")
const unpacked = join(root, "bench", ".data", "extraction-dev", "html")

describe.skipIf(!existsSync(unpacked) && !existsSync(archive))("parity with parse5 on the corpus", () => {
  it("≥ 99% of pages give identical Markdown, and no link or image target is lost on any page", async () => {
    let dir = unpacked
    let scratch: string | undefined
    if (!existsSync(dir)) {
      scratch = mkdtempSync(join(tmpdir(), "sift-corpus-"))
      execFileSync("tar", ["xzf", archive, "-C", scratch])
      dir = join(scratch, "extraction-dev", "html")
    }
    try {
      const files = readdirSync(dir).filter((f) => f.endsWith(".html")).sort()
      const targets = (markdown: string) => new Set([...markdown.matchAll(/\]\(<?([^)\s>]+)/gu)].map((m) => m[1]!))
      let identical = 0
      const lost: Array<string> = []
      for (const [i, file] of files.entries()) {
        // parse5 takes a minute over the corpus: let the test runner's messages through now and then.
        if (i % 25 === 0) await new Promise((resolve) => setImmediate(resolve))
        const html = decode(readFileSync(join(dir, file))).text
        const ours = Markdown.fromHast(Html.parse(html), { includeImages: true })
        const theirs = Markdown.fromHast(parse5(html) as Root, { includeImages: true })
        if (ours === theirs) {
          identical++
          continue
        }
        const kept = targets(ours)
        for (const target of targets(theirs)) if (!kept.has(target)) lost.push(`${file}: ${target}`)
      }
      expect(lost).toEqual([])
      expect(identical / files.length).toBeGreaterThanOrEqual(0.99)
      expect(files.length).toBeGreaterThan(900)
    } finally {
      if (scratch !== undefined) rmSync(scratch, { recursive: true, force: true })
    }
  }, 300_000)
})
