/**
 * The address guard (decisions §0): Sift refuses to fetch loopback, private, link-local, unspecified, multicast,
 * broadcast, reserved and cloud metadata addresses unless the operator allows private targets. The Fetcher applies it
 * to the resolved IP of every connection it opens (inside the connect step, so DNS rebinding between check and connect
 * is impossible) and to literal-IP URLs; the browser will apply the same functions.
 *
 * @since 0.1.0
 */
import { isIP } from "node:net"

/** What kind of address an IP is. Everything but `public` is refused by default. @category models */
export type AddressClass =
  | "public"
  | "loopback"
  | "private"
  | "link-local"
  | "metadata"
  | "unspecified"
  | "multicast"
  | "broadcast"
  | "reserved"
  | "invalid"

/** Decides whether a connection to `ip`, reached for host name `host`, may be opened. @category models */
export type AddressPolicy = (ip: string, host: string) => boolean

type Range4 = readonly [base: number, bits: number, kind: AddressClass]

const v4 = (text: string): number => text.split(".").reduce((n, octet) => n * 256 + Number(octet), 0)

// Most specific first: the metadata hosts sit inside link-local and CGNAT ranges.
const ranges4: ReadonlyArray<Range4> = [
  [v4("169.254.169.254"), 32, "metadata"], // AWS, GCP, Azure, OpenStack, Oracle instance metadata
  [v4("169.254.170.2"), 32, "metadata"], // AWS ECS task metadata
  [v4("100.100.100.200"), 32, "metadata"], // Alibaba Cloud metadata
  [v4("168.63.129.16"), 32, "metadata"], // Azure WireServer: a public-looking address that answers only inside Azure
  [v4("255.255.255.255"), 32, "broadcast"],
  [v4("0.0.0.0"), 32, "unspecified"],
  [v4("0.0.0.0"), 8, "reserved"], // "this network"; Linux connects 0.x to the local host
  [v4("10.0.0.0"), 8, "private"],
  [v4("100.64.0.0"), 10, "private"], // carrier-grade NAT
  [v4("127.0.0.0"), 8, "loopback"],
  [v4("169.254.0.0"), 16, "link-local"],
  [v4("172.16.0.0"), 12, "private"],
  [v4("192.0.0.0"), 24, "reserved"], // IETF protocol assignments
  [v4("192.0.2.0"), 24, "reserved"], // documentation
  [v4("192.168.0.0"), 16, "private"],
  [v4("198.18.0.0"), 15, "reserved"], // benchmarking, also used by fake-IP resolvers inside networks
  [v4("198.51.100.0"), 24, "reserved"],
  [v4("203.0.113.0"), 24, "reserved"],
  [v4("224.0.0.0"), 4, "multicast"],
  [v4("240.0.0.0"), 4, "reserved"]
]

const classify4 = (address: number): AddressClass => {
  for (const [base, bits, kind] of ranges4) {
    const size = 2 ** (32 - bits)
    if (address >= base && address < base + size) return kind
  }
  return "public"
}

/** Expands an IPv6 text (with an optional embedded IPv4 tail) into eight 16-bit groups. */
const groups6 = (text: string): Array<number> => {
  const lastColon = text.lastIndexOf(":")
  let hex = text
  if (text.includes(".", lastColon)) {
    const n = v4(text.slice(lastColon + 1))
    hex = `${text.slice(0, lastColon + 1)}${Math.floor(n / 65536).toString(16)}:${(n % 65536).toString(16)}`
  }
  const halves = hex.split("::")
  const parse = (part: string | undefined) => (part === undefined || part === "" ? [] : part.split(":").map((g) => parseInt(g, 16)))
  const left = parse(halves[0])
  const right = parse(halves[1])
  const gap = halves.length === 2 ? new Array<number>(8 - left.length - right.length).fill(0) : []
  return [...left, ...gap, ...right]
}

const embedded4 = (g: ReadonlyArray<number>, at: number): number => g[at]! * 65536 + g[at + 1]!

const classify6 = (g: ReadonlyArray<number>): AddressClass => {
  const zeroUntil = (n: number) => g.slice(0, n).every((x) => x === 0)
  if (zeroUntil(8)) return "unspecified"
  if (zeroUntil(7) && g[7] === 1) return "loopback"
  // IPv4-mapped (::ffff:a.b.c.d), IPv4-translated (::ffff:0:a.b.c.d) and deprecated IPv4-compatible (::a.b.c.d).
  if (zeroUntil(5) && g[5] === 0xffff) return classify4(embedded4(g, 6))
  if (zeroUntil(4) && g[4] === 0xffff && g[5] === 0) return classify4(embedded4(g, 6))
  if (zeroUntil(6)) return classify4(embedded4(g, 6))
  // NAT64 (64:ff9b::/96 and the local-use 64:ff9b:1::/48) and 6to4 (2002::/16) carry an IPv4 address too.
  if (g[0] === 0x64 && g[1] === 0xff9b && g.slice(2, 6).every((x) => x === 0)) return classify4(embedded4(g, 6))
  if (g[0] === 0x64 && g[1] === 0xff9b && g[2] === 1) return "private"
  if (g[0] === 0x2002) return classify4(embedded4(g, 1))
  if (g[0] === 0xfd00 && g[1] === 0x0ec2 && g.slice(2, 7).every((x) => x === 0) && g[7] === 0x254) {
    return "metadata" // AWS instance metadata over IPv6
  }
  const first = g[0]!
  if ((first & 0xfe00) === 0xfc00) return "private" // unique-local fc00::/7
  if ((first & 0xffc0) === 0xfe80) return "link-local"
  if ((first & 0xffc0) === 0xfec0) return "private" // deprecated site-local
  if ((first & 0xff00) === 0xff00) return "multicast"
  if (first === 0x100 && g.slice(1, 4).every((x) => x === 0)) return "reserved" // discard-only 100::/64
  if (first === 0x2001 && g[1] === 0xdb8) return "reserved" // documentation
  if (first === 0x2001 && g[1]! < 0x200) return "reserved" // Teredo, ORCHID and other IETF assignments
  if ((first & 0xe000) !== 0x2000) return "reserved" // outside global unicast 2000::/3
  return "public"
}

/** Strips URL brackets and an IPv6 zone (`[fe80::1%eth0]` → `fe80::1`). */
const bareIp = (ip: string): string => ip.replace(/^\[|\]$/g, "").replace(/%.*$/, "")

/** Classifies an IPv4 or IPv6 address given as text; `invalid` for anything that is not an IP. */
export const classify = (ip: string): AddressClass => {
  const bare = bareIp(ip)
  switch (isIP(bare)) {
    case 4:
      return classify4(v4(bare))
    case 6:
      return classify6(groups6(bare.toLowerCase()))
    default:
      return "invalid"
  }
}

// Names that reach metadata services or the local host whatever DNS says.
const refusedNames = new Set(["localhost", "metadata", "metadata.google.internal", "metadata.goog", "instance-data",
  "instance-data.ec2.internal"])

/** Why a host name is refused before any lookup (`metadata.google.internal`, `localhost`), or undefined. */
export const refusedHostName = (host: string): string | undefined => {
  const name = host.toLowerCase().replace(/\.$/, "")
  if (name === "localhost" || name.endsWith(".localhost")) return `${host} is a loopback name`
  return refusedNames.has(name) ? `${host} is a cloud metadata name` : undefined
}

/** The default policy: only public addresses, and never a refused host name. */
export const publicOnly: AddressPolicy = (ip, host) => classify(ip) === "public" && refusedHostName(host) === undefined

/** The policy with `SIFT_ALLOW_PRIVATE_TARGETS=true`: everything is allowed. */
export const allowAll: AddressPolicy = () => true

/** The policy for a setting: {@link allowAll} when private targets are allowed, else {@link publicOnly}. */
export const policy = (allowPrivateTargets: boolean): AddressPolicy => (allowPrivateTargets ? allowAll : publicOnly)

/** A sentence saying why a connection to `ip` for `host` is refused, for error messages. */
export const explain = (ip: string, host: string): string => {
  const byName = refusedHostName(host)
  if (byName !== undefined) return byName
  const kind = classify(ip)
  const shown = bareIp(ip) === bareIp(host) ? bareIp(ip) : `${host} resolves to ${bareIp(ip)}, which`
  return kind === "public" ? `${shown} is refused by the address policy` : `${shown} is a ${kind} address`
}
