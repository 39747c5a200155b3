import { describe, expect, it } from "vitest"
import * as Sic from "../src/Sic.js"
import { approximate, naicsToSic, secCodes, sicTitles } from "../src/internal/sic/data.js"
import { rows } from "../src/internal/naics/codes.js"

describe("SIC tables", () => {
  it("every NAICS 2022 code reaches at least one titled 1987 SIC code; only three through a sibling", () => {
    for (const [code] of rows) {
      expect(naicsToSic[code]?.length, code).toBeGreaterThan(0)
      for (const sic of naicsToSic[code]!) expect(sicTitles[sic], `${code} -> ${sic}`).toBeDefined()
    }
    expect([...approximate].sort()).toEqual(["112130", "541120", "551114"])
    expect(Object.keys(secCodes)).toHaveLength(444)
  })

  it("follows the revisions: 2022 software publishers (513210, 511210 before 2022) are prepackaged software", () => {
    expect(naicsToSic["513210"]).toEqual(["7372"])
    expect(naicsToSic["722511"]![0]).toBe("5812")
    expect(sicTitles["7372"]).toBe("Prepackaged Software")
    expect(sicTitles["0119"]).toBe("Cash Grains, NEC")
  })

  it("maps to the SEC's list exactly, else to its industry or major group", () => {
    expect(Sic.secCodeOf("7372")).toBe("7372")
    expect(Sic.secCodeOf("7379")).toBe("7370")
    expect(Sic.secCodeOf("1041")).toBe("1040")
    expect(Sic.secCodeOf("0111")).toBe("0100")
  })

  it("keeps the NAICS order and confidence, dedupes, caps, and lowers secondary codes", () => {
    const codes = Sic.fromNaics([{ code: "513210", confidence: "high" }, { code: "541511", confidence: "medium" }, { code: "511210", confidence: "low" }], "original_sic", 5)
    expect(codes.slice(0, 2)).toEqual([
      { code: "7372", name: "Prepackaged Software", confidence: "high", majorGroup: "73", majorGroupName: "Business Services" },
      { code: "7371", name: "Computer Programming Services", confidence: "medium", majorGroup: "73", majorGroupName: "Business Services" }
    ])
    const sec = Sic.fromNaics([{ code: "513210", confidence: "high" }, { code: "541511", confidence: "medium" }], "latest_sec", 1)
    expect(sec).toEqual([{ code: "7372", name: "SERVICES-PREPACKAGED SOFTWARE", confidence: "high", office: "Office of Technology" }])
  })
})
