import { describe, expect, it } from "@effect/vitest"
import * as Core from "../src/index.js"

describe("@sift/core exports", () => {
  it("exposes exactly the public modules and the scrape function", () => {
    expect(Object.keys(Core).sort()).toEqual([
      "Actions", "AddressGuard", "BlockDetection", "BrowserPool", "Cache", "Charset", "CompanyEvidence", "CompanyResolver", "ContentFilter", "Convert", "Crawler", "Deadline", "Errors", "Fetcher", "HostRules", "Html",
      "HtmlFormat", "ImageEnrich", "Images", "MainContent", "Markdown", "Metadata", "Naics", "NaicsClassification", "NaicsClassifier", "ParseDocument", "ParseRules", "Pipeline", "Products", "RenderPlan", "Renderer", "ScrapeRequest",
      "ScrapeResult", "Scraper", "Screenshot", "Sic", "Styleguide", "UrlDiscovery", "UrlIndex", "UrlNormal", "UrlSearch", "classifyNaics", "mapUrls", "scrape"
    ])
    expect(typeof Core.scrape).toBe("function")
  })
})
