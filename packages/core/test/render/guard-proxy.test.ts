import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect, Exit } from "effect"
import { chromium } from "playwright-core"
import { execFileSync } from "node:child_process"
import { mkdtempSync, readFileSync } from "node:fs"
import * as http from "node:http"
import * as https from "node:https"
import * as net from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import * as BrowserPool from "../../src/BrowserPool.js"
import * as Cache from "../../src/Cache.js"
import * as HostRules from "../../src/HostRules.js"
import * as GuardProxy from "../../src/internal/render/guardProxy.js"
import * as Pipeline from "../../src/Pipeline.js"
import * as FixtureSite from "../support/FixtureSite.js"
import * as RawProxy from "../support/RawProxy.js"
import * as RenderRuntime from "../support/RenderRuntime.js"

// The fixture site answers on 127.0.0.1 for every name; "blocked.test" (and anything under it) stands for a private
// address: the policy refuses it, whatever it maps to. "gone.test" does not resolve.
const checked: Array<string> = []
const addressPolicy = (ip: string, host: string) => {
  checked.push(`${host}=${ip}`)
  return !host.endsWith("blocked.test")
}
const hostRules = "MAP blocked.test 127.0.0.1, MAP open.test 127.0.0.1, MAP gone.test ~NOTFOUND"

let site: FixtureSite.Site
let runtime: RenderRuntime.RenderRuntime

const scrapeExit = (input: Record<string, unknown>) =>
  runtime.runPromiseExit(Pipeline.scrape({ formats: { markdown: true }, sharedParams: { viewport: { width: 1000 }, waitFor: 0 }, ...input }))
const failure = (exit: Exit.Exit<unknown, unknown>) =>
  Exit.isFailure(exit) && exit.cause._tag === "Fail" ? exit.cause.error as { errorCode: string; reason?: string; detail?: string } : undefined
const blockedHits = () => site.exchanges.filter((e) => String(e.headers.host).startsWith("blocked.test")).length

beforeAll(async () => {
  site = await FixtureSite.start({
    "/hello": FixtureSite.html("<html><body><h1>Hello through the guard</h1><p>Ferry times for the harbour.</p></body></html>"),
    "/secret.png": FixtureSite.html("secret", { contentType: "image/png" }),
    "/secret.js": FixtureSite.html("document.body.append('SECRET SCRIPT RAN')", { contentType: "text/javascript" }),
    "/echo": (req, res) => {
      let body = ""
      req.on("data", (chunk) => body += chunk)
      req.on("end", () => res.writeHead(200, { "content-type": "text/plain", "x-seen-host": String(req.headers.host) }).end(`${req.method} ${body}`))
    }
  })
  const port = site.port
  site.route("/to-blocked", (_req, res) => void res.writeHead(302, { location: `http://blocked.test:${port}/hello` }).end())
  site.route("/to-open", (_req, res) => void res.writeHead(302, { location: `http://open.test:${port}/hello` }).end())
  site.route("/subresources", FixtureSite.html(`<html><head><script src="http://blocked.test:${port}/secret.js"></script></head>
<body><h1>Page with private parts</h1><p>Public text about tides.</p><img src="http://blocked.test:${port}/secret.png">
<iframe src="http://blocked.test:${port}/hello"></iframe><img src="http://open.test:${port}/secret.png"></body></html>`))
  runtime = RenderRuntime.make({ pool: { size: 2, addressPolicy, hostRules }, fetcher: { addressPolicy, hostRules }, cache: Cache.layerNone })
}, 30_000)

afterAll(async () => {
  await runtime?.dispose()
  await site?.close()
})

const raw = RawProxy.exchange

describe("the guard proxy on its own", () => {
  const shared = () => GuardProxy.makeShared(addressPolicy, HostRules.parse(hostRules).pipe((e) => e._tag === "Right" ? e.right : HostRules.empty))

  it("forwards absolute-URI requests to the checked address, with method, body and Host", async () => {
    const proxy = await GuardProxy.start(shared(), undefined)
    try {
      const answer = await raw(proxy.server, `POST http://open.test:${site.port}/echo HTTP/1.1\r\nHost: open.test:${site.port}\r\nProxy-Connection: keep-alive\r\nContent-Length: 5\r\n\r\ntides`, /POST tides/)
      expect(answer).toMatch(/^HTTP\/1\.1 200/)
      expect(answer).toContain(`x-seen-host: open.test:${site.port}`)
      expect(answer).toContain("POST tides")
      expect(proxy.failures).toEqual([])
    } finally {
      proxy.close()
    }
  })

  it("refuses a private target by closing the connection and records why; ~NOTFOUND is NotFound", async () => {
    const proxy = await GuardProxy.start(shared(), undefined)
    try {
      const before = blockedHits()
      expect(await raw(proxy.server, `GET http://blocked.test:${site.port}/hello HTTP/1.1\r\nHost: blocked.test:${site.port}\r\n\r\n`)).toBe("")
      expect(blockedHits()).toBe(before)
      expect(await raw(proxy.server, `GET http://gone.test/x HTTP/1.1\r\nHost: gone.test\r\n\r\n`)).toBe("")
      expect(proxy.failures.map((f) => [f.url, f.reason])).toEqual([
        [`http://blocked.test:${site.port}/hello`, "PrivateAddress"],
        ["http://gone.test/x", "NotFound"]
      ])
      expect(proxy.failures[0]!.detail).toMatch(/blocked\.test/)
      expect(GuardProxy.failureOf(proxy.failures, `http://blocked.test:${site.port}/hello`)?.reason).toBe("PrivateAddress")
      expect(GuardProxy.failureOf(proxy.failures, `http://blocked.test:${site.port}/other`)).toBeUndefined()
    } finally {
      proxy.close()
    }
  })

  it("tunnels CONNECT to an allowed target and refuses one to a private target", async () => {
    const proxy = await GuardProxy.start(shared(), undefined)
    try {
      const tunnelled = await raw(
        proxy.server,
        `CONNECT open.test:${site.port} HTTP/1.1\r\nHost: open.test:${site.port}\r\n\r\nGET /echo HTTP/1.1\r\nHost: open.test\r\nConnection: close\r\n\r\n`,
        /\r\n0\r\n\r\n$/
      )
      expect(tunnelled).toMatch(/^HTTP\/1\.1 200 Connection Established\r\n\r\nHTTP\/1\.1 200 OK/)
      expect(tunnelled).toContain("\r\nGET \r\n")
      const before = blockedHits()
      const refused = await raw(proxy.server, `CONNECT blocked.test:${site.port} HTTP/1.1\r\nHost: blocked.test:${site.port}\r\n\r\n`)
      expect(refused).toMatch(/^HTTP\/1\.1 403/)
      expect(blockedHits()).toBe(before)
      expect(proxy.failures).toMatchObject([{ authority: `blocked.test:${site.port}`, tunnel: true, reason: "PrivateAddress" }])
      // A refused tunnel stands for every https URL of its authority, never for plain http ones.
      expect(GuardProxy.failureOf(proxy.failures, `https://blocked.test:${site.port}/any/path`)?.reason).toBe("PrivateAddress")
      expect(GuardProxy.failureOf(proxy.failures, `http://blocked.test:${site.port}/any/path`)).toBeUndefined()
    } finally {
      proxy.close()
    }
  })

  it("retries once on a fresh connection when a kept-alive one turns out closed", async () => {
    // The origin drops every second request on a connection without answering, as a server does that closes an idle
    // connection just as the proxy reuses it.
    const origin = http.createServer((req, res) => {
      const served = ((req.socket as net.Socket & { served?: number }).served ?? 0) + 1
      ;(req.socket as net.Socket & { served?: number }).served = served
      if (served > 1) return void req.socket.destroy()
      res.writeHead(200, { "content-type": "text/plain", "content-length": "2" }).end("ok")
    })
    await new Promise<void>((resolve) => origin.listen(0, "127.0.0.1", resolve))
    const port = (origin.address() as net.AddressInfo).port
    const proxy = await GuardProxy.start(shared(), undefined)
    try {
      for (const path of ["/a", "/b", "/c"]) {
        const answer = await raw(proxy.server, `GET http://open.test:${port}${path} HTTP/1.1\r\nHost: open.test:${port}\r\n\r\n`, /\r\n\r\nok$/)
        expect(answer).toMatch(/^HTTP\/1\.1 200 OK[\s\S]*\r\n\r\nok$/)
      }
      expect(proxy.failures).toEqual([])
    } finally {
      proxy.close()
      origin.close()
    }
  })

  it("chains to an upstream HTTP proxy after checking, for requests and tunnels", async () => {
    const seen: Array<string> = []
    const upstream = http.createServer((req, res) => {
      seen.push(`${req.method} ${req.url} ${req.headers["proxy-authorization"] ?? ""}`)
      res.writeHead(200, { "content-type": "text/plain" }).end("from upstream")
    })
    upstream.on("connect", (req, socket: net.Socket) => {
      seen.push(`CONNECT ${req.url} ${req.headers["proxy-authorization"] ?? ""}`)
      socket.end("HTTP/1.1 200 Connection Established\r\n\r\nTUNNEL-OK")
    })
    await new Promise<void>((resolve) => upstream.listen(0, "127.0.0.1", resolve))
    const upstreamPort = (upstream.address() as net.AddressInfo).port
    const proxy = await GuardProxy.start(shared(), `http://user:p%40ss@127.0.0.1:${upstreamPort}`)
    try {
      const auth = `Basic ${Buffer.from("user:p@ss").toString("base64")}`
      expect(await raw(proxy.server, `GET http://open.test/x HTTP/1.1\r\nHost: open.test\r\n\r\n`, /from upstream/)).toContain("from upstream")
      expect(await raw(proxy.server, `CONNECT open.test:443 HTTP/1.1\r\nHost: open.test:443\r\n\r\n`, /TUNNEL-OK/)).toContain("TUNNEL-OK")
      // A refused target never reaches the upstream.
      expect(await raw(proxy.server, `GET http://blocked.test/x HTTP/1.1\r\nHost: blocked.test\r\n\r\n`)).toBe("")
      expect(await raw(proxy.server, `CONNECT blocked.test:443 HTTP/1.1\r\nHost: blocked.test:443\r\n\r\n`)).toMatch(/^HTTP\/1\.1 403/)
      expect(seen).toEqual([`GET http://open.test/x ${auth}`, `CONNECT open.test:443 ${auth}`])
      expect(proxy.failures.map((f) => f.reason)).toEqual(["PrivateAddress", "PrivateAddress"])
    } finally {
      proxy.close()
      upstream.close()
    }
  })
})

describe("an https:// upstream proxy", { timeout: 60_000 }, () => {
  // A real TLS forward proxy with a certificate made for this run (for 127.0.0.1), not in any trust store.
  let cert: string
  let upstream: https.Server
  let upstreamUrl: string
  const seen: Array<string> = []
  beforeAll(async () => {
    const dir = mkdtempSync(join(tmpdir(), "sift-tls-proxy-"))
    execFileSync("openssl", ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", join(dir, "key.pem"), "-out", join(dir, "cert.pem"),
      "-days", "1", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"], { stdio: "ignore" })
    cert = readFileSync(join(dir, "cert.pem"), "utf8")
    upstream = https.createServer({ key: readFileSync(join(dir, "key.pem")), cert }, (req, res) => {
      seen.push(`${req.method} ${req.url} ${req.headers["proxy-authorization"] ?? ""}`)
      res.writeHead(200, { "content-type": "text/plain" }).end("from the TLS upstream")
    })
    upstream.on("connect", (req, socket: net.Socket) => {
      seen.push(`CONNECT ${req.url} ${req.headers["proxy-authorization"] ?? ""}`)
      socket.end("HTTP/1.1 200 Connection Established\r\n\r\nTLS-TUNNEL-OK")
    })
    await new Promise<void>((resolve) => upstream.listen(0, "127.0.0.1", resolve))
    upstreamUrl = `https://user:p%40ss@127.0.0.1:${(upstream.address() as net.AddressInfo).port}`
  })
  afterAll(() => {
    upstream?.closeAllConnections()
    upstream?.close()
  })
  const rules = () => HostRules.parse(hostRules).pipe((e) => e._tag === "Right" ? e.right : HostRules.empty)

  it("chains over TLS with the proxy's credentials when its certificate is trusted; refused targets never reach it", async () => {
    seen.length = 0
    const shared = GuardProxy.makeShared(addressPolicy, rules(), { upstreamCa: [cert] })
    const proxy = await GuardProxy.start(shared, upstreamUrl)
    try {
      const auth = `Basic ${Buffer.from("user:p@ss").toString("base64")}`
      for (const path of ["/x", "/y"]) {
        expect(await raw(proxy.server, `GET http://open.test${path} HTTP/1.1\r\nHost: open.test\r\n\r\n`, /from the TLS upstream/)).toMatch(/^HTTP\/1\.1 200[\s\S]*from the TLS upstream/)
      }
      expect(await raw(proxy.server, `CONNECT open.test:443 HTTP/1.1\r\nHost: open.test:443\r\n\r\n`, /TLS-TUNNEL-OK/)).toContain("TLS-TUNNEL-OK")
      expect(await raw(proxy.server, `GET http://blocked.test/x HTTP/1.1\r\nHost: blocked.test\r\n\r\n`)).toBe("")
      expect(await raw(proxy.server, `CONNECT blocked.test:443 HTTP/1.1\r\nHost: blocked.test:443\r\n\r\n`)).toMatch(/^HTTP\/1\.1 403/)
      expect(seen).toEqual([`GET http://open.test/x ${auth}`, `GET http://open.test/y ${auth}`, `CONNECT open.test:443 ${auth}`])
      expect(proxy.failures.map((f) => f.reason)).toEqual(["PrivateAddress", "PrivateAddress"])
    } finally {
      proxy.close()
      shared.agent.destroy()
      shared.tlsAgent.destroy()
    }
  })

  it("an upstream whose certificate cannot be verified gets nothing: the request fails as Unreachable", async () => {
    seen.length = 0
    const shared = GuardProxy.makeShared(addressPolicy, rules())
    const proxy = await GuardProxy.start(shared, upstreamUrl)
    try {
      expect(await raw(proxy.server, `GET http://open.test/x HTTP/1.1\r\nHost: open.test\r\n\r\n`)).toBe("")
      expect(await raw(proxy.server, `CONNECT open.test:443 HTTP/1.1\r\nHost: open.test:443\r\n\r\n`)).toMatch(/^HTTP\/1\.1 403/)
      expect(seen).toEqual([])
      expect(proxy.failures.map((f) => f.reason)).toEqual(["Unreachable", "Unreachable"])
      expect(proxy.failures[0]!.detail).toMatch(/the proxy failed: .*certificate/)
    } finally {
      proxy.close()
      shared.agent.destroy()
      shared.tlsAgent.destroy()
    }
  })

  it("a browser context with an https:// upstream uses the guard proxy (no route interception)", async () => {
    seen.length = 0
    const pooled = RenderRuntime.make({ pool: { addressPolicy, hostRules, proxyUrl: upstreamUrl } })
    try {
      const outcome = await pooled.runPromise(Effect.scoped(Effect.gen(function*() {
        const pool = yield* BrowserPool.BrowserPool
        const lease = yield* pool.context({ viewport: { width: 800, height: 600 } })
        const open = (yield* pool.stats).openGuardProxies
        const page = yield* Effect.promise(() => lease.context.newPage())
        const error = yield* Effect.promise(() => page.goto(`http://open.test:${site.port}/hello`).then(() => undefined, (e: Error) => e.message))
        return { open, error, failure: lease.failureOf(`http://open.test:${site.port}/hello`) }
      })))
      // The upstream's certificate is not trusted by this process: the guard refuses to talk to it, so nothing is sent.
      expect(outcome.open).toBe(1)
      expect(outcome.error).toBeDefined()
      expect(outcome.failure?.reason).toBe("Unreachable")
      expect(outcome.failure?.detail).toMatch(/certificate/)
      expect(seen).toEqual([])
    } finally {
      await pooled.dispose()
    }
  })
})

describe("what the guard connects to is what it checked", { timeout: 60_000 }, () => {
  it("a literal IP the host rules map elsewhere goes to the mapped address and port, for requests and tunnels", async () => {
    // No DNS answer is involved: a connection made by name lookup alone would go to 127.0.0.9:1 and fail.
    const rules = HostRules.parse(`MAP 127.0.0.9 127.0.0.1:${site.port}`).pipe((e) => e._tag === "Right" ? e.right : HostRules.empty)
    const proxy = await GuardProxy.start(GuardProxy.makeShared(addressPolicy, rules), undefined)
    try {
      checked.length = 0
      const answer = await raw(proxy.server, `GET http://127.0.0.9:1/echo HTTP/1.1\r\nHost: 127.0.0.9:1\r\n\r\n`, /\r\n0\r\n\r\n$/)
      expect(answer).toMatch(/^HTTP\/1\.1 200[\s\S]*x-seen-host: 127\.0\.0\.9:1[\s\S]*\r\nGET \r\n/)
      const tunnelled = await raw(proxy.server, `CONNECT 127.0.0.9:1 HTTP/1.1\r\nHost: 127.0.0.9:1\r\n\r\nGET /echo HTTP/1.1\r\nHost: inside\r\nConnection: close\r\n\r\n`, /\r\n0\r\n\r\n$/)
      expect(tunnelled).toMatch(/^HTTP\/1\.1 200 Connection Established\r\n\r\nHTTP\/1\.1 200 OK[\s\S]*x-seen-host: inside/)
      expect(checked).toEqual(["127.0.0.9=127.0.0.1", "127.0.0.9=127.0.0.1"])
      expect(proxy.failures).toEqual([])
    } finally {
      proxy.close()
    }
  })

  it("a CONNECT target that parsers read differently goes upstream as it was checked, or not at all", async () => {
    const seen: Array<string> = []
    const upstream = http.createServer((_req, res) => res.writeHead(500).end())
    upstream.on("connect", (req, socket: net.Socket) => {
      seen.push(String(req.url))
      socket.end("HTTP/1.1 200 Connection Established\r\n\r\n")
    })
    await new Promise<void>((resolve) => upstream.listen(0, "127.0.0.1", resolve))
    const rules = HostRules.parse(hostRules).pipe((e) => e._tag === "Right" ? e.right : HostRules.empty)
    const proxy = await GuardProxy.start(GuardProxy.makeShared(addressPolicy, rules), `http://127.0.0.1:${(upstream.address() as net.AddressInfo).port}`)
    try {
      // The URL parser reads open.test here; an upstream splitting at the first colon would read blocked.test.
      for (const target of ["blocked.test:443@open.test:443", "open.test:443@blocked.test:443", "blocked.test:443/@open.test:443"]) {
        await raw(proxy.server, `CONNECT ${target} HTTP/1.1\r\nHost: ${target}\r\n\r\n`, /\r\n\r\n/)
      }
      expect(seen.filter((target) => target.includes("blocked.test"))).toEqual([])
    } finally {
      proxy.close()
      upstream.close()
    }
  })

  it("an https:// upstream is verified by its own name, never by the target's", async () => {
    // An impostor in the upstream's place whose (trusted) certificate names a site a page can ask for: verified
    // against that site's name instead of the proxy's, it would get the proxy credentials and the traffic.
    const dir = mkdtempSync(join(tmpdir(), "sift-tls-impostor-"))
    execFileSync("openssl", ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", join(dir, "key.pem"), "-out", join(dir, "cert.pem"),
      "-days", "1", "-subj", "/CN=impostor.test", "-addext", "subjectAltName=DNS:impostor.test"], { stdio: "ignore" })
    const cert = readFileSync(join(dir, "cert.pem"), "utf8")
    const seen: Array<string> = []
    const impostor = https.createServer({ key: readFileSync(join(dir, "key.pem")), cert }, (req, res) => {
      seen.push(`${req.method} ${req.url} ${req.headers["proxy-authorization"] ?? ""}`)
      res.writeHead(200).end("impostor")
    })
    impostor.on("connect", (req, socket: net.Socket) => {
      seen.push(`CONNECT ${req.url} ${req.headers["proxy-authorization"] ?? ""}`)
      socket.end("HTTP/1.1 200 Connection Established\r\n\r\nIMPOSTOR")
    })
    await new Promise<void>((resolve) => impostor.listen(0, "127.0.0.1", resolve))
    const shared = GuardProxy.makeShared(addressPolicy, HostRules.empty, { upstreamCa: [cert] })
    const proxy = await GuardProxy.start(shared, `https://user:secret@127.0.0.1:${(impostor.address() as net.AddressInfo).port}`)
    try {
      expect(await raw(proxy.server, `GET http://impostor.test/x HTTP/1.1\r\nHost: impostor.test\r\n\r\n`)).toBe("")
      expect(await raw(proxy.server, `CONNECT impostor.test:443 HTTP/1.1\r\nHost: impostor.test:443\r\n\r\n`)).toMatch(/^HTTP\/1\.1 403/)
      expect(seen).toEqual([])
      expect(proxy.failures.map((f) => [f.reason, f.detail])).toEqual([
        ["Unreachable", expect.stringMatching(/the proxy failed: .*127\.0\.0\.1/)],
        ["Unreachable", expect.stringMatching(/the proxy failed: .*127\.0\.0\.1/)]
      ])
    } finally {
      proxy.close()
      shared.agent.destroy()
      shared.tlsAgent.destroy()
      impostor.closeAllConnections()
      impostor.close()
    }
  })
})

describe("the guard proxy in Chromium", { timeout: 60_000 }, () => {
  it("every request of a page (loopback included) goes through the guard", async () => {
    checked.length = 0
    const result = await runtime.runPromise(Pipeline.scrape({
      url: `${site.url}/hello`,
      formats: { markdown: true },
      sharedParams: { viewport: { width: 1000 }, waitFor: 0 }
    }))
    expect(result.markdown.data).toContain("Hello through the guard")
    expect(checked).toContain("127.0.0.1=127.0.0.1")
  })

  it("a redirect to a private target fails as PrivateAddress and never reaches it", async () => {
    const before = blockedHits()
    const refused = failure(await scrapeExit({ url: `${site.url}/to-blocked` }))
    expect(refused?.errorCode).toBe("WEBSITE_ACCESS_ERROR")
    expect(refused?.reason).toBe("PrivateAddress")
    expect(blockedHits()).toBe(before)
    // An allowed redirect hop is followed.
    const followed = await runtime.runPromise(Pipeline.scrape({
      url: `${site.url}/to-open`,
      formats: { markdown: true },
      sharedParams: { viewport: { width: 1000 }, waitFor: 0 }
    }))
    expect(followed.markdown.data).toContain("Hello through the guard")
  })

  it("private subresources, scripts and frames are refused while the page renders; allowed ones load", async () => {
    const before = blockedHits()
    const openBefore = site.exchanges.filter((e) => String(e.headers.host).startsWith("open.test")).length
    const result = await runtime.runPromise(Pipeline.scrape({
      url: `${site.url}/subresources`,
      formats: { markdown: true },
      sharedParams: { viewport: { width: 1000 }, waitFor: 0 }
    }))
    expect(result.markdown.data).toContain("Public text about tides")
    expect(result.markdown.data).not.toContain("SECRET SCRIPT RAN")
    expect(result.markdown.data).not.toContain("Hello through the guard")
    expect(blockedHits()).toBe(before)
    expect(site.exchanges.filter((e) => String(e.headers.host).startsWith("open.test")).length).toBe(openBefore + 1)
  })

  it("the lease records what its guard refused", async () => {
    const refused = await runtime.runPromise(Effect.scoped(Effect.gen(function*() {
      const lease = yield* (yield* BrowserPool.BrowserPool).context({ viewport: { width: 800, height: 600 } })
      const page = yield* Effect.promise(() => lease.context.newPage())
      yield* Effect.promise(() => page.goto(`${site.url}/subresources`, { waitUntil: "load" }))
      return lease.refused.map((r) => r.url).sort()
    })))
    expect(refused).toEqual([`http://blocked.test:${site.port}/hello`, `http://blocked.test:${site.port}/secret.js`, `http://blocked.test:${site.port}/secret.png`])
  })

  it("a host mapped to ~NOTFOUND fails as NotFound", async () => {
    const missing = failure(await scrapeExit({ url: "http://gone.test/page" }))
    expect(missing?.errorCode).toBe("WEBSITE_NOT_FOUND")
  })
})

describe("route interception where the browser cannot reach the guard proxy", { timeout: 60_000 }, () => {
  it("a remote browser (SIFT_BROWSER_WS_ENDPOINT) still refuses private pages and subresources", async () => {
    const server = await chromium.launchServer({ executablePath: "/usr/lib/chromium/chromium", args: ["--disable-dev-shm-usage", "--no-sandbox"] })
    const remote = RenderRuntime.make({
      pool: { addressPolicy, hostRules, wsEndpoint: server.wsEndpoint() },
      fetcher: { addressPolicy, hostRules },
      cache: Cache.layerNone
    })
    try {
      const before = blockedHits()
      // Redirect hops are not handed to route handlers by Playwright: remote-browser.test.ts covers how those are checked.
      const exit = await remote.runPromiseExit(Pipeline.scrape({
        url: `http://blocked.test:${site.port}/hello`,
        formats: { markdown: true },
        sharedParams: { viewport: { width: 1000 }, waitFor: 0 }
      }))
      expect(failure(exit)?.reason).toBe("PrivateAddress")
      const page = await remote.runPromise(Pipeline.scrape({
        url: `${site.url}/subresources`,
        formats: { markdown: true },
        sharedParams: { viewport: { width: 1000 }, waitFor: 0 }
      }))
      expect(page.markdown.data).toContain("Public text about tides")
      expect(page.markdown.data).not.toContain("SECRET SCRIPT RAN")
      expect(blockedHits()).toBe(before)
      expect((await remote.runPromise(Effect.flatMap(BrowserPool.BrowserPool, (pool) => pool.stats))).openGuardProxies).toBe(0)
    } finally {
      await remote.dispose()
      await server.close()
    }
  })
})
