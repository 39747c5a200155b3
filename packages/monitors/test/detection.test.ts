/**
 * Change detection on realistic texts: page diffs (never empty, fast on large pages), sitemap sets, the deterministic
 * semantic judge (relevant vs unrelated changes), extraction by schema and field-by-field comparison, and the optional
 * LLM judge against a local stand-in of an OpenAI-compatible server, falling back on errors.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import * as ChangeDetection from "../src/ChangeDetection.js"

const pricing = (price: string, footer = "© 2025 Example Inc.") =>
  ChangeDetection.normalizeText(
    `# Example\n\nWelcome to our product.\n\n## Pricing\n\nThe basic plan costs ${price} per month.\nSupport is included.\n\n## Team\n\nWe are five people.\n\n${footer}\n`,
    { normalizeWhitespace: true }
  )

describe("page texts", () => {
  it("normalises whitespace and Unicode noise, and keeps Markdown indentation", () => {
    const text = ChangeDetection.normalizeText("a  \u00a0b\r\n\r\n\r\n\r\n  - item\u200b\n", { normalizeWhitespace: true })
    expect(text).toBe("a b\n\n  - item")
    expect(ChangeDetection.normalizeText("a  b\r\n", { normalizeWhitespace: false })).toBe("a  b")
    expect(ChangeDetection.contentHash("x")).toMatch(/^[0-9a-f]{64}$/)
  })

  it("a change gives a unified diff with both sides, excerpts, the section in the title", () => {
    const change = ChangeDetection.comparePages(pricing("$10"), pricing("$12"), "https://example.com/")!
    expect(change.diff.split("\n").slice(0, 2)).toEqual(["--- before", "+++ after"])
    expect(change.diff).toContain("-The basic plan costs $10 per month.")
    expect(change.diff).toContain("+The basic plan costs $12 per month.")
    expect(change.diff).toMatch(/^@@ -\d+,\d+ \+\d+,\d+ @@$/m)
    expect(change.before_text_excerpt).toBe("The basic plan costs $10 per month.")
    expect(change.after_text_excerpt).toBe("The basic plan costs $12 per month.")
    expect(change.title).toBe("Page changed: Pricing")
    expect(change.summary).toBe("1 line added, 1 removed in section 'Pricing'")
  })

  it("equal texts, or texts equal but for a final newline, are no change (never an empty diff)", () => {
    expect(ChangeDetection.comparePages(pricing("$10"), pricing("$10"), "u")).toBeUndefined()
    expect(ChangeDetection.comparePages("a\nb", "a\nb\n", "u")).toBeUndefined()
  })

  it("a small change in a 1 MB page is diffed in well under a second", () => {
    const lines = Array.from({ length: 20_000 }, (_, i) => `Line ${i} of a long page with some words to fill it up.`)
    const before = lines.join("\n")
    const after = [...lines.slice(0, 10_000), "A new line in the middle.", ...lines.slice(10_000)].join("\n")
    expect(before.length).toBeGreaterThan(1_000_000)
    const started = performance.now()
    const change = ChangeDetection.comparePages(before, after, "u")!
    expect(performance.now() - started).toBeLessThan(1_000)
    expect(change.diff).toContain("+A new line in the middle.")
    expect(change.summary).toBe("1 line added, 0 removed")
  })
})

describe("sitemaps", () => {
  it("selects by RE2 include/exclude (exclusion wins) and max_urls, sorted and unique", () => {
    const urls = ["https://a.com/blog/2", "https://a.com/blog/1", "https://a.com/shop", "https://a.com/blog/private/x", "https://a.com/blog/1"]
    expect(ChangeDetection.selectSitemapUrls(urls, { include: ["/blog/"], exclude: ["/private/"] })).toEqual(["https://a.com/blog/1", "https://a.com/blog/2"])
    expect(ChangeDetection.selectSitemapUrls(urls, { max_urls: 2 })).toEqual(["https://a.com/blog/1", "https://a.com/blog/2"])
    expect(ChangeDetection.sitemapPatternError("(")).toContain("RE2")
    expect(ChangeDetection.sitemapPatternError("a".repeat(257))).toContain("256")
    expect(ChangeDetection.sitemapPatternError("^https://a\\.com/")).toBeUndefined()
  })

  it("reports exact counts and lists at most 500 each way", () => {
    const before = Array.from({ length: 1000 }, (_, i) => `https://a.com/old/${String(i).padStart(4, "0")}`)
    const after = [...before.slice(0, 300), ...Array.from({ length: 700 }, (_, i) => `https://a.com/new/${String(i).padStart(4, "0")}`)]
    const change = ChangeDetection.compareSitemaps(before, after)!
    expect(change).toMatchObject({ added_url_count: 700, removed_url_count: 700, title: "Sitemap changed: 700 added, 700 removed" })
    expect(change.added_urls).toHaveLength(500)
    expect(change.added_urls[0]).toBe("https://a.com/new/0000")
    expect(change.removed_urls[0]).toBe("https://a.com/old/0300")
    expect(ChangeDetection.compareSitemaps(before, [...before].reverse())).toBeUndefined()
  })
})

const judge = <A>(f: (j: ChangeDetection.SemanticJudge["Type"]) => Effect.Effect<A>) =>
  Effect.flatMap(ChangeDetection.SemanticJudge, f).pipe(Effect.provide(ChangeDetection.layerDeterministic))

describe("the deterministic judge", () => {
  it.effect("a price change matters to pricing instructions; a footer year does not", () =>
    Effect.gen(function*() {
      const instructions = "Tell me when the prices change"
      const price = yield* judge((j) => j.judgePage({ instructions, url: "https://example.com/", before: pricing("$10"), after: pricing("$12") }))
      expect(price).toMatchObject({ relevant: true, importance: "high", title: "Price changed from $10 to $12", matched_urls: ["https://example.com/"] })
      expect(price.confidence).toBeGreaterThanOrEqual(0.7)
      expect(price.evidence).toEqual([{ before: "The basic plan costs $10 per month.", after: "The basic plan costs $12 per month.", url: "https://example.com/" }])
      const footer = yield* judge((j) => j.judgePage({ instructions, url: "u", before: pricing("$10"), after: pricing("$10", "© 2026 Example Inc.") }))
      expect(footer).toMatchObject({ relevant: false, importance: "low", evidence: [] })
      expect(footer.confidence).toBeLessThan(0.5)
    }))

  it.effect("words of the instructions in the changed lines or their section make a change relevant", () =>
    Effect.gen(function*() {
      const before = "# Jobs\n\n## Openings\n\nNo open positions right now."
      const after = "# Jobs\n\n## Openings\n\nWe are hiring a senior engineer in Berlin."
      const hiring = yield* judge((j) => j.judgePage({ instructions: "new job openings", url: "u", before, after }))
      expect(hiring.relevant).toBe(true)
      expect(hiring.title).toBe("Relevant change in 'Openings'")
      const unrelated = yield* judge((j) => j.judgePage({ instructions: "changes to the refund policy", url: "u", before, after }))
      expect(unrelated.relevant).toBe(false)
    }))

  it.effect("extracts fields by schema from labels, tables, bold labels and lists, coerced to their types", () =>
    Effect.gen(function*() {
      const pages = [{
        url: "https://shop.example/p",
        title: "Kettle",
        text: "# Copper kettle\n\nPrice: $1,299.00\n\n| Availability | In stock |\n|---|---|\n| Weight | 1.2 kg |\n\n**Maker** Smith & Co\n\n## Colours\n\n- Copper\n- Brass"
      }]
      const data = yield* judge((j) => j.extract({
        instructions: "price and availability",
        schema: { type: "object", properties: { price: { type: "number" }, availability: { type: "boolean" }, maker: { type: "string" }, colours: { type: "array" }, warranty: { type: "string" } } },
        pages
      }))
      expect(data).toEqual({ price: 1299, availability: true, maker: "Smith & Co", colours: ["Copper", "Brass"], warranty: null })
      const summary = yield* judge((j) => j.extract({ instructions: "colours", pages }))
      expect(summary.key_points).toEqual(expect.arrayContaining(["Colours", "Copper"]))
      expect(String(summary.summary)).toContain("Price: $1,299.00")
    }))

  it.effect("compares extracted data field by field", () =>
    Effect.gen(function*() {
      const same = yield* judge((j) => j.judgeExtract({ instructions: "price", before: { price: 10, tags: ["a", "b"] }, after: { price: 10, tags: ["b", "a"] }, urls: ["u"] }))
      expect(same).toBeUndefined()
      const changed = (yield* judge((j) => j.judgeExtract({ instructions: "price", before: { price: 10, name: "K" }, after: { price: 12, name: "K" }, urls: ["u"] })))!
      expect(changed).toMatchObject({ relevant: true, importance: "high", title: "price changed from 10 to 12", evidence: [{ before: "price: 10", after: "price: 12", url: "u" }] })
    }))
})

describe("the LLM judge (a local stand-in of an OpenAI-compatible server)", () => {
  it.scopedLive("uses the model's verdict, and falls back to the deterministic judge when the model fails", () =>
    Effect.gen(function*() {
      const answers: Array<{ status: number; content?: unknown }> = [
        { status: 200, content: { relevant: true, confidence: 0.9, importance: "medium", title: "Model says: price up", summary: "s", evidence: [{ before: "10", after: "12" }] } },
        { status: 500 }
      ]
      const seen: Array<any> = []
      const server = createServer((req, res) => {
        let body = ""
        req.on("data", (c) => (body += c))
        req.on("end", () => {
          seen.push({ path: req.url, auth: req.headers.authorization, body: JSON.parse(body) })
          const answer = answers.shift()!
          res.writeHead(answer.status, { "content-type": "application/json" })
          res.end(answer.status === 200 ? JSON.stringify({ choices: [{ message: { content: JSON.stringify(answer.content) } }] }) : "{}")
        })
      })
      yield* Effect.acquireRelease(Effect.promise(() => new Promise<void>((r) => server.listen(0, "127.0.0.1", r))), () => Effect.sync(() => server.close()))
      const layer = ChangeDetection.layerLlm({ baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, model: "m", apiKey: "k" })
      const input = { instructions: "Tell me when the prices change", url: "https://example.com/", before: pricing("$10"), after: pricing("$12") }
      const first = yield* Effect.flatMap(ChangeDetection.SemanticJudge, (j) => j.judgePage(input)).pipe(Effect.provide(layer))
      expect(first).toMatchObject({ relevant: true, confidence: 0.9, importance: "medium", title: "Model says: price up", evidence: [{ before: "10", after: "12" }] })
      expect(seen[0]).toMatchObject({ path: "/v1/chat/completions", auth: "Bearer k", body: { model: "m", temperature: 0 } })
      const second = yield* Effect.flatMap(ChangeDetection.SemanticJudge, (j) => j.judgePage(input)).pipe(Effect.provide(layer))
      expect(second.title).toBe("Price changed from $10 to $12")
    }))
})
