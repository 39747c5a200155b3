import { describe, expect, it } from "@effect/vitest"
import { isLoopbackBind, parseTrustedProxies, refusal, type TrustedProxies } from "../../src/internal/server/httpsRule.js"

const proxies = (text: string) => parseTrustedProxies(text) as TrustedProxies

describe("HTTPS rule", () => {
  it("knows loopback binds", () => {
    for (const host of ["127.0.0.1", "127.1.2.3", "::1", "[::1]", "localhost", "::ffff:127.0.0.1"]) {
      expect(isLoopbackBind(host), host).toBe(true)
    }
    for (const host of ["0.0.0.0", "::", "192.0.2.2", "10.0.0.1", "example.org"]) {
      expect(isLoopbackBind(host), host).toBe(false)
    }
  })

  it("parses IPs and CIDRs, IPv4 and IPv6, and matches dual-stack peer addresses", () => {
    const list = proxies(" 10.0.0.0/8 , 192.0.2.7, fd00::/64")
    expect(list.entries).toEqual(["10.0.0.0/8", "192.0.2.7", "fd00::/64"])
    expect(list.contains("10.20.30.40")).toBe(true)
    expect(list.contains("::ffff:10.1.1.1")).toBe(true)
    expect(list.contains("192.0.2.7")).toBe(true)
    expect(list.contains("192.0.2.8")).toBe(false)
    expect(list.contains("fd00::1234")).toBe(true)
    expect(list.contains("fd01::1")).toBe(false)
    expect(proxies("").contains("10.0.0.1")).toBe(false)
  })

  it("rejects malformed entries with a message naming them", () => {
    expect(parseTrustedProxies("10.0.0.0/33")).toMatch(/"10\.0\.0\.0\/33" has an invalid prefix length/)
    expect(parseTrustedProxies("proxy.local")).toMatch(/"proxy\.local" is not an IP address or CIDR/)
    expect(parseTrustedProxies("1.2.3.4/8/9")).toMatch(/not an IP address or CIDR/)
  })

  it("allows loopback binds and TLS, and otherwise only HTTPS forwarded by a trusted proxy", () => {
    const base = { loopbackBind: false, tls: false, trustedProxies: proxies("10.0.0.0/8"), remoteAddress: "10.1.2.3" }
    expect(refusal({ ...base, loopbackBind: true, forwardedProto: undefined })).toBeUndefined()
    expect(refusal({ ...base, tls: true, forwardedProto: undefined })).toBeUndefined()
    expect(refusal({ ...base, forwardedProto: "https" })).toBeUndefined()
    expect(refusal({ ...base, forwardedProto: "HTTPS, http" })).toBeUndefined()
    expect(refusal({ ...base, forwardedProto: "http" })).toMatch(/did not forward an HTTPS request/)
    expect(refusal({ ...base, forwardedProto: undefined })).toMatch(/did not forward/)
    expect(refusal({ ...base, remoteAddress: "192.0.2.1", forwardedProto: "https" })).toMatch(/use HTTPS/)
    expect(refusal({ ...base, remoteAddress: undefined, forwardedProto: "https" })).toMatch(/use HTTPS/)
  })
})
