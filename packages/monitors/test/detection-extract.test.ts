import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as ChangeDetection from "../src/ChangeDetection.js"

const product = (price: string, stock: string) => [
  "# Trail Runner 2",
  "",
  "A light shoe for long runs on rough ground. Made in Portugal from recycled materials.",
  "",
  "**Price** " + price,
  "",
  "Availability: " + stock,
  "",
  "| Spec | Value |",
  "| --- | --- |",
  "| Weight | 245 g |",
  "| Drop | 6 mm |",
  "",
  "## Colors",
  "",
  "- Red",
  "- Black",
  "",
  "## Warranty",
  "",
  "Two years on sole and upper."
].join("\n")

const schema = {
  type: "object",
  properties: {
    price: { type: "number" },
    availability: { type: "boolean" },
    weight: { type: "string" },
    drop: { type: "number" },
    colors: { type: "array", items: { type: "string" } },
    warranty: { type: "string" },
    material: { type: "string" }
  }
}

const run = <A>(f: (judge: ChangeDetection.SemanticJudge["Type"]) => Effect.Effect<A>) =>
  Effect.flatMap(ChangeDetection.SemanticJudge, f).pipe(Effect.provide(ChangeDetection.layerDeterministic))

describe("deterministic extract", () => {
  it.effect("fills schema properties from bold labels, label lines, table rows and headings; missing → null", () =>
    Effect.gen(function*() {
      const data = yield* run((j) =>
        j.extract({
          instructions: "Track price and stock",
          schema,
          pages: [{ url: "https://shop.test/p", title: "Trail Runner 2", text: product("$1,299.00", "In stock") }]
        })
      )
      expect(data).toEqual({
        price: 1299,
        availability: true,
        weight: "245 g",
        drop: 6,
        colors: ["Red", "Black"],
        warranty: "Two years on sole and upper.",
        material: null
      })
    }))

  it.effect("out of stock is false; the first page with a value wins per field", () =>
    Effect.gen(function*() {
      const data = yield* run((j) =>
        j.extract({
          instructions: "",
          schema: { type: "object", properties: { price: { type: "number" }, availability: { type: "boolean" } } },
          pages: [
            { url: "https://shop.test/a", title: "A", text: "Availability: Out of stock" },
            { url: "https://shop.test/b", title: "B", text: "Price: $20\n\nAvailability: In stock" },
            { url: "https://shop.test/c", title: "C", text: "Price: $30" }
          ]
        })
      )
      expect(data).toEqual({ price: 20, availability: false })
    }))

  it.effect("definition lists (bold term, then \": definition\") give label/value pairs", () =>
    Effect.gen(function*() {
      const data = yield* run((j) =>
        j.extract({
          instructions: "",
          schema: { type: "object", properties: { delivery: { type: "string" }, returns: { type: "string" } } },
          pages: [{ url: "https://shop.test/p", title: "P", text: "**Delivery**\n\n: 2 to 4 working days\n\n**Returns**\n\n: Free within 30 days" }]
        })
      )
      expect(data).toEqual({ delivery: "2 to 4 working days", returns: "Free within 30 days" })
    }))

  it.effect("without a schema: a summary and key points", () =>
    Effect.gen(function*() {
      const data = yield* run((j) =>
        j.extract({
          instructions: "colors",
          pages: [{ url: "https://shop.test/p", title: "Trail Runner 2", text: product("$120", "In stock") }]
        })
      )
      expect(data.summary).toBe(
        "A light shoe for long runs on rough ground. Made in Portugal from recycled materials. Two years on sole and upper."
      )
      expect((data.key_points as Array<string>)[0]).toBe("Colors")
      expect(data.key_points as Array<string>).toContain("Red")
      expect((data.key_points as Array<string>).length).toBeLessThanOrEqual(10)
    }))
})

describe("deterministic judgeExtract", () => {
  const judgeExtract = (before: Record<string, unknown>, after: Record<string, unknown>, instructions = "Track the price") =>
    run((j) => j.judgeExtract({ instructions, before, after, urls: ["https://shop.test/p"] }))

  it.effect("undefined when equal, arrays compared as sets", () =>
    Effect.gen(function*() {
      expect(yield* judgeExtract({ price: 10, colors: ["Red", "Black"] }, { colors: ["Black", "Red"], price: 10 })).toBeUndefined()
    }))

  it.effect("a changed number: relevant, high, evidence per changed field", () =>
    Effect.gen(function*() {
      const verdict = (yield* judgeExtract({ price: 10, colors: ["Red"] }, { price: 12, colors: ["Red", "Blue"] }))!
      expect(verdict.relevant).toBe(true)
      expect(verdict.importance).toBe("high")
      expect(verdict.confidence).toBeGreaterThanOrEqual(0.5)
      expect(verdict.evidence).toEqual([
        { before: "price: 10", after: "price: 12", url: "https://shop.test/p" },
        { before: "colors: [\"Red\"]", after: "colors: [\"Red\",\"Blue\"]", url: "https://shop.test/p" }
      ])
      expect(verdict.title).toBe("price changed from 10 to 12")
    }))

  it.effect("a change of a field the instructions do not ask about, while the one they name is unchanged: not relevant", () =>
    Effect.gen(function*() {
      const verdict = (yield* judgeExtract(
        { price: 10, warranty: "Two years" },
        { price: 10, warranty: "One year" },
        "Track the price"
      ))!
      expect(verdict.relevant).toBe(false)
      expect(verdict.importance).toBe("low")
      expect(verdict.confidence).toBeLessThan(0.5)
      expect(verdict.matched_urls).toEqual([])
      expect(verdict.evidence).toEqual([{ before: "warranty: Two years", after: "warranty: One year", url: "https://shop.test/p" }])
    }))

  it.effect("a changed text field: medium", () =>
    Effect.gen(function*() {
      const verdict = (yield* judgeExtract({ warranty: "Two years" }, { warranty: "One year" }, "warranty terms"))!
      expect(verdict.relevant).toBe(true)
      expect(verdict.importance).toBe("medium")
      expect(verdict.evidence).toEqual([{ before: "warranty: Two years", after: "warranty: One year", url: "https://shop.test/p" }])
    }))
})
