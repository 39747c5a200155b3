import { describe, expect, it } from "@effect/vitest"
import type { Nodes as MdastNodes, Root as MdastRoot } from "mdast"
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
// micromark and its GFM extension come with remark-parse and remark-gfm (the same versions parse for them).
import { micromark } from "micromark"
import { gfm, gfmHtml } from "micromark-extension-gfm"
import rehypeParse from "rehype-parse"
import rehypeRemark from "rehype-remark"
import remarkGfm from "remark-gfm"
import remarkParse from "remark-parse"
import { unified } from "unified"
import * as Html from "../src/Html.js"
import * as Markdown from "../src/Markdown.js"

const fixturesDir = fileURLToPath(new URL("./fixtures/markdown", import.meta.url))
const update = process.env.UPDATE === "1"

interface Fixture {
  readonly name: string
  readonly input: string
  readonly options: Markdown.MarkdownOptions
  readonly expected: string | undefined
}

const fixtures: ReadonlyArray<Fixture> = readdirSync(fixturesDir).sort().map((name) => {
  const dir = join(fixturesDir, name)
  const optionsFile = join(dir, "options.json")
  const outputFile = join(dir, "output.md")
  return {
    name,
    input: readFileSync(join(dir, "input.html"), "utf8"),
    options: existsSync(optionsFile) ? JSON.parse(readFileSync(optionsFile, "utf8")) : {},
    expected: existsSync(outputFile) ? readFileSync(outputFile, "utf8") : undefined
  }
})

const fixture = (name: string): Fixture => fixtures.find((f) => f.name === name)!
const output = (name: string): string => Markdown.fromHtml(fixture(name).input, fixture(name).options)

const readBack = (markdown: string): MdastRoot => unified().use(remarkParse).use(remarkGfm).parse(markdown) as MdastRoot

const reference = (html: string): MdastRoot => {
  const processor = unified().use(rehypeParse).use(rehypeRemark).use(remarkGfm)
  return processor.runSync(processor.parse(html)) as MdastRoot
}

/** A normalised structural signature: node types and nesting, text (whitespace collapsed), urls, table shapes. */
const signature = (node: MdastNodes): string => {
  switch (node.type) {
    case "text":
      return JSON.stringify(node.value.replace(/\s+/g, " "))
    case "inlineCode":
      return `inlineCode(${JSON.stringify(node.value)})`
    case "code":
      return `code[${node.lang ?? ""}](${JSON.stringify(node.value)})`
    case "link":
      return `link<${node.url}>(${children(node.children)})`
    case "image":
      return `image<${node.url}>(${JSON.stringify(node.alt ?? "")})`
    case "list":
      return `list${node.ordered === true ? `[${node.start ?? 1}]` : ""}(${children(node.children)})`
    case "listItem":
      return `listItem${node.checked === true ? "[x]" : node.checked === false ? "[ ]" : ""}(${children(node.children)})`
    case "heading":
      return `h${node.depth}(${children(node.children)})`
    case "table":
      return `table[${node.align?.map((a) => a ?? "-").join(",")}](${children(node.children)})`
    case "html":
      return `html(${JSON.stringify(node.value)})`
    default:
      return "children" in node ? `${node.type}(${children(node.children)})` : node.type
  }
}

// Adjacent text nodes are merged and blank ones at the edges of a parent dropped, so splitting does not matter.
const children = (nodes: ReadonlyArray<MdastNodes>): string => {
  const merged: Array<MdastNodes> = []
  for (const node of nodes) {
    const last = merged[merged.length - 1]
    if (node.type === "text" && last?.type === "text") merged[merged.length - 1] = { ...last, value: last.value + node.value }
    else merged.push(node)
  }
  const trimmed = merged.map((n) => (n.type === "text" ? { ...n, value: n.value.replace(/\s+/g, " ") } : n))
  if (trimmed[0]?.type === "text") trimmed[0] = { ...trimmed[0], value: trimmed[0].value.trimStart() }
  const last = trimmed[trimmed.length - 1]
  if (last?.type === "text") trimmed[trimmed.length - 1] = { ...last, value: last.value.trimEnd() }
  return trimmed.filter((n) => !(n.type === "text" && n.value === "")).map(signature).join(" ")
}

const rootSignature = (markdown: string): string => signature(readBack(markdown))

/** Every node of a type, in document order. */
const all = <T extends MdastNodes["type"]>(tree: MdastNodes, type: T): Array<Extract<MdastNodes, { type: T }>> => {
  const found: Array<Extract<MdastNodes, { type: T }>> = []
  const visit = (node: MdastNodes) => {
    if (node.type === type) found.push(node as Extract<MdastNodes, { type: T }>)
    if ("children" in node) for (const child of node.children) visit(child)
  }
  visit(tree)
  return found
}

describe("Markdown", () => {
  it("exports exactly fromHast and fromHtml", () => {
    expect(Object.keys(Markdown).sort()).toEqual(["fromHast", "fromHtml"])
  })

  describe("golden fixtures", () => {
    for (const f of fixtures) {
      it(f.name, () => {
        const actual = Markdown.fromHtml(f.input, f.options)
        if (update || f.expected === undefined) writeFileSync(join(fixturesDir, f.name, "output.md"), actual)
        else expect(actual).toBe(f.expected)
        expect(actual.endsWith("\n") && !actual.endsWith("\n\n")).toBe(true)
        // No runs of blank lines outside code blocks.
        const outsideCode = actual.replace(/^(`{3,}|~{3,})[^\n]*\n[\s\S]*?\n\1$/gm, "CODE")
        expect(outsideCode).not.toMatch(/\n\n\n/)
        // Nothing but a <pre> may turn into a code block (e.g. a nested list must never become indented code).
        if (!/<pre|<code/.test(f.input)) expect(all(readBack(actual), "code")).toEqual([])
      })
    }
  })

  describe("reads back as the intended tree", () => {
    // Where the reference route (rehype-remark) is right, our output must parse to the same structure.
    // (It ignores `reversed` in nested-lists and keeps links with includeLinks false: those have explicit tests.)
    for (const name of ["blockquotes", "rtl-cjk", "charset-page", "task-lists"]) {
      it(`${name}: same structure as rehype-remark`, () => {
        expect(rootSignature(output(name))).toBe(signature(reference(fixture(name).input)))
      })
    }

    it("nested lists stay lists inside list items, with start numbers", () => {
      const tree = readBack(output("nested-lists"))
      const lists = all(tree, "list")
      expect(lists.map((l) => (l.ordered === true ? `ol${l.start}` : "ul"))).toEqual(
        ["ul", "ul", "ol1", "ol7", "ol9", "ul", "ol3", "ul", "ul"]
      )
      expect(tree.children.map((c) => c.type)).toEqual(["list", "list", "list", "list", "list"])
      expect(signature(tree.children[0]!)).toContain('listItem(paragraph("Fruit") list(listItem(paragraph("Apple"))')
      expect(all(tree, "code")).toEqual([])
    })

    it("tables keep shape, alignment, inline markup, empty and spanned cells", () => {
      const tree = readBack(output("tables"))
      const [prices, noHeader] = all(tree, "table")
      expect(prices!.align).toEqual(["left", "center", "right"])
      expect(prices!.children.map((row) => row.children.length)).toEqual([3, 3, 3, 3, 3])
      expect(signature(prices!.children[1]!)).toBe(
        'tableRow(tableCell(strong("Apples") " and " link<https://example.com/a>("more")) ' +
          'tableCell(inlineCode("a|b")) tableCell("1.50"))'
      )
      expect(signature(prices!.children[2]!)).toBe('tableRow(tableCell("Pipe | inside") tableCell() tableCell("2"))')
      expect(signature(prices!.children[3]!)).toBe('tableRow(tableCell("Spans two columns") tableCell() tableCell("3"))')
      expect(signature(prices!.children[4]!)).toBe(
        'tableRow(tableCell("Line one" html("<br>") "Line two") ' +
          'tableCell("Para one" html("<br>") "Para two") tableCell())'
      )
      expect(noHeader!.children.length).toBe(2)
      // The single-column layout table is written as paragraphs.
      expect(all(tree, "table").length).toBe(2)
      expect(signature(tree.children[tree.children.length - 1]!)).toBe('paragraph("Its cells are blocks.")')
    })

    it("preformatted text keeps its whitespace exactly", () => {
      const [first, second] = all(readBack(output("pre-whitespace")), "code")
      expect(first!.value).toBe(
        "  indented line\n\ttab line\n\n    blank line above, trailing spaces here   \n" +
          "bold markup <kept> & text with ``` backticks"
      )
      expect(second!.value).toBe("a\nb\nc")
    })

    it("code blocks carry the language; code spans keep backticks", () => {
      const tree = readBack(output("code-language"))
      expect(all(tree, "code").map((c) => [c.lang ?? null, c.value])).toEqual([
        ["typescript", "const x: number = 1"],
        ["python", 'print("hi")'],
        ["rust", "fn main() {}"],
        [null, "no language"]
      ])
      expect(all(tree, "inlineCode").map((c) => c.value)).toEqual(["let a = `b`", "``double``", "spaced", "*not* emphasis"])
    })

    it("links and images are absolute, titled, and reduced to text when unusable", () => {
      const tree = readBack(output("relative-links-images"))
      expect(all(tree, "link").map((l) => [l.url, l.title ?? null])).toEqual([
        ["https://example.com/docs/start", null],
        ["https://example.com/blog/post/guide.html", 'The "guide"'],
        ["https://example.com/blog/post/#top", null],
        ["https://other.example/x", null],
        ["https://example.com/blog/post/page%20(1).html", null]
      ])
      expect(all(tree, "image").map((i) => [i.url, i.alt, i.title ?? null])).toEqual([
        ["https://example.com/blog/post/img/logo.png", "Logo [main]", "Our logo"],
        ["https://cdn.example.com/pic.jpg", "", null]
      ])
      const text = all(tree, "text").map((t) => t.value).join("")
      for (const kept of ["script link", "empty href", "no href"]) expect(text).toContain(kept)
    })

    it("a <base href> in the document is resolved against baseUrl", () => {
      const tree = readBack(output("base-href"))
      expect(all(tree, "link")[0]!.url).toBe("https://example.com/assets/v2/page.html")
      expect(all(tree, "image")[0]!.url).toBe("https://example.com/assets/v2/pic.png")
    })

    it("definition lists: bold terms, definitions opened by ': '", () => {
      const tree = readBack(output("definition-lists"))
      expect(tree.children.map((c) => signature(c))).toEqual([
        'paragraph(strong("Term"))',
        'paragraph(": The definition.")',
        'paragraph(strong("Another " emphasis("term")))',
        'paragraph(strong("Synonym"))',
        'paragraph(": First paragraph.")',
        'paragraph("Second paragraph.")',
        'paragraph(": A second definition.")',
        'paragraph(strong("Wrapped term"))',
        'paragraph(": Wrapped definition with " inlineCode("code") ".")'
      ])
    })

    it("figures keep the image and the caption", () => {
      expect(rootSignature(output("figures"))).toBe(
        'root(paragraph(image<https://example.com/chart.png>("A chart")) ' +
          'paragraph("Figure 1: " emphasis("Sales") " by month.") blockquote(paragraph("Quoted text.")) ' +
          'paragraph("— Someone"))'
      )
    })

    it("a link around blocks links each block; links inside headings stay", () => {
      expect(rootSignature(output("heading-in-link"))).toBe(
        'root(h2(link<https://example.com/post/1>("Post title")) ' +
          'paragraph(link<https://example.com/post/1>("Teaser text.")) ' +
          'h3("Read " link<https://example.com/more>("more") " here") h1(link<https://example.com/home>("Home")) ' +
          'h2("Heading with trailing #") h2("Line break"))'
      )
    })

    it("emphasis: adjacent to words and punctuation, spaced, empty, nested, merged", () => {
      const paragraphs = readBack(output("emphasis-edge-cases")).children.map((c) => signature(c))
      expect(paragraphs).toEqual([
        'paragraph("foo" strong("bar") "baz")',
        'paragraph("foo" html("<strong>") "\\"bar\\"" html("</strong>") "baz")',
        'paragraph("a " emphasis("spaced") " b and " strong("both") " .")',
        'paragraph("Empty emphasis.")',
        'paragraph(strong("bold " emphasis("and italic")) " " strong("double") " " strong("adjacent"))',
        'paragraph(emphasis("(parenthesised)") ", " html("<strong>") "trailing punctuation." html("</strong>") "x")',
        'paragraph(delete("deleted") " " delete("struck") " " delete("old"))',
        'paragraph("H" html("<sub>") "2" html("</sub>") "O, x" html("<sup>") "2" html("</sup>") ", " ' +
          'html("<kbd>") "Ctrl" html("</kbd>") "+" html("<kbd>") "C" html("</kbd>") ", " html("<mark>") "marked" ' +
          'html("</mark>") ", “quoted”, underlined.")'
      ])
    })

    it("escapes what would be syntax, and only that", () => {
      const markdown = output("entities-escaping")
      const paragraphs = readBack(markdown).children
      expect(paragraphs.every((p) => p.type === "paragraph")).toBe(true)
      expect(paragraphs.map((p) => all(p, "text").map((t) => t.value).join("")).slice(0, 12)).toEqual([
        "Ampersand & less-than < greater > quote \" nbsp\u00a0here © € 😀",
        "*stars* and _underscores_ and snake_case_name and 2 * 3 and a_b",
        "# not a heading",
        "1. not a list",
        "2020) also not",
        "- not a bullet",
        "+ nor this",
        "> not a quote",
        "[not a link](url) and ![not an image](x) and `not code`",
        "<div> is not html, a < b is fine, &amp; stays literal",
        "Back\\slash and \\* and ~tilde~ and ~~double~~ and a | pipe",
        "==="
      ])
      // Readable where nothing needs escaping.
      expect(markdown).toContain("snake_case_name and 2 * 3 and a_b")
      expect(markdown).toContain("a < b is fine")
    })

    it("round trip: what GFM would read differently is written so it reads back as the page meant", () => {
      // remark-gfm is the oracle: our Markdown parses to the structure rehype-remark makes from the same HTML.
      const f = fixture("round-trip")
      const markdown = output("round-trip")
      // (Bare URLs aside: mdast links them whatever the escapes; the next test reads them with GFM itself.)
      const unlink = (node: MdastNodes): void => {
        if (!("children" in node)) return
        node.children = node.children.map((child) => {
          if (child.type !== "link" || child.children.length !== 1 || child.children[0]!.type !== "text") return child
          const text = child.children[0]!.value
          const literal = [text, `http://${text}`, `mailto:${text}`].includes(child.url)
          return literal ? { type: "text", value: text } : child
        }) as typeof node.children
        for (const child of node.children) unlink(child)
      }
      const tree = readBack(markdown)
      unlink(tree)
      expect(signature(tree)).toBe(signature(reference(f.input)))
      // A one-column table with a header row stays a table.
      expect(all(tree, "table").map((t) => t.children.length)).toEqual([3])
      // `!` before a link is text; the image inside the second link is the only image.
      expect(all(tree, "link").map((l) => l.url)).toEqual(["https://example.com/a", "https://example.com/b"])
      expect(all(tree, "image").map((i) => i.url)).toEqual(["https://example.com/i.png"])
      // A list item holding a rule keeps its item.
      expect(all(tree, "list").map((l) => l.children.length)).toEqual([2, 1])
      expect(all(tree, "listItem").map((i) => i.children[0]?.type)).toEqual(["thematicBreak", "paragraph", "thematicBreak"])
      // Emphasis around a lone marker character.
      expect(signature(tree.children[4]!)).toBe(
        'paragraph("A lone star: " emphasis("*") ", a bold one: " strong("*") ", a struck tilde: " delete("~") ' +
          '", star text * alone.")'
      )
      expect(markdown).toContain("star text * alone")
    })

    it("bare URLs and e-mail addresses in text stay text when GFM reads them back", () => {
      // GFM (micromark, the parser under remark-gfm) links `www.`, `http(s)://` and addresses in bare text unless a
      // character is escaped. (mdast's own autolink pass re-links text after parsing whatever the escapes say, so the
      // HTML that GFM renders is the oracle here.)
      const markdown = output("round-trip")
      const html = micromark(markdown, { extensions: [gfm()], htmlExtensions: [gfmHtml()] })
      const paragraph = /<p>Visit [^\n]*<\/p>/u.exec(html)?.[0]
      expect(paragraph).toBe(
        "<p>Visit www.example.com or https://example.org/path and http://example.net, write to someone@example.com.</p>"
      )
      expect(html).toContain("<p>Emphasis ends before a link: <em>see</em>www.example.com</p>")
      // Link text needs no escape: autolinks never form inside a link.
      expect(Markdown.fromHtml(`<a href="https://x.example/">https://x.example/ or me@x.example</a>`)).toBe(
        "[https://x.example/ or me@x.example](https://x.example/)\n"
      )
    })

    it("CDATA in HTML ends at the first `>`: the markup after it is content", () => {
      expect(rootSignature(output("cdata"))).toBe(
        'root(paragraph("Before the section.") paragraph("Kept after the bogus comment.") paragraph("]]>") ' +
          'paragraph("Inline comment."))'
      )
    })

    it("links disabled: link text only, also for links around blocks", () => {
      expect(rootSignature(output("links-disabled"))).toBe(
        'root(paragraph("Visit our site or contact us.") h2("Heading link"))'
      )
    })

    it("task list items carry their state", () => {
      const items = all(readBack(output("task-lists")), "listItem")
      expect(items.map((i) => i.checked ?? null)).toEqual([true, false, false, null])
    })

    it("base64 images: a short placeholder by default, the full URI on request", () => {
      const placeholder = all(readBack(output("base64-images-placeholder")), "image")
      expect(placeholder.map((i) => i.url)).toEqual(["data:image/png;base64,...", "https://example.com/real.png"])
      const preserved = all(readBack(output("base64-images-preserve")), "image")
      expect(preserved[0]!.url).toMatch(/^data:image\/png;base64,iVBOR.{80,}==$/)
    })

    it("images are dropped with their alt text unless requested", () => {
      expect(output("images-excluded")).toBe("Text continues.\n")
    })

    it("drops non-content elements and collapses whitespace as a browser does", () => {
      expect(rootSignature(output("dropped-and-whitespace"))).toBe(
        'root(paragraph("Text with collapsed whitespace across elements .") paragraph("Inline then") ' +
          'paragraph("a block") paragraph("then inline again") thematicBreak ' +
          'paragraph("Paragraph after rule" break break "after two breaks"))'
      )
    })
  })

  describe("fromHast", () => {
    it("converts a subtree element and an empty tree", () => {
      const tree = Html.parse("<main><h1>T</h1><p>x</p></main><footer>f</footer>")
      const main = (tree.children[0] as any).children[1].children[0]
      expect(Markdown.fromHast(main)).toBe("# T\n\nx\n")
      expect(Markdown.fromHast({ type: "root", children: [] })).toBe("")
    })

    it("repairs the tree as a browser would before converting", () => {
      expect(Markdown.fromHtml("<p>one<div>two</div><table><td>cell<td>two</table>")).toBe(
        "one\n\ntwo\n\n| cell | two |\n| --- | --- |\n"
      )
      expect(Markdown.fromHtml("<ul><li>a<li>b</ul><p>x</p>")).toBe("- a\n- b\n\nx\n")
    })
  })
})
