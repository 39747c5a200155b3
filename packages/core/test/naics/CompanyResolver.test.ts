import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Layer } from "effect"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import * as CompanyResolver from "../../src/CompanyResolver.js"

const errorCode = (exit: Exit.Exit<unknown, { errorCode: string }>): string | undefined =>
  Exit.isFailure(exit) && exit.cause._tag === "Fail" ? exit.cause.error.errorCode : undefined

describe("CompanyResolver", () => {
  it("uses domains and URLs directly", () => {
    expect(CompanyResolver.domainOf("acme-tools.com")).toBe("acme-tools.com")
    expect(CompanyResolver.domainOf("https://www.Acme-Tools.co.uk/about?x=1")).toBe("acme-tools.co.uk")
    expect(CompanyResolver.domainOf("Acme Tools")).toBeUndefined()
    expect(CompanyResolver.domainOf("acme")).toBeUndefined()
    expect(CompanyResolver.pickDomain(["https://en.wikipedia.org/wiki/Acme", "https://www.acme.test/"])).toBe("acme.test")
  })

  it("takes a URL with an IP host, a port or a path as given", () => {
    expect(CompanyResolver.targetOf("http://127.0.0.1:8080/acme/")).toEqual({ domain: "127.0.0.1:8080", url: "http://127.0.0.1:8080/acme/" })
    expect(CompanyResolver.targetOf("10.1.2.3")).toEqual({ domain: "10.1.2.3", url: "http://10.1.2.3/" })
    expect(CompanyResolver.targetOf("http://localhost:3000/shop?x=1")).toEqual({ domain: "localhost:3000", url: "http://localhost:3000/shop?x=1" })
    expect(CompanyResolver.targetOf("acme.test:8443/about")).toEqual({ domain: "acme.test:8443", url: "http://acme.test:8443/about" })
    expect(CompanyResolver.targetOf("https://www.acme.test/brewing/")).toEqual({ domain: "acme.test", url: "https://www.acme.test/brewing/" })
    expect(CompanyResolver.targetOf("https://www.acme.test/")).toEqual({ domain: "acme.test" })
    expect(CompanyResolver.targetOf("acme.test")).toEqual({ domain: "acme.test" })
    expect(CompanyResolver.targetOf("Acme Tools")).toBeUndefined()
    expect(CompanyResolver.targetOf("ftp://acme.test/")).toBeUndefined()
  })

  it.effect("refuses inputs shorter than 4 characters", () =>
    Effect.gen(function*() {
      const exit = yield* Effect.exit(CompanyResolver.resolve("abc"))
      expect(errorCode(exit)).toBe("INPUT_VALIDATION_ERROR")
    }))

  it.effect("fails with SEARCH_UNAVAILABLE when a name cannot be searched", () =>
    Effect.gen(function*() {
      expect(errorCode(yield* Effect.exit(CompanyResolver.resolve("Acme Tools")))).toBe("SEARCH_UNAVAILABLE")
      const unconfigured = CompanyResolver.resolve("Acme Tools").pipe(
        Effect.provide(Layer.succeed(CompanyResolver.CompanySearch, CompanyResolver.unavailable))
      )
      expect(errorCode(yield* Effect.exit(unconfigured))).toBe("SEARCH_UNAVAILABLE")
    }))

  it.effect("prefers the company index", () =>
    Effect.gen(function*() {
      const domain = yield* CompanyResolver.resolve(" ACME Tools ").pipe(
        Effect.provide(CompanyResolver.layerIndexMemory({ "acme tools": "acme.test" }))
      )
      expect(domain).toBe("acme.test")
    }))

  it.live("searches SearXNG, skipping directories, and reports names it cannot find", () =>
    Effect.acquireUseRelease(
      Effect.promise(() =>
        new Promise<{ close: () => void; url: string; queries: Array<string> }>((resolve) => {
          const queries: Array<string> = []
          const server = createServer((req, res) => {
            const url = new URL(req.url ?? "/", "http://x")
            const q = url.searchParams.get("q") ?? ""
            queries.push(`${url.pathname} ${q} ${url.searchParams.get("format")}`)
            if (q === "Broken Co") return void res.writeHead(500).end()
            const results = q === "Acme Tools"
              ? [{ url: "https://www.linkedin.com/company/acme" }, { url: "https://acme-tools.test/" }]
              : []
            res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ results }))
          })
          server.listen(0, "127.0.0.1", () =>
            resolve({ close: () => server.close(), url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, queries }))
        })
      ),
      ({ queries, url }) =>
        Effect.gen(function*() {
          const layer = CompanyResolver.layerSearxng(url)
          expect(yield* CompanyResolver.resolve("Acme Tools").pipe(Effect.provide(layer))).toBe("acme-tools.test")
          expect(queries[0]).toBe("/search Acme Tools json")
          expect(errorCode(yield* Effect.exit(CompanyResolver.resolve("Nobody Knows Inc").pipe(Effect.provide(layer))))).toBe("WEBSITE_NOT_FOUND")
          expect(errorCode(yield* Effect.exit(CompanyResolver.resolve("Broken Co").pipe(Effect.provide(layer))))).toBe("SEARCH_UNAVAILABLE")
        }),
      ({ close }) => Effect.sync(close)
    ))
})
