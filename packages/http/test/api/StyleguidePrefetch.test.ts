import { Cache, Renderer } from "@sift/core"
import { Either, Layer, ManagedRuntime } from "effect"
import { execFileSync } from "node:child_process"
import { chmodSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import * as https from "node:https"
import type { AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as DesignSite from "../../../core/test/support/DesignSite.js"
import type * as FixtureSite from "../../../core/test/support/FixtureSite.js"
import * as DesignCache from "../../src/Styleguide/DesignCache.js"
import * as StyleguideHttp from "../../src/Styleguide/Http.js"

// A styleguide prefetch's job runs DesignCache.warm(domain), which reads the domain's https home page as
// GET /web/styleguide?domain= does. The fixture is served over TLS with a certificate made for this run, and Chromium is
// started through a wrapper adding --ignore-certificate-errors (this test's only; Sift never ignores certificates).
describe("a styleguide prefetch's read is the cache entry GET /web/styleguide?domain= answers from (Chromium, https)", { timeout: 120_000 }, () => {
  let server: https.Server
  let runtime: ManagedRuntime.ManagedRuntime<Cache.Cache | Renderer.Renderer, never>
  const seen: Array<string> = []
  beforeAll(async () => {
    const dir = mkdtempSync(join(tmpdir(), "sift-design-tls-"))
    execFileSync("openssl", ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", join(dir, "key.pem"), "-out", join(dir, "cert.pem"),
      "-days", "1", "-subj", "/CN=styled.test", "-addext", "subjectAltName=DNS:styled.test"], { stdio: "ignore" })
    const routes = DesignSite.routes()
    server = https.createServer({ key: readFileSync(join(dir, "key.pem")), cert: readFileSync(join(dir, "cert.pem")) }, (req, res) => {
      const path = (req.url ?? "/").split("?")[0]!
      seen.push(path)
      const route = routes[path]
      if (route === undefined) return void res.writeHead(404, { "content-type": "text/html" }).end("<h1>404</h1>")
      void route(req, res, { path } as unknown as FixtureSite.Exchange)
    })
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
    const chromium = ["/usr/lib/chromium/chromium", "/usr/bin/chromium"].find((path) => existsSync(path))!
    const wrapper = join(dir, "chromium")
    writeFileSync(wrapper, `#!/bin/sh\nexec ${chromium} --ignore-certificate-errors "$@"\n`)
    chmodSync(wrapper, 0o755)
    const hostRules = `MAP *.test 127.0.0.1:${(server.address() as AddressInfo).port}`
    runtime = ManagedRuntime.make(Layer.merge(Cache.layerMemory(), Renderer.layer({ size: 1, addressPolicy: () => true, hostRules, executablePath: wrapper })))
  })
  afterAll(async () => {
    await runtime?.dispose()
    server?.closeAllConnections()
    server?.close()
  })

  it("warm reads the home page once; the GET's request for the domain is then a hit, nothing fetched again", async () => {
    const warmed = await runtime.runPromise(DesignCache.warm("styled.test"))
    expect(warmed.cache.status).toBe("miss")
    expect([warmed.design.url, warmed.design.finalDOMState]).toEqual(["https://styled.test/", "loaded"])
    expect(warmed.design.styleguide.colors.accent).toBe("#ff5500")
    const fetched = seen.length
    expect(seen.filter((path) => path === "/")).toEqual(["/"])
    // The request GET /web/styleguide?domain=Styled.test plans (the same decoding), read through the same cache.
    const plan = StyleguideHttp.planOf(Either.right({ domain: "Styled.test" }))
    if (Either.isLeft(plan)) throw plan.left
    const answered = await runtime.runPromise(DesignCache.read(plan.right.input.request))
    expect(answered.cache.status).toBe("hit")
    expect(answered.design).toEqual(warmed.design)
    expect(seen.length).toBe(fetched)
    // Another scheme is another entry: the dark read is not answered by the prefetch.
    const dark = StyleguideHttp.planOf(Either.right({ domain: "styled.test", colorScheme: "dark" as const }))
    if (Either.isLeft(dark)) throw dark.left
    expect((await runtime.runPromise(DesignCache.read(dark.right.input.request))).cache.status).toBe("miss")
  })
})
