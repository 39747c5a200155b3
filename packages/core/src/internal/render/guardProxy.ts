/**
 * The browser's address guard as a forward proxy: each browser context gets its own listener on loopback and sends
 * every request through it (plain HTTP as absolute-URI requests, HTTPS and WebSockets as CONNECT tunnels, loopback
 * included). The proxy maps the host by the host rules, resolves it, checks the IP with the address policy and connects
 * to exactly that IP, so no second DNS answer can slip in (as the Fetcher's connector does). With an upstream proxy
 * (`http://`, or `https://`: TLS to the proxy, its certificate verified as the Fetcher verifies it) it checks what our
 * resolver says (as the Fetcher does through a proxy) and chains to it.
 *
 * Why a proxy: route interception costs a round trip through the DevTools protocol for every request a page makes;
 * the proxy costs none. A refused or failed request is recorded (per context) and the browser sees a closed
 * connection or a failed tunnel, so the render reports the recorded reason.
 */
import { randomBytes, timingSafeEqual } from "node:crypto"
import { lookup as dnsLookup, type LookupAddress } from "node:dns"
import * as http from "node:http"
import * as https from "node:https"
import * as net from "node:net"
import * as tls from "node:tls"
import type { Duplex } from "node:stream"
import * as AddressGuard from "../../AddressGuard.js"
import * as HostRules from "../../HostRules.js"

/** A request the proxy did not pass on, and why. */
export interface ProxyFailure {
  /** The request URL; for a CONNECT tunnel `https://host:port/` (the path is inside the tunnel). */
  readonly url: string
  /** `host:port` the browser asked for (port always present). */
  readonly authority: string
  /** True for a CONNECT tunnel: it stands for every URL of its authority. */
  readonly tunnel: boolean
  readonly reason: "PrivateAddress" | "NotFound" | "Unreachable"
  readonly detail: string
}

/** What every context's proxy shares: the rules, the policy, a resolver cache and a keep-alive agent to origins. */
export interface GuardShared {
  readonly policy: AddressGuard.AddressPolicy
  readonly rules: HostRules.HostRules
  /** All addresses of a host name (an empty list when it does not resolve). */
  readonly addressesOf: (host: string) => Promise<ReadonlyArray<string>>
  readonly agent: http.Agent
  /** Keep-alive connections to `https://` upstream proxies. */
  readonly tlsAgent: https.Agent
  /** Certificates trusted for `https://` upstream proxies besides Node's default ones (for tests and private CAs). */
  readonly upstreamCa: ReadonlyArray<string> | undefined
}

/** Where a context's proxy listens and whether it asks for credentials. */
export interface ListenOptions {
  /** Address to listen on, which the browser connects to; default `127.0.0.1`. */
  readonly host?: string | undefined
  /** Require these (`Proxy-Authorization: Basic`) on every request and tunnel; others get a 407. */
  readonly credentials?: Credentials | undefined
}

/** Proxy credentials, for the context's `proxy.username` / `proxy.password`. */
export interface Credentials {
  readonly username: string
  readonly password: string
}

/** Fresh random credentials for one context's proxy. */
export const randomCredentials = (): Credentials => ({
  username: `sift-${randomBytes(9).toString("base64url")}`,
  password: randomBytes(24).toString("base64url")
})

/** Whether a listen address is loopback only (then the proxy needs no credentials: only this machine reaches it). */
export const isLoopback = (host: string): boolean => {
  const name = bare(host).toLowerCase()
  return name === "localhost" || name === "::1" || (net.isIPv4(name) && name.startsWith("127."))
}

/** One context's proxy. */
export interface GuardProxy {
  /** `http://<host>:<port>`, for the context's `proxy.server`. */
  readonly server: string
  readonly failures: ReadonlyArray<ProxyFailure>
  /** Stops listening and cuts every open connection. */
  readonly close: () => void
}

/** The shared part: an address cache (30 s, so repeated subresources do not each ask the resolver) and the agents. */
export const makeShared = (
  policy: AddressGuard.AddressPolicy,
  rules: HostRules.HostRules,
  options: { readonly upstreamCa?: ReadonlyArray<string> | undefined } = {}
): GuardShared => {
  const lookups = new Map<string, Promise<ReadonlyArray<string>>>()
  const resolveOnce = (host: string, retry: boolean): Promise<ReadonlyArray<string>> =>
    new Promise((resolve) =>
      dnsLookup(host, { all: true }, (error, addresses) => {
        if (error !== null) {
          if (retry && error.code === "EAI_AGAIN") return void setTimeout(() => resolve(resolveOnce(host, false)), 200)
          return resolve([])
        }
        resolve((addresses as Array<LookupAddress>).map((a) => a.address))
      })
    )
  const addressesOf = (host: string) => {
    const known = lookups.get(host)
    if (known !== undefined) return known
    const found = resolveOnce(host, true)
    lookups.set(host, found)
    setTimeout(() => lookups.delete(host), 30_000).unref()
    return found
  }
  // Extra CAs are added to Node's defaults, never in their place.
  const ca = options.upstreamCa === undefined ? undefined : [...tls.rootCertificates, ...options.upstreamCa]
  return {
    policy,
    rules,
    addressesOf,
    agent: new http.Agent({ keepAlive: true, maxSockets: 64 }),
    tlsAgent: new https.Agent({ keepAlive: true, maxSockets: 64, ...(ca === undefined ? {} : { ca }) }),
    upstreamCa: ca
  }
}

type Decision =
  | { readonly _tag: "Connect"; readonly ip: string; readonly port: number }
  | { readonly _tag: "Fail"; readonly reason: ProxyFailure["reason"]; readonly detail: string }

const bare = (host: string) => host.replace(/^\[|\]$/g, "")

/** Where a direct connection for `host:port` goes, or why it may not. */
export const decideDirect = async (shared: GuardShared, host: string, port: number): Promise<Decision> => {
  const name = bare(host).toLowerCase()
  const mapped = HostRules.resolve(shared.rules, name)
  if (mapped?._tag === "NotFound") return { _tag: "Fail", reason: "NotFound", detail: `${name} is mapped to ~NOTFOUND by the host resolver rules` }
  const target = mapped?._tag === "Connect" ? bare(mapped.host) : name
  const targetPort = mapped?._tag === "Connect" && mapped.port !== undefined ? mapped.port : port
  const refuse = (ip: string): Decision => ({ _tag: "Fail", reason: "PrivateAddress", detail: AddressGuard.explain(ip, name) })
  if (isIPAddress(target)) return shared.policy(target, name) ? { _tag: "Connect", ip: target, port: targetPort } : refuse(target)
  if (AddressGuard.refusedHostName(name) !== undefined && !shared.policy("0.0.0.0", name)) return refuse("0.0.0.0")
  const addresses = await shared.addressesOf(target)
  if (addresses.length === 0) return { _tag: "Fail", reason: "NotFound", detail: `${target} does not resolve` }
  const allowed = addresses.find((ip) => shared.policy(ip, name))
  return allowed === undefined ? refuse(addresses[0]!) : { _tag: "Connect", ip: allowed, port: targetPort }
}

/** Through an upstream proxy that resolves names itself: literal IPs, refused names and what our resolver says. */
export const checkProxied = async (shared: GuardShared, host: string): Promise<Decision | undefined> => {
  const name = bare(host).toLowerCase()
  const mapped = HostRules.resolve(shared.rules, name)
  if (mapped?._tag === "NotFound") return { _tag: "Fail", reason: "NotFound", detail: `${name} is mapped to ~NOTFOUND by the host resolver rules` }
  const target = mapped?._tag === "Connect" ? bare(mapped.host) : name
  const refuse = (ip: string): Decision => ({ _tag: "Fail", reason: "PrivateAddress", detail: AddressGuard.explain(ip, name) })
  if (isIPAddress(target)) return shared.policy(target, name) ? undefined : refuse(target)
  if (AddressGuard.refusedHostName(name) !== undefined && !shared.policy("0.0.0.0", name)) return refuse("0.0.0.0")
  const bad = (await shared.addressesOf(target)).find((ip) => !shared.policy(ip, name))
  return bad === undefined ? undefined : refuse(bad)
}

const isIPAddress = (text: string) => net.isIP(text) !== 0

// Hop-by-hop headers (RFC 9110 §7.6.1) and the proxy's own: never forwarded.
const hopByHop = new Set(["connection", "keep-alive", "proxy-connection", "proxy-authorization", "proxy-authenticate", "te", "trailer", "transfer-encoding", "upgrade"])

const forwardable = (raw: ReadonlyArray<string>, keepChunked: boolean): Array<string> => {
  const named = new Set<string>()
  for (let i = 0; i < raw.length; i += 2) {
    if (raw[i]!.toLowerCase() === "connection") for (const token of raw[i + 1]!.split(",")) named.add(token.trim().toLowerCase())
  }
  const out: Array<string> = []
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!.toLowerCase()
    // A chunked response stays chunked: Node re-frames the body when the header is set.
    if ((hopByHop.has(name) && !(keepChunked && name === "transfer-encoding")) || named.has(name)) continue
    out.push(raw[i]!, raw[i + 1]!)
  }
  return out
}

/** Splits a CONNECT target `host:port` / `[v6]:port`. */
const splitAuthority = (text: string): { host: string; port: number } | undefined => {
  const match = /^(\[[^\]]+\]|[^:]+):(\d{1,5})$/.exec(text)
  if (match === null) return undefined
  const port = Number(match[2])
  return port >= 1 && port <= 65535 ? { host: match[1]!, port } : undefined
}

const authorityOf = (url: URL) =>
  `${bare(url.hostname)}:${url.port === "" ? (url.protocol === "https:" || url.protocol === "wss:" ? 443 : 80) : url.port}`

const proxyAuthRequired = "HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm=\"sift-guard\"\r\nContent-Length: 0\r\n"

/**
 * Starts a context's proxy on a free port of `listen.host` (default loopback); `upstream` is an `http://` or
 * `https://` proxy URL to chain to. With `listen.credentials`, a request or tunnel without them gets a 407 and goes nowhere.
 */
export const start = (shared: GuardShared, upstream: string | undefined, listen: ListenOptions = {}): Promise<GuardProxy> => {
  const failures: Array<ProxyFailure> = []
  const expected = listen.credentials === undefined
    ? undefined
    : Buffer.from(`Basic ${Buffer.from(`${listen.credentials.username}:${listen.credentials.password}`).toString("base64")}`)
  const authorized = (req: http.IncomingMessage) => {
    if (expected === undefined) return true
    const given = Buffer.from(req.headers["proxy-authorization"] ?? "")
    return given.length === expected.length && timingSafeEqual(given, expected)
  }
  const tunnels = new Set<Duplex>()
  const via = upstream === undefined ? undefined : new URL(upstream)
  const viaTls = via?.protocol === "https:"
  const viaPort = via === undefined ? 0 : Number(via.port || (viaTls ? 443 : 80))
  const viaHost = via === undefined ? "" : bare(via.hostname)
  /** A connection to the upstream proxy (TLS for `https://`) and the event that says it is ready. */
  const connectVia = (): { readonly socket: net.Socket; readonly ready: "connect" | "secureConnect" } =>
    viaTls
      ? {
        socket: tls.connect({
          host: viaHost,
          port: viaPort,
          ...(net.isIP(viaHost) === 0 ? { servername: viaHost } : {}),
          ...(shared.upstreamCa === undefined ? {} : { ca: [...shared.upstreamCa] }),
          ALPNProtocols: ["http/1.1"]
        }),
        ready: "secureConnect"
      }
      : { socket: net.connect({ host: viaHost, port: viaPort }), ready: "connect" }
  const viaAuthorization = via === undefined || via.username === ""
    ? undefined
    : `Basic ${Buffer.from(`${decodeURIComponent(via.username)}:${decodeURIComponent(via.password)}`).toString("base64")}`
  const record = (failure: ProxyFailure) => {
    // A browser retries a request whose reused connection closed: one record per request is enough.
    const last = failures[failures.length - 1]
    if (last?.url !== failure.url || last.reason !== failure.reason) failures.push(failure)
  }

  const onRequest = (req: http.IncomingMessage, res: http.ServerResponse) => {
    if (!authorized(req)) {
      return void res.writeHead(407, { "proxy-authenticate": "Basic realm=\"sift-guard\"", "content-length": "0" }).end()
    }
    let url: URL
    try {
      url = new URL(req.url ?? "")
    } catch {
      return void res.writeHead(400).end()
    }
    if (url.protocol !== "http:") return void res.writeHead(400).end()
    const authority = authorityOf(url)
    const fail = (reason: ProxyFailure["reason"], detail: string) => {
      record({ url: url.href, authority, tunnel: false, reason, detail })
      // No response at all: the browser reports a failed request, never a page the proxy made up.
      req.socket.destroy()
    }
    const decided = via === undefined
      ? decideDirect(shared, url.hostname, Number(authority.slice(authority.lastIndexOf(":") + 1)))
      : checkProxied(shared, url.hostname)
    void decided.then((decision) => {
      if (decision?._tag === "Fail") return fail(decision.reason, decision.detail)
      if (res.destroyed) return
      const headers = forwardable(req.rawHeaders, false)
      if (viaAuthorization !== undefined) headers.push("Proxy-Authorization", viaAuthorization)
      const bodyless = req.headers["content-length"] === undefined && req.headers["transfer-encoding"] === undefined
      const forward = (retry: boolean) => {
        const viaUpstream = decision === undefined
        const options: http.RequestOptions = {
          ...(viaUpstream
            ? { host: viaHost, port: viaPort, path: url.href }
            : { host: decision.ip, port: decision.port, path: url.pathname + url.search }),
          method: req.method,
          headers,
          setHost: false,
          // The retry takes a connection of its own: other kept-alive ones may have gone stale at the same moment.
          agent: retry ? (viaUpstream && viaTls ? shared.tlsAgent : shared.agent) : false
        }
        const tlsOptions: https.RequestOptions = {
          ...(net.isIP(viaHost) === 0 ? { servername: viaHost } : {}),
          ...(shared.upstreamCa === undefined ? {} : { ca: [...shared.upstreamCa] })
        }
        const onAnswer = (answer: http.IncomingMessage) => {
          res.writeHead(answer.statusCode ?? 502, answer.statusMessage, forwardable(answer.rawHeaders, true))
          answer.pipe(res)
          answer.on("error", () => res.destroy())
        }
        const out = viaUpstream && viaTls ? https.request({ ...options, ...tlsOptions }, onAnswer) : http.request(options, onAnswer)
        out.on("error", (error) => {
          if (res.headersSent) return res.destroy()
          // A kept-alive connection the server had just closed: once more on a fresh one, as browsers do.
          if (retry && out.reusedSocket && bodyless && !res.destroyed) return forward(false)
          fail("Unreachable", viaUpstream ? `the proxy failed: ${error.message}` : error.message)
        })
        res.on("close", () => {
          if (!res.writableFinished) out.destroy()
        })
        if (bodyless) out.end()
        else req.pipe(out)
      }
      forward(true)
    }, (error: unknown) => fail("Unreachable", `the address could not be checked: ${String(error)}`))
  }

  const onConnect = (req: http.IncomingMessage, socket: Duplex, head: Buffer) => {
    tunnels.add(socket)
    socket.on("error", () => undefined)
    socket.on("close", () => tunnels.delete(socket))
    if (!authorized(req)) return void socket.end(`${proxyAuthRequired}Connection: close\r\n\r\n`)
    const target = splitAuthority(req.url ?? "")
    if (target === undefined) return void socket.end("HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n")
    const authority = `${bare(target.host)}:${target.port}`
    const fail = (reason: ProxyFailure["reason"], detail: string) => {
      record({ url: `https://${target.host}:${target.port}/`, authority, tunnel: true, reason, detail })
      socket.end("HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
    }
    const splice = (out: net.Socket) => {
      tunnels.add(out)
      out.on("close", () => {
        tunnels.delete(out)
        socket.destroy()
      })
      socket.on("close", () => out.destroy())
      if (head.length > 0) out.write(head)
      out.pipe(socket)
      socket.pipe(out)
    }
    const decided = via === undefined ? decideDirect(shared, target.host, target.port) : checkProxied(shared, target.host)
    void decided.then((decision) => {
      if (decision?._tag === "Fail") return fail(decision.reason, decision.detail)
      if (socket.destroyed) return
      if (decision !== undefined) {
        const out = net.connect({ host: decision.ip, port: decision.port })
        let connected = false
        out.on("error", (error) => {
          if (!connected && !socket.destroyed) fail("Unreachable", error.message)
          else socket.destroy()
        })
        out.once("connect", () => {
          connected = true
          socket.write("HTTP/1.1 200 Connection Established\r\n\r\n")
          splice(out)
        })
        return
      }
      // Chained: our CONNECT to the upstream proxy, then the same tunnel.
      const { socket: out, ready } = connectVia()
      let established = false
      out.on("error", (error) => {
        if (!established && !socket.destroyed) fail("Unreachable", `the proxy failed: ${error.message}`)
        else socket.destroy()
      })
      out.once(ready, () => {
        out.write(`CONNECT ${req.url} HTTP/1.1\r\nHost: ${req.url}\r\n${viaAuthorization === undefined ? "" : `Proxy-Authorization: ${viaAuthorization}\r\n`}\r\n`)
        let answer = Buffer.alloc(0)
        const onData = (chunk: Buffer) => {
          answer = Buffer.concat([answer, chunk])
          const end = answer.indexOf("\r\n\r\n")
          if (end < 0) return
          out.off("data", onData)
          const status = /^HTTP\/1\.[01] (\d{3})/.exec(answer.subarray(0, end).toString("latin1"))?.[1]
          if (status !== "200") {
            out.destroy()
            return fail("Unreachable", `the proxy answered CONNECT with ${status ?? "garbage"}`)
          }
          established = true
          socket.write("HTTP/1.1 200 Connection Established\r\n\r\n")
          const rest = answer.subarray(end + 4)
          if (rest.length > 0) socket.write(rest)
          splice(out)
        }
        out.on("data", onData)
      })
    }, (error: unknown) => fail("Unreachable", `the address could not be checked: ${String(error)}`))
  }

  const server = http.createServer(onRequest)
  server.on("connect", onConnect)
  server.on("clientError", (_error, socket) => socket.destroy())
  return new Promise((resolve, reject) => {
    server.once("error", reject)
    const host = listen.host ?? "127.0.0.1"
    server.listen(0, bare(host), () => {
      const { port } = server.address() as net.AddressInfo
      resolve({
        server: `http://${net.isIPv6(bare(host)) ? `[${bare(host)}]` : host}:${port}`,
        failures,
        close: () => {
          server.close()
          server.closeAllConnections()
          for (const tunnel of tunnels) tunnel.destroy()
          tunnels.clear()
        }
      })
    })
  })
}

/** Whether a recorded failure is the one of a request to `url` (a tunnel stands for every URL of its authority). */
export const failureOf = (failures: ReadonlyArray<ProxyFailure>, url: string): ProxyFailure | undefined => {
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    return undefined
  }
  const authority = authorityOf(parsed)
  for (let i = failures.length - 1; i >= 0; i--) {
    const failure = failures[i]!
    if (failure.tunnel ? failure.authority === authority && parsed.protocol !== "http:" : failure.url === parsed.href) return failure
  }
  return undefined
}
