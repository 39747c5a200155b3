import { describe, expect, it } from "@effect/vitest"
import { createTwoFilesPatch, FILE_HEADERS_ONLY } from "diff"
import { Effect } from "effect"
import * as ChangeDetection from "../src/ChangeDetection.js"

const page = (price: string) => [
  "# Acme",
  "",
  "Welcome to Acme.",
  "",
  "## Pricing",
  "",
  "| Plan | Price |",
  "| --- | --- |",
  `| Pro | ${price} |`,
  "",
  "## Contact",
  "",
  "Write to us."
].join("\n")

describe("normalizeText", () => {
  it.effect("with normalize_whitespace: NFC, LF, collapsed spaces, one blank line, trimmed; indentation kept", () =>
    Effect.sync(() => {
      const text = "  \r\n# Cafe\u0301  \r\n\r\n\r\n\r\nA  b\t\tc\u00a0 d   \n- list\n  - nested  item\n\n\n"
      expect(ChangeDetection.normalizeText(text, { normalizeWhitespace: true })).toBe(
        "# Café\n\nA b c d\n- list\n  - nested item"
      )
    }))

  it.effect("without it: only LF line endings and no trailing whitespace at the end", () =>
    Effect.sync(() => {
      expect(ChangeDetection.normalizeText("a  b\r\n\r\n\r\n c \r\n\n", { normalizeWhitespace: false })).toBe("a  b\n\n\n c")
    }))

  it.effect("contentHash is the SHA-256 hex of the text", () =>
    Effect.sync(() => {
      expect(ChangeDetection.contentHash("abc")).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
      expect(ChangeDetection.contentHash(ChangeDetection.normalizeText("a \n\n\n b", { normalizeWhitespace: true })))
        .toBe(ChangeDetection.contentHash("a\n\n b"))
    }))
})

describe("comparePages", () => {
  it.effect("equal texts and texts differing only in line endings or a final newline are no change", () =>
    Effect.sync(() => {
      expect(ChangeDetection.comparePages(page("$10"), page("$10"), "https://acme.test/")).toBeUndefined()
      expect(ChangeDetection.comparePages("a\nb", "a\nb\n", "https://acme.test/")).toBeUndefined()
      expect(ChangeDetection.comparePages("a\r\nb\r\n", "a\nb", "https://acme.test/")).toBeUndefined()
    }))

  it.effect("a changed price: exact unified diff, excerpts, section title and summary", () =>
    Effect.sync(() => {
      const change = ChangeDetection.comparePages(page("$10"), page("$12"), "https://acme.test/pricing")!
      expect(change.diff).toBe([
        "--- before",
        "+++ after",
        "@@ -6,7 +6,7 @@",
        "",
        " | Plan | Price |",
        " | --- | --- |",
        "-| Pro | $10 |",
        "+| Pro | $12 |",
        " ",
        " ## Contact",
        " ",
        ""
      ].join("\n").replace("@@\n\n", "@@\n \n"))
      expect(change.before_text_excerpt).toBe("| --- | --- |\n| Pro | $10 |\n## Contact")
      expect(change.after_text_excerpt).toBe("| --- | --- |\n| Pro | $12 |\n## Contact")
      expect(change.title).toBe("Page changed in 'Pricing': https://acme.test/pricing")
      expect(change.summary).toBe("1 line added, 1 removed in section 'Pricing'")
    }))

  it.effect("the diff has jsdiff's createTwoFilesPatch format", () =>
    Effect.sync(() => {
      const before = Array.from({ length: 30 }, (_, i) => `line ${i}`).join("\n")
      const after = before.replace("line 3\n", "").replace("line 20", "line twenty\nline 20b")
      const expected = createTwoFilesPatch("before", "after", before + "\n", after + "\n", undefined, undefined, {
        context: 3,
        headerOptions: FILE_HEADERS_ONLY
      })
      expect(ChangeDetection.comparePages(before, after, "u")!.diff).toBe(expected)
    }))

  it.effect("pure addition: empty before excerpt, summary counts only additions", () =>
    Effect.sync(() => {
      const change = ChangeDetection.comparePages("## News\n\nOld item", "## News\n\nOld item\nNew item\nOther item", "u")!
      expect(change.before_text_excerpt).toBe("")
      expect(change.after_text_excerpt).toBe("Old item\nNew item\nOther item")
      expect(change.summary).toBe("2 lines added in section 'News'")
      expect(change.diff).toContain("\n+New item\n+Other item\n")
    }))

  it.effect("from an empty text: one hunk of additions", () =>
    Effect.sync(() => {
      const change = ChangeDetection.comparePages("", "# Hello\n\nWorld", "u")!
      expect(change.diff).toBe("--- before\n+++ after\n@@ -0,0 +1,3 @@\n+# Hello\n+\n+World\n")
      expect(change.before_text_excerpt).toBe("")
      expect(change.summary).toBe("3 lines added in section 'Hello'")
    }))

  it.effect("a change of whitespace inside a line is shown as a -/+ pair (never an empty diff)", () =>
    Effect.sync(() => {
      const change = ChangeDetection.comparePages("a  b", "a b", "u")!
      expect(change.diff).toBe("--- before\n+++ after\n@@ -1,1 +1,1 @@\n-a  b\n+a b\n")
      expect(change.title).toBe("Page changed: u")
    }))

  it.effect("excerpts stay within 500 characters", () =>
    Effect.sync(() => {
      const before = Array.from({ length: 40 }, (_, i) => `old paragraph ${i} `.repeat(5)).join("\n")
      const after = Array.from({ length: 40 }, (_, i) => `new paragraph ${i} `.repeat(5)).join("\n")
      const change = ChangeDetection.comparePages(before, after, "u")!
      expect(change.before_text_excerpt.length).toBeLessThanOrEqual(500)
      expect(change.after_text_excerpt.length).toBeLessThanOrEqual(500)
      expect(change.after_text_excerpt.startsWith("new paragraph 0 ")).toBe(true)
      expect(change.after_text_excerpt.endsWith("…")).toBe(true)
      expect(change.summary).toBe("40 lines added, 40 removed")
    }))

  it.effect("a small change in a 1 MB text is found well under a second", () =>
    Effect.sync(() => {
      const lines = Array.from({ length: 20_000 }, (_, i) => `Paragraph ${i}: ${"lorem ipsum dolor sit amet ".repeat(2)}`)
      const before = lines.join("\n")
      expect(before.length).toBeGreaterThan(1_000_000)
      lines[12_345] = "Paragraph 12345: changed"
      const after = lines.join("\n")
      const started = performance.now()
      const change = ChangeDetection.comparePages(before, after, "u")!
      const elapsed = performance.now() - started
      expect(change.diff).toContain("\n+Paragraph 12345: changed\n")
      expect(change.diff).toContain("@@ -12343,7 +12343,7 @@")
      expect(elapsed).toBeLessThan(1000)
    }))
})
