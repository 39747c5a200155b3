import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect, Exit } from "effect"
import { chromium, type BrowserServer } from "playwright-core"
import * as http from "node:http"
import * as net from "node:net"
import * as os from "node:os"
import * as BrowserPool from "../../src/BrowserPool.js"
import * as HostRules from "../../src/HostRules.js"
import * as GuardProxy from "../../src/internal/render/guardProxy.js"
import * as Pipeline from "../../src/Pipeline.js"
import * as FixtureSite from "../support/FixtureSite.js"
import * as RawProxy from "../support/RawProxy.js"
import * as RenderRuntime from "../support/RenderRuntime.js"

// A remote browser (a real Playwright browser server) renders pages of a site on 127.0.0.1. The "private" network is
// 127.0.0.2: a second server there holds a secret, and the address policy refuses that IP (as it refuses 10/8 or
// 169.254.169.254 in production) while allowing the site. "/go" redirects into it: Playwright never shows that hop
// to route handlers, so only the guard proxy (SIFT_BROWSER_GUARD_HOST) or the hop check can stop it.
const SECRET = "TOP SECRET METADATA TOKEN"
const addressPolicy = (ip: string) => ip !== "127.0.0.2"

let site: FixtureSite.Site
let secret: http.Server
let secretUrl: string
let secretHits = 0
let server: BrowserServer

/** A non-loopback IPv4 address of this machine (the guard proxy then requires credentials), if there is one. */
const outwardAddress = Object.values(os.networkInterfaces()).flat().find((a) => a?.family === "IPv4" && !a.internal)?.address

const scrapeExit = (runtime: RenderRuntime.RenderRuntime, path: string, formats: Record<string, unknown> = { markdown: true }) =>
  runtime.runPromiseExit(Pipeline.scrape({ url: `${site.url}${path}`, formats, sharedParams: { viewport: { width: 1000 }, waitFor: 0 } }))
const failure = (exit: Exit.Exit<unknown, unknown>) =>
  Exit.isFailure(exit) && exit.cause._tag === "Fail" ? exit.cause.error as { errorCode: string; reason?: string; detail?: string } : undefined
const remote = (pool: Partial<BrowserPool.BrowserPoolOptions>) =>
  RenderRuntime.make({ pool: { addressPolicy, wsEndpoint: server.wsEndpoint(), ...pool }, fetcher: { addressPolicy } })
const stats = (runtime: RenderRuntime.RenderRuntime) => runtime.runPromise(Effect.flatMap(BrowserPool.BrowserPool, (pool) => pool.stats))

beforeAll(async () => {
  secret = http.createServer((_req, res) => {
    secretHits++
    res.writeHead(200, { "content-type": "text/html" }).end(`<html><body><h1>${SECRET}</h1></body></html>`)
  })
  await new Promise<void>((resolve) => secret.listen(0, "127.0.0.2", resolve))
  secretUrl = `http://127.0.0.2:${(secret.address() as net.AddressInfo).port}`
  site = await FixtureSite.start({
    "/hello": FixtureSite.html("<html><body><h1>Harbour timetable</h1><p>Ferries leave hourly.</p></body></html>"),
    "/go": FixtureSite.redirect(`${secretUrl}/latest/meta-data`),
    "/go-twice": FixtureSite.redirect("/go"),
    "/img-go": FixtureSite.redirect(`${secretUrl}/pixel.png`),
    "/with-image": FixtureSite.html(`<html><body><h1>Public page</h1><p>Tide tables.</p><img src="/img-go"></body></html>`)
  })
  server = await chromium.launchServer({ executablePath: "/usr/lib/chromium/chromium", args: ["--disable-dev-shm-usage", "--no-sandbox"] })
}, 30_000)

afterAll(async () => {
  await server?.close()
  await site?.close()
  secret?.close()
})

describe("remote browser without SIFT_BROWSER_GUARD_HOST (route interception and hop checks)", { timeout: 60_000 }, () => {
  let runtime: RenderRuntime.RenderRuntime
  beforeAll(() => {
    runtime = remote({})
  })
  afterAll(() => runtime?.dispose())

  it("a page redirecting into the private network fails with the guard's error; the secret never comes back", async () => {
    for (const path of ["/go", "/go-twice"]) {
      const exit = await scrapeExit(runtime, path, { markdown: true, html: true, screenshot: true })
      const refused = failure(exit)
      expect(refused?.errorCode).toBe("WEBSITE_ACCESS_ERROR")
      expect(refused?.reason).toBe("PrivateAddress")
      expect(refused?.detail).toContain("127.0.0.2")
      expect(JSON.stringify(exit)).not.toContain(SECRET)
    }
    expect((await stats(runtime)).openGuardProxies).toBe(0)
  })

  it("a subresource redirected into the private network fails the render too", async () => {
    const exit = await scrapeExit(runtime, "/with-image")
    expect(failure(exit)?.reason).toBe("PrivateAddress")
  })

  it("pages without refused hops still render", async () => {
    const exit = await scrapeExit(runtime, "/hello")
    expect(Exit.isSuccess(exit) && JSON.stringify(exit.value)).toContain("Ferries leave hourly")
  })
})

describe("remote browser with SIFT_BROWSER_GUARD_HOST (the guard proxy)", { timeout: 60_000 }, () => {
  const hosts = ["127.0.0.1", ...(outwardAddress === undefined ? [] : [outwardAddress])]
  for (const guardHost of hosts) {
    describe(`listening on ${guardHost}${GuardProxy.isLoopback(guardHost) ? "" : " (credentials required)"}`, () => {
      let runtime: RenderRuntime.RenderRuntime
      beforeAll(() => {
        runtime = remote({ guardHost })
      })
      afterAll(() => runtime?.dispose())

      it("every context gets a guard proxy, which renders allowed pages", async () => {
        const seen = await runtime.runPromise(Effect.scoped(Effect.gen(function*() {
          const lease = yield* (yield* BrowserPool.BrowserPool).context({ viewport: { width: 800, height: 600 } })
          const open = (yield* Effect.flatMap(BrowserPool.BrowserPool, (pool) => pool.stats)).openGuardProxies
          const page = yield* Effect.promise(() => lease.context.newPage())
          yield* Effect.promise(() => page.goto(`${site.url}/hello`, { waitUntil: "load" }))
          return { open, text: yield* Effect.promise(() => page.textContent("body")) }
        })))
        expect(seen.open).toBe(1)
        expect(seen.text).toContain("Ferries leave hourly")
        expect((await stats(runtime)).openGuardProxies).toBe(0)
      })

      it("a redirect into the private network is refused before it is sent", async () => {
        const before = secretHits
        for (const path of ["/go", "/go-twice"]) {
          const exit = await scrapeExit(runtime, path, { markdown: true, screenshot: true })
          expect(failure(exit)).toMatchObject({ errorCode: "WEBSITE_ACCESS_ERROR", reason: "PrivateAddress" })
          expect(JSON.stringify(exit)).not.toContain(SECRET)
        }
        expect(secretHits).toBe(before)
      })
    })
  }
})

const raw = RawProxy.exchange

describe("a guard proxy that requires credentials", () => {
  it("answers 407 to requests and tunnels without them (or with wrong ones) and passes nothing on", async () => {
    const shared = GuardProxy.makeShared(addressPolicy, HostRules.empty)
    const credentials = GuardProxy.randomCredentials()
    const proxy = await GuardProxy.start(shared, undefined, { host: outwardAddress ?? "127.0.0.1", credentials })
    const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString("base64")}`
    const target = `127.0.0.1:${site.port}`
    try {
      const before = site.exchanges.length
      const plain = `GET http://${target}/hello HTTP/1.1\r\nHost: ${target}\r\nConnection: close\r\n`
      const tunnel = `CONNECT ${target} HTTP/1.1\r\nHost: ${target}\r\n`
      for (const auth of ["", `Proxy-Authorization: ${basic(credentials.username, "guess")}\r\n`]) {
        const answer = await raw(proxy.server, `${plain}${auth}\r\n`)
        expect(answer).toMatch(/^HTTP\/1\.1 407/)
        expect(answer.toLowerCase()).toContain("proxy-authenticate: basic")
        expect(await raw(proxy.server, `${tunnel}${auth}\r\n`)).toMatch(/^HTTP\/1\.1 407/)
      }
      expect(site.exchanges.length).toBe(before)
      const auth = `Proxy-Authorization: ${basic(credentials.username, credentials.password)}\r\n`
      expect(await raw(proxy.server, `${plain}${auth}\r\n`, /Ferries leave hourly/)).toMatch(/^HTTP\/1\.1 200[\s\S]*Ferries leave hourly/)
      expect(await raw(proxy.server, `${tunnel}${auth}\r\n`, /\r\n\r\n/)).toMatch(/^HTTP\/1\.1 200 Connection Established/)
      expect(site.exchanges.length).toBe(before + 1)
      expect(proxy.failures).toEqual([])
    } finally {
      proxy.close()
    }
  })

  it("a malformed Proxy-Authorization is refused too, and nothing is passed on", async () => {
    const shared = GuardProxy.makeShared(addressPolicy, HostRules.empty)
    const credentials = GuardProxy.randomCredentials()
    const proxy = await GuardProxy.start(shared, undefined, { host: outwardAddress ?? "127.0.0.1", credentials })
    const target = `127.0.0.1:${site.port}`
    try {
      const before = site.exchanges.length
      const userOnly = Buffer.from(`${credentials.username}${credentials.password}`).toString("base64")
      for (const header of [`Bearer ${credentials.password}`, "Basic", "Basic !!!", `Basic ${userOnly}`, `basic ${userOnly}:`]) {
        const auth = `Proxy-Authorization: ${header}\r\n`
        expect(await raw(proxy.server, `GET http://${target}/hello HTTP/1.1\r\nHost: ${target}\r\nConnection: close\r\n${auth}\r\n`)).toMatch(/^HTTP\/1\.1 40[07]/)
        expect(await raw(proxy.server, `CONNECT ${target} HTTP/1.1\r\nHost: ${target}\r\n${auth}\r\n`)).toMatch(/^HTTP\/1\.1 40[07]/)
      }
      expect(site.exchanges.length).toBe(before)
      expect(proxy.failures).toEqual([])
    } finally {
      proxy.close()
    }
  })

  it("makes fresh credentials each time and tells loopback from outward addresses", () => {
    const a = GuardProxy.randomCredentials()
    const b = GuardProxy.randomCredentials()
    expect(a.password).not.toBe(b.password)
    expect(a.password.length).toBeGreaterThanOrEqual(32)
    expect(["127.0.0.1", "127.8.0.1", "localhost", "::1", "[::1]"].map(GuardProxy.isLoopback)).toEqual([true, true, true, true, true])
    expect(["192.0.2.2", "10.0.0.5", "0.0.0.0", "::", "fd00::2", "pod.internal"].map(GuardProxy.isLoopback)).toEqual([false, false, false, false, false, false])
  })
})
