/**
 * What the classifier knows about each code, precomputed once: the example phrases as word sequences (and how many
 * codes share each phrase), the content words of the title, and description term frequencies for a BM25 background.
 */
import * as Naics from "../../Naics.js"
import { terms, words } from "./text.js"

/** One code's matching profile. */
export interface Profile {
  readonly industry: Naics.Industry
  readonly phrases: ReadonlyArray<ReadonlyArray<string>>
  readonly titleTerms: ReadonlyArray<string>
  readonly docTerms: ReadonlyMap<string, number>
  readonly docLength: number
}

/** The index over all codes. */
export interface ProfileIndex {
  readonly profiles: ReadonlyArray<Profile>
  /** First word of a phrase → [profile index, phrase] pairs, for matching a text in one pass. */
  readonly phrasesByHead: ReadonlyMap<string, ReadonlyArray<readonly [number, ReadonlyArray<string>]>>
  /** Codes sharing a phrase (joined by spaces). */
  readonly phraseSpread: ReadonlyMap<string, number>
  readonly idf: ReadonlyMap<string, number>
  readonly averageLength: number
  /** Term → [profile index, frequency in its description] pairs, so scoring visits only the codes a term occurs in. */
  readonly postings: ReadonlyMap<string, ReadonlyArray<readonly [number, number]>>
}

/** Title words that say little about what a business does. */
const weakTitleWords = new Set(["manufacturing", "service", "miscellaneous", "product", "activity", "related", "general", "office", "support", "establishment"])

let cached: ProfileIndex | undefined

/** Builds (once) the profile index of every NAICS 2022 code. */
export const profileIndex = (): ProfileIndex => {
  if (cached !== undefined) return cached
  const profiles: Array<Profile> = Naics.industries().map((industry) => {
    const titleTerms = [...new Set(terms(industry.title))].filter((t) => !weakTitleWords.has(t))
    const doc = [...terms(industry.title), ...terms(industry.title), ...terms(industry.description), ...industry.examples.flatMap(terms)]
    const docTerms = new Map<string, number>()
    for (const t of doc) docTerms.set(t, (docTerms.get(t) ?? 0) + 1)
    // Examples that stem alike ("escape room", "escape rooms") are one phrase, so a code never dilutes its own phrase.
    const phrases = [...new Map(industry.examples.map(words).filter((p) => p.length > 0).map((p) => [p.join(" "), p])).values()]
    return { industry, phrases, titleTerms, docTerms, docLength: doc.length }
  })
  const phrasesByHead = new Map<string, Array<readonly [number, ReadonlyArray<string>]>>()
  const phraseSpread = new Map<string, number>()
  profiles.forEach((profile, i) => {
    for (const phrase of profile.phrases) {
      const list = phrasesByHead.get(phrase[0]!) ?? []
      list.push([i, phrase])
      phrasesByHead.set(phrase[0]!, list)
      const key = phrase.join(" ")
      phraseSpread.set(key, (phraseSpread.get(key) ?? 0) + 1)
    }
  })
  const df = new Map<string, number>()
  const postings = new Map<string, Array<readonly [number, number]>>()
  profiles.forEach((p, i) => {
    for (const [t, f] of p.docTerms) {
      df.set(t, (df.get(t) ?? 0) + 1)
      const list = postings.get(t) ?? []
      list.push([i, f])
      postings.set(t, list)
    }
  })
  const n = profiles.length
  const idf = new Map([...df].map(([t, f]) => [t, Math.log(1 + (n - f + 0.5) / (f + 0.5))]))
  const averageLength = profiles.reduce((s, p) => s + p.docLength, 0) / n
  cached = { profiles, phrasesByHead, phraseSpread, idf, averageLength, postings }
  return cached
}

/** An example phrase found in a statement's words: its code's profile index and the words it spans. */
export interface PhraseMatch {
  readonly code: number
  readonly phrase: ReadonlyArray<string>
  readonly start: number
  readonly end: number
}

/** Every example phrase found in `words`, each at every place it starts. */
export const phraseMatches = (index: ProfileIndex, words: ReadonlyArray<string>): Array<PhraseMatch> => {
  const matches: Array<PhraseMatch> = []
  for (let i = 0; i < words.length; i++) {
    const candidates = index.phrasesByHead.get(words[i]!)
    if (candidates === undefined) continue
    for (const [code, phrase] of candidates) {
      if (i + phrase.length > words.length) continue
      let ok = true
      for (let j = 1; j < phrase.length && ok; j++) ok = words[i + j] === phrase[j]
      if (ok) matches.push({ code, phrase, start: i, end: i + phrase.length })
    }
  }
  return matches
}
