/**
 * Relevance ranking of a site's URLs for a search phrase (`search` of GET /web/urls): BM25 over the words of the URL
 * path, the page title, description and keywords, with the fields weighted (BM25F-style: weighted term counts, one
 * length normalisation). Only URLs matching at least one word of the phrase are kept, most relevant first.
 *
 * Words are lower-cased, accents folded and stemmed (Sift's one stemmer, `Stem`), so `/blog/pricing-plans` matches
 * "pricing plan"; a page whose URL or title holds the whole phrase in order ranks above one that merely has its words.
 * URLs without metadata still rank by their path words; enrichment only sharpens the order.
 *
 * @since 0.1.0
 */
import { stem } from "./Stem.js"

/** What is searched for one URL. @category models */
export interface SearchDocument {
  readonly url: string
  readonly title?: string | undefined
  readonly description?: string | undefined
  readonly keywords?: ReadonlyArray<string> | undefined
}

/** A document with its score. @category models */
export interface Ranked<D> {
  readonly document: D
  readonly score: number
}

/** How much one occurrence counts in each field: a word in the title says more than one in the description. */
export const fieldWeights = { url: 2, title: 3, keywords: 2, description: 1 } as const

const K1 = 1.2
const B = 0.75

// Words every URL or page shares; they carry no relevance.
const stopWords = new Set([
  "a", "an", "and", "are", "as", "at", "be", "by", "for", "from", "in", "is", "it", "of", "on", "or", "the", "to",
  "with", "www", "http", "https", "html", "htm", "php", "aspx", "index"
])

/** The search words of a text: lower-case, accents folded, split at anything not a letter or digit, stemmed. */
export const tokenize = (text: string): Array<string> => {
  const out: Array<string> = []
  const folded = text.normalize("NFKD").replace(/\p{M}+/gu, "").toLowerCase()
  for (const word of folded.split(/[^\p{L}\p{N}]+/u)) {
    if (word === "" || stopWords.has(word)) continue
    out.push(stem(word))
  }
  return out
}

/** The words of a URL's path and query (percent-decoded; camelCase split), not its host. */
export const urlWords = (url: string): Array<string> => {
  let text = url
  try {
    const parsed = new URL(url)
    text = `${parsed.pathname} ${parsed.search}`
  } catch {
    // Not a URL: search the text as it is.
  }
  try {
    text = decodeURIComponent(text)
  } catch {
    // Malformed escapes: keep the raw text.
  }
  return tokenize(text.replace(/([a-z])([A-Z])/g, "$1 $2"))
}

interface Weighted {
  readonly counts: Map<string, number>
  readonly length: number
  /** URL words and title words, for phrase matching. */
  readonly sequences: ReadonlyArray<ReadonlyArray<string>>
}

/** How much a document gains when the whole phrase appears in order in its URL or title. */
export const PHRASE_BOOST = 1.5

const containsSequence = (words: ReadonlyArray<string>, phrase: ReadonlyArray<string>): boolean => {
  outer: for (let i = 0; i + phrase.length <= words.length; i++) {
    for (let j = 0; j < phrase.length; j++) if (words[i + j] !== phrase[j]) continue outer
    return true
  }
  return false
}

const weigh = (document: SearchDocument): Weighted => {
  const counts = new Map<string, number>()
  let length = 0
  const add = (words: ReadonlyArray<string>, weight: number) => {
    for (const word of words) {
      counts.set(word, (counts.get(word) ?? 0) + weight)
      length += weight
    }
  }
  const inUrl = urlWords(document.url)
  const inTitle = document.title === undefined ? [] : tokenize(document.title)
  add(inUrl, fieldWeights.url)
  add(inTitle, fieldWeights.title)
  if (document.keywords !== undefined) add(tokenize(document.keywords.join(" ")), fieldWeights.keywords)
  if (document.description !== undefined) add(tokenize(document.description), fieldWeights.description)
  return { counts, length, sequences: [inUrl, inTitle] }
}

/** Scores every document for `query` (BM25F); documents sharing no word with it are left out. Best first, stable. */
export const rank = <D extends SearchDocument>(documents: ReadonlyArray<D>, query: string): Array<Ranked<D>> => {
  const phrase = tokenize(query)
  const terms = [...new Set(phrase)]
  if (terms.length === 0 || documents.length === 0) return []
  const weighted = documents.map(weigh)
  const averageLength = weighted.reduce((sum, w) => sum + w.length, 0) / weighted.length || 1
  const idf = new Map<string, number>()
  for (const term of terms) {
    let containing = 0
    for (const w of weighted) if (w.counts.has(term)) containing++
    idf.set(term, Math.log(1 + (documents.length - containing + 0.5) / (containing + 0.5)))
  }
  const ranked: Array<Ranked<D> & { readonly order: number }> = []
  for (let i = 0; i < documents.length; i++) {
    const w = weighted[i]!
    let score = 0
    for (const term of terms) {
      const tf = w.counts.get(term)
      if (tf === undefined) continue
      score += idf.get(term)! * (tf * (K1 + 1)) / (tf + K1 * (1 - B + B * (w.length / averageLength)))
    }
    if (score > 0 && phrase.length > 1 && w.sequences.some((words) => containsSequence(words, phrase))) score *= PHRASE_BOOST
    if (score > 0) ranked.push({ document: documents[i]!, score, order: i })
  }
  ranked.sort((a, b) => b.score - a.score || a.order - b.order)
  return ranked.map(({ document, score }) => ({ document, score }))
}

/** The documents about `query`, most relevant first (see {@link rank}). */
export const search = <D extends SearchDocument>(documents: ReadonlyArray<D>, query: string): Array<D> =>
  rank(documents, query).map((r) => r.document)
