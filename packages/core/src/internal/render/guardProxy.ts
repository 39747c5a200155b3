/**
 * The browser's address guard as a forward proxy: each browser context gets its own listener on loopback and sends
 * every request through it (plain HTTP as absolute-URI requests, HTTPS and WebSockets as CONNECT tunnels, loopback
 * included). The proxy maps the host by the host rules, resolves it, checks the IP with the address policy and connects
 * to exactly that IP, so no second DNS answer can slip in (as the Fetcher's connector does). With an upstream proxy
 * (`http://`, or `https://`: TLS to the proxy, its certificate verified as the Fetcher verifies it) it checks what our
 * resolver says (as the Fetcher does through a proxy) and chains to it. The proxy itself is proxy-chain's `Server`;
 * what stays here, and why, is said at `start`.
 *
 * Why a proxy: route interception costs a round trip through the DevTools protocol for every request a page makes;
 * the proxy costs none. A refused or failed request is recorded (per context) and the browser sees a closed
 * connection or a failed tunnel, so the render reports the recorded reason.
 */
import { randomBytes, timingSafeEqual } from "node:crypto"
import { lookup as dnsLookup, type LookupAddress } from "node:dns"
import { EventEmitter } from "node:events"
import * as http from "node:http"
import * as https from "node:https"
import * as net from "node:net"
import * as tls from "node:tls"
import { type PrepareRequestFunctionOpts, type PrepareRequestFunctionResult, RequestError, Server } from "proxy-chain"
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

const authorityOf = (url: URL) =>
  `${bare(url.hostname)}:${url.port === "" ? (url.protocol === "https:" || url.protocol === "wss:" ? 443 : 80) : url.port}`

const basic = (username: string, password: string) => `Basic ${Buffer.from(`${username}:${password}`).toString("base64")}`

/** How a request that passed the guard goes on: to the checked address, or through the upstream proxy. */
type Route = { readonly _tag: "Direct"; readonly ip: string; readonly port: number } | { readonly _tag: "Upstream" }

/** Thrown by the guard for a refused or failed request: recorded already; CONNECT gets a 403, a request a closed connection. */
class Refused extends RequestError {
  constructor() {
    super("", 403)
  }
}

/**
 * Starts a context's proxy on a free port of `listen.host` (default loopback); `upstream` is an `http://` or
 * `https://` proxy URL to chain to. With `listen.credentials`, a request or tunnel without them gets a 407 and goes nowhere.
 *
 * proxy-chain runs the proxy (listening, request targets, `Proxy-Authorization`, the 407/403/200 answers, every
 * connection cut on close); its `prepareRequestFunction` is where the guard decides. Two parts stay ours because
 * proxy-chain's own would answer a failure with a made-up 5xx page and no reason: plain HTTP forwarding (with its
 * retry on a kept-alive connection found closed) and the outbound side of a tunnel, opened before the browser is told
 * the tunnel stands, so a target that cannot be reached is a 403 with a recorded reason.
 */
export const start = async (shared: GuardShared, upstream: string | undefined, listen: ListenOptions = {}): Promise<GuardProxy> => {
  const failures: Array<ProxyFailure> = []
  const expected = listen.credentials === undefined ? undefined : Buffer.from(basic(listen.credentials.username, listen.credentials.password))
  const authorized = (username: string, password: string) => {
    if (expected === undefined) return true
    const given = Buffer.from(basic(username, password))
    return given.length === expected.length && timingSafeEqual(given, expected)
  }
  const via = upstream === undefined ? undefined : new URL(upstream)
  const viaTls = via?.protocol === "https:"
  const viaPort = via === undefined ? 0 : Number(via.port || (viaTls ? 443 : 80))
  const viaHost = via === undefined ? "" : bare(via.hostname)
  const viaTlsOptions: https.RequestOptions = {
    // Always set: Node otherwise takes the name from a `Host` header, i.e. would verify the proxy as the target.
    servername: net.isIP(viaHost) === 0 ? viaHost : "",
    ...(shared.upstreamCa === undefined ? {} : { ca: [...shared.upstreamCa] })
  }
  const viaAuthorization = via === undefined || via.username === ""
    ? undefined
    : basic(decodeURIComponent(via.username), decodeURIComponent(via.password))
  const outbound = new Set<net.Socket>()
  const record = (failure: ProxyFailure) => {
    // A browser retries a request whose reused connection closed: one record per request is enough.
    const last = failures[failures.length - 1]
    if (last?.url !== failure.url || last.reason !== failure.reason) failures.push(failure)
  }

  /** The outbound side of a tunnel: a connection to the checked address, or a CONNECT through the upstream proxy. */
  const openTunnel = (target: string, route: Route): Promise<net.Socket> =>
    new Promise((resolve, reject) => {
      if (route._tag === "Direct") {
        const out = net.connect({ host: route.ip, port: route.port })
        out.once("error", reject)
        return void out.once("connect", () => {
          out.off("error", reject)
          resolve(out)
        })
      }
      const options: http.RequestOptions = {
        host: viaHost,
        port: viaPort,
        method: "CONNECT",
        path: target,
        headers: { host: target, ...(viaAuthorization === undefined ? {} : { "proxy-authorization": viaAuthorization }) },
        agent: false
      }
      const request = viaTls ? https.request({ ...options, ...viaTlsOptions }) : http.request(options)
      request.once("error", (error) => reject(new Error(`the proxy failed: ${error.message}`)))
      request.once("connect", (answer, out, head) => {
        if (answer.statusCode !== 200) {
          out.destroy()
          return reject(new Error(`the proxy answered CONNECT with ${answer.statusCode}`))
        }
        if (head.length > 0) out.unshift(head)
        resolve(out)
      })
      request.end()
    })

  /** proxy-chain hands a tunnel's browser side, told "200 Connection Established", to this stand-in server. */
  const splicing = (out: net.Socket) =>
    new EventEmitter().once("connection", (socket: net.Socket) => {
      out.on("close", () => socket.destroy())
      socket.on("close", () => out.destroy())
      if (out.destroyed) return void socket.destroy()
      out.pipe(socket)
      socket.pipe(out)
    }) as unknown as http.Server

  const prepareRequestFunction = async (
    { hostname, isHttp, password, port, request, username }: PrepareRequestFunctionOpts
  ): Promise<PrepareRequestFunctionResult> => {
    if (!authorized(username, password)) return { requestAuthentication: true }
    const url = isHttp ? request.url! : `https://${hostname}:${port}/`
    const failure = (reason: ProxyFailure["reason"], detail: string) => {
      record({ url: isHttp ? new URL(url).href : url, authority: `${bare(hostname)}:${port}`, tunnel: !isHttp, reason, detail })
      return new Refused()
    }
    const decision = await (via === undefined ? decideDirect(shared, hostname, port) : checkProxied(shared, hostname))
      .catch((error: unknown): Decision => ({ _tag: "Fail", reason: "Unreachable", detail: `the address could not be checked: ${String(error)}` }))
    if (decision?._tag === "Fail") throw failure(decision.reason, decision.detail)
    const route: Route = decision === undefined ? { _tag: "Upstream" } : { _tag: "Direct", ip: decision.ip, port: decision.port }
    if (isHttp) return { customTag: route }
    // The target as checked, never the raw one: `CONNECT a:443@b:443` is b for the URL parser, maybe a for the upstream.
    const out = await openTunnel(`${hostname}:${port}`, route).catch((error: Error) => {
      throw failure("Unreachable", error.message)
    })
    outbound.add(out)
    out.on("error", () => undefined)
    out.on("close", () => outbound.delete(out))
    // The browser may have gone while the tunnel was opened; then nothing will be spliced to it.
    request.socket.once("close", () => out.destroy())
    if (request.socket.destroyed) out.destroy()
    return { customConnectServer: splicing(out) }
  }

  /** Plain HTTP: the guard has decided (proxy-chain's `prepareRequestHandling`), then our forwarding. */
  const forward = (req: http.IncomingMessage, res: http.ServerResponse, route: Route) => {
    const url = new URL(req.url!)
    const fail = (detail: string) => {
      record({ url: url.href, authority: authorityOf(url), tunnel: false, reason: "Unreachable", detail })
      // No response at all: the browser reports a failed request, never a page the proxy made up.
      req.socket.destroy()
    }
    const headers = forwardable(req.rawHeaders, false)
    if (viaAuthorization !== undefined) headers.push("Proxy-Authorization", viaAuthorization)
    const bodyless = req.headers["content-length"] === undefined && req.headers["transfer-encoding"] === undefined
    const send = (retry: boolean) => {
      const options: http.RequestOptions = {
        ...(route._tag === "Upstream"
          ? { host: viaHost, port: viaPort, path: url.href }
          : { host: route.ip, port: route.port, path: url.pathname + url.search }),
        method: req.method,
        headers,
        setHost: false,
        // The retry takes a connection of its own: other kept-alive ones may have gone stale at the same moment.
        agent: retry ? (route._tag === "Upstream" && viaTls ? shared.tlsAgent : shared.agent) : false
      }
      const onAnswer = (answer: http.IncomingMessage) => {
        res.writeHead(answer.statusCode ?? 502, answer.statusMessage, forwardable(answer.rawHeaders, true))
        answer.pipe(res)
        answer.on("error", () => res.destroy())
      }
      const out = route._tag === "Upstream" && viaTls ? https.request({ ...options, ...viaTlsOptions }, onAnswer) : http.request(options, onAnswer)
      out.on("error", (error) => {
        if (res.headersSent) return res.destroy()
        // A kept-alive connection the server had just closed: once more on a fresh one, as browsers do.
        if (retry && out.reusedSocket && bodyless && !res.destroyed) return send(false)
        fail(route._tag === "Upstream" ? `the proxy failed: ${error.message}` : error.message)
      })
      res.on("close", () => {
        if (!res.writableFinished) out.destroy()
      })
      if (bodyless) out.end()
      else req.pipe(out)
    }
    send(true)
  }

  const server = new (class extends Server {
    override async onRequest(req: http.IncomingMessage, res: http.ServerResponse) {
      const prepared = await this.prepareRequestHandling(req).catch((error: Error) => {
        // A refused request gets no answer at all, like a failed one (see `forward`).
        if (error instanceof Refused) req.socket.destroy()
        else this.failRequest(req, error)
      })
      if (prepared !== undefined && !res.destroyed) forward(req, res, prepared.customTag as Route)
    }
  })({ port: 0, host: bare(listen.host ?? "127.0.0.1"), authRealm: "sift-guard", prepareRequestFunction })
  await server.listen()
  const host = listen.host ?? "127.0.0.1"
  return {
    server: `http://${net.isIPv6(bare(host)) ? `[${bare(host)}]` : host}:${server.port}`,
    failures,
    close: () => {
      server.close(true).catch(() => undefined)
      for (const out of outbound) out.destroy()
      outbound.clear()
    }
  }
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
