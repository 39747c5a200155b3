import { describe, expect, it } from "vitest"
import * as QueryParams from "../../src/QueryParams.js"

const q = (search: string) => QueryParams.parse(search)

describe("QueryParams", () => {
  it("builds deep objects from brackets, as the SDK writes them", () => {
    expect(q("timeoutOpts[milliseconds]=5000&timeoutOpts[behavior]=fail&headers[X-A]=b&pdf[start]=1")).toEqual({
      timeoutOpts: { milliseconds: "5000", behavior: "fail" },
      headers: { "X-A": "b" },
      pdf: { start: "1" }
    })
  })

  it("reads lists comma-joined, repeated, indexed or as JSON", () => {
    expect(QueryParams.asList(q("tags=a,b"), "tags", { commaSeparated: true })).toEqual(["a", "b"])
    expect(QueryParams.asList(q("tags=a&tags=b"), "tags", { commaSeparated: true })).toEqual(["a", "b"])
    expect(QueryParams.asList(q("tags[0]=a&tags[1]=b"), "tags", { commaSeparated: true })).toEqual(["a", "b"])
    expect(QueryParams.asList(q(`tags=${encodeURIComponent('["a","b"]')}`), "tags", { commaSeparated: true })).toEqual(["a", "b"])
    // A comma-joined selector list is one selector list with the same meaning.
    expect(QueryParams.asList(q("includeSelectors=main, article,.x"), "includeSelectors", { commaSeparated: false })).toEqual(["main, article,.x"])
  })

  it("reads booleans and integers strictly, naming the field on error", () => {
    expect(QueryParams.asBoolean(q("a=true&b=0&c=1"), "a")).toBe(true)
    expect(QueryParams.asBoolean(q("b=0"), "b")).toBe(false)
    expect(() => QueryParams.asBoolean(q("a=yes"), "a")).toThrow(/a: must be true or false/)
    expect(QueryParams.asInteger(q("n=42"), "n")).toBe(42)
    expect(() => QueryParams.asInteger(q("n=4.2"), "n")).toThrow(/n: must be an integer/)
    expect(QueryParams.asInteger(q("n=null"), "n")).toBeUndefined()
  })

  it("reads objects from JSON too, and rejects malformed JSON", () => {
    expect(QueryParams.asObject(q(`timeoutOpts=${encodeURIComponent('{"milliseconds":5000}')}`), "timeoutOpts")).toEqual({ milliseconds: 5000 })
    expect(() => QueryParams.asObject(q("timeoutOpts={bad"), "timeoutOpts")).toThrow(/timeoutOpts: is not valid JSON/)
  })

  it("ignores prototype-polluting keys", () => {
    const parsed = q("__proto__[polluted]=1&a[constructor][x]=1")
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
    expect(parsed).toEqual({})
  })
})
