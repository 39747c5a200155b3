import { describe, expect, it } from "@effect/vitest"
import * as Naics from "../../src/Naics.js"

describe("Naics", () => {
  it("ships every 2022 six-digit code once", () => {
    const all = Naics.industries()
    expect(all.length).toBe(1012)
    expect(new Set(all.map((i) => i.code)).size).toBe(all.length)
    expect(all.every((i) => /^\d{6}$/.test(i.code) && i.title.length > 3 && i.description.length > 20)).toBe(true)
  })

  it("maps known 2017 codes to their 2022 codes", () => {
    expect(Naics.from2017("511210")).toEqual(["513210"])
    expect(Naics.from2017("443142")).toEqual(["449210"])
    expect(Naics.from2017("448120")).toEqual(["458110"])
    expect(Naics.from2017("336111")).toEqual(["336110"])
    expect(Naics.from2017("523920")).toEqual(["523940"])
    expect(Naics.from2017("517312")).toEqual(["517112", "517122"])
    expect(Naics.from2017("454110")).toContain("458110")
    expect(Naics.from2017("722511")).toEqual(["722511"])
    expect(Naics.from2017("999999")).toEqual([])
  })

  it("retires 2017 codes and titles the new ones", () => {
    expect(Naics.get("511210")).toBeUndefined()
    expect(Naics.get("454110")).toBeUndefined()
    expect(Naics.get("513210")?.title).toBe("Software Publishers")
    expect(Naics.get("513210")?.description).toMatch(/software publishing/)
    expect(Naics.title("516210")).toMatch(/^Media Streaming Distribution Services, Social Networks/)
    expect(Naics.title("458110")).toBe("Clothing and Clothing Accessories Retailers")
    expect(Naics.get("458110")?.description).toMatch(/electronic shopping/)
  })

  it("carries examples, cross-references and sectors", () => {
    expect(Naics.get("312120")?.examples).toContain("taproom")
    expect(Naics.get("722410")?.crossReferences).toContainEqual({ text: expect.stringMatching(/Brewing/), code: "312120" })
    expect(Naics.sectorOf("513210")).toEqual({ code: "51", title: "Information" })
    expect(Naics.title("45")).toBe("Retail Trade")
    expect(Naics.isCode("921140")).toBe(true)
  })
})
