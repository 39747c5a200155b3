/** Tokenizing for NAICS matching: lower case, ASCII words, Sift's stemmer and a stop list. */
import { stem } from "../../Stem.js"

const stop = new Set(
  ("a an and are as at be by for from has have in is it its of on or our that the their this to we with you your " +
    "all other except primarily engaged establishments comprises industry including such these those which not " +
    "us more new can will one day") .split(" ")
)

/** Words whose stem would join an unrelated industry's ("hospitality" is no "hospital"): kept whole. */
const unstemmed = new Set(["hospitality"])

/** Words of a text, stemmed, stop words kept (phrases need them in place). */
export const words = (text: string): Array<string> =>
  (text.toLowerCase().normalize("NFKD").replace(/[\u0300-\u036f]/g, "").match(/[a-z0-9]+(?:[&'][a-z0-9]+)*/g) ?? [])
    .map((w) => (unstemmed.has(w) ? w : stem(w.replace(/'s?$/, ""))))

/** True for words that carry no topic. */
export const isStop = (word: string): boolean => stop.has(word) || word.length < 2

/** Content words only. */
export const terms = (text: string): Array<string> => words(text).filter((w) => !isStop(w))
