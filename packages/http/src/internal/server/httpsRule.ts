/**
 * The HTTPS rule of decisions §0: plain HTTP is accepted on a loopback bind; on any other bind without TLS a request is
 * refused unless it came through a trusted proxy that says the client used HTTPS (`X-Forwarded-Proto: https`).
 */
import * as net from "node:net"

/** A matcher over the configured proxy addresses and CIDR ranges. */
export interface TrustedProxies {
  readonly entries: ReadonlyArray<string>
  readonly contains: (address: string) => boolean
}

/** Strips the IPv4-mapped IPv6 prefix (`::ffff:10.0.0.1`) a dual-stack socket reports. */
export const normalizeAddress = (address: string): string => {
  const lower = address.toLowerCase()
  return lower.startsWith("::ffff:") && net.isIPv4(lower.slice(7)) ? lower.slice(7) : lower
}

/** Parses `SIFT_TRUSTED_PROXIES` (comma-separated IPs and CIDRs); a string is the error message. */
export const parseTrustedProxies = (text: string): TrustedProxies | string => {
  const list = new net.BlockList()
  const entries = text.split(",").map((s) => s.trim()).filter((s) => s !== "")
  for (const entry of entries) {
    const [address = "", prefix, extra] = entry.split("/")
    const family = net.isIPv4(address) ? "ipv4" : net.isIPv6(address) ? "ipv6" : undefined
    if (family === undefined || extra !== undefined) return `SIFT_TRUSTED_PROXIES: "${entry}" is not an IP address or CIDR`
    if (prefix === undefined) {
      list.addAddress(address, family)
      continue
    }
    const bits = Number(prefix)
    if (!/^\d+$/.test(prefix) || bits > (family === "ipv4" ? 32 : 128)) {
      return `SIFT_TRUSTED_PROXIES: "${entry}" has an invalid prefix length`
    }
    list.addSubnet(address, bits, family)
  }
  return {
    entries,
    contains: (raw) => {
      const address = normalizeAddress(raw)
      const family = net.isIPv4(address) ? "ipv4" : net.isIPv6(address) ? "ipv6" : undefined
      return family !== undefined && list.check(address, family)
    }
  }
}

/** Whether a bind address only accepts connections from this machine. */
export const isLoopbackBind = (host: string): boolean => {
  const address = normalizeAddress(host.replace(/^\[|\]$/g, ""))
  if (address === "localhost") return true
  if (net.isIPv4(address)) return address.startsWith("127.")
  return address === "::1"
}

/** What the rule needs to know about the server and one request. */
export interface HttpsContext {
  readonly loopbackBind: boolean
  readonly tls: boolean
  readonly trustedProxies: TrustedProxies
  readonly remoteAddress: string | undefined
  readonly forwardedProto: string | undefined
}

/** `undefined` when the request may proceed, else why it is refused. */
export const refusal = (context: HttpsContext): string | undefined => {
  if (context.tls || context.loopbackBind) return undefined
  const viaTrustedProxy = context.remoteAddress !== undefined && context.trustedProxies.contains(context.remoteAddress)
  // A proxy may append several values (one per hop); the first is what the client used.
  const proto = context.forwardedProto?.split(",")[0]?.trim().toLowerCase()
  if (viaTrustedProxy && proto === "https") return undefined
  return viaTrustedProxy
    ? "plain HTTP is refused on this address: the proxy did not forward an HTTPS request (X-Forwarded-Proto: https)"
    : "plain HTTP is refused on this address: use HTTPS (configure SIFT_TLS_CERT/SIFT_TLS_KEY, or a proxy listed in SIFT_TRUSTED_PROXIES)"
}
