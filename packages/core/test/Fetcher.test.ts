import { describe, expect, it, layer } from "@effect/vitest"
import { ConfigProvider, Effect, Either, Exit, Layer } from "effect"
import { createServer, request as httpRequest, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { gzipSync } from "node:zlib"
import * as Charset from "../src/Charset.js"
import type { InvalidRequest, WebsiteError } from "../src/Errors.js"
import * as Fetcher from "../src/Fetcher.js"
import * as FixtureSite from "./support/FixtureSite.js"

const page = (title: string) => `<!doctype html><html><head><title>${title}</title></head><body><p>${title}</p></body></html>`
const bytes = (...parts: ReadonlyArray<string | ReadonlyArray<number>>) =>
  Buffer.concat(parts.map((p) => (typeof p === "string" ? Buffer.from(p, "latin1") : Buffer.from(p))))
const shiftJis = [0x93, 0xfa, 0x96, 0x7b, 0x8c, 0xea] // 日本語
const gbk = [0xd6, 0xd0, 0xce, 0xc4] // 中文

const routes: FixtureSite.Routes = {
  "/": FixtureSite.html(page("home")),
  "/echo": FixtureSite.echo,
  "/hop1": FixtureSite.redirect("hop2?x=1"),
  "/hop2": FixtureSite.redirect("/see-other", 301),
  "/see-other": FixtureSite.redirect("/final", 303),
  "/final": FixtureSite.html(page("final")),
  "/loop": FixtureSite.redirect("/loop", 307),
  "/gzip": FixtureSite.compressed(page("gzipped"), "gzip"),
  "/br": FixtureSite.compressed(page("brotli"), "br"),
  "/deflate": FixtureSite.compressed(page("zlib deflate"), "deflate"),
  "/deflate-raw": FixtureSite.compressed(page("raw deflate"), "deflate-raw"),
  "/sjis": FixtureSite.html(bytes("<p>", shiftJis, "</p>"), { contentType: "text/html; charset=Shift_JIS" }),
  "/cp1252": FixtureSite.html(bytes("<meta charset=iso-8859-1><p>caf", [0xe9, 0x20, 0x80, 0x93, 0x94], "</p>"), {
    contentType: "text/html"
  }),
  "/gbk": FixtureSite.html(
    bytes(`<meta http-equiv="content-type" content="text/html; charset=gb2312"><p>`, gbk, "</p>"),
    { contentType: "text/html" }
  ),
  "/large": FixtureSite.large(25 * 1024 * 1024),
  "/endless": FixtureSite.large(256 * 1024 * 1024),
  "/bomb": FixtureSite.html(gzipSync(Buffer.alloc(64 * 1024 * 1024)), { headers: { "content-encoding": "gzip" } }),
  "/slow-headers": FixtureSite.slow({ headersAfterMs: 10_000 }),
  "/slow-body": FixtureSite.slow({ chunks: ["<p>one</p>", "<p>two</p>", "<p>three</p>"], intervalMs: 5_000 }),
  "/404": FixtureSite.status(404),
  "/503": FixtureSite.status(503)
}

const fetchWith = (options: Partial<Fetcher.FetcherOptions>, request: Fetcher.FetchRequest) =>
  Effect.flatMap(Fetcher.Fetcher, (f) => f.fetch(request)).pipe(Effect.provide(Fetcher.layer(options)))

const local = { allowPrivateTargets: true }
const text = (body: Uint8Array) => Buffer.from(body).toString("utf8")
const failure = <A>(effect: Effect.Effect<A, WebsiteError | InvalidRequest>) =>
  Effect.map(Effect.either(effect), (e) => {
    if (Either.isRight(e)) throw new Error("expected a failure")
    return e.left
  })
const within = <A>(promise: Promise<A>, ms: number) =>
  Promise.race([promise.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), ms))])

// Live services (real clock): these tests time real sockets, and `Effect.timeout` must fire in real time.
layer(FixtureSite.layer(routes), { excludeTestServices: true })("Fetcher", (it) => {
  it.effect("fetches a page with its status, headers and MIME type", () =>
    Effect.gen(function*() {
      const site = yield* FixtureSite.FixtureSite
      const response = yield* fetchWith(local, { url: `${site.url}/` })
      expect(response.status).toBe(200)
      expect(response.url).toBe(`${site.url}/`)
      expect(response.redirects).toEqual([])
      expect(response.contentType).toBe("text/html")
      expect(response.headers["content-type"]).toBe("text/html; charset=utf-8")
      expect(text(response.body)).toBe(page("home"))
    }))

  it.effect("follows relative, 301 and 303 redirects and reports the final URL", () =>
    Effect.gen(function*() {
      const site = yield* FixtureSite.FixtureSite
      const response = yield* fetchWith(local, { url: `${site.url}/hop1` })
      expect(response.requestedUrl).toBe(`${site.url}/hop1`)
      expect(response.url).toBe(`${site.url}/final`)
      expect(response.redirects).toEqual([`${site.url}/hop1`, `${site.url}/hop2?x=1`, `${site.url}/see-other`])
      expect(text(response.body)).toContain("<title>final</title>")
      expect(site.last("/final")?.method).toBe("GET")
    }))

  it.effect("stops a redirect loop with TooManyRedirects", () =>
    Effect.gen(function*() {
      const site = yield* FixtureSite.FixtureSite
      const before = site.exchanges.length
      const error = yield* failure(fetchWith(local, { url: `${site.url}/loop` }))
      expect(error._tag).toBe("WebsiteError")
      expect(error.reason).toBe("TooManyRedirects")
      expect(site.exchanges.length - before).toBe(11)
    }))

  it.effect("decodes gzip, brotli, zlib deflate and raw deflate bodies", () =>
    Effect.gen(function*() {
      const site = yield* FixtureSite.FixtureSite
      for (const [path, title] of [["/gzip", "gzipped"], ["/br", "brotli"], ["/deflate", "zlib deflate"], [
        "/deflate-raw",
        "raw deflate"
      ]]) {
        const response = yield* fetchWith(local, { url: `${site.url}${path}` })
        expect(text(response.body)).toBe(page(title!))
      }
      expect(site.last("/gzip")?.headers["accept-encoding"]).toBe("gzip, deflate, br")
    }))

  it.effect("returns bytes that Charset decodes for Shift_JIS, windows-1252 and GBK pages", () =>
    Effect.gen(function*() {
      const site = yield* FixtureSite.FixtureSite
      const decode = (r: Fetcher.FetchedResponse) => Charset.decode(r.body, r.headers["content-type"])
      const sjis = decode(yield* fetchWith(local, { url: `${site.url}/sjis` }))
      expect(sjis).toEqual({ text: "<p>日本語</p>", encoding: "shift_jis" })
      const cp1252 = decode(yield* fetchWith(local, { url: `${site.url}/cp1252` }))
      expect(cp1252.encoding).toBe("windows-1252")
      expect(cp1252.text).toContain("<p>café €“”</p>")
      const gb = decode(yield* fetchWith(local, { url: `${site.url}/gbk` }))
      expect(gb.encoding).toBe("gbk")
      expect(gb.text).toContain("<p>中文</p>")
    }))

  it.effect("refuses a 25 MB body at the cap and drops the connection", () =>
    Effect.gen(function*() {
      const site = yield* FixtureSite.FixtureSite
      const error = yield* failure(fetchWith(local, { url: `${site.url}/large` }))
      expect(error._tag === "WebsiteError" && error.reason).toBe("TooLarge")
      expect(error.message).toContain("20 MB")
      const exchange = site.last("/large")!
      expect(yield* Effect.promise(() => within(exchange.socketClosed, 2_000))).toBe(true)
    }))

  it.effect("stops reading an endless body soon after the cap", () =>
    Effect.gen(function*() {
      const site = yield* FixtureSite.FixtureSite
      const error = yield* failure(fetchWith(local, { url: `${site.url}/endless` }))
      expect(error._tag === "WebsiteError" && error.reason).toBe("TooLarge")
      const exchange = site.last("/endless")!
      expect(yield* Effect.promise(() => within(exchange.socketClosed, 2_000))).toBe(true)
      expect(exchange.finished).toBe(false)
      // The cap plus what socket buffers on both ends hold (a few MB on loopback), far from the 256 MB on offer.
      expect(exchange.bytesSent).toBeLessThan(Fetcher.MAX_BYTES + 16 * 1024 * 1024)
    }))

  it.effect("refuses a declared Content-Length past the cap before reading", () =>
    Effect.gen(function*() {
      const site = yield* FixtureSite.FixtureSite
      site.route("/declared", FixtureSite.html("x".repeat(2048)))
      const error = yield* failure(fetchWith(local, { url: `${site.url}/declared`, maxBytes: 1024 }))
      expect(error._tag === "WebsiteError" && error.reason).toBe("TooLarge")
      const ok = yield* fetchWith(local, { url: `${site.url}/declared`, maxBytes: 2048 })
      expect(ok.body.byteLength).toBe(2048)
    }))

  it.effect("cuts a decompression bomb off at the cap", () =>
    Effect.gen(function*() {
      const site = yield* FixtureSite.FixtureSite
      const error = yield* failure(fetchWith(local, { url: `${site.url}/bomb`, maxBytes: 1024 * 1024 }))
      expect(error._tag === "WebsiteError" && error.reason).toBe("TooLarge")
    }))

  it.effect("aborts a page slow to answer promptly when interrupted, closing its socket", () =>
    Effect.gen(function*() {
      const site = yield* FixtureSite.FixtureSite
      for (const path of ["/slow-headers", "/slow-body"]) {
        const started = Date.now()
        const result = yield* fetchWith(local, { url: `${site.url}${path}` }).pipe(Effect.timeout("150 millis"), Effect.exit)
        const elapsed = Date.now() - started
        expect(Exit.isFailure(result)).toBe(true)
        expect(elapsed).toBeLessThan(150 + 100)
        const exchange = site.last(path)!
        expect(yield* Effect.promise(() => within(exchange.socketClosed, 300))).toBe(true)
        expect(exchange.finished).toBe(false)
      }
    }))

  it.effect("reports its own header timeout as Timeout", () =>
    Effect.gen(function*() {
      const site = yield* FixtureSite.FixtureSite
      const error = yield* failure(fetchWith({ ...local, headersTimeoutMs: 200 }, { url: `${site.url}/slow-headers` }))
      expect(error._tag === "WebsiteError" && error.reason).toBe("Timeout")
    }))

  it.effect("turns 404 and 503 into HttpStatus with the status in the message", () =>
    Effect.gen(function*() {
      const site = yield* FixtureSite.FixtureSite
      for (const status of [404, 503]) {
        const error = yield* failure(fetchWith(local, { url: `${site.url}/${status}` }))
        expect(error._tag === "WebsiteError" && error.reason).toBe("HttpStatus")
        expect(error._tag === "WebsiteError" && error.status).toBe(status)
        expect(error.message).toContain(String(status))
      }
    }))

  it.effect("forwards headers but never Host or framing headers", () =>
    Effect.gen(function*() {
      const site = yield* FixtureSite.FixtureSite
      const response = yield* fetchWith(local, {
        url: `${site.url}/echo`,
        headers: { "X-Trace": "abc", "User-Agent": "custom-agent/1", Host: "evil.example", Connection: "upgrade" }
      })
      const echoed = JSON.parse(text(response.body)) as { headers: Record<string, string> }
      expect(echoed.headers["x-trace"]).toBe("abc")
      expect(echoed.headers["user-agent"]).toBe("custom-agent/1")
      expect(echoed.headers["host"]).toBe(`127.0.0.1:${site.port}`)
      expect(echoed.headers["accept"]).toContain("text/html")
    }))

  it.effect("sends the default Sift user agent", () =>
    Effect.gen(function*() {
      const site = yield* FixtureSite.FixtureSite
      yield* fetchWith(local, { url: `${site.url}/` })
      expect(site.last("/")?.headers["user-agent"]).toBe(Fetcher.DEFAULT_USER_AGENT)
    }))

  it.effect("refuses a private target by default and allows it with the setting", () =>
    Effect.gen(function*() {
      const site = yield* FixtureSite.FixtureSite
      const before = site.exchanges.length
      const error = yield* failure(fetchWith({}, { url: `${site.url}/` }))
      expect(error._tag === "WebsiteError" && error.reason).toBe("PrivateAddress")
      expect(error.message).toContain("127.0.0.1 is a loopback address")
      expect(site.exchanges.length).toBe(before)
      const mapped = yield* failure(fetchWith({ hostRules: `MAP site.test 127.0.0.1:${site.port}` }, {
        url: "http://site.test/"
      }))
      expect(mapped.message).toContain("loopback")
      expect(site.exchanges.length).toBe(before)
      expect((yield* fetchWith(local, { url: `${site.url}/` })).status).toBe(200)
    }))

  it.effect("refuses loopback and metadata in every literal spelling without connecting", () =>
    Effect.gen(function*() {
      const site = yield* FixtureSite.FixtureSite
      const before = site.exchanges.length
      for (const host of ["[::1]", "[::ffff:127.0.0.1]", "2130706433", "0x7f.1", "169.254.169.254", "[fd00:ec2::254]"]) {
        const error = yield* failure(fetchWith({}, { url: `http://${host}:${site.port}/` }))
        expect(error._tag === "WebsiteError" && error.reason).toBe("PrivateAddress")
      }
      expect(site.exchanges.length).toBe(before)
    }))

  it.effect("maps a host to the fixture server keeping the Host header", () =>
    Effect.gen(function*() {
      const site = yield* FixtureSite.FixtureSite
      const response = yield* fetchWith({ ...local, hostRules: `MAP site.test 127.0.0.1:${site.port}` }, {
        url: "http://site.test/echo?q=1"
      })
      expect(response.url).toBe("http://site.test/echo?q=1")
      const echoed = JSON.parse(text(response.body)) as { path: string; headers: Record<string, string> }
      expect(echoed.headers["host"]).toBe("site.test")
      expect(echoed.path).toBe("/echo?q=1")
    }))

  it.effect("refuses a redirect from an allowed host into a private address", () =>
    Effect.gen(function*() {
      const site = yield* FixtureSite.FixtureSite
      site.route("/to-internal", FixtureSite.redirect("http://internal.test/echo"))
      const before = site.exchanges.length
      const options = {
        hostRules: `MAP *.test 127.0.0.1:${site.port}`,
        addressPolicy: (_ip: string, host: string) => host === "site.test"
      }
      const error = yield* failure(fetchWith(options, { url: "http://site.test/to-internal" }))
      expect(error._tag === "WebsiteError" && error.reason).toBe("PrivateAddress")
      expect(error.message).toContain("internal.test")
      expect(site.exchanges.slice(before).map((e) => e.path)).toEqual(["/to-internal"])
    }))

  it.effect("forwards headers to same-origin redirect hops only", () =>
    Effect.gen(function*() {
      const site = yield* FixtureSite.FixtureSite
      site.route("/same", FixtureSite.redirect("/echo"))
      site.route("/cross", FixtureSite.redirect("http://other.test/echo"))
      const options = { ...local, hostRules: `MAP *.test 127.0.0.1:${site.port}` }
      const headers = { Authorization: "Bearer secret" }
      const same = yield* fetchWith(options, { url: "http://site.test/same", headers })
      expect(JSON.parse(text(same.body)).headers.authorization).toBe("Bearer secret")
      const cross = yield* fetchWith(options, { url: "http://site.test/cross", headers })
      expect(JSON.parse(text(cross.body)).headers.authorization).toBeUndefined()
      expect(cross.url).toBe("http://other.test/echo")
    }))

  it.effect("reports an unresolvable domain as NotFound", () =>
    Effect.gen(function*() {
      const error = yield* failure(fetchWith({}, { url: "http://nonexistent.invalid/" }))
      expect(error._tag === "WebsiteError" && error.reason).toBe("NotFound")
    }))

  it.effect("reports a refused connection as Unreachable", () =>
    Effect.gen(function*() {
      const port = yield* Effect.promise(() => freePort())
      const error = yield* failure(fetchWith(local, { url: `http://127.0.0.1:${port}/` }))
      expect(error._tag === "WebsiteError" && error.reason).toBe("Unreachable")
    }))

  it.effect("layerConfig reads allow-private, host rules, user agent and country proxies from the environment", () =>
    Effect.gen(function*() {
      const site = yield* FixtureSite.FixtureSite
      const env = new Map([
        ["SIFT_ALLOW_PRIVATE_TARGETS", "true"],
        ["SIFT_HOST_RESOLVER_RULES", `MAP site.test 127.0.0.1:${site.port}`],
        ["SIFT_USER_AGENT", "EnvAgent/2"],
        ["SIFT_COUNTRY_PROXIES", "{\"DE\":\"http://127.0.0.1:1\"}"]
      ])
      const configured = Layer.provide(Fetcher.layerConfig, Layer.setConfigProvider(ConfigProvider.fromMap(env)))
      const run = (request: Fetcher.FetchRequest) =>
        Effect.flatMap(Fetcher.Fetcher, (f) => f.fetch(request)).pipe(Effect.provide(Layer.orDie(configured)))
      const response = yield* run({ url: "http://site.test/echo" })
      const echoed = JSON.parse(text(response.body)) as { headers: Record<string, string> }
      expect(echoed.headers["host"]).toBe("site.test")
      expect(echoed.headers["user-agent"]).toBe("EnvAgent/2")
      const error = yield* failure(run({ url: "http://site.test/echo", country: "us" }))
      expect(error._tag === "InvalidRequest" && error.field).toBe("country")
      // The configured German proxy exists (and is down): a proxy failure, not a validation error.
      const down = yield* failure(run({ url: "http://site.test/echo", country: "de" }))
      expect(down._tag === "WebsiteError" && down.reason).toBe("Proxy")
    }))

  it.effect("layerConfig fails with a ConfigError on bad rules or a bad proxy map", () =>
    Effect.gen(function*() {
      const build = (env: Map<string, string>) =>
        Effect.scoped(Layer.build(Layer.provide(Fetcher.layerConfig, Layer.setConfigProvider(ConfigProvider.fromMap(env)))))
      const rules = yield* Effect.flip(build(new Map([["SIFT_HOST_RESOLVER_RULES", "MAP nothing"]])))
      expect(String(rules)).toContain("SIFT_HOST_RESOLVER_RULES")
      const proxies = yield* Effect.flip(build(new Map([["SIFT_COUNTRY_PROXIES", "[1]"]])))
      expect(String(proxies)).toContain("SIFT_COUNTRY_PROXIES")
      yield* build(new Map())
    }))

  it.effect("rejects URLs that are not http(s)", () =>
    Effect.gen(function*() {
      const error = yield* failure(fetchWith(local, { url: "file:///etc/passwd" }))
      expect(error._tag).toBe("InvalidRequest")
      expect(error.message).toContain("url")
    }))
})

/** A tiny real forward proxy: answers absolute-form requests by re-issuing them, and records what went through. */
const startProxy = async () => {
  const seen: Array<string> = []
  const server: Server = createServer((req, res) => {
    seen.push(req.url ?? "")
    const target = new URL(req.url ?? "")
    const upstream = httpRequest(target, { method: req.method, headers: { ...req.headers, via: "1.1 test-proxy" } }, (up) => {
      res.writeHead(up.statusCode ?? 502, up.headers)
      up.pipe(res)
    })
    upstream.on("error", () => res.writeHead(502).end())
    req.pipe(upstream)
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return { url, seen, close: () => new Promise<void>((resolve) => server.close(() => resolve())) }
}

const freePort = async () => {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const port = (server.address() as AddressInfo).port
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return port
}

describe("Fetcher proxies", () => {
  it.scoped("routes all traffic through SIFT_PROXY_URL and a country through its own proxy", () =>
    Effect.gen(function*() {
      const site = yield* FixtureSite.scoped({ "/echo": FixtureSite.echo })
      const all = yield* Effect.acquireRelease(Effect.promise(startProxy), (p) => Effect.promise(p.close))
      const de = yield* Effect.acquireRelease(Effect.promise(startProxy), (p) => Effect.promise(p.close))
      const options = { ...local, proxyUrl: all.url, countryProxies: { de: de.url } }
      const response = yield* fetchWith(options, { url: `${site.url}/echo` })
      expect(all.seen).toEqual([`${site.url}/echo`])
      expect(JSON.parse(text(response.body)).headers.via).toBe("1.1 test-proxy")
      yield* fetchWith(options, { url: `${site.url}/echo?country`, country: "DE" })
      expect(de.seen).toEqual([`${site.url}/echo?country`])
      expect(all.seen.length).toBe(1)
    }))

  it.scoped("refuses a country without a configured proxy, naming it", () =>
    Effect.gen(function*() {
      const error = yield* failure(fetchWith({ ...local, countryProxies: { de: "http://127.0.0.1:1" } }, {
        url: "http://example.com/",
        country: "fr"
      }))
      expect(error._tag).toBe("InvalidRequest")
      expect(error._tag === "InvalidRequest" && error.field).toBe("country")
      expect(error.message).toContain("\"fr\"")
    }))

  it.scoped("still refuses private targets through a proxy", () =>
    Effect.gen(function*() {
      const proxy = yield* Effect.acquireRelease(Effect.promise(startProxy), (p) => Effect.promise(p.close))
      const error = yield* failure(fetchWith({ proxyUrl: proxy.url }, { url: "http://169.254.169.254/latest/meta-data" }))
      expect(error._tag === "WebsiteError" && error.reason).toBe("PrivateAddress")
      expect(error.message).toContain("metadata")
      const byName = yield* failure(fetchWith({ proxyUrl: proxy.url }, { url: "http://metadata.google.internal/" }))
      expect(byName._tag === "WebsiteError" && byName.reason).toBe("PrivateAddress")
      expect(byName.message).toContain("cloud metadata name")
      expect(proxy.seen).toEqual([])
    }))
})

describe("FixtureSite", () => {
  it.scoped("serves a directory of real files", () =>
    Effect.gen(function*() {
      const root = yield* Effect.promise(() => import("node:fs/promises").then((fs) => fs.mkdtemp("/tmp/fixture-")))
      yield* Effect.promise(() => import("node:fs/promises").then((fs) => fs.writeFile(`${root}/index.html`, page("files"))))
      const site = yield* FixtureSite.scoped({ "*": FixtureSite.directory(root) })
      const response = yield* fetchWith(local, { url: `${site.url}/` })
      expect(text(response.body)).toBe(page("files"))
      const missing = yield* failure(fetchWith(local, { url: `${site.url}/nope.html` }))
      expect(missing._tag === "WebsiteError" && missing.status).toBe(404)
      const escape = yield* failure(fetchWith(local, { url: `${site.url}/..%2f..%2f..%2fetc%2fpasswd` }))
      expect(escape._tag === "WebsiteError" && escape.status).toBe(403)
    }))
})
