/** Tokenizing for NAICS matching: lower case, ASCII words, a light plural stemmer and a stop list. */

const stop = new Set(
  ("a an and are as at be by for from has have in is it its of on or our that the their this to we with you your " +
    "all other except primarily engaged establishments comprises industry including such these those which not " +
    "us more new can will one day") .split(" ")
)

/** Strips a plural ending so "breweries" meets "brewery" and "farms" meets "farm". */
export const stem = (word: string): string => {
  if (word.length > 4 && word.endsWith("ies")) return `${word.slice(0, -3)}y`
  if (word.length > 4 && /(ches|shes|sses|xes)$/.test(word)) return word.slice(0, -2)
  if (word.length > 3 && word.endsWith("s") && !/(ss|us|is)$/.test(word)) return word.slice(0, -1)
  return word
}

/** Words of a text, stemmed, stop words kept (phrases need them in place). */
export const words = (text: string): Array<string> =>
  (text.toLowerCase().normalize("NFKD").replace(/[\u0300-\u036f]/g, "").match(/[a-z0-9]+(?:[&'][a-z0-9]+)*/g) ?? [])
    .map((w) => stem(w.replace(/'s?$/, "")))

/** True for words that carry no topic. */
export const isStop = (word: string): boolean => stop.has(word) || word.length < 2

/** Content words only. */
export const terms = (text: string): Array<string> => words(text).filter((w) => !isStop(w))
