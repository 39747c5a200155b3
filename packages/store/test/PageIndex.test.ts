import { describe, expect, it, layer as testLayer } from "@effect/vitest"
import * as SqlClient from "@effect/sql/SqlClient"
import { Effect, Layer } from "effect"
import * as Migrations from "../src/Migrations.js"
import * as PageIndex from "../src/PageIndex.js"
import { backends, title, unique } from "./support/backends.js"

for (const backend of backends) {
  describe.skipIf(backend.skip !== undefined)(`PageIndex on ${title(backend)}`, () => {
    const database = Layer.tap(backend.layer(), (ctx) => Effect.provide(Migrations.run({ search: PageIndex.migrations }), ctx))
    const layer = Layer.provideMerge(PageIndex.layer({ retentionMs: 60_000 }), database)

    testLayer(layer, { timeout: 120_000, excludeTestServices: true })((it) => {
      it.effect("finds pages by a phrase in the body, stemmed or exact, per organization and domain", () =>
        Effect.gen(function*() {
          const index = yield* PageIndex.PageIndex
          const org = `org_${unique()}`
          const other = `org_${unique()}`
          const site = `${unique()}.test`
          yield* index.add([
            { orgId: org, url: `https://docs.${site}/install`, title: "Installing the tool", headings: ["Requirements"], markdown: "Run the [installer](https://x.test/i) on a **Debian** host with glowing capacitors.", language: "en" },
            { orgId: org, url: `https://${site}/blog`, title: "Company blog", headings: [], markdown: "News about our capacitor factory.", language: "en" },
            { orgId: org, url: `https://other-${site}/page`, title: "Unrelated", headings: [], markdown: "Glowing capacitors everywhere.", language: "en" },
            { orgId: other, url: `https://${site}/secret`, title: "Secret", headings: [], markdown: "glowing capacitors of another organization", language: "en" },
            { orgId: org, url: `https://${site}/de`, title: "Über uns", headings: [], markdown: "Wir bauen leuchtende Kondensatoren.", language: "de" }
          ])

          const phrase = yield* index.search({ orgId: org, text: "\"glowing capacitors\"", limit: 10 })
          expect(phrase.map((h) => h.url).sort()).toEqual([`https://docs.${site}/install`, `https://other-${site}/page`].sort())
          // Stemmed: "capacitor" finds "capacitors"; scoped to the domain and its subdomains.
          const scoped = yield* index.search({ orgId: org, text: "capacitor", limit: 10, includeDomains: [site] })
          expect(scoped.map((h) => h.url).sort()).toEqual([`https://${site}/blog`, `https://docs.${site}/install`].sort())
          const excluded = yield* index.search({ orgId: org, text: "capacitor", limit: 10, includeDomains: [site], excludeDomains: [`docs.${site}`] })
          expect(excluded.map((h) => h.url)).toEqual([`https://${site}/blog`])
          // The title weighs more than the body.
          const titled = yield* index.search({ orgId: org, text: "installing", limit: 10 })
          expect(titled[0]!.url).toBe(`https://docs.${site}/install`)
          expect(titled[0]!.snippet).toContain("Run the installer on a Debian host")
          // German pages stem with the German configuration; exact words match in any language.
          expect((yield* index.search({ orgId: org, text: "Kondensator", limit: 10, language: "de" })).map((h) => h.url)).toEqual([`https://${site}/de`])
          expect((yield* index.search({ orgId: org, text: "leuchtende", limit: 10 })).map((h) => h.url)).toEqual([`https://${site}/de`])
          // A query with no language is also stemmed with the configurations of the organization's pages: an inflection
          // the German page does not contain finds it through German stemming (English and exact words would not).
          expect((yield* index.search({ orgId: org, text: "leuchtenden Kondensatoren", limit: 10 })).map((h) => h.url)).toEqual([`https://${site}/de`])
          expect((yield* index.search({ orgId: org, text: "leuchtenden", limit: 10 })).map((h) => h.url)).toEqual([`https://${site}/de`])
          // Some words only, when all of them find too little.
          const partial = yield* index.search({ orgId: org, text: "debian factory", limit: 10 })
          expect(partial.map((h) => h.url).sort()).toEqual([`https://${site}/blog`, `https://docs.${site}/install`].sort())
          // Nothing of another organization, and coverage per organization.
          expect((yield* index.search({ orgId: other, text: "capacitors", limit: 10 })).map((h) => h.url)).toEqual([`https://${site}/secret`])
          expect(yield* index.covered(org, [site, `nothing-${site}`, `docs.${site}`])).toEqual([site, `docs.${site}`])
          expect(yield* index.search({ orgId: org, text: "xylophone", limit: 10 })).toEqual([])
          expect(yield* index.search({ orgId: org, text: "!&| ( :*", limit: 10 })).toEqual([])
        }))

      it.effect("keeps GIN's pending list short, which every search reads (PGlite runs no autovacuum to merge it)", () =>
        Effect.gen(function*() {
          const index = yield* PageIndex.PageIndex
          const sql = yield* SqlClient.SqlClient
          const org = `org_${unique()}`
          // 300 pages of 150 distinct words each: about 45,000 new index entries, far beyond 64 kB.
          yield* index.add(Array.from({ length: 300 }, (_, page) => ({
            orgId: org,
            url: `https://${unique()}.test/p${page}`,
            title: `page ${page}`,
            headings: [],
            markdown: Array.from({ length: 150 }, (_, word) => `w${page}x${word}`).join(" ")
          })))
          // Pages the pending list still held (merged by this call): at most the 64 kB limit (8 kB pages).
          const pending = yield* sql<{ n: number }>`SELECT gin_clean_pending_list('page_index_document'::regclass)::int AS n`
          expect(pending[0]!.n).toBeLessThanOrEqual(9)
          expect((yield* index.search({ orgId: org, text: "w7x3", limit: 10 })).map((h) => h.title)).toEqual(["page 7"])
        }))

      it.effect("keeps each page's field lengths for BM25 (written with the page, filled in for older rows), shorter pages first", () =>
        Effect.gen(function*() {
          const index = yield* PageIndex.PageIndex
          const sql = yield* SqlClient.SqlClient
          const org = `org_${unique()}`
          const site = `${unique()}.test`
          yield* index.add([
            { orgId: org, url: `https://${site}/short`, title: "Alpha beta", headings: ["Gamma"], markdown: "delta zebra delta", language: "en" },
            { orgId: org, url: `https://${site}/long`, title: "Alpha beta", headings: ["Gamma"], markdown: `delta zebra ${"epsilon ".repeat(40)}`, language: "en" }
          ])
          const lengths = () => sql<{ url: string; lengths: ReadonlyArray<number> | string }>`
            SELECT url, field_lengths::float8[] AS lengths FROM page_index WHERE org_id = ${org} ORDER BY url`.pipe(
            Effect.map((rows) => rows.map((row) => [row.url, (Array.isArray(row.lengths) ? row.lengths : String(row.lengths).replace(/[{}]/g, "").split(",")).map(Number)])))
          // Each word is indexed once per configuration (simple and English): title 2 words, headings 1, body 3 or 42.
          const expected = [[`https://${site}/long`, [4, 2, 84]], [`https://${site}/short`, [4, 2, 6]]]
          expect(yield* lengths()).toEqual(expected)
          yield* sql`UPDATE page_index SET field_lengths = NULL WHERE org_id = ${org}`
          yield* PageIndex.migrations["0003_field_lengths"]
          expect(yield* lengths()).toEqual(expected)
          expect((yield* index.search({ orgId: org, text: "zebra", limit: 10 })).map((h) => h.url)).toEqual([`https://${site}/short`, `https://${site}/long`])
        }))

      it.effect("a page keeps its cache entry's age: it expires with the entry and freshness reads when it was fetched", () =>
        Effect.gen(function*() {
          const index = yield* PageIndex.PageIndex
          const sql = yield* SqlClient.SqlClient
          const org = `org_${unique()}`
          const site = `${unique()}.test`
          const now = Date.now()
          // Retention is 60 s here: a page fetched 50 s ago has 10 s left, one fetched 61 s ago has left the cache.
          yield* index.add([
            { orgId: org, url: `https://${site}/older`, title: "Older", headings: [], markdown: "okapi sightings", storedAt: now - 50_000 },
            { orgId: org, url: `https://${site}/gone`, title: "Gone", headings: [], markdown: "okapi sightings", storedAt: now - 61_000 },
            { orgId: org, url: `https://${site}/fresh`, title: "Fresh", headings: [], markdown: "okapi sightings" }
          ])
          const rows = yield* sql<{ url: string; fetched: number; expires: number }>`
            SELECT url, (extract(epoch from indexed_at) * 1000)::float8 AS fetched, (extract(epoch from expires_at) * 1000)::float8 AS expires
            FROM page_index WHERE org_id = ${org} ORDER BY url`
          const older = rows.find((r) => r.url.endsWith("/older"))!
          expect(Math.abs(Number(older.fetched) - (now - 50_000))).toBeLessThan(5)
          expect(Math.abs(Number(older.expires) - (now + 10_000))).toBeLessThan(5)
          const found = (maxAgeMs?: number) =>
            Effect.map(index.search({ orgId: org, text: "okapi", limit: 10, maxAgeMs }), (hits) => hits.map((h) => h.url.slice(h.url.lastIndexOf("/"))).sort())
          expect(yield* found()).toEqual(["/fresh", "/older"])
          expect(yield* found(30_000)).toEqual(["/fresh"])
          expect(yield* index.prune).toBeGreaterThanOrEqual(1)
          expect((yield* sql<{ url: string }>`SELECT url FROM page_index WHERE org_id = ${org}`).map((r) => r.url.slice(r.url.lastIndexOf("/"))).sort()).toEqual(["/fresh", "/older"])
        }))

      it.effect("writes a caller's statement with the pages, both or neither: the rows share one transaction, and a refused one leaves no page", () =>
        Effect.gen(function*() {
          const index = yield* PageIndex.PageIndex
          const sql = yield* SqlClient.SqlClient
          const org = `org_${unique()}`
          const table = `beside_${unique()}`
          yield* sql`CREATE TABLE ${sql(table)} (id text PRIMARY KEY)`
          const page = (path: string) => ({ orgId: org, url: `https://${org}.test/${path}`, title: path, headings: [], markdown: `the ${path} page` })
          expect(yield* index.add([page("together")], sql`INSERT INTO ${sql(table)} (id) VALUES ('together')`)).toBe(true)
          const [row] = yield* sql<{ same: boolean }>`
            SELECT (SELECT xmin::text FROM ${sql(table)} WHERE id = 'together') = (SELECT xmin::text FROM page_index WHERE org_id = ${org}) AS same`
          expect(row!.same).toBe(true)
          // The caller's statement fails (its key is taken): the page is not indexed either, and add says so.
          expect(yield* index.add([page("refused")], sql`INSERT INTO ${sql(table)} (id) VALUES ('together')`)).toBe(false)
          expect((yield* index.search({ orgId: org, text: "refused", limit: 10 })).map((h) => h.url)).toEqual([])
          expect((yield* index.search({ orgId: org, text: "together", limit: 10 })).map((h) => h.url)).toEqual([`https://${org}.test/together`])
          // As a fragment of the caller's own statement.
          const insert = index.insert([page("inside")])!
          yield* sql`WITH indexed AS (${insert}) INSERT INTO ${sql(table)} (id) VALUES ('inside')`
          expect((yield* index.search({ orgId: org, text: "inside", limit: 10 })).map((h) => h.url)).toEqual([`https://${org}.test/inside`])
          expect(index.insert([{ ...page("nowhere"), url: "not a url" }])).toBeUndefined()
          // Two reads that ended at one URL (redirects) are one row, the last: not a statement that fails on its own key.
          expect(yield* index.add([page("twice"), { ...page("twice"), markdown: "the second reading" }])).toBe(true)
          expect((yield* index.search({ orgId: org, text: "second reading", limit: 10 })).map((h) => h.url)).toEqual([`https://${org}.test/twice`])
          yield* sql`DROP TABLE ${sql(table)}`
        }))

      it.effect("replaces a page on re-index and prunes expired rows", () =>
        Effect.gen(function*() {
          const index = yield* PageIndex.PageIndex
          const sql = yield* SqlClient.SqlClient
          const org = `org_${unique()}`
          const url = `https://${unique()}.test/a`
          yield* index.add([{ orgId: org, url, title: "A", headings: [], markdown: "first version with zebras" }])
          yield* index.add([{ orgId: org, url, title: "A", headings: [], markdown: "second version with giraffes" }])
          expect(yield* index.search({ orgId: org, text: "zebras", limit: 10 })).toEqual([])
          expect((yield* index.search({ orgId: org, text: "giraffes", limit: 10 })).map((h) => h.url)).toEqual([url])
          yield* sql`UPDATE page_index SET expires_at = now() - interval '1 second' WHERE org_id = ${org}`
          expect(yield* index.prune).toBeGreaterThanOrEqual(1)
          expect(yield* sql`SELECT 1 FROM page_index WHERE org_id = ${org}`).toHaveLength(0)
        }))
    })
  })
}
