/** Sift's one stemmer (NAICS, URL search, the monitors' judge): the word pairs each matcher relies on meet. */
import { describe, expect, it } from "@effect/vitest"
import { stem } from "../src/Stem.js"

describe("Stem", () => {
  it("brings inflections of one word together and keeps different words apart", () => {
    const pairs = [
      ["breweries", "brewery"], ["farms", "farm"], ["churches", "church"], ["boxes", "box"], ["classes", "class"],
      ["prices", "price"], ["released", "release"], ["shipping", "ship"], ["openings", "open"], ["plans", "plan"],
      ["pricing", "price"], ["Guides", "guide"]
    ]
    for (const [a, b] of pairs) expect(stem(a!), `${a} / ${b}`).toBe(stem(b!))
    for (const [a, b] of [["bus", "business"], ["news", "newspaper"], ["price", "prize"]]) expect(stem(a!)).not.toBe(stem(b!))
    // Remembered stems are the same stems.
    expect(stem("breweries")).toBe(stem("breweries"))
  })
})
