/**
 * English word stems, one stemmer for every word matcher of Sift (NAICS terms and phrases, URL search, the monitors'
 * deterministic judge): Porter's algorithm from the `stemmer` package, so that "breweries" meets "brewery", "prices"
 * "price", "released" "release", "shipping" "ship" and "openings" "open". Both sides of a comparison must be stemmed
 * here.
 *
 * @since 0.1.0
 */
import { stemmer } from "stemmer"

// Words repeat (a URL set, a page, the NAICS profiles): remembered stems cost a lookup instead of Porter's five steps.
const MAX_REMEMBERED = 50_000
const remembered = new Map<string, string>()

/** The stem of one word (lower-cased). */
export const stem = (word: string): string => {
  let found = remembered.get(word)
  if (found === undefined) {
    found = stemmer(word)
    if (remembered.size >= MAX_REMEMBERED) remembered.clear()
    remembered.set(word, found)
  }
  return found
}
