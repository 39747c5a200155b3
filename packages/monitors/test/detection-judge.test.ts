import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as ChangeDetection from "../src/ChangeDetection.js"

const url = "https://shop.test/pricing"

/** A realistic pricing page; `parts` override its changing pieces. */
const pricingPage = (parts: { pro?: string; team?: string; footer?: string; intro?: string; stock?: string } = {}) => [
  "# Acme Analytics",
  "",
  parts.intro ?? "Dashboards for growing teams.",
  "",
  "## Pricing",
  "",
  "| Plan | Price | Seats |",
  "| --- | --- | --- |",
  `| Pro | ${parts.pro ?? "$10/month"} | 5 |`,
  `| Team | ${parts.team ?? "$49/month"} | 25 |`,
  "",
  "## Availability",
  "",
  `Hardware kit: ${parts.stock ?? "In stock"}`,
  "",
  "## Careers",
  "",
  "We are hiring engineers in Berlin.",
  "",
  parts.footer ?? "© 2024 Acme Inc. Last updated: May 1, 2024"
].join("\n")

const judge = (instructions: string, before: string, after: string) =>
  Effect.flatMap(ChangeDetection.SemanticJudge, (j) => j.judgePage({ instructions, url, before, after })).pipe(
    Effect.provide(ChangeDetection.layerDeterministic)
  )

interface Case {
  readonly name: string
  readonly instructions: string
  readonly after: string
  readonly relevant: boolean
  readonly importance?: "low" | "medium" | "high"
  readonly title?: string
}

const cases: ReadonlyArray<Case> = [
  {
    name: "a price change under pricing instructions",
    instructions: "Notify me when the pricing changes",
    after: pricingPage({ pro: "$12/month" }),
    relevant: true,
    importance: "high",
    title: "Price changed from $10 to $12"
  },
  {
    name: "a footer date under pricing instructions",
    instructions: "Notify me when the pricing changes",
    after: pricingPage({ footer: "© 2025 Acme Inc. Last updated: June 3, 2025" }),
    relevant: false,
    importance: "low"
  },
  {
    name: "stock back in under availability instructions",
    instructions: "Tell me when the hardware kit is back in stock",
    after: pricingPage({ stock: "Out of stock" }),
    relevant: true,
    importance: "high"
  },
  {
    name: "a marketing line under pricing instructions",
    instructions: "Alert me about price changes of the Team plan",
    after: pricingPage({ intro: "Dashboards for teams of every size." }),
    relevant: false
  },
  {
    name: "any change under instructions naming nothing in particular",
    instructions: "Notify me of any changes",
    after: pricingPage({ intro: "Dashboards for teams of every size." }),
    relevant: true
  },
  {
    name: "a job opening under careers instructions; not relevant to the same page's price instructions",
    instructions: "Let me know when they are hiring in Lisbon or Berlin",
    after: pricingPage().replace("We are hiring engineers in Berlin.", "We are hiring designers in Lisbon."),
    relevant: true,
    importance: "medium"
  },
  {
    name: "a quoted phrase in a changed line",
    instructions: "Watch for \"hiring engineers\" in the careers section",
    after: pricingPage().replace("We are hiring engineers in Berlin.", "We are hiring engineers in Berlin and Lisbon."),
    relevant: true,
    importance: "medium"
  }
]

describe("deterministic judgePage", () => {
  for (const c of cases) {
    it.effect(c.name, () =>
      Effect.gen(function*() {
        const verdict = yield* judge(c.instructions, pricingPage(), c.after)
        expect(verdict.relevant).toBe(c.relevant)
        if (c.importance !== undefined) expect(verdict.importance).toBe(c.importance)
        if (c.title !== undefined) expect(verdict.title).toBe(c.title)
        if (c.relevant) {
          expect(verdict.confidence).toBeGreaterThanOrEqual(0.5)
          expect(verdict.matched_urls).toEqual([url])
          expect(verdict.evidence.length).toBeGreaterThan(0)
          expect(verdict.evidence[0]!.url).toBe(url)
        } else {
          expect(verdict.confidence).toBeLessThan(0.5)
          expect(verdict.matched_urls).toEqual([])
        }
      }))
  }

  it.effect("negated clauses: a change only about what the instructions exclude is not relevant", () =>
    Effect.gen(function*() {
      const page = (blog: string, pro: string) =>
        `# Acme\n\n## Pricing\n\n| Pro | ${pro} |\n\n## Blog\n\n${blog}\n\n## Contact\n\nWrite to us.`
      const instructions = "Tell me when prices change, but ignore the blog"
      const blog = yield* judge(instructions, page("Spring sale: $5 off", "$10"), page("Summer sale: $8 off", "$10"))
      expect(blog.relevant).toBe(false)
      const price = yield* judge(instructions, page("Spring sale: $5 off", "$10"), page("Spring sale: $5 off", "$12"))
      expect(price).toMatchObject({ relevant: true, importance: "high", title: "Price changed from $10 to $12" })
    }))

  it.effect("an apostrophe is no quote; a negated value kind is not asked for", () =>
    Effect.gen(function*() {
      const instructions = "Tell me about job openings in the careers section, don't care about pricing"
      const careers = yield* judge(
        instructions,
        pricingPage(),
        pricingPage().replace("We are hiring engineers in Berlin.", "We are hiring designers in Lisbon.")
      )
      expect(careers.relevant).toBe(true)
      const price = yield* judge(instructions, pricingPage(), pricingPage({ pro: "$12/month" }))
      expect(price.relevant).toBe(false)
    }))

  it.effect("a news line vs a price line in one paragraph list (the HTTP test's page)", () =>
    Effect.gen(function*() {
      const body = (price: string, news: string) => `# Plans\n\nThe team plan costs ${price} per seat.\n\nLatest news: ${news}.`
      const unrelated = yield* judge("Tell me when prices change", body("$20", "we moved offices"), body("$20", "we hired a designer"))
      expect(unrelated.relevant).toBe(false)
      const priced = yield* judge("Tell me when prices change", body("$20", "we hired a designer"), body("$25", "we hired a designer"))
      expect(priced).toMatchObject({ relevant: true, importance: "high", title: "Price changed from $20 to $25" })
      expect(priced.evidence[0]).toEqual({ before: "The team plan costs $20 per seat.", after: "The team plan costs $25 per seat.", url })
    }))

  it.effect("a price change in a 1 MB page is judged well under a second", () =>
    Effect.gen(function*() {
      const filler = Array.from({ length: 20_000 }, (_, i) => `Paragraph ${i}: ${"lorem ipsum dolor sit amet ".repeat(2)}`).join("\n")
      const started = performance.now()
      const verdict = yield* judge("pricing", `${filler}\n${pricingPage()}`, `${filler}\n${pricingPage({ pro: "$12/month" })}`)
      expect(performance.now() - started).toBeLessThan(1000)
      expect(verdict).toMatchObject({ relevant: true, importance: "high", title: "Price changed from $10 to $12" })
    }))

  it.effect("evidence of a price change holds the changed lines before and after", () =>
    Effect.gen(function*() {
      const verdict = yield* judge("pricing", pricingPage(), pricingPage({ pro: "$12/month" }))
      expect(verdict.evidence[0]).toEqual({ before: "| Pro | $10/month | 5 |", after: "| Pro | $12/month | 5 |", url })
      expect(verdict.summary).toBe("Price: $10 → $12 in section 'Pricing'. 1 of 1 changed region concerns the instructions.")
    }))
})
