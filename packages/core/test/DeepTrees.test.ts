/**
 * Pages nested far deeper than any real one (50,000 divs, 5,000 tables, ...) go through the whole static pipeline
 * and convert: the tree builder bounds depth as Chromium does (`Html.maxDepth`), so no walk over the tree can run
 * out of stack, building stays linear, and selectors cost the same whatever the nesting. One deep page also goes
 * through a real Chromium (which applies the same bound) and is parsed again by the builder.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import type { Element, Root } from "hast"
import JSZip from "jszip"
import * as Cache from "../src/Cache.js"
import * as ContentFilter from "../src/ContentFilter.js"
import * as Convert from "../src/Convert.js"
import * as Fetcher from "../src/Fetcher.js"
import * as Html from "../src/Html.js"
import * as Markdown from "../src/Markdown.js"
import * as ParseRules from "../src/ParseRules.js"
import * as Pipeline from "../src/Pipeline.js"
import * as Office from "./convert/support/officeFixtures.js"
import * as FixtureSite from "./support/FixtureSite.js"
import * as RenderRuntime from "./support/RenderRuntime.js"

const nest = (open: string, close: string, times: number, inner: string) =>
  open.repeat(times) + inner + close.repeat(times)

const bottom = (name: string) =>
  `<p id="bottom" class="deepest">The bottom of the ${name}, reached at last.</p><img src="/deep-${name}.png" alt="Deep ${name}">`

const page = (name: string, body: string) =>
  `<!doctype html><html lang="en"><head><title>Deep ${name}</title><meta name="description" content="${name} all the way down">` +
  `</head><body><h1>Deep ${name}</h1>${body}</body></html>`

/** The deep structures: name, markup, and how many elements deep the markup nests. */
const pages: ReadonlyArray<readonly [string, string]> = [
  ["divs", nest("<div>", "</div>", 50_000, bottom("divs"))],
  ["tables", nest("<table><tr><td>", "</td></tr></table>", 5_000, bottom("tables"))],
  ["inline", nest("<b><span>", "</span></b>", 10_000, "The bottom of the inline, reached at last.")],
  ["links", nest(`<a href="/next"><b>`, "</b></a>", 10_000, "The bottom of the links, reached at last.")],
  ["lists", nest("<ul><li>", "</li></ul>", 10_000, bottom("lists"))],
  ["ordered", nest("<ol><li>x", "</li></ol>", 10_000, bottom("ordered"))],
  ["quotes", nest("<blockquote>", "</blockquote>", 10_000, bottom("quotes"))],
  ["sections", nest(`<section class="content"><p>Text, with commas, before the next level.</p>`, "</section>", 10_000, bottom("sections"))],
  ["unclosed", "<div><span>".repeat(50_000) + bottom("unclosed")]
]

/** The deepest element of a tree (`html` is at depth 1), measured without recursion. */
const depthOf = (tree: Root): number => {
  let deepest = 0
  const stack: Array<[Root | Element, number]> = [[tree, 0]]
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!
    deepest = Math.max(deepest, depth)
    for (const child of node.children) if (child.type === "element") stack.push([child, depth + 1])
  }
  return deepest
}

const routes: FixtureSite.Routes = Object.fromEntries(
  pages.map(([name, body]) => [`/${name}`, FixtureSite.html(page(name, body))])
)

const TestLayer = Layer.mergeAll(FixtureSite.layer(routes), Fetcher.layer({ allowPrivateTargets: true }), Cache.layerMemory())

describe("Html.parse bounds depth", () => {
  it("no element is deeper than Html.maxDepth (512, as Chromium); what lies below is kept as siblings", () => {
    expect(Html.maxDepth).toBe(512)
    for (const [name, body] of pages) {
      const tree = Html.parse(page(name, body))
      expect(depthOf(tree), name).toBeLessThanOrEqual(Html.maxDepth)
      expect(Markdown.fromHast(tree), name).toContain(`The bottom of the ${name}, reached at last.`)
    }
  })

  it("a page within the bound keeps its nesting exactly", () => {
    const tree = Html.parse(nest("<div>", "</div>", 500, "<p>five hundred down</p>"))
    expect(depthOf(tree)).toBe(503) // html > body > 500 divs > p
  })

  it("end tags still close what they opened past the bound: text after the deep part lands back in the body", () => {
    const tree = Html.parse(nest("<div>", "</div>", 2_000, "<p>deep</p>") + "<p id=after>after</p>")
    const body = (tree.children[0] as Element).children[1] as Element
    const last = body.children.at(-1) as Element
    expect(last.properties.id).toBe("after")
  })
})

describe("selectors on deep trees", () => {
  const tree = Html.parse(page("divs", pages[0]![1]))

  it("combinators cost the same at any depth: `div div div` and `:has()` over 50,000 nested divs", () => {
    const filtered = ContentFilter.select(tree, { includeSelectors: ["div div div p.deepest"], excludeSelectors: ["div:has(> img) img"] })
    expect(Markdown.fromHast(filtered).trim()).toBe("The bottom of the divs, reached at last.")
    const parsed = ParseRules.apply(tree, {
      rules: {
        deepest: "div div div > p#bottom",
        nested: { selector: "body > div div div div div", type: "list", output: "id" },
        holders: { selector: "div:has(> p.deepest)", type: "list", output: "html" },
        image: { selector: "div:has(> p.deepest) > p.deepest + img", output: "src" }
      }
    }, { baseUrl: "https://example.com/" })
    expect(parsed.deepest).toBe("The bottom of the divs, reached at last.")
    expect(parsed.nested).toEqual([])
    expect(parsed.holders).toHaveLength(1)
    expect(parsed.holders![0]).toContain(`<p id="bottom" class="deepest">`)
    expect(parsed.image).toBe("https://example.com/deep-divs.png")
  })
})

describe("selector semantics kept from hast-util-select", () => {
  const tree = Html.parse(
    `<html lang="en"><body><main><p class="a b">one</p><p dir="rtl" lang="de-CH">zwei</p><ul><li>x</li><li>y</li><li>z</li></ul>` +
      `<input type="checkbox" checked disabled><a href="/x">link</a><section><h2>t</h2></section></main></body></html>`
  )
  const texts = (selector: string) =>
    ParseRules.apply(tree, { rules: { out: { selector, type: "list" } } }, { baseUrl: "https://example.com/" }).out

  it("matches compounds, combinators and the pseudo-classes it supports", () => {
    expect(texts("p.a.b")).toEqual(["one"])
    expect(texts("li:nth-child(2n+1)")).toEqual(["x", "z"])
    expect(texts("li:last-child, li:first-of-type")).toEqual(["x", "z"])
    expect(texts("li + li")).toEqual(["y", "z"])
    expect(texts("p ~ ul > li:only-child")).toEqual([])
    expect(texts("main > :lang(de)")).toEqual(["zwei"])
    expect(texts(":dir(rtl)")).toEqual(["zwei"])
    expect(texts("section:has(> h2)")).toEqual(["t"])
    expect(texts("main:has(ul li) > a:any-link")).toEqual(["link"])
    expect(texts("p:not(.a)")).toEqual(["zwei"])
    expect(texts(":is(main ul) li:nth-last-child(1)")).toEqual(["z"])
    expect(ParseRules.apply(tree, { rules: { c: { selector: "input:checked:disabled", output: "type" } } }, { baseUrl: "https://example.com/" }).c)
      .toBe("checkbox")
  })

  it("refuses :nth-child(An+B of S), which matching cannot do, when the request is read", () => {
    expect(ParseRules.validateSelector("li:nth-child(2n of .x)")).toMatch(/not supported/)
    expect(ContentFilter.validateSelectors(["li:nth-child(odd of p)"], "f")?.field).toBe("f[0]")
  })
})

describe("documents", () => {
  it("a slide whose list level is forged (lvl=100000000) converts, its levels bounded as PowerPoint's (0 to 8)", async () => {
    const zip = await JSZip.loadAsync(await Office.pptx())
    const slide = Object.keys(zip.files).find((name) => /ppt\/slides\/slide\d+\.xml$/.test(name) && name.includes("slide2"))!
    zip.file(slide, (await zip.file(slide)!.async("string")).replace(/lvl="1"/g, `lvl="100000000"`))
    const bytes = await zip.generateAsync({ type: "uint8array" })
    const converted = await Effect.runPromise(Convert.convert({ bytes }, "pptx"))
    expect(depthOf(converted.tree)).toBeLessThan(40)
    expect(Markdown.fromHast(converted.tree)).toContain("LED fittings")
  })
})

describe("deep pages through the pipeline", () => {
  it.layer(TestLayer, { timeout: 120_000 })((it) => {
    for (const [name] of pages) {
      const text = `The bottom of the ${name}, reached at last.`
      for (const mainContentOnly of [false, true]) {
        it.effect(`${name}${mainContentOnly ? ", main content only" : ""}: every output, the deepest text in the Markdown`, () =>
          Effect.gen(function*() {
            const site = yield* FixtureSite.FixtureSite
            const result = yield* Pipeline.scrape({
              url: `${site.url}/${name}`,
              formats: { markdown: true, html: true, images: true, parse: true },
              markdownParams: { includeImages: true },
              parseParams: {
                rules: {
                  heading: "h1",
                  bottom: "#bottom",
                  nested: { selector: "div div div, table table, ul ul, blockquote blockquote", type: "list", output: "id" },
                  images: { selector: "img", type: "list", output: "src" }
                }
              },
              sharedParams: { mainContentOnly },
              maxAgeMs: 0
            })
            expect(result.markdown.data).toContain(text)
            expect(result.html.data).toContain(text)
            expect(result.metadata.title).toBe(`Deep ${name}`)
            expect(result.metadata.description).toBe(`${name} all the way down`)
            expect(result.metadata.headings).toEqual([{ level: 1, text: `Deep ${name}` }])
            const deepImage = `${site.url}/deep-${name}.png`
            if (result.html.data!.includes("<img")) {
              expect(result.images.data!.map((image) => image.url)).toContain(deepImage)
              expect(result.markdown.data).toContain(`![Deep ${name}](${deepImage})`)
              expect(result.parsed.data!.images).toContain(deepImage)
            }
            expect(result.parsed.data!.heading ?? "").toMatch(mainContentOnly ? /^(Deep .*)?$/ : /^Deep /)
            if (result.html.data!.includes(`id="bottom"`)) expect(result.parsed.data!.bottom).toBe(text)
          }))
      }
    }

    it.effect("include and exclude selectors on the deepest page", () =>
      Effect.gen(function*() {
        const site = yield* FixtureSite.FixtureSite
        const result = yield* Pipeline.scrape({
          url: `${site.url}/divs`,
          formats: { markdown: true },
          sharedParams: { includeSelectors: ["div div div div"], excludeSelectors: ["div:has(> img) > img"] },
          markdownParams: { includeImages: true },
          maxAgeMs: 0
        })
        expect(result.markdown.data!.trim()).toBe("The bottom of the divs, reached at last.")
      }))
  })
})

describe("a deep page rendered by Chromium", { timeout: 120_000 }, () => {
  let site: FixtureSite.Site
  let runtime: RenderRuntime.RenderRuntime

  beforeAll(async () => {
    site = await FixtureSite.start(routes)
    runtime = RenderRuntime.make()
  }, 60_000)

  afterAll(async () => {
    await runtime?.dispose()
    await site?.close()
  })

  it("waits for the deepest element, converts the rendered DOM, and screenshots it", async () => {
    const result = await runtime.runPromise(Pipeline.scrape({
      url: `${site.url}/divs`,
      formats: { markdown: true, html: true, screenshot: true },
      sharedParams: { waitFor: "#bottom" },
      maxAgeMs: 0
    }))
    expect(result.markdown.data).toContain("The bottom of the divs, reached at last.")
    expect(result.html.data).toContain(`id="bottom"`)
    expect(result.screenshot.data).toMatch(/^data:image\/png;base64,/)
    // Chromium's DOM is bounded by the same rule, and our builder keeps it within the bound when parsing it again.
    expect(depthOf(Html.parse(result.html.data!))).toBeLessThanOrEqual(Html.maxDepth)
  })
})
