/**
 * `SIFT_NEWS_FEEDS` read as a list of URLs or as the path of an OPML file (as feed readers export them).
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import * as Poller from "../../src/News/Poller.js"

describe("News/Poller.feedsOf", () => {
  it("reads URLs separated by commas or whitespace, skipping what is no http(s) URL", () => {
    expect(Poller.feedsOf(" https://a.test/rss, http://b.test/atom.xml\nhttps://c.test/feed.json  ftp://d.test/x ")).toEqual([
      "https://a.test/rss",
      "http://b.test/atom.xml",
      "https://c.test/feed.json"
    ])
    expect(Poller.feedsOf("")).toEqual([])
  })

  it("reads an OPML file's feeds, nested outlines included", () => {
    const dir = mkdtempSync(join(tmpdir(), "sift-opml-"))
    try {
      const file = join(dir, "feeds.opml")
      writeFileSync(file, `<?xml version="1.0" encoding="UTF-8"?><opml version="1.0"><head><title>Subscriptions</title></head><body>
        <outline text="News" title="News"><outline type="rss" text="Wire" xmlUrl="https://wire.test/rss" htmlUrl="https://wire.test/"/>
        <outline type="rss" text="Daily" xmlUrl="https://daily.test/atom"/></outline><outline type="rss" text="Solo" xmlUrl="https://solo.test/feed"/></body></opml>`)
      expect(Poller.feedsOf(file)).toEqual(["https://wire.test/rss", "https://daily.test/atom", "https://solo.test/feed"])
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it("names a publisher source by its feed's host, without www.", () => {
    expect(Poller.publisherSource("https://www.wire.test/rss")).toEqual({ domain: "wire.test", name: "", direct: false, type: "editorial" })
  })
})
