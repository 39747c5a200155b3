/**
 * Map speed and memory: a 100,000-URL site (robots.txt, a sitemap index, 10 gzip parts of 10,000 URLs) served locally
 * as `bench.test`, mapped end to end by `UrlDiscovery.discover` against a bare undici + fast-xml-parser script that
 * fetches and parses the same files (it is told the index URL; Sift discovers it). Each measurement runs in a fresh
 * process, rounds interleaved; the figures are medians. Targets: time ratio Sift/bare ≤ 1.5, Sift's peak RSS < 300 MB
 * (of which about 165 MB is Node, tsx and the modules before any work: the "after loading" column). A third row,
 * undici + `indexOf` with no XML handling at all, shows how far from the bare transfer cost Sift is.
 *
 * With more than 100,000 URLs (`run.ts 3 300000`), Sift answers with maxLinks = 100,000 and must not keep or read the rest:
 * the same peak RSS target holds. The `indexed` row (the map recorded in a data directory's URL index) targets < 500 MB.
 *
 * Usage: npx tsx bench/map/run.ts [rounds=5] [urls=100000] [parts=10]
 */
import { spawn } from "node:child_process"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { fileURLToPath } from "node:url"
import { gzipSync } from "node:zlib"

const rounds = Number(process.argv[2] ?? 5)
const total = Number(process.argv[3] ?? 100_000)
const partCount = Number(process.argv[4] ?? 10)
const origin = "http://bench.test"

const words = ["products", "blog", "guides", "docs", "news", "category", "shoes", "garden", "kitchen", "outdoor"]
const part = (p: number): string => {
  const per = Math.ceil(total / partCount)
  let xml = `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n`
  for (let i = p * per; i < Math.min(total, (p + 1) * per); i++) {
    xml += `<url><loc>${origin}/${words[i % 10]}/${words[(i >> 3) % 10]}-item-${i}?ref=list&amp;page=${i % 7}</loc>` +
      `<lastmod>2024-0${1 + (i % 9)}-1${i % 10}</lastmod><changefreq>weekly</changefreq><priority>0.5</priority></url>\n`
  }
  return `${xml}</urlset>\n`
}
const files = new Map<string, { body: Buffer; type: string }>()
const index = Array.from({ length: partCount }, (_, p) => `<sitemap><loc>${origin}/sitemaps/part-${p}.xml.gz</loc></sitemap>`)
files.set("/sitemap_index.xml", {
  body: Buffer.from(`<?xml version="1.0"?>\n<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${index.join("\n")}</sitemapindex>`),
  type: "application/xml"
})
let rawBytes = 0
for (let p = 0; p < partCount; p++) {
  const xml = Buffer.from(part(p))
  rawBytes += xml.length
  files.set(`/sitemaps/part-${p}.xml.gz`, { body: gzipSync(xml), type: "application/gzip" })
}
files.set("/robots.txt", { body: Buffer.from(`User-agent: *\nAllow: /\nSitemap: ${origin}/sitemap_index.xml\n`), type: "text/plain" })

// Plain HTTP on one port; https://bench.test is mapped here too, so the site is served as http and https alike the way
// a TLS-terminating proxy would not: Sift's https probes fail fast and it falls back to http, as on a real http site.
const server = createServer((req, res) => {
  const file = files.get((req.url ?? "/").split("?")[0]!)
  if (file === undefined) {
    res.writeHead(404, { "content-type": "text/html" }).end("<h1>404</h1>")
    return
  }
  res.writeHead(200, { "content-type": file.type, "content-length": String(file.body.length) }).end(file.body)
})
await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
const port = (server.address() as AddressInfo).port

const worker = fileURLToPath(new URL("./worker.ts", import.meta.url))
interface Sample {
  readonly ms: number
  readonly urls: number
  readonly maxRssMb: number
  readonly loadedRssMb: number
}
type Contender = "sift" | "indexed" | "bare" | "floor"
const measure = async (contender: Contender): Promise<Sample> => {
  // Asynchronously: this process serves the files.
  return new Promise((resolve, reject) => {
    // MAP_BENCH_PROFILE=<dir> writes a CPU profile of each Sift run there.
    const profile = process.env["MAP_BENCH_PROFILE"] !== undefined && contender === "sift"
      ? ["--cpu-prof", `--cpu-prof-dir=${process.env["MAP_BENCH_PROFILE"]}`]
      : []
    const child = spawn(process.execPath, [...profile, "--import", "tsx", worker, contender, String(port)], {
      stdio: ["ignore", "pipe", "inherit"],
      env: { ...process.env, NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ""} --conditions=@sift/source`.trim() }
    })
    let out = ""
    child.stdout.on("data", (chunk) => (out += chunk))
    child.on("exit", (code) => {
      if (code !== 0) reject(new Error(`${contender} worker exited with ${code}`))
      else resolve(JSON.parse(out.trim().split("\n").pop()!) as Sample)
    })
  })
}

const median = (values: ReadonlyArray<number>) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!
const samples: Record<Contender, Array<Sample>> = { sift: [], indexed: [], bare: [], floor: [] }
await measure("sift") // warm the file cache and tsx's transform cache
for (let round = 0; round < rounds; round++) {
  const order: ReadonlyArray<Contender> = round % 2 === 0 ? ["bare", "sift", "indexed", "floor"] : ["floor", "indexed", "sift", "bare"]
  for (const contender of order) samples[contender].push(await measure(contender))
}
server.close()

const row = (name: string, list: ReadonlyArray<Sample>) =>
  `${name.padEnd(34)} ${median(list.map((s) => s.ms)).toFixed(0).padStart(7)} ms ${
    median(list.map((s) => s.maxRssMb)).toFixed(0).padStart(6)} MB peak RSS (${
    median(list.map((s) => s.loadedRssMb)).toFixed(0)} MB after loading)  ${list[0]!.urls} URLs`
console.log(`${total} URLs in ${partCount} gzip parts (${(rawBytes / 1e6).toFixed(1)} MB of XML), ${rounds} rounds, medians`)
console.log(row("bare: undici + fast-xml-parser", samples.bare))
console.log(row("sift: UrlDiscovery.discover", samples.sift))
console.log(row("floor: undici + indexOf (no parser)", samples.floor))
console.log(row("sift + store URL index (PGlite)", samples.indexed))
const ratio = median(samples.sift.map((s) => s.ms)) / median(samples.bare.map((s) => s.ms))
const rss = Math.max(...samples.sift.map((s) => s.maxRssMb))
console.log(`ratio sift/bare: ${ratio.toFixed(2)} (target <= 1.5) ${ratio <= 1.5 ? "met" : "NOT met"}`)
console.log(`sift peak RSS (worst round): ${rss.toFixed(0)} MB (target < 300) ${rss < 300 ? "met" : "NOT met"}`)
// GET /web/urls records the map in the index and reads it back; no target of its own, shown for honesty.
console.log(`ratio sift+index/bare: ${(median(samples.indexed.map((s) => s.ms)) / median(samples.bare.map((s) => s.ms))).toFixed(2)}`)
const indexedRss = Math.max(...samples.indexed.map((s) => s.maxRssMb))
console.log(`sift + index peak RSS (worst round): ${indexedRss.toFixed(0)} MB (target < 500) ${indexedRss < 500 ? "met" : "NOT met"}`)
// Sift answers with maxLinks = 100,000 URLs at most (a larger site is the memory case: it must not keep the rest).
const expected: Record<Contender, number> = { sift: Math.min(total, 100_000), indexed: Math.min(total, 100_000), bare: total, floor: total }
if ((Object.keys(samples) as Array<Contender>).some((name) => samples[name].some((s) => s.urls !== expected[name]))) {
  console.log("WARNING: a contender did not return every URL it should")
  process.exitCode = 1
}
