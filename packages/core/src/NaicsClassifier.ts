/**
 * The NAICS classifier: company evidence in, every six-digit NAICS 2022 code ranked out, with a confidence. The
 * default is deterministic and reads like an analyst: what the company says it *is* (title, description, first
 * heading, self-describing sentences) outweighs what it mentions, and words naming its customers ("software for
 * restaurants") count less than words naming its activity. Industry phrases, title words, schema.org business
 * types and a BM25 background over the NAICS descriptions add up to a score per code. An optional LLM re-ranker
 * (`NaicsReranker`, off by default) may reorder the top candidates.
 *
 * @since 0.1.0
 */
import { Config, Context, Effect, Layer, Option, Redacted } from "effect"
import type { CompanyEvidence } from "./CompanyEvidence.js"
import * as Naics from "./Naics.js"
import { type Adjustments, adjustments } from "./internal/naics/activity.js"
import { openAiRerank, type OpenAiRerankerOptions } from "./internal/naics/openAiReranker.js"
import { phraseMatches, profileIndex } from "./internal/naics/profiles.js"
import { schemaTypeCodes } from "./internal/naics/schemaTypes.js"
import { isAboutPage, type Statement, statementsOf } from "./internal/naics/statements.js"
import { isStop } from "./internal/naics/text.js"

/** How sure the classifier is of a code. @category models */
export type Confidence = "high" | "medium" | "low"

/** One ranked code. @category models */
export interface RankedCode {
  readonly code: string
  readonly name: string
  readonly confidence: Confidence
  /** The classifier's score (comparable within one classification only). */
  readonly score: number
}

/** Weight of a word naming a customer rather than the activity. */
const customerWeight = 0.3
/** Weight of a matched schema.org business type. */
const schemaTypeWeight = 6

/** The phrase part of the score: each distinct phrase counts by its best statement, repetitions a little more. */
const phraseScores = (statements: ReadonlyArray<Statement>): Map<number, number> => {
  const index = profileIndex()
  const best = new Map<string, { code: number; max: number; sum: number; length: number; spread: number }>()
  for (const s of statements) {
    const matches = phraseMatches(index, s.words)
    for (const m of matches) {
      // A phrase inside a longer phrase of another code ("holding company" in "bank holding company") is that code's.
      if (matches.some((o) => o.code !== m.code && o.start <= m.start && o.end >= m.end && o.end - o.start > m.end - m.start)) continue
      const w = s.weight * (s.customer[m.start] ? customerWeight : 1)
      const key = `${m.code}:${m.phrase.join(" ")}`
      const entry = best.get(key) ??
        { code: m.code, max: 0, sum: 0, length: m.phrase.length, spread: index.phraseSpread.get(m.phrase.join(" ")) ?? 1 }
      entry.max = Math.max(entry.max, w)
      entry.sum += w
      best.set(key, entry)
    }
  }
  const scores = new Map<number, number>()
  for (const e of best.values()) {
    const value = (e.max + 0.2 * Math.min(e.sum - e.max, 3 * e.max)) * (1 + 0.4 * (e.length - 1)) / e.spread
    scores.set(e.code, (scores.get(e.code) ?? 0) + value)
  }
  return scores
}

/** Weighted term frequencies of the evidence (customer words discounted). */
const termWeights = (statements: ReadonlyArray<Statement>): Map<string, { tf: number; max: number }> => {
  const tf = new Map<string, { tf: number; max: number }>()
  for (const s of statements) {
    s.words.forEach((word, i) => {
      if (isStop(word)) return
      const w = s.weight * (s.customer[i] ? customerWeight : 1)
      const e = tf.get(word) ?? { tf: 0, max: 0 }
      e.tf += w
      e.max = Math.max(e.max, w)
      tf.set(word, e)
    })
  }
  return tf
}

/** Scores every code (higher is better), unsorted. */
export const scoreAll = (evidence: CompanyEvidence): Float64Array => {
  // The activity sold is read once: it does not depend on how closely the about page is read.
  const activity = adjustments(evidence)
  const first = scoreWith(evidence, 0.8, activity)
  if (!evidence.pages.slice(1).some((p) => isAboutPage(p.url))) return first
  // Clear evidence stands; when it is ambiguous, the about page (where a company says what it is) is read more closely.
  const [top, second] = topTwo(first)
  return confidenceOf(top, second) === "high" ? first : scoreWith(evidence, aboutWeightWhenAmbiguous, activity)
}

/** Weight of the about page's statements when the homepage alone is ambiguous (the homepage's own are 1). */
const aboutWeightWhenAmbiguous = 1.3

const topTwo = (scores: Float64Array): [number, number] => {
  let top = -Infinity
  let second = -Infinity
  for (const s of scores) {
    if (s > top) [top, second] = [s, top]
    else if (s > second) second = s
  }
  return [top, second]
}

/** BM25's parameters, and each code's length normalisation (computed once, like the index). */
const k1 = 1.2
const b = 0.75
let norms: Float64Array | undefined
const bm25Norms = (): Float64Array => {
  if (norms !== undefined) return norms
  const index = profileIndex()
  norms = Float64Array.from(index.profiles, (p) => k1 * (1 - b + (b * p.docLength) / index.averageLength))
  return norms
}

let codes: ReadonlyMap<string, number> | undefined
/** Code → profile index (built once). */
const codeIndexOf = (): ReadonlyMap<string, number> =>
  codes ??= new Map(profileIndex().profiles.map((p, i) => [p.industry.code, i]))

const scoreWith = (evidence: CompanyEvidence, aboutWeight: number, activity: Adjustments): Float64Array => {
  const index = profileIndex()
  const statements = statementsOf(evidence, aboutWeight)
  const scores = new Float64Array(index.profiles.length)
  for (const [code, value] of phraseScores(statements)) scores[code]! += value
  const tf = termWeights(statements)
  // A BM25 background over the descriptions, so every code gets a rank: summed term by term over the postings of the
  // evidence's words (the codes a word never occurs in are never visited).
  const lengthNorms = bm25Norms()
  const bm25 = new Float64Array(index.profiles.length)
  for (const [t, q] of tf) {
    const list = index.postings.get(t)
    if (list === undefined) continue
    const idf = index.idf.get(t) ?? 0
    const saturation = Math.min(1, Math.log1p(q.tf) / 2)
    for (const [i, f] of list) bm25[i]! += idf * ((f * (k1 + 1)) / (f + lengthNorms[i]!)) * saturation
  }
  index.profiles.forEach((profile, i) => {
    // Title words present in the evidence, by their strongest statement, scaled by how specific they are.
    if (profile.titleTerms.length > 0) {
      let covered = 0
      for (const t of profile.titleTerms) covered += Math.min(3, tf.get(t)?.max ?? 0) * (index.idf.get(t) ?? 0)
      scores[i]! += (0.5 * covered) / Math.sqrt(profile.titleTerms.length)
    }
    scores[i]! += 0.15 * bm25[i]!
  })
  const codeIndex = codeIndexOf()
  // The activity sold decides between codes of one subject (maker or shop, software or its customers' trade, group).
  if (activity.factor.length > 0) {
    index.profiles.forEach((profile, i) => {
      for (const [prefix, f] of activity.factor) if (profile.industry.code.startsWith(prefix)) scores[i]! *= f
    })
  }
  for (const [code, value] of activity.bonus) {
    const at = codeIndex.get(code)
    if (at !== undefined) scores[at]! += value
  }
  const types = new Set(evidence.pages.flatMap((p) => p.jsonLdTypes))
  for (const type of types) {
    const at = codeIndex.get(schemaTypeCodes[type] ?? "")
    if (at !== undefined) scores[at]! += schemaTypeWeight
  }
  return scores
}

/**
 * Confidence from the winner's score and its lead over the runner-up, calibrated on the evaluation set
 * (`bench/naics`) so that "high" is right at least 90% of the time there.
 */
export const confidenceOf = (top: number, second: number): Confidence => {
  const lead = top <= 0 ? 0 : (top - second) / top
  if (top >= 8 && lead >= 0.3) return "high"
  if (top >= 4 && lead >= 0.12) return "medium"
  return "low"
}

/** Options of {@link classify}. */
export interface ClassifyOptions {
  /** Most codes returned (default 5, at most 10). */
  readonly maxResults?: number
}

/** Ranks the codes for the evidence, best first, `maxResults` of them; pure and deterministic. */
export const classify = (evidence: CompanyEvidence, options: ClassifyOptions = {}): ReadonlyArray<RankedCode> => {
  const scores = scoreAll(evidence)
  const { profiles } = profileIndex()
  const order = Array.from(scores.keys()).sort((a, b) => scores[b]! - scores[a]! || a - b)
  const max = Math.min(10, Math.max(1, options.maxResults ?? 5))
  const top = scores[order[0]!]!
  return order.slice(0, max).map((i, rank) => {
    const next = scores[order[rank + 1] ?? order[0]!]!
    const own = scores[i]!
    // Only the leader can be high; the others are at most medium, by their own lead over the next.
    const confidence = rank === 0 ? confidenceOf(own, next) : own >= top * 0.8 && own >= 4 ? "medium" : "low"
    return { code: profiles[i]!.industry.code, name: profiles[i]!.industry.title, confidence, score: own }
  })
}

/**
 * An optional re-ranker (an LLM behind an OpenAI-compatible endpoint, see `layerOpenAiReranker`): given the evidence
 * and the default's candidates, it returns codes in its preferred order. Absent by default.
 *
 * @category services
 */
export class NaicsReranker extends Context.Tag("@sift/core/NaicsReranker")<NaicsReranker, {
  readonly rerank: (
    evidence: CompanyEvidence,
    candidates: ReadonlyArray<RankedCode>
  ) => Effect.Effect<ReadonlyArray<string>>
}>() {}

/** A re-ranker over an OpenAI-compatible endpoint (`/chat/completions`); failures keep the default order. */
export const layerOpenAiReranker = (options: OpenAiRerankerOptions): Layer.Layer<NaicsReranker> =>
  Layer.succeed(NaicsReranker, { rerank: openAiRerank(options) })

/**
 * The re-ranker from `SIFT_NAICS_LLM_URL`, `SIFT_NAICS_LLM_MODEL` and `SIFT_NAICS_LLM_API_KEY`; `None` when the URL is
 * unset (the default: no LLM). Provide the layer only when it is `Some`.
 */
export const rerankerConfig = Config.all({
  baseUrl: Config.option(Config.string("SIFT_NAICS_LLM_URL")),
  model: Config.string("SIFT_NAICS_LLM_MODEL").pipe(Config.withDefault("gpt-4o-mini")),
  apiKey: Config.option(Config.redacted("SIFT_NAICS_LLM_API_KEY"))
}).pipe(Config.map(({ apiKey, baseUrl, model }) =>
  Option.map(baseUrl, (url) =>
    layerOpenAiReranker({ baseUrl: url, model, ...(Option.isSome(apiKey) ? { apiKey: Redacted.value(apiKey.value) } : {}) }))
))

/** Applies a re-ranker's order to the candidates; codes it invents or drops are ignored (the default order stays). */
export const applyOrder = (candidates: ReadonlyArray<RankedCode>, order: ReadonlyArray<string>): ReadonlyArray<RankedCode> => {
  const known = new Map(candidates.map((c) => [c.code, c]))
  const first = [...new Set(order)].flatMap((code) => (known.has(code) ? [known.get(code)!] : []))
  return [...first, ...candidates.filter((c) => !first.includes(c))]
}

/** Classifies, then lets a `NaicsReranker` reorder the top candidates when one is provided. */
export const classifyEffect = (
  evidence: CompanyEvidence,
  options: ClassifyOptions = {}
): Effect.Effect<ReadonlyArray<RankedCode>> =>
  Effect.gen(function*() {
    const ranked = classify(evidence, { maxResults: 10 })
    const reranker = yield* Effect.serviceOption(NaicsReranker)
    const ordered = Option.isNone(reranker) ? ranked : applyOrder(ranked, yield* reranker.value.rerank(evidence, ranked))
    return ordered.slice(0, Math.min(10, Math.max(1, options.maxResults ?? 5)))
  })

/** The sector title of a ranked code, for display. */
export const sectorTitle = (code: string): string | undefined => Naics.sectorOf(code)?.title
