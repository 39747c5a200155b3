/**
 * Generates `src/internal/sic/data.ts`: NAICS 2022 → SIC 1987 (the US Census Bureau's concordances), the 1987 SIC
 * titles and major groups, and the SEC's SIC code list with its reviewing offices. Sources, all US government works
 * in `scripts/data/sic/`:
 * - `1987_SIC_to_2002_NAICS.csv`: the Census Bureau's "1987 SIC to 2002 NAICS" concordance (census.gov/naics,
 *   Concordances), one row per SIC part and the 2002 NAICS code it went to;
 * - `2002_to_2007_NAICS.csv`, `2007_to_2012_NAICS.csv`, `2012_to_2017_NAICS.csv`: the Census Bureau's NAICS revision
 *   concordances, and `naics2022Changes.ts` for 2017 → 2022 (as `buildNaicsData.ts` uses it);
 * - `secSicCodes.tsv`: the SEC's "Standard Industrial Classification (SIC) Code List" (code, office, title);
 * - the major groups below: the 83 two-digit major groups of the 1987 SIC Manual (OSHA's online edition).
 * A 2022 code is linked to the SIC codes whose parts reach it through every revision; a 2022 code no chain reaches
 * (three: 112130, 541120 and 551114, which no 1987 industry became) takes the SIC codes of its closest 2022 sibling
 * and is listed in `approximate`; a code with neither fails the build.
 *
 * Run: `npx tsx packages/core/scripts/buildSicData.ts`
 */
import { readFileSync, writeFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { rows as naicsRows } from "../src/internal/naics/codes.js"
import { from2017 } from "./naics2022Changes.js"

const dataDir = fileURLToPath(new URL("./data/sic/", import.meta.url))

/** RFC 4180 rows (quoted fields, doubled quotes), header dropped. */
const csv = (name: string): Array<Array<string>> => {
  const text = readFileSync(dataDir + name, "utf8").replace(/^\uFEFF/, "")
  const rows: Array<Array<string>> = []
  let row: Array<string> = []
  let field = ""
  let quoted = false
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!
    if (quoted) {
      if (c === "\"" && text[i + 1] === "\"") (field += "\"", i++)
      else if (c === "\"") quoted = false
      else field += c
    } else if (c === "\"") quoted = true
    else if (c === ",") (row.push(field), field = "")
    else if (c === "\n" || c === "\r") {
      if (c === "\r" && text[i + 1] === "\n") i++
      row.push(field), rows.push(row), row = [], field = ""
    } else field += c
  }
  if (field !== "" || row.length > 0) (row.push(field), rows.push(row))
  return rows.slice(1).filter((r) => r.some((f) => f.trim() !== ""))
}

const sic4 = (code: string) => code.trim().padStart(4, "0")

/** A revision concordance as old code → new codes (codes it does not list stay as they are). */
const revision = (name: string): Map<string, Array<string>> => {
  const map = new Map<string, Array<string>>()
  for (const [from, , to] of csv(name)) {
    if (!/^\d{6}$/.test(from!.trim()) || !/^\d{6}$/.test(to!.trim())) continue
    const list = map.get(from!.trim()) ?? []
    if (!list.includes(to!.trim())) list.push(to!.trim())
    map.set(from!.trim(), list)
  }
  return map
}

const steps = [revision("2002_to_2007_NAICS.csv"), revision("2007_to_2012_NAICS.csv"), revision("2012_to_2017_NAICS.csv"), from2017]
const forward = (code: string): Array<string> =>
  steps.reduce<Array<string>>((codes, step) => [...new Set(codes.flatMap((c) => step.get(c) ?? [c]))], [code])

// SIC → 2002 parts, carried forward to 2022; a SIC's weight for a code is how many of its parts reach it.
const titleParts = new Map<string, Array<string>>()
const weights = new Map<string, Map<string, number>>()
for (const [sic, title, naics2002] of csv("1987_SIC_to_2002_NAICS.csv")) {
  if (!/^\d{1,4}$/.test(sic!.trim()) || !/^\d{6}$/.test(naics2002!.trim())) continue
  const code = sic4(sic!)
  titleParts.set(code, [...(titleParts.get(code) ?? []), title!])
  for (const naics of forward(naics2002!.trim())) {
    const bySic = weights.get(naics) ?? new Map<string, number>()
    bySic.set(code, (bySic.get(code) ?? 0) + 1)
    weights.set(naics, bySic)
  }
}

/** The title without the concordance's part qualifiers: "Cash Grains, NEC (dry pea and bean farms)" → "Cash Grains, NEC". */
const bareTitle = (title: string): string =>
  title.replace(/\s*\([^)]*\)/g, "").replace(/\s*\[[^\]]*\]/g, "").replace(/\s+/g, " ").replace(/\s+,/g, ",").replace(/--/g, " - ").trim()

const sicTitles: Record<string, string> = {}
for (const [code, titles] of [...titleParts.entries()].sort(([a], [b]) => a.localeCompare(b))) {
  // Parts of one code share its title; the shortest bare form is the title without a part's wording.
  sicTitles[code] = titles.map(bareTitle).filter((t) => t !== "").sort((a, b) => a.length - b.length)[0] ?? titles[0]!.trim()
}

const naicsToSic: Record<string, Array<string>> = {}
const approximate: Array<string> = []
const codes2022 = naicsRows.map((row) => row[0])
for (const code of codes2022) {
  const found = weights.get(code)
  if (found !== undefined) {
    naicsToSic[code] = [...found.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).map(([sic]) => sic)
  }
}
for (const code of codes2022) {
  if (naicsToSic[code] !== undefined) continue
  for (const length of [5, 4, 3]) {
    const sibling = codes2022.find((other) => other !== code && other.startsWith(code.slice(0, length)) && naicsToSic[other] !== undefined)
    if (sibling !== undefined) {
      naicsToSic[code] = naicsToSic[sibling]!
      approximate.push(code)
      break
    }
  }
  if (naicsToSic[code] === undefined) throw new Error(`no SIC code reaches NAICS ${code}`)
}

const secCodes: Record<string, readonly [string, string]> = {}
for (const line of readFileSync(dataDir + "secSicCodes.tsv", "utf8").split("\n")) {
  if (line.startsWith("#") || line.trim() === "") continue
  const [code, office, title] = line.split("\t") as [string, string, string]
  secCodes[code] = [office, title.trim()]
}

/** The 1987 SIC Manual's major groups. */
const majorGroups: Record<string, string> = {
  "01": "Agricultural Production - Crops",
  "02": "Agricultural Production - Livestock and Animal Specialties",
  "07": "Agricultural Services",
  "08": "Forestry",
  "09": "Fishing, Hunting, and Trapping",
  "10": "Metal Mining",
  "12": "Coal Mining",
  "13": "Oil and Gas Extraction",
  "14": "Mining and Quarrying of Nonmetallic Minerals, Except Fuels",
  "15": "Building Construction - General Contractors and Operative Builders",
  "16": "Heavy Construction Other Than Building Construction - Contractors",
  "17": "Construction - Special Trade Contractors",
  "20": "Food and Kindred Products",
  "21": "Tobacco Products",
  "22": "Textile Mill Products",
  "23": "Apparel and Other Finished Products Made from Fabrics and Similar Materials",
  "24": "Lumber and Wood Products, Except Furniture",
  "25": "Furniture and Fixtures",
  "26": "Paper and Allied Products",
  "27": "Printing, Publishing, and Allied Industries",
  "28": "Chemicals and Allied Products",
  "29": "Petroleum Refining and Related Industries",
  "30": "Rubber and Miscellaneous Plastics Products",
  "31": "Leather and Leather Products",
  "32": "Stone, Clay, Glass, and Concrete Products",
  "33": "Primary Metal Industries",
  "34": "Fabricated Metal Products, Except Machinery and Transportation Equipment",
  "35": "Industrial and Commercial Machinery and Computer Equipment",
  "36": "Electronic and Other Electrical Equipment and Components, Except Computer Equipment",
  "37": "Transportation Equipment",
  "38": "Measuring, Analyzing, and Controlling Instruments; Photographic, Medical and Optical Goods; Watches and Clocks",
  "39": "Miscellaneous Manufacturing Industries",
  "40": "Railroad Transportation",
  "41": "Local and Suburban Transit and Interurban Highway Passenger Transportation",
  "42": "Motor Freight Transportation and Warehousing",
  "43": "United States Postal Service",
  "44": "Water Transportation",
  "45": "Transportation by Air",
  "46": "Pipelines, Except Natural Gas",
  "47": "Transportation Services",
  "48": "Communications",
  "49": "Electric, Gas, and Sanitary Services",
  "50": "Wholesale Trade - Durable Goods",
  "51": "Wholesale Trade - Nondurable Goods",
  "52": "Building Materials, Hardware, Garden Supply, and Mobile Home Dealers",
  "53": "General Merchandise Stores",
  "54": "Food Stores",
  "55": "Automotive Dealers and Gasoline Service Stations",
  "56": "Apparel and Accessory Stores",
  "57": "Home Furniture, Furnishings, and Equipment Stores",
  "58": "Eating and Drinking Places",
  "59": "Miscellaneous Retail",
  "60": "Depository Institutions",
  "61": "Nondepository Credit Institutions",
  "62": "Security and Commodity Brokers, Dealers, Exchanges, and Services",
  "63": "Insurance Carriers",
  "64": "Insurance Agents, Brokers, and Service",
  "65": "Real Estate",
  "67": "Holding and Other Investment Offices",
  "70": "Hotels, Rooming Houses, Camps, and Other Lodging Places",
  "72": "Personal Services",
  "73": "Business Services",
  "75": "Automotive Repair, Services, and Parking",
  "76": "Miscellaneous Repair Services",
  "78": "Motion Pictures",
  "79": "Amusement and Recreation Services",
  "80": "Health Services",
  "81": "Legal Services",
  "82": "Educational Services",
  "83": "Social Services",
  "84": "Museums, Art Galleries, and Botanical and Zoological Gardens",
  "86": "Membership Organizations",
  "87": "Engineering, Accounting, Research, Management, and Related Services",
  "88": "Private Households",
  "89": "Miscellaneous Services",
  "91": "Executive, Legislative, and General Government, Except Finance",
  "92": "Justice, Public Order, and Safety",
  "93": "Public Finance, Taxation, and Monetary Policy",
  "94": "Administration of Human Resource Programs",
  "95": "Administration of Environmental Quality and Housing Programs",
  "96": "Administration of Economic Programs",
  "97": "National Security and International Affairs",
  "99": "Nonclassifiable Establishments"
}
if (Object.keys(majorGroups).length !== 83) throw new Error("the 1987 SIC has 83 major groups")
for (const code of Object.keys(sicTitles)) {
  if (majorGroups[code.slice(0, 2)] === undefined) throw new Error(`SIC ${code} has no major group`)
}

const out = `/**
 * SIC data, generated by \`packages/core/scripts/buildSicData.ts\` from the US Census Bureau's concordances and the
 * SEC's SIC code list (see that script for the sources): do not edit by hand.
 */

/** NAICS 2022 code → its 1987 SIC codes, the SIC reaching it through the most concordance parts first. */
export const naicsToSic: Readonly<Record<string, ReadonlyArray<string>>> = ${JSON.stringify(naicsToSic).replace(/\],"/g, "],\n  \"")}

/** NAICS 2022 codes no concordance chain reaches, linked through their closest sibling code instead. */
export const approximate: ReadonlySet<string> = new Set(${JSON.stringify(approximate)})

/** 1987 SIC four-digit code → title (${Object.keys(sicTitles).length} codes). */
export const sicTitles: Readonly<Record<string, string>> = ${JSON.stringify(sicTitles).replace(/","/g, "\",\n  \"")}

/** 1987 SIC major group (two digits) → name. */
export const majorGroups: Readonly<Record<string, string>> = ${JSON.stringify(majorGroups).replace(/","/g, "\",\n  \"")}

/** The SEC's SIC code list: code → [reviewing office, industry title] (${Object.keys(secCodes).length} codes). */
export const secCodes: Readonly<Record<string, readonly [string, string]>> = ${JSON.stringify(secCodes).replace(/\],"/g, "],\n  \"")}
`
writeFileSync(fileURLToPath(new URL("../src/internal/sic/data.ts", import.meta.url)), out)
console.log(`${Object.keys(naicsToSic).length} NAICS codes (${approximate.length} approximate), ${Object.keys(sicTitles).length} SIC titles, ${Object.keys(secCodes).length} SEC codes`)
