import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Layer, Option } from "effect"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { afterAll, beforeAll } from "vitest"
import * as CompanyEvidence from "../../src/CompanyEvidence.js"
import * as CompanyResolver from "../../src/CompanyResolver.js"
import * as Fetcher from "../../src/Fetcher.js"
import { classifyNaicsEffect } from "../../src/NaicsClassification.js"

const page = (title: string, description: string, body: string, nav = ["About Us", "Services", "Contact"]) => `<!doctype html>
<html><head><title>${title}</title><meta name="description" content="${description}">
<script type="application/ld+json">{"@context":"https://schema.org","@graph":[{"@type":"Organization","name":"X"},{"@type":"LocalBusiness","description":"Local business"}]}</script>
</head><body><header><nav>${nav.map((n) => `<a href="/${n.toLowerCase().replace(/ /g, "-")}">${n}</a>`).join(" ")}</nav></header>
<main>${body}</main><footer>© 2025 All rights reserved. <a href="https://elsewhere.example/">Partner</a></footer></body></html>`

const sites: Record<string, Record<string, string>> = {
  "kettleworks.test": {
    "/": page("Kettleworks Brewing | Brewery & Taproom", "Independent craft brewery with a taproom downtown.",
      "<h1>Fresh beer, brewed here</h1><p>We brew IPAs and lagers on our 20-barrel brewhouse and pour them in our taproom.</p>"),
    "/about-us": page("About Kettleworks", "Our story.", "<h1>Our story</h1><p>Kettleworks is a craft brewery founded by two homebrewers in 2014.</p>"),
    "/services": page("Taproom", "Taproom hours.", "<h2>Taproom</h2><p>Open daily from noon.</p>")
  },
  // No links from the homepage: only the URL index knows the page that says what the company does.
  "quietco.test": {
    "/": page("Quietco", "Quality since 1952.", "<h1>Welcome to Quietco</h1><p>Quality since 1952.</p>", []),
    "/about-the-farm": page("About Quietco", "Family dairy farm.",
      "<h1>Our dairy farm</h1><p>Quietco is a family dairy farm milking 300 cows. We sell raw milk to the regional creamery.</p>")
  },
  "slowsite.test": {
    "/": page("Greenfield Dental | Family Dentist", "Family dentistry: cleanings, fillings and implants.",
      "<h1>Healthy smiles</h1><p>Our dentists care for patients of all ages.</p>"),
    "/about-us": page("About", "About our dental practice.", "<p>Our dental practice opened in 1990.</p>")
  }
}

let server: Server
let port = 0

beforeAll(async () => {
  server = createServer((req, res) => {
    const host = (req.headers.host ?? "").split(":")[0]!
    const body = sites[host]?.[req.url ?? "/"]
    const delay = host === "slowsite.test" && req.url !== "/" ? 3_000 : 0
    setTimeout(() => {
      if (body === undefined) {
        res.writeHead(404, { "content-type": "text/html" }).end("<h1>Not found</h1>")
      } else {
        res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(body)
      }
    }, delay)
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  port = (server.address() as AddressInfo).port
})
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))

const fetcher = () => Fetcher.layer({ allowPrivateTargets: true, hostRules: `MAP *.test 127.0.0.1:${port}` })
// `extra` provides the company index, the company search, or both (optional services of the classification).
const run = <A, E>(effect: Effect.Effect<A, E, Fetcher.Fetcher>, extra?: Layer.Layer<never>) =>
  Effect.runPromiseExit(
    (extra === undefined ? effect : Effect.provide(effect, extra)).pipe(Effect.provide(fetcher()), Effect.scoped)
  )

describe("CompanyEvidence", () => {
  it("reads title, description, JSON-LD, headings, navigation and same-site links", () => {
    const evidence = CompanyEvidence.fromHtml("https://kettleworks.test/", sites["kettleworks.test"]!["/"]!)
    expect(evidence.title).toBe("Kettleworks Brewing | Brewery & Taproom")
    expect(evidence.description).toMatch(/craft brewery/)
    expect(evidence.jsonLdTypes).toEqual(["Organization", "LocalBusiness"])
    expect(evidence.jsonLdDescriptions).toEqual(["Local business"])
    expect(evidence.headings[0]).toEqual({ level: 1, text: "Fresh beer, brewed here" })
    expect(evidence.nav).toEqual(["About Us", "Services", "Contact"])
    expect(evidence.text).toMatch(/20-barrel brewhouse/)
    expect(evidence.links.map((l) => l.url)).not.toContain("https://elsewhere.example/")
    expect(CompanyEvidence.informativePages(evidence)).toEqual(["https://kettleworks.test/about-us", "https://kettleworks.test/services"])
  })

  it("reads what a page prices and which buttons it shows", () => {
    const evidence = CompanyEvidence.fromHtml("https://shop.test/", `<html><body><div class="bar">Free shipping over $75</div>
<ul><li><a href="/p/1"><h3>Oak dining table</h3></a><span class="price">$749</span><button>Add to cart</button></li>
<li><h3>Linen duvet</h3><p class="price">€120,00</p></li></ul>
<dl><dt>Lamb curry</dt><dd>$24</dd><dt>Naan</dt><dd>$4</dd></dl>
<div class="plan"><h3>Pro</h3><p>$49/month</p></div><p>$12</p><button>Subscribe</button></body></html>`)
    expect(evidence.offers).toEqual(["Free shipping over $75", "Oak dining table $749 Add to cart", "Linen duvet €120,00", "Lamb curry $24", "Naan $4", "Pro $49/month"])
    expect(evidence.buttons).toEqual(["Add to cart", "Subscribe"])
  })

  it("gathers the homepage and the informative internal pages through the Fetcher", async () => {
    const exit = await run(CompanyEvidence.gather("kettleworks.test"))
    expect(Exit.isSuccess(exit)).toBe(true)
    if (!Exit.isSuccess(exit)) return
    expect(exit.value.pages.map((p) => new URL(p.url).pathname)).toEqual(["/", "/about-us", "/services"])
    expect(exit.value.pages[1]!.text).toMatch(/founded by two homebrewers/)
    expect(exit.value.partial).toBeUndefined()
  })

  it("classifies a domain end to end", async () => {
    const exit = await run(classifyNaicsEffect("https://www.kettleworks.test/", { maxResults: 3 }))
    expect(Exit.isSuccess(exit)).toBe(true)
    if (!Exit.isSuccess(exit)) return
    expect(exit.value).toMatchObject({ status: "ok", domain: "kettleworks.test", type: "naics" })
    expect(exit.value.codes).toHaveLength(3)
    expect(exit.value.codes[0]).toMatchObject({ code: "312120", name: "Breweries" })
  })

  it("returns partial codes when the deadline cuts off internal pages", async () => {
    const exit = await run(classifyNaicsEffect("slowsite.test", { timeoutMs: 1_500, timeoutBehavior: "return-partial" }))
    expect(Exit.isSuccess(exit)).toBe(true)
    if (!Exit.isSuccess(exit)) return
    expect(exit.value.partial).toBe(true)
    expect(exit.value.codes[0]!.code).toBe("621210")
    const failed = await run(classifyNaicsEffect("slowsite.test", { timeoutMs: 1_500 }))
    expect(Exit.isFailure(failed) && JSON.stringify(failed.cause)).toMatch(/RequestTimeout/)
  })

  it("reads pages the company index knows on the domain when the homepage links nowhere", async () => {
    const alone = await run(classifyNaicsEffect("quietco.test"))
    expect(Exit.isSuccess(alone) && alone.value.codes[0]?.code).not.toBe("112120")
    const index = Layer.succeed(CompanyResolver.CompanyIndex, {
      findDomain: () => Effect.succeed(Option.none()),
      pagesOf: (domain) => Effect.succeed(domain === "quietco.test" ? ["http://quietco.test/about-the-farm"] : [])
    })
    const withIndex = await run(classifyNaicsEffect("quietco.test"), index)
    expect(Exit.isSuccess(withIndex) && withIndex.value.codes[0]).toMatchObject({ code: "112120" })
  })

  it("reads a URL whose host is an IP with a port as given, path kept, under the address guard", async () => {
    // The site root says dentist; only the given path says brewery, so the answer shows which page was read.
    const seen: Array<string> = []
    const acme = createServer((req, res) => {
      seen.push(req.url ?? "")
      const body = req.url === "/acme/"
        ? page("Acme Brewing | Brewery & Taproom", "Independent craft brewery.",
          "<h1>Beer brewed here</h1><p>We brew ales and lagers in our brewhouse and pour them in our taproom.</p>", ["About"])
        : req.url === "/"
        ? page("Greenfield Dental", "Family dentistry.", "<h1>Healthy smiles</h1><p>Our dentists clean and fill teeth.</p>")
        : undefined
      res.writeHead(body === undefined ? 404 : 200, { "content-type": "text/html" }).end(body ?? "<h1>Not found</h1>")
    })
    await new Promise<void>((resolve) => acme.listen(0, "127.0.0.1", resolve))
    try {
      const at = `127.0.0.1:${(acme.address() as AddressInfo).port}`
      expect(CompanyResolver.targetOf(`http://${at}/acme/`)).toEqual({ domain: at, url: `http://${at}/acme/` })
      expect(CompanyResolver.targetOf(`${at}/acme/`)).toEqual({ domain: at, url: `http://${at}/acme/` })
      // No search provider is configured: a URL must never be taken for a name (that was 503 SEARCH_UNAVAILABLE).
      const exit = await run(classifyNaicsEffect(`http://${at}/acme/`, { maxResults: 3 }))
      expect(Exit.isSuccess(exit) && exit.value).toMatchObject({ domain: at, codes: [{ code: "312120" }, {}, {}] })
      expect(seen[0]).toBe("/acme/")
      expect(seen).not.toContain("/")
      // The default guard refuses the loopback address: WEBSITE_ACCESS_ERROR, not a search.
      const guarded = await Effect.runPromiseExit(
        classifyNaicsEffect(`http://${at}/acme/`).pipe(Effect.provide(Fetcher.layer({})), Effect.scoped)
      )
      expect(Exit.isFailure(guarded) && guarded.cause._tag === "Fail" && guarded.cause.error).toMatchObject({ reason: "PrivateAddress" })
      expect(seen).toHaveLength(2)
    } finally {
      await new Promise<void>((resolve) => acme.close(() => resolve()))
    }
  })

  it("resolves a name through the company index", async () => {
    const exit = await run(classifyNaicsEffect("Kettleworks Brewing"), CompanyResolver.layerIndexMemory({ "kettleworks brewing": "kettleworks.test" }))
    expect(Exit.isSuccess(exit) && exit.value.domain).toBe("kettleworks.test")
  })
})
