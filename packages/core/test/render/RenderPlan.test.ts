import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as RenderPlan from "../../src/RenderPlan.js"
import * as ScrapeRequest from "../../src/ScrapeRequest.js"

const request = (input: Record<string, unknown>) =>
  Effect.runSync(ScrapeRequest.decode({ url: "https://example.com/", formats: { markdown: true }, ...input }))

describe("RenderPlan", () => {
  const needs: ReadonlyArray<readonly [string, Record<string, unknown>, ReadonlyArray<string>]> = [
    ["a plain markdown scrape", {}, []],
    ["waitFor in milliseconds", { sharedParams: { waitFor: 300 } }, []],
    ["country and headers", { sharedParams: { country: "de", headers: { "x-a": "1" } } }, []],
    ["a screenshot", { formats: { screenshot: true } }, ["formats.screenshot"]],
    ["actions", { sharedParams: { actions: [{ type: "wait", milliseconds: 10 }] } }, ["sharedParams.actions"]],
    ["waitFor a selector", { sharedParams: { waitFor: "#app" } }, ["sharedParams.waitFor (a selector)"]],
    ["frames", { sharedParams: { includeFrames: true } }, ["sharedParams.includeFrames"]],
    ["theme", { sharedParams: { theme: "dark" } }, ["sharedParams.theme"]],
    ["viewport", { sharedParams: { viewport: { width: 800 } } }, ["sharedParams.viewport"]],
    ["cookie and popup dismissal", { sharedParams: { dismissCookies: true, dismissPopups: true } }, [
      "sharedParams.dismissCookies",
      "sharedParams.dismissPopups"
    ]]
  ]
  for (const [name, input, expected] of needs) {
    it(`request needs: ${name}`, () => {
      const decision = RenderPlan.beforeFetch(request(input))
      expect(decision.reasons).toEqual(expected)
      expect(decision.render).toBe(expected.length > 0)
    })
  }

  const prose = "<p>" + "The harbour opens at six and closes at nine; ferries run every hour in summer. ".repeat(5) + "</p>"
  const pages: ReadonlyArray<readonly [string, string | undefined, string, boolean]> = [
    ["an article with a script", "text/html", `<html><body>${prose}<script src="/a.js"></script></body></html>`, false],
    ["a static page without scripts", "text/html", "<html><body><p>Short.</p></body></html>", false],
    ["an empty body with a bundle", "text/html", `<html><head><script src="/main.js"></script></head><body></body></html>`, true],
    ["an empty React root", "text/html", `<html><body>${prose}<div id="root"></div></body></html>`, true],
    ["an empty Next.js root", "text/html", `<html><body><div id="__next"></div><script src="/_next/x.js"></script></body></html>`, true],
    ["a module bundle and a spinner", "text/html", `<html><body><p>Loading…</p><script type="module" src="/app.js"></script></body></html>`, true],
    ["a noscript notice", "text/html", `<html><body>${prose}<noscript>You need to enable JavaScript to run this app.</noscript></body></html>`, true],
    ["a harmless noscript pixel", "text/html", `<html><body>${prose}<noscript><img src="/pixel.gif"></noscript></body></html>`, false],
    ["JSON", "application/json", `{"a":1}`, false],
    ["a PDF", "application/pdf", "%PDF-1.7", false]
  ]
  for (const [name, contentType, html, render] of pages) {
    it(`page signals: ${name} → ${render ? "browser" : "static"}`, () => {
      const decision = RenderPlan.afterFetch({ contentType, html })
      expect(decision.render).toBe(render)
      expect(decision.reasons.length > 0).toBe(render)
    })
  }
})
