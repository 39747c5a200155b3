import { describe, expect, it } from "vitest"
import { isTracker, parseList, trackerHosts } from "../../src/internal/render/trackers.js"

describe("tracker list", () => {
  it("reads hosts files, one name a line and adblock-style lines, skipping comments and what is not a host", () => {
    expect(parseList([
      "# a hosts file", "0.0.0.0 ads.example.com", "127.0.0.1 localhost", "  Tracker.Example.NET  # trailing", "||pixel.example.org^$third-party",
      "! adblock comment", "not a host", "10.0.0.1", ""
    ].join("\n")).sort()).toEqual(["ads.example.com", "pixel.example.org", "tracker.example.net"])
  })

  it("refuses a listed host and names under it, never the page's own site", () => {
    const listed = new Set(trackerHosts())
    expect(isTracker(listed, "https://www.google-analytics.com/analytics.js", "https://shop.example/")).toBe(true)
    expect(isTracker(listed, "https://stats.g.doubleclick.net/x", "https://shop.example/")).toBe(true)
    expect(isTracker(listed, "https://cdn.example-cdn.net/lib.js", "https://shop.example/")).toBe(false)
    // A tracker's own website renders with its own scripts.
    expect(isTracker(listed, "https://www.hotjar.com/app.js", "https://www.hotjar.com/")).toBe(false)
    expect(isTracker(listed, "https://notdoubleclick.net/x", "https://shop.example/")).toBe(false)
    expect(isTracker(listed, "https://doubleclick.net/x", undefined)).toBe(false)
  })
})
