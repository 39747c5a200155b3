/**
 * One measured map in a fresh process (so peak RSS is this contender's alone): `sift` runs `UrlDiscovery.discover`
 * end to end on the domain (host probing, robots.txt, common locations, index, gzip parts, normalisation, dedupe);
 * `bare` fetches the known index and its parts with undici, gunzips and parses them with fast-xml-parser and collects
 * the `<loc>`s (the baseline of the target); `floor` does the same with `indexOf` instead of a parser, for scale.
 * Prints one JSON line: { ms, urls, maxRssMb, loadedRssMb } (peak RSS after loading modules, before mapping).
 *
 * `indexed` is `sift` with the store's URL index (PGlite in a temporary data directory), as GET /web/urls runs it.
 *
 * Usage (from run.ts): node --import tsx bench/map/worker.ts sift|indexed|bare|floor PORT
 */
import { Effect } from "effect"
import { XMLParser } from "fast-xml-parser"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { promisify } from "node:util"
import { gunzip } from "node:zlib"
import { Agent, request } from "undici"
import * as Fetcher from "../../packages/core/src/Fetcher.js"
import * as UrlDiscovery from "../../packages/core/src/UrlDiscovery.js"
import * as SqlClient from "@effect/sql/SqlClient"
import { Layer, ManagedRuntime } from "effect"
import * as Migrations from "../../packages/store/src/Migrations.js"
import * as Sql from "../../packages/store/src/Sql.js"
import * as UrlIndexStore from "../../packages/store/src/UrlIndexStore.js"

const [contender, portText] = process.argv.slice(2)
const port = Number(portText)
const domain = "bench.test"

const unzip = promisify(gunzip)
const agent = new Agent({ connections: 8 })
const get = async (path: string): Promise<Buffer> => {
  const response = await request(`http://127.0.0.1:${port}${path}`, { dispatcher: agent, headers: { host: domain } })
  return Buffer.from(await response.body.arrayBuffer())
}

// Not a map (no entities, no damage handling, no normalisation): how fast the bytes can be had at all.
const floor = async (): Promise<number> => {
  const locs = (xml: string) => {
    const out: Array<string> = []
    for (let i = xml.indexOf("<loc>"); i !== -1; i = xml.indexOf("<loc>", i)) {
      const end = xml.indexOf("</loc>", i)
      out.push(xml.slice(i + 5, end))
      i = end
    }
    return out
  }
  const parts = locs((await get("/sitemap_index.xml")).toString("utf8")).map((loc) => new URL(loc).pathname)
  const urls: Array<string> = []
  await Promise.all(parts.map(async (path) => {
    for (const loc of locs((await unzip(await get(path))).toString("utf8"))) urls.push(loc)
  }))
  await agent.close()
  return urls.length
}

const bare = async (): Promise<number> => {
  const parser = new XMLParser({ isArray: (name) => name === "url" || name === "sitemap" })
  const index = parser.parse((await get("/sitemap_index.xml")).toString("utf8"))
  const parts: Array<string> = index.sitemapindex.sitemap.map((s: { loc: string }) => new URL(s.loc).pathname)
  const urls: Array<string> = []
  await Promise.all(parts.map(async (path) => {
    const xml = (await unzip(await get(path))).toString("utf8")
    for (const url of parser.parse(xml).urlset.url) urls.push(url.loc)
  }))
  await agent.close()
  return urls.length
}

const sift = async (): Promise<number> => {
  const layer = Fetcher.layer({ hostRules: `MAP ${domain} 127.0.0.1:${port}, MAP www.${domain} 127.0.0.1:${port}`, allowPrivateTargets: true })
  const result = await Effect.runPromise(
    Effect.provide(UrlDiscovery.discover({ domain, maxLinks: 100_000 }), layer)
  )
  return result.urls.length
}

// GET /web/urls's path: the same map, recorded in and read back from the store's URL index (embedded PGlite in a data
// directory as `sift serve` runs it, started and migrated before the clock starts; a first map, so every row is new).
const dataDir = contender === "indexed" ? mkdtempSync(join(tmpdir(), "sift-bench-map-")) : undefined
const indexedRuntime = dataDir !== undefined
  ? ManagedRuntime.make(Layer.mergeAll(
    UrlIndexStore.layer,
    Fetcher.layer({ hostRules: `MAP ${domain} 127.0.0.1:${port}, MAP www.${domain} 127.0.0.1:${port}`, allowPrivateTargets: true })
  ).pipe(Layer.provideMerge(Layer.tap(Sql.layerPglite({ dir: dataDir }), (ctx) =>
    Effect.provide(Migrations.run({ store: Migrations.store }), ctx)))))
  : undefined
if (indexedRuntime !== undefined) await indexedRuntime.runPromise(Effect.void)
// Timed until every URL is durably in the index (a map may answer before its recording ends; see UrlDiscovery).
const indexed = async (): Promise<number> => {
  const result = await indexedRuntime!.runPromise(UrlDiscovery.discover({ domain, maxLinks: 100_000 }))
  const count = Effect.flatMap(SqlClient.SqlClient, (sql) => sql<{ n: number }>`SELECT count(*)::int AS n FROM url_index`)
  while ((await indexedRuntime!.runPromise(count))[0]!.n < result.urls.length) await new Promise((r) => setTimeout(r, 50))
  return result.urls.length
}

const loadedRssMb = process.resourceUsage().maxRSS / 1024
const started = performance.now()
const urls = contender === "sift" ? await sift() : contender === "indexed" ? await indexed() : contender === "floor" ? await floor() : await bare()
const ms = performance.now() - started
console.log(JSON.stringify({ ms, urls, maxRssMb: process.resourceUsage().maxRSS / 1024, loadedRssMb }))
if (indexedRuntime !== undefined) await indexedRuntime.dispose()
if (dataDir !== undefined) rmSync(dataDir, { recursive: true, force: true })
