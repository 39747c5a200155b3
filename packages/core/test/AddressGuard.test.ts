import { describe, expect, it } from "@effect/vitest"
import * as AddressGuard from "../src/AddressGuard.js"

const cases: ReadonlyArray<readonly [string, AddressGuard.AddressClass]> = [
  ["8.8.8.8", "public"],
  ["93.184.216.34", "public"],
  ["172.32.0.1", "public"],
  ["100.128.0.1", "public"],
  ["2606:4700:4700::1111", "public"],
  ["127.0.0.1", "loopback"],
  ["127.255.255.254", "loopback"],
  ["::1", "loopback"],
  ["[::1]", "loopback"],
  ["10.0.0.1", "private"],
  ["172.16.5.4", "private"],
  ["172.31.255.255", "private"],
  ["192.168.1.1", "private"],
  ["100.64.0.1", "private"],
  ["100.127.255.255", "private"],
  ["fc00::1", "private"],
  ["fd12:3456::1", "private"],
  ["169.254.0.1", "link-local"],
  ["fe80::1", "link-local"],
  ["fe80::1%eth0", "link-local"],
  ["169.254.169.254", "metadata"],
  ["fd00:ec2::254", "metadata"],
  ["100.100.100.200", "metadata"],
  ["0.0.0.0", "unspecified"],
  ["::", "unspecified"],
  ["224.0.0.1", "multicast"],
  ["239.255.255.250", "multicast"],
  ["ff02::1", "multicast"],
  ["255.255.255.255", "broadcast"],
  ["0.1.2.3", "reserved"],
  ["240.0.0.1", "reserved"],
  ["2001:db8::1", "reserved"],
  // IPv4-mapped and other IPv6 forms that carry an IPv4 address classify as that address.
  ["::ffff:127.0.0.1", "loopback"],
  ["::ffff:7f00:1", "loopback"],
  ["0:0:0:0:0:ffff:a00:1", "private"],
  ["::ffff:192.168.0.1", "private"],
  ["::ffff:169.254.169.254", "metadata"],
  ["::ffff:a9fe:a9fe", "metadata"],
  ["::ffff:0.0.0.0", "unspecified"],
  ["::ffff:8.8.8.8", "public"],
  ["::127.0.0.1", "loopback"],
  ["64:ff9b::10.0.0.1", "private"],
  ["64:ff9b::8.8.8.8", "public"],
  ["2002:7f00:1::", "loopback"],
  ["not-an-ip", "invalid"],
  ["example.com", "invalid"]
]

describe("AddressGuard.classify", () => {
  for (const [ip, expected] of cases) {
    it(`${ip} is ${expected}`, () => {
      expect(AddressGuard.classify(ip)).toBe(expected)
    })
  }
})

describe("AddressGuard policies", () => {
  it("publicOnly allows public addresses and refuses the rest and metadata names", () => {
    expect(AddressGuard.publicOnly("93.184.216.34", "example.com")).toBe(true)
    expect(AddressGuard.publicOnly("10.0.0.1", "example.com")).toBe(false)
    expect(AddressGuard.publicOnly("::ffff:127.0.0.1", "example.com")).toBe(false)
    expect(AddressGuard.publicOnly("93.184.216.34", "metadata.google.internal")).toBe(false)
    expect(AddressGuard.publicOnly("93.184.216.34", "foo.localhost")).toBe(false)
  })

  it("policy(true) allows everything", () => {
    expect(AddressGuard.policy(true)("127.0.0.1", "localhost")).toBe(true)
    expect(AddressGuard.policy(false)("127.0.0.1", "localhost")).toBe(false)
  })

  it("explains refusals", () => {
    expect(AddressGuard.explain("10.0.0.1", "intranet.example")).toBe(
      "intranet.example resolves to 10.0.0.1, which is a private address"
    )
    expect(AddressGuard.explain("169.254.169.254", "169.254.169.254")).toBe("169.254.169.254 is a metadata address")
    expect(AddressGuard.explain("1.2.3.4", "metadata.google.internal")).toContain("cloud metadata name")
  })
})
