import { describe, expect, it, layer as testLayer } from "@effect/vitest"
import * as SqlClient from "@effect/sql/SqlClient"
import { CompanyIndex } from "@sift/core/CompanyResolver"
import { UrlIndex } from "@sift/core/UrlIndex"
import { Effect, Layer, Option } from "effect"
import * as Migrations from "../src/Migrations.js"
import * as UrlIndexStore from "../src/UrlIndexStore.js"
import { backends, title, unique } from "./support/backends.js"

for (const backend of backends) {
  describe.skipIf(backend.skip !== undefined)(`UrlIndexStore on ${title(backend)}`, () => {
    const database = Layer.tap(backend.layer(), (ctx) => Effect.provide(Migrations.run({ store: Migrations.store }), ctx))
    const layer = Layer.provideMerge(Layer.merge(UrlIndexStore.layer, UrlIndexStore.layerCompanyIndex), database)

    testLayer(layer, { timeout: 120_000, excludeTestServices: true })((it) => {
      it.effect("records, merges metadata, looks up by any spelling and queues unenriched URLs", () =>
        Effect.gen(function*() {
          const index = yield* UrlIndex
          const site = `${unique()}.test`
          yield* index.record(site, [{ url: `https://${site}/a`, lastmod: "2024" }, { url: `https://${site}/b` }])
          yield* Effect.sleep("5 millis")
          yield* index.record(site, [{ url: `https://blog.${site}/c` }, { url: `http://www.${site}/a#x` }])
          yield* index.enrich(site, [{ url: `https://${site}/b`, title: "B", keywords: ["k", "l"], language: "en" }])

          const found = yield* index.lookup(site, [`http://www.${site}/a`, `https://${site}/b`, `https://${site}/none`])
          expect(found.get(`http://www.${site}/a`)).toMatchObject({ url: `https://${site}/a`, lastmod: "2024" })
          expect(found.get(`https://${site}/b`)).toMatchObject({ title: "B", keywords: ["k", "l"], language: "en" })
          expect(found.get(`https://${site}/b`)!.enrichedAt).toBeGreaterThan(0)
          expect(found.get(`http://www.${site}/a`)!.enrichedAt).toBeUndefined()
          expect(found.has(`https://${site}/none`)).toBe(false)

          expect((yield* index.list(site)).map((u) => u.url)).toEqual([`https://${site}/a`, `https://${site}/b`])
          expect((yield* index.list(site, { includeSubdomains: true })).map((u) => u.url)).toContain(`https://blog.${site}/c`)
          expect(yield* index.unenriched(site, 10)).toEqual([`https://${site}/a`])

          // New facts win, absent ones keep what was stored; recording again does not undo enrichment.
          yield* index.record(site, [{ url: `https://${site}/b`, description: "about b" }])
          const b = (yield* index.lookup(site, [`https://${site}/b`])).get(`https://${site}/b`)!
          expect(b).toMatchObject({ title: "B", description: "about b" })
          expect(b.enrichedAt).toBeGreaterThan(0)

          // Recorded and read back in one statement, keyed by the spelling asked for.
          const both = yield* index.recordAndLookup!(site, [{ url: `http://www.${site}/b`, lastmod: "2025" }, { url: `https://${site}/new` }])
          expect(both.get(`http://www.${site}/b`)).toMatchObject({ url: `https://${site}/b`, title: "B", description: "about b", lastmod: "2025" })
          // Entries without page metadata are recorded but not sent back.
          expect(both.has(`https://${site}/new`)).toBe(false)
          expect((yield* index.lookup(site, [`https://${site}/new`])).get(`https://${site}/new`)!.enrichedAt).toBeUndefined()
        }))

      it.effect("stores a 20,000-URL map in one call, once per page, in first-recorded order", () =>
        Effect.gen(function*() {
          const index = yield* UrlIndex
          const sql = yield* SqlClient.SqlClient
          const site = `${unique()}.test`
          const urls = Array.from({ length: 20_000 }, (_, i) => ({ url: `https://${site}/p/${i}` }))
          // The same pages spelled differently, in the same batch and again later: still one row each.
          yield* index.record(site, [...urls, { url: `http://www.${site}/p/0` }])
          yield* index.record(site, urls.slice(0, 100).map((u) => ({ url: u.url.replace("https://", "http://") })))
          const [count] = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM url_index WHERE site = ${site}`
          expect(count!.n).toBe(20_000)
          const listed = yield* index.list(site)
          expect(listed).toHaveLength(20_000)
          expect(listed[0]!.url).toBe(`https://${site}/p/0`)
          expect(listed[19_999]!.url).toBe(`https://${site}/p/19999`)
          const looked = yield* index.lookup(site, urls.map((u) => u.url))
          expect(looked.size).toBe(20_000)
          // The PostgreSQL database outlives the run: leave no backlog for services started on it later.
          yield* sql`DELETE FROM url_index WHERE site = ${site}`
        }))

      it.effect("leases unenriched URLs to one claimant at a time, and frees them when the lease lapses", () =>
        Effect.gen(function*() {
          const index = yield* UrlIndex
          const leases = yield* UrlIndexStore.UrlIndexLeases
          const site = `${unique()}.test`
          yield* index.record(site, Array.from({ length: 5 }, (_, i) => ({ url: `https://${site}/${i}` })))
          const [first, second] = yield* Effect.all([leases.claim(site, 3, 60_000), leases.claim(site, 3, 60_000)], {
            concurrency: 2
          })
          expect([...first!, ...second!].sort()).toEqual(Array.from({ length: 5 }, (_, i) => `https://${site}/${i}`))
          expect(yield* leases.claim(site, 3, 60_000)).toEqual([])
          expect(yield* leases.pendingSites(1_000)).toContain(site)

          // Enriched URLs are done; the lease of the others lapses (a stopped worker) and they come back.
          yield* index.enrich(site, [{ url: `https://${site}/0`, title: "Zero" }, { url: `https://${site}/1` }])
          const short = `${unique()}.test`
          yield* index.record(short, [{ url: `https://${short}/x` }])
          expect(yield* leases.claim(short, 5, 1)).toEqual([`https://${short}/x`])
          yield* Effect.sleep("10 millis")
          expect(yield* leases.claim(short, 5, 60_000)).toEqual([`https://${short}/x`])
          expect(yield* index.unenriched(site, 10)).toEqual([`https://${site}/2`, `https://${site}/3`, `https://${site}/4`])
        }))

      it.effect("finds a company's site by name among indexed titles, home pages first, ignoring case and accents", () =>
        Effect.gen(function*() {
          const index = yield* UrlIndex
          const companies = yield* CompanyIndex
          const tag = unique()
          const site = `acme${tag}.test`
          const reseller = `shop${tag}.test`
          yield* index.record(reseller, [{ url: `https://${reseller}/brands/acme`, title: `Acme${tag} Crème Tools at Shop` }])
          yield* index.record(site, [
            { url: `https://${site}/careers`, title: `Careers at Acme${tag} Crème` },
            { url: `https://www.${site}/`, title: `Acme${tag} Crème Tools | Hand tools since 1921` }
          ])
          expect(yield* companies.findDomain(`acme${tag} creme tools`)).toEqual(Option.some(site))
          expect(yield* companies.findDomain(`ACME${tag} Crème`)).toEqual(Option.some(site))
          expect(yield* companies.findDomain(`Acme${tag} Bakery`)).toEqual(Option.none())
          // The pages known on the site (any host variant), shortest paths first; another site's pages never.
          const pages = yield* companies.pagesOf!(`www.${site}`)
          expect([...pages].sort()).toEqual([`https://${site}/careers`, `https://www.${site}/`].sort())
          expect(pages[0]).toBe(`https://www.${site}/`)
        }))
    })
  })
}
