import { describe, expect, it } from "@effect/vitest"
import { Either } from "effect"
import * as HostRules from "../src/HostRules.js"

const parse = (source: string) => Either.getOrThrow(HostRules.parse(source))
const error = (source: string) => {
  const result = HostRules.parse(source)
  if (Either.isRight(result)) throw new Error(`expected "${source}" to be rejected`)
  return result.left
}

describe("HostRules.parse", () => {
  it("parses MAP and EXCLUDE rules with IPs, ports, IPv6 and host names", () => {
    const rules = parse("MAP *.test 127.0.0.1:8080, EXCLUDE api.test ,MAP a.example [::1]:9000, map b.example other.host")
    expect(rules.rules).toEqual([
      { _tag: "Map", pattern: "*.test", host: "127.0.0.1", port: 8080 },
      { _tag: "Exclude", pattern: "api.test" },
      { _tag: "Map", pattern: "a.example", host: "::1", port: 9000 },
      { _tag: "Map", pattern: "b.example", host: "other.host", port: undefined }
    ])
    expect(parse("MAP * ~NOTFOUND").rules).toEqual([{ _tag: "MapNotFound", pattern: "*" }])
    expect(parse("  ").rules).toEqual([])
  })

  it("rejects bad syntax with a message naming the rule", () => {
    expect(error("MAP *.test").message).toBe(`Invalid host resolver rule "MAP *.test": MAP takes a host pattern and a replacement`)
    expect(error("REWRITE a b").message).toContain(`expected MAP or EXCLUDE, got "REWRITE"`)
    expect(error("MAP a.test 127.0.0.1:99999").message).toContain(`"99999" is not a port`)
    expect(error("MAP a.test 127.0.0.1:x").message).toContain("is not a port")
    expect(error("MAP a.test [nope]:80").message).toContain("is not an IPv6 address")
    expect(error("MAP a.test 1.2.3.4, EXCLUDE").message).toContain("missing host pattern")
    expect(error("MAP a/b 1.2.3.4").message).toContain("is not a host pattern")
  })
})

describe("HostRules.resolve", () => {
  const rules = parse("EXCLUDE api.test, MAP *.test 127.0.0.1:8080, MAP gone.example ~NOTFOUND, MAP h?st.example 10.0.0.1")

  it("maps matching hosts, first rule wins, case-insensitively", () => {
    expect(HostRules.resolve(rules, "site.test")).toEqual({ _tag: "Connect", host: "127.0.0.1", port: 8080 })
    expect(HostRules.resolve(rules, "Deep.Sub.TEST")).toEqual({ _tag: "Connect", host: "127.0.0.1", port: 8080 })
    expect(HostRules.resolve(rules, "host.example")).toEqual({ _tag: "Connect", host: "10.0.0.1", port: undefined })
    expect(HostRules.resolve(rules, "gone.example")).toEqual({ _tag: "NotFound" })
  })

  it("leaves excluded and unmatched hosts alone", () => {
    expect(HostRules.resolve(rules, "api.test")).toBeUndefined()
    expect(HostRules.resolve(rules, "test")).toBeUndefined()
    expect(HostRules.resolve(rules, "hoost.example")).toBeUndefined()
    expect(HostRules.resolve(rules, "example.com")).toBeUndefined()
    expect(HostRules.resolve(HostRules.empty, "site.test")).toBeUndefined()
  })

  it("treats regex characters in patterns literally", () => {
    const dotted = parse("MAP a.b 1.1.1.1")
    expect(HostRules.resolve(dotted, "axb")).toBeUndefined()
    expect(HostRules.matches("*.test", "x.test")).toBe(true)
  })
})
