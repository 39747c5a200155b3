/**
 * NAICS evaluation: classifies every company of the evaluation set from its rendered pages (already fetched: the
 * classifier alone is timed) and reports top-1 and top-5 accuracy at six digits, top-1 at four and two digits, the
 * precision of "high" confidence, and latency, for the default classifier and a BM25 baseline over the NAICS titles
 * and descriptions run in the same script. Dev (tuned on) and held-out (every third company, never tuned on) are
 * reported apart, and the held-out companies appended for issue 23 once more on their own. Tuning batches 2-28
 * (`tuningBatch2.ts`, 18 on in files of their own: lists outside the split, tuned on in full; 14 and 15, a fresh
 * sample over all sectors, were first used untuned to compare ranking strategies, and so was 16, another such sample,
 * before its misses were tuned on, and 17, another such sample, read untuned first; 18 and 19, two more by other
 * authors, were read untuned to compare the example phrases before and after they covered every code; 20 to 28, by
 * nine more, read untuned first) are reported one by one; each batch's commit gives how it read before any tuning on it. Every
 * page is checked not to name its company's code or official title.
 *
 * Run: `npx tsx bench/naics/run.ts [--misses]`
 */
import * as CompanyEvidence from "../../packages/core/src/CompanyEvidence.js"
import * as Naics from "../../packages/core/src/Naics.js"
import * as NaicsClassifier from "../../packages/core/src/NaicsClassifier.js"
import { terms } from "../../packages/core/src/internal/naics/text.js"
import { type Company, companies } from "./companies.js"
import { pages } from "./site.js"
import { tuningBatches } from "./batches.js"

interface Outcome {
  readonly company: Company
  readonly ranked: ReadonlyArray<string>
  readonly confidence?: NaicsClassifier.Confidence
  readonly ms: number
}

// The set is fair only if no site gives the answer away: its code, or its code's official title, never appears.
const plain = (s: string): string => s.toLowerCase().replace(/&amp;/g, "&").replace(/[^a-z0-9]+/g, " ").trim()
for (const c of [...companies, ...tuningBatches.flatMap(([, b]) => b)]) {
  for (const code of [c.code, ...(c.alternates ?? [])]) if (!Naics.isCode(code)) throw new Error(`${c.name}: ${code} is not a 2022 code`)
  const text = plain([...pages(c).values()].join(" "))
  if (text.includes(c.code) || text.includes(plain(Naics.title(c.code)!))) throw new Error(`${c.name}: the site names its code or its title`)
}
const everyCompany = [...companies, ...tuningBatches.flatMap(([, b]) => b)]
if (new Set(everyCompany.map((c) => c.domain)).size !== everyCompany.length) throw new Error("two companies share a domain")

const evidenceOf = (company: Company): CompanyEvidence.CompanyEvidence => ({
  domain: company.domain,
  pages: [...pages(company)].map(([path, html]) => CompanyEvidence.fromHtml(`https://${company.domain}${path}`, html))
})

/** The baseline: BM25 over each code's title and description, the query being all the evidence text. */
const bm25 = (() => {
  const docs = Naics.industries().map((i) => {
    const tf = new Map<string, number>()
    const ts = [...terms(i.title), ...terms(i.description)]
    for (const t of ts) tf.set(t, (tf.get(t) ?? 0) + 1)
    return { code: i.code, tf, length: ts.length }
  })
  const df = new Map<string, number>()
  for (const d of docs) for (const t of d.tf.keys()) df.set(t, (df.get(t) ?? 0) + 1)
  const avg = docs.reduce((s, d) => s + d.length, 0) / docs.length
  const idf = (t: string) => Math.log(1 + (docs.length - (df.get(t) ?? 0) + 0.5) / ((df.get(t) ?? 0) + 0.5))
  return (evidence: CompanyEvidence.CompanyEvidence): Array<string> => {
    const text = evidence.pages.flatMap((p) => [p.title ?? "", p.description ?? "", ...p.headings.map((h) => h.text), ...p.nav, p.text]).join(" ")
    const query = new Set(terms(text))
    return docs.map((d) => {
      let s = 0
      for (const t of query) {
        const f = d.tf.get(t)
        if (f !== undefined) s += idf(t) * (f * 2.2) / (f + 1.2 * (0.25 + 0.75 * d.length / avg))
      }
      return [d.code, s] as const
    }).sort((a, b) => b[1] - a[1]).slice(0, 10).map(([c]) => c)
  }
})()

const time = <A>(f: () => A): [A, number] => {
  const t = performance.now()
  const a = f()
  return [a, performance.now() - t]
}

const evidences = companies.map(evidenceOf)
// Warm-up: the profile index is built once per process.
NaicsClassifier.classify(evidences[0]!)
bm25(evidences[0]!)

const run = (
  name: string,
  rank: (e: CompanyEvidence.CompanyEvidence) => { codes: ReadonlyArray<string>; confidence?: NaicsClassifier.Confidence },
  set: ReadonlyArray<Company> = companies,
  evs: ReadonlyArray<CompanyEvidence.CompanyEvidence> = evidences
) =>
  set.map((company, i): Outcome => {
    const [r, ms] = time(() => rank(evs[i]!))
    return { company, ranked: r.codes, confidence: r.confidence, ms }
  })

const ours = run("classifier", (e) => {
  const ranked = NaicsClassifier.classify(e, { maxResults: 5 })
  return { codes: ranked.map((r) => r.code), confidence: ranked[0]?.confidence }
})
const baseline = run("bm25", (e) => ({ codes: bm25(e) }))
/** Each tuning batch (its own list, outside the split): tuned on in full, never part of dev or held-out. */
const batchRuns = tuningBatches.map(([n, batch]) => {
  const evs = batch.map(evidenceOf)
  const classified = run("classifier", (e) => {
    const ranked = NaicsClassifier.classify(e, { maxResults: 5 })
    return { codes: ranked.map((r) => r.code), confidence: ranked[0]?.confidence }
  }, batch, evs)
  return { n, ours: classified, baseline: run("bm25", (e) => ({ codes: bm25(e) }), batch, evs) }
})

const accepted = (c: Company, code: string | undefined, digits: number): boolean =>
  code !== undefined && [c.code, ...(c.alternates ?? [])].some((x) => x.slice(0, digits) === code.slice(0, digits))
const exact = (c: Company, code: string | undefined, digits: number): boolean =>
  code !== undefined && c.code.slice(0, digits) === code.slice(0, digits)

const percentile = (xs: Array<number>, p: number) => xs.sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))]!

const report = (label: string, outcomes: ReadonlyArray<Outcome>) => {
  const n = outcomes.length
  const rate = (f: (o: Outcome) => boolean) => (outcomes.filter(f).length / n).toFixed(3)
  const high = outcomes.filter((o) => o.confidence === "high")
  const highRight = high.filter((o) => accepted(o.company, o.ranked[0], 6)).length
  return {
    set: label,
    n,
    "top1@6": rate((o) => exact(o.company, o.ranked[0], 6)),
    "top1@6 (alt ok)": rate((o) => accepted(o.company, o.ranked[0], 6)),
    "top5@6": rate((o) => o.ranked.slice(0, 5).some((c) => accepted(o.company, c, 6))),
    "top1@4": rate((o) => accepted(o.company, o.ranked[0], 4)),
    "top1@2": rate((o) => accepted(o.company, o.ranked[0], 2)),
    high: high.length === 0 ? "-" : `${highRight}/${high.length} = ${(highRight / high.length).toFixed(3)}`,
    "p50 ms": percentile(outcomes.map((o) => o.ms), 0.5).toFixed(2),
    "p95 ms": percentile(outcomes.map((o) => o.ms), 0.95).toFixed(2)
  }
}

const split = (outcomes: ReadonlyArray<Outcome>, held: boolean) => outcomes.filter((_, i) => (i % 3 === 2) === held)
/** Companies appended for issue 23 (other authors and layouts), reported apart as well. */
const firstSet = 122
/**
 * Companies written after a round of tuning, by another pass of the same author: 220-255 after the first, 256-285 after
 * the second, 286 on after the third. Each batch was unseen as a whole when first measured (its commit says how it
 * read); the next round tuned on its dev two thirds, and the held-out third of every batch stays unseen for good.
 */
const afterFirstRound = 220
const latestBatch = 286
const from = (outcomes: ReadonlyArray<Outcome>, start: number) => outcomes.filter((o) => companies.indexOf(o.company) >= start)
console.table([
  report("classifier dev", split(ours, false)),
  report("classifier held-out", split(ours, true)),
  report("classifier held-out, appended", from(split(ours, true), firstSet)),
  report("classifier held-out, written after tuning", from(split(ours, true), afterFirstRound)),
  report("classifier latest batch (286+)", from(ours, latestBatch)),
  report("classifier all", ours),
  ...batchRuns.map((b) => report(`classifier tuning batch ${b.n}`, b.ours)),
  report("bm25 dev", split(baseline, false)),
  report("bm25 held-out", split(baseline, true)),
  report("bm25 all", baseline),
  ...batchRuns.map((b) => report(`bm25 tuning batch ${b.n}`, b.baseline))
])
const p50 = (o: ReadonlyArray<Outcome>) => percentile(o.map((x) => x.ms), 0.5)
console.log(`latency ratio classifier/bm25 p50: ${(p50(ours) / p50(baseline)).toFixed(2)}`)

if (process.argv.includes("--misses")) {
  ours.forEach((o, i) => {
    if (i % 3 === 2 && !process.argv.includes("--all")) return
    if (!accepted(o.company, o.ranked[0], 6)) {
      console.log(`${i % 3 === 2 ? "HELD " : ""}${o.company.name} want ${o.company.code} got ${o.ranked.slice(0, 5).join(" ")} (${o.confidence})`)
    }
  })
  for (const b of batchRuns) {
    for (const o of b.ours) {
      if (!accepted(o.company, o.ranked[0], 6)) {
        console.log(`T${b.n} ${o.company.name} want ${o.company.code} got ${o.ranked.slice(0, 5).join(" ")} (${o.confidence})`)
      }
    }
  }
}
