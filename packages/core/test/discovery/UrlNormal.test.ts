import { describe, expect, it } from "@effect/vitest"
import * as UrlNormal from "../../src/UrlNormal.js"

describe("UrlNormal.normalize", () => {
  it("drops fragments, default ports, credentials and an empty query; lower-cases the host", () => {
    expect(UrlNormal.normalize("HTTP://User:pw@Example.COM:80/A/b?#top")).toBe("http://example.com/A/b")
    expect(UrlNormal.normalize("https://example.com:443/x#y")).toBe("https://example.com/x")
    expect(UrlNormal.normalize("https://example.com:8443/x")).toBe("https://example.com:8443/x")
  })

  it("removes tracking parameters and keeps the others in order", () => {
    expect(UrlNormal.normalize("https://e.com/p?b=2&utm_source=x&a=1&UTM_Medium=y&gclid=3&fbclid=4"))
      .toBe("https://e.com/p?b=2&a=1")
    expect(UrlNormal.normalize("https://e.com/p?utm_campaign=only")).toBe("https://e.com/p")
  })

  it("resolves relative URLs and dot segments, refuses what is not http(s)", () => {
    expect(UrlNormal.normalize("../c/./d", "https://e.com/a/b/")).toBe("https://e.com/a/c/d")
    expect(UrlNormal.normalize("  https://e.com/x \n")).toBe("https://e.com/x")
    expect(UrlNormal.normalize("mailto:me@e.com")).toBeUndefined()
    expect(UrlNormal.normalize("javascript:void(0)")).toBeUndefined()
    expect(UrlNormal.normalize("not a url")).toBeUndefined()
  })

  it("encodes international hosts", () => {
    expect(UrlNormal.normalize("https://BÜCHER.example/ä")).toBe("https://xn--bcher-kva.example/%C3%A4")
  })
})

describe("UrlNormal dedupe and scope", () => {
  it("treats http/https and www/apex spellings of a page as one, keeping the first", () => {
    expect(UrlNormal.dedupe([
      "http://www.e.com/a",
      "https://e.com/a#frag",
      "https://E.com:443/a?utm_source=z",
      "https://e.com/a/",
      "https://e.com/b",
      "ftp://e.com/c"
    ])).toEqual(["http://www.e.com/a", "https://e.com/a/", "https://e.com/b"])
  })

  it("keeps the www twin in scope always and subdomains only when asked", () => {
    expect(UrlNormal.inScope("https://www.e.com/x", "e.com", false)).toBe(true)
    expect(UrlNormal.inScope("https://e.com/x", "www.e.com", false)).toBe(true)
    expect(UrlNormal.inScope("https://blog.e.com/x", "e.com", false)).toBe(false)
    expect(UrlNormal.inScope("https://blog.e.com/x", "e.com", true)).toBe(true)
    expect(UrlNormal.inScope("https://note.com/x", "e.com", true)).toBe(false)
    expect(UrlNormal.inScope("https://e.com.evil.org/x", "e.com", true)).toBe(false)
  })

  it("reads the domain a request names", () => {
    expect(UrlNormal.domainOf("Example.com")).toBe("example.com")
    expect(UrlNormal.domainOf("https://www.example.com/path?q")).toBe("www.example.com")
    expect(UrlNormal.domainOf("example.com:8080")).toBe("example.com")
    expect(UrlNormal.domainOf("nodots")).toBeUndefined()
    expect(UrlNormal.domainOf("ftp://example.com")).toBeUndefined()
  })
})
