/**
 * Listed companies for news by ticker or ISIN, and their SEC Central Index Keys for EDGAR filings. CIKs are the SEC's
 * own (its public company_tickers.json, sec.gov/files/company_tickers.json); ISINs are the issuers' as printed on
 * their SEC filings' cover pages. An operator extends the table with `SIFT_NEWS_COMPANIES_FILE` (JSON:
 * `[{ "name", "domain", "ticker", "exchange", "cik", "isin" }]`).
 */
import { readFileSync } from "node:fs"

/** One listed company. */
export interface Company {
  readonly name: string
  readonly domain: string
  readonly ticker: string
  readonly exchange: string
  readonly cik: string | undefined
  readonly isin: string | undefined
}

// [name, domain, ticker, exchange, CIK, ISIN]
const BUNDLED: ReadonlyArray<readonly [string, string, string, string, string, string]> = [
  ["Apple", "apple.com", "AAPL", "NASDAQ", "320193", "US0378331005"],
  ["Microsoft", "microsoft.com", "MSFT", "NASDAQ", "789019", "US5949181045"],
  ["Alphabet", "abc.xyz", "GOOGL", "NASDAQ", "1652044", "US02079K3059"],
  ["Amazon", "amazon.com", "AMZN", "NASDAQ", "1018724", "US0231351067"],
  ["Meta Platforms", "meta.com", "META", "NASDAQ", "1326801", "US30303M1027"],
  ["NVIDIA", "nvidia.com", "NVDA", "NASDAQ", "1045810", "US67066G1040"],
  ["Tesla", "tesla.com", "TSLA", "NASDAQ", "1318605", "US88160R1014"],
  ["Netflix", "netflix.com", "NFLX", "NASDAQ", "1065280", "US64110L1061"],
  ["Intel", "intel.com", "INTC", "NASDAQ", "50863", "US4581401001"],
  ["Cisco", "cisco.com", "CSCO", "NASDAQ", "858877", "US17275R1023"],
  ["Adobe", "adobe.com", "ADBE", "NASDAQ", "796343", "US00724F1012"],
  ["IBM", "ibm.com", "IBM", "NYSE", "51143", "US4592001014"],
  ["Oracle", "oracle.com", "ORCL", "NYSE", "1341439", "US68389X1054"],
  ["Salesforce", "salesforce.com", "CRM", "NYSE", "1108524", "US79466L3024"],
  ["JPMorgan Chase", "jpmorganchase.com", "JPM", "NYSE", "19617", "US46625H1005"],
  ["Walmart", "walmart.com", "WMT", "NYSE", "104169", "US9311421039"],
  ["Coca-Cola", "coca-colacompany.com", "KO", "NYSE", "21344", "US1912161007"],
  ["Nike", "nike.com", "NKE", "NYSE", "320187", "US6541061031"]
]

let table: ReadonlyArray<Company> | undefined

const load = (): ReadonlyArray<Company> => {
  if (table !== undefined) return table
  const companies: Array<Company> = BUNDLED.map(([name, domain, ticker, exchange, cik, isin]) => ({ name, domain, ticker, exchange, cik, isin }))
  const file = process.env["SIFT_NEWS_COMPANIES_FILE"]
  if (file !== undefined && file.trim() !== "") {
    const text = readFileSync(file, "utf8")
    // A companies file is a small table: past 8 MiB it is refused rather than parsed.
    if (text.length > 8 * 1024 * 1024) throw new Error(`SIFT_NEWS_COMPANIES_FILE: ${file} is over 8 MiB`)
    const extra: unknown = JSON.parse(text)
    for (const item of Array.isArray(extra) ? extra : []) {
      if (typeof item?.name !== "string" || typeof item?.domain !== "string") continue
      companies.unshift({
        name: item.name,
        domain: String(item.domain).toLowerCase(),
        ticker: String(item.ticker ?? "").toUpperCase(),
        exchange: String(item.exchange ?? "").toUpperCase(),
        cik: item.cik === undefined ? undefined : String(item.cik).replace(/^0+/, ""),
        isin: item.isin === undefined ? undefined : String(item.isin).toUpperCase()
      })
    }
  }
  return table = companies
}

/** The company of a ticker (on `exchange` when given). */
export const byTicker = (ticker: string, exchange?: string): Company | undefined =>
  load().find((c) => c.ticker === ticker.trim().toUpperCase() && (exchange === undefined || c.exchange === exchange))

/** The company of an ISIN. */
export const byIsin = (isin: string): Company | undefined => load().find((c) => c.isin === isin.trim().toUpperCase())

/** The listed company of a domain, if it is one. */
export const byDomain = (domain: string): Company | undefined => load().find((c) => c.domain === domain)

/** The listed company of a name (case-insensitive, exact). */
export const byName = (name: string): Company | undefined => load().find((c) => c.name.toLowerCase() === name.trim().toLowerCase())
