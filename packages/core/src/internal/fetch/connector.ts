/**
 * The connect step of the Fetcher's undici Agent: host mapping, then the address guard on the exact IP the socket is
 * about to use. Checking inside `lookup` (for names) and just before `connect` (for literal and mapped IPs) means no
 * second DNS answer can slip in between the check and the connection.
 */
import { lookup as dnsLookup, type LookupAddress } from "node:dns"
import { isIP, type LookupFunction } from "node:net"
import { buildConnector } from "undici"
import * as AddressGuard from "../../AddressGuard.js"
import * as HostRules from "../../HostRules.js"

/** Thrown into undici when the guard refuses an address; the Fetcher turns it into `WebsiteError` `PrivateAddress`. */
export class AddressRefused extends Error {
  readonly code = "ESIFT_ADDRESS_REFUSED"
  constructor(readonly ip: string, readonly host: string) {
    super(AddressGuard.explain(ip, host))
  }
}

/** Thrown for a host that a `MAP ... ~NOTFOUND` rule makes unresolvable; reported like a DNS failure. */
export class MappedNotFound extends Error {
  readonly code = "ENOTFOUND"
  constructor(readonly host: string) {
    super(`${host} is mapped to ~NOTFOUND by the host resolver rules`)
  }
}

const EAI_AGAIN_RETRY_MS = 200

/** `dns.lookup` that retries a temporary failure once and keeps only the addresses `policy` allows. */
export const guardedLookup = (policy: AddressGuard.AddressPolicy): LookupFunction =>
  (hostname, options, callback) => {
    const attempt = (retry: boolean) =>
      dnsLookup(hostname, { family: options.family, hints: options.hints, all: true }, (error, addresses) => {
        if (error !== null) {
          if (retry && error.code === "EAI_AGAIN") return void setTimeout(() => attempt(false), EAI_AGAIN_RETRY_MS)
          return callback(error, "", 0)
        }
        const list = addresses as Array<LookupAddress>
        const allowed = list.filter((a) => policy(a.address, hostname))
        if (allowed.length === 0) {
          return callback(new AddressRefused(list[0]?.address ?? "", hostname) as NodeJS.ErrnoException, "", 0)
        }
        // With autoSelectFamily (Node's default) net asks for every address; otherwise for one.
        if (options.all === true) return (callback as unknown as (e: null, a: Array<LookupAddress>) => void)(null, allowed)
        callback(null, allowed[0]!.address, allowed[0]!.family)
      })
    attempt(true)
  }

/** Options of {@link guardedConnector}. */
export interface ConnectorOptions {
  readonly policy: AddressGuard.AddressPolicy
  readonly hostRules: HostRules.HostRules
  readonly connectTimeoutMs: number
}

/** An undici connector that maps hosts by the rules and refuses addresses the policy does not allow. */
export const guardedConnector = (options: ConnectorOptions): buildConnector.connector => {
  const base = buildConnector({ timeout: options.connectTimeoutMs, lookup: guardedLookup(options.policy) })
  return (connect, callback) => {
    const host = connect.hostname.replace(/^\[|\]$/g, "")
    const mapped = HostRules.resolve(options.hostRules, host)
    if (mapped?._tag === "NotFound") return callback(new MappedNotFound(host), null)
    const target = mapped?._tag === "Connect" ? mapped.host : host
    // Literal and mapped IPs never reach `lookup`, so they are checked here.
    if (isIP(target) !== 0 && !options.policy(target, host)) return callback(new AddressRefused(target, host), null)
    base({
      ...connect,
      hostname: target, // undici hands us bare IPv6 hosts, and net.connect wants them bare
      port: mapped?._tag === "Connect" && mapped.port !== undefined ? String(mapped.port) : connect.port
    }, callback)
  }
}
