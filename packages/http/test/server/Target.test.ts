import { describe, expect, it } from "vitest"
import * as Target from "../../src/internal/target.js"

// What a URL makes of it; a target no URL can hold keeps its raw path (and routes to a 404).
const viaUrl = (target: string) => {
  try {
    const url = new URL(target, "http://sift.local")
    return { path: url.pathname, search: url.search }
  } catch {
    return { path: target.split("#")[0]!.split("?")[0]!, search: "" }
  }
}

describe("request targets", () => {
  it("give the path and query a URL gives, for plain and unusual targets alike", () => {
    const targets = [
      "/v1/web/scrape/markdown?url=https%3A%2F%2Fexample.com%2F&tags=a,b",
      "/v1/web/scrape/markdown?url=https://example.com/a?b=c&d[e]=f",
      "/v1/logs/8d3f0c7e-1b2a-4c5d-9e8f-0a1b2c3d4e5f",
      "/v1/openapi.json",
      "/v1/web/../logs",
      "/v1/web/%2e%2e/logs",
      "/v1/./logs",
      "//v1/logs",
      "/v1\\logs",
      "/v1/files/a b.png",
      "/v1/web/scrape?q=it's",
      "/v1/web/scrape?q=<b>\"x\"",
      "/v1/web/scrape?q=\u00fcber",
      "/v1/web/scrape?",
      "/v1/web/scrape?#frag",
      "/v1/web/scrape#frag?x=1",
      "/v1/web/x.?y=1",
      "/v1/web/x./y",
      "/v1/web/..x/y",
      "/v1/web/scrape?q=a\\b",
      "/v1/é",
      "//[",
      "/"
    ]
    for (const target of targets) expect(Target.parse(target), target).toEqual(viaUrl(target))
  })

  it("agree with URL on 20,000 random targets over a hostile alphabet", () => {
    const alphabet = ["/", ".", "..", "%", "%2e", "?", "#", "a", "v1", "\\", " ", "'", "\"", "<", ">", "=", "&", "[", "]", "é", "+", "~", "{", "|"]
    let seed = 7
    const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648
    for (let i = 0; i < 20_000; i++) {
      let target = "/"
      const length = Math.floor(next() * 12)
      for (let j = 0; j < length; j++) target += alphabet[Math.floor(next() * alphabet.length)]
      expect(Target.parse(target), target).toEqual(viaUrl(target))
    }
  })
})
