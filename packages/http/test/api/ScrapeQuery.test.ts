import { Cause, Effect, Exit, Option } from "effect"
import { describe, expect, it } from "vitest"
import * as Images from "../../src/Images/Http.js"
import * as QueryParams from "../../src/QueryParams.js"
import type { Caller } from "../../src/RequestPipeline.js"
import * as Bytes from "../../src/Scrape/Bytes.js"
import * as Html from "../../src/Scrape/Html.js"
import * as Markdown from "../../src/Scrape/Markdown.js"
import * as Screenshot from "../../src/Screenshot/Http.js"

const callerOf = (search: string): Caller => ({
  requestId: "r1",
  auth: { keyId: "k1", permissions: null, org: { id: "o1", plan: "free" } } as unknown as Caller["auth"],
  search,
  query: QueryParams.parse(search),
  body: undefined
})

/** The plan a handler decides for a query, or the message of the refusal. */
const validate = async (handler: { readonly validate: (caller: Caller) => Effect.Effect<any, any> }, search: string) => {
  const exit = await Effect.runPromiseExit(handler.validate(callerOf(search)))
  if (Exit.isSuccess(exit)) return exit.value
  const failure = Option.getOrUndefined(Cause.failureOption(exit.cause)) as { readonly message: string } | undefined
  return failure === undefined ? `defect: ${Cause.pretty(exit.cause)}` : failure.message
}

const url = `url=${encodeURIComponent("https://example.com/")}`
const actions = `actions=${encodeURIComponent(JSON.stringify([{ do: "wait", timeMs: 100 }]))}`

describe("the scrape GETs' query Schemas", () => {
  it("decode a GET into the POST body it stands for", async () => {
    const plan = await validate(Markdown.markdown, `?${url}&includeHTML=1&shortenBase64Images=false&waitForMs=500&pdf[start]=2&pdf[ocr]=true&tags=a,b`)
    expect(JSON.parse(JSON.stringify(plan.input.request))).toEqual({
      url: "https://example.com/",
      formats: { html: true, markdown: true },
      sharedParams: { parsers: { pdf: { startPage: 2, ocr: "auto" } }, waitFor: 500 },
      markdownParams: { inlineImages: "preserve" },
      tags: ["a", "b"]
    })
    // 1 credit, plus the OCR hold of 50 pages for a range without an end.
    expect(plan.credits).toBe(51)
    const screenshot = await validate(Screenshot.screenshot, "?domain=Example.com&page=pricing&clearPopups=true&viewport[width]=800")
    expect(JSON.parse(JSON.stringify(screenshot.input.request))).toMatchObject({
      url: "https://example.com/",
      sharedParams: { viewport: { width: 800 }, dismissCookies: true, dismissPopups: true },
      screenshotParams: { area: "viewport" }
    })
    expect(screenshot.input).toMatchObject({ page: "pricing", domain: "example.com" })
  })

  it("name the query member a problem of the POST body came from", async () => {
    expect(await validate(Markdown.markdown, `?${url}&waitForMs=40000`)).toBe("waitForMs: Expected a number between 0 and 30000, actual 40000")
    expect(await validate(Html.html, `?${url}&pdf[start]=3&pdf[end]=2`)).toBe("pdf[end]: must not be before startPage")
    expect(await validate(Html.html, `?${url}&timeoutMS=300001`)).toBe("timeoutMS: 300001 exceeds the maximum of 300000 ms")
    expect(await validate(Html.html, `?${url}&actions=${encodeURIComponent("[{\"do\":\"jump\"}]")}`)).toBe("actions[0].do: must be wait, perform or scroll")
    expect(await validate(Screenshot.scrapeScreenshot, `?${url}&colorScheme=blue`)).toMatch(/^colorScheme: /)
    expect(await validate(Images.images, `?${url}&enrichment[bogus]=true`)).toBe("enrichment[bogus]: unknown enrichment (resolution, classification, hostedUrl)")
  })

  it("report a member's own problem before a missing url, as the POST body did", async () => {
    expect(await validate(Markdown.markdown, "?useMainContentOnly=yes")).toBe("useMainContentOnly: must be true or false, got \"yes\"")
    expect(await validate(Markdown.markdown, "?useMainContentOnly=true")).toBe("url: is required")
  })

  it("leave the paid-plan refusal to the pipeline: a plan with actions says so", async () => {
    expect((await validate(Markdown.markdown, `?${url}&${actions}`)).paidPlanFor).toBe("actions: browser actions need a paid plan")
    expect((await validate(Images.images, `?${url}&${actions}`)).paidPlanFor).toBe("actions: browser actions need a paid plan")
    expect((await validate(Markdown.markdown, `?${url}`)).paidPlanFor).toBeUndefined()
  })

  it("bytes ignore the members they do not read (a malformed pdf was a defect, answered 500)", async () => {
    for (const pdf of ["pdf=true", "pdf=%7Bbad", "pdf[0]=1"]) {
      const plan = await validate(Bytes.bytes, `?${url}&${pdf}`)
      expect(typeof plan === "string" ? plan : plan.credits).toBe(1)
    }
  })
})
